//! The server's limit on the number of moves of a game, at every entry point that reads
//! a game and for every variant: a legal record of exactly the limit is served, one
//! move more is INVALID_ARGUMENT with a `google.rpc.BadRequest` naming the field.

use chuhe::api::proto::{self, Notation, Variant};
use chuhe::rules::types::Move;
use chuhe::rules::{janggi, three_kingdoms, xiangqi};
use chuhe::service::server::ServerConfig;
use tonic::transport::Channel;

use crate::common;

use common::walk::walk;
use common::{bad_field, convert_request};

/// The limit the server is started with.
const LIMIT: usize = 8;

/// A legal record of `plies` moves from the variant's start, in the text the API reads
/// (ICCS, or point names in Three Kingdoms), visiting no position twice and ending in
/// a position with moves left; and the next move, legal after it.
fn record(variant: Variant, plies: usize) -> (Vec<String>, String) {
    fn iccs(moves: Vec<Move>, next: Move) -> (Vec<String>, String) {
        (moves.iter().map(Move::to_string).collect(), next.to_string())
    }
    match variant {
        Variant::Xiangqi => {
            let lively = |_: &_, _, after: &xiangqi::Position| after.has_legal_move() && !after.in_check();
            let (moves, next) = walk(&xiangqi::Position::startpos(), plies, lively);
            iccs(moves, next)
        }
        Variant::Janggi => {
            let fresh = |_: &_, m: Move, after: &janggi::Position| !m.is_pass() && !after.in_check();
            let (moves, next) = walk(&janggi::Position::startpos(), plies, fresh);
            iccs(moves, next)
        }
        Variant::ThreeKingdoms => {
            let start = three_kingdoms::Position::startpos(true);
            let lively = |_: &_, _, after: &three_kingdoms::Position| after.legal_move_count() > 0 && !after.in_check();
            let (moves, next) = walk(&start, plies, lively);
            // Point names are read in the position the move is played in.
            let mut pos = start;
            let mut texts = Vec::new();
            for m in moves {
                texts.push(pos.move_text(m));
                pos.play_unchecked(m);
            }
            (texts, pos.move_text(next))
        }
        Variant::Unspecified => unreachable!(),
    }
}

fn position(variant: Variant, moves: &[String]) -> proto::Position {
    proto::Position { variant: variant as i32, fen: "startpos".into(), moves: moves.to_vec(), ..Default::default() }
}

const VARIANTS: [Variant; 3] = [Variant::Xiangqi, Variant::Janggi, Variant::ThreeKingdoms];

/// Every RPC that takes a `Position`, called with a game of `moves` (audits of the
/// 9x10 games only); the field a refusal must name is `position.moves`.
async fn call_each(
    channel: &Channel,
    variant: Variant,
    moves: &[String],
    next: &str,
) -> Vec<(&'static str, Result<(), tonic::Status>)> {
    use proto::analysis_service_client::AnalysisServiceClient as A;
    use proto::audit_game_stream_response::Message;
    use proto::notation_service_client::NotationServiceClient as N;
    use proto::rules_service_client::RulesServiceClient as R;
    let p = || Some(position(variant, moves));
    let depth1 = Some(proto::SearchLimits { depth: 1, ..Default::default() });
    let mut out = Vec::new();
    let mut rules = R::new(channel.clone());
    let mut analysis = A::new(channel.clone());
    let r = rules.list_legal_moves(proto::ListLegalMovesRequest { position: p(), ..Default::default() }).await;
    out.push(("ListLegalMoves", r.map(|r| assert!(!r.into_inner().moves.is_empty()))));
    let r = rules
        .validate_move(proto::ValidateMoveRequest { position: p(), r#move: next.to_string(), ..Default::default() })
        .await;
    out.push(("ValidateMove", r.map(|r| assert!(r.get_ref().legal, "{next}: {:?}", r.get_ref()))));
    let r = rules.validate_game(proto::ValidateGameRequest { position: p() }).await;
    out.push((
        "ValidateGame",
        r.map(|r| {
            let r = r.into_inner();
            assert!(r.legal && r.plies as usize == moves.len(), "{r:?}");
        }),
    ));
    let r = rules.adjudicate(proto::AdjudicateRequest { position: p(), ..Default::default() }).await;
    out.push(("Adjudicate", r.map(|_| ())));
    let r = analysis.analyze(proto::AnalyzeRequest { position: p(), limits: depth1, ..Default::default() }).await;
    out.push(("Analyze", r.map(|r| assert!(!r.get_ref().best_move.is_empty()))));
    let r = analysis
        .analyze_stream(proto::AnalyzeStreamRequest { position: p(), limits: depth1, ..Default::default() })
        .await;
    let r = match r {
        Ok(s) => {
            let mut s = s.into_inner();
            let mut last = None;
            loop {
                match s.message().await {
                    Ok(Some(m)) => last = Some(m),
                    Ok(None) => {
                        assert!(last.is_some_and(|m| m.is_final));
                        break Ok(());
                    }
                    Err(e) => break Err(e),
                }
            }
        }
        Err(e) => Err(e),
    };
    out.push(("AnalyzeStream", r));
    let r = analysis.hint(proto::HintRequest { position: p(), movetime_ms: 20, ..Default::default() }).await;
    out.push(("Hint", r.map(|r| assert!(r.get_ref().r#move.is_some()))));
    let r = analysis
        .evaluate_draw_offer(proto::EvaluateDrawOfferRequest {
            position: p(),
            offered_by: if variant == Variant::ThreeKingdoms { proto::Player::Wu } else { proto::Player::Black } as i32,
            movetime_ms: 20,
            ..Default::default()
        })
        .await;
    out.push(("EvaluateDrawOffer", r.map(|_| ())));
    if variant != Variant::ThreeKingdoms {
        let r = N::new(channel.clone())
            .export_record(proto::ExportRecordRequest { position: p(), ..Default::default() })
            .await;
        out.push(("ExportRecord", r.map(|_| ())));
        // Audits serve the two-player games: every ply of the record is audited.
        let audit = || proto::AuditGameRequest { position: p(), nodes_per_ply: 200, ..Default::default() };
        let r = analysis.audit_game(audit()).await;
        out.push(("AuditGame", r.map(|r| assert_eq!(r.get_ref().plies.len(), moves.len(), "{:?}", r.get_ref()))));
        let stream = proto::AuditGameStreamRequest { position: p(), nodes_per_ply: 200, ..Default::default() };
        let r = match analysis.audit_game_stream(stream).await {
            Ok(s) => {
                let mut s = s.into_inner();
                let mut plies = 0;
                loop {
                    match s.message().await {
                        Ok(Some(m)) => plies += usize::from(matches!(m.message, Some(Message::Ply(_)))),
                        Ok(None) => {
                            assert_eq!(plies, moves.len(), "one message per audited ply");
                            break Ok(());
                        }
                        Err(e) => break Err(e),
                    }
                }
            }
            Err(e) => Err(e),
        };
        out.push(("AuditGameStream", r));
    }
    out
}

#[tokio::test]
async fn a_game_of_the_limit_is_served_and_one_move_more_is_refused_everywhere() {
    let server = common::server::start(ServerConfig {
        max_game_plies: LIMIT,
        engine: common::server::small_engine(),
        ..ServerConfig::default()
    })
    .await;
    let channel = server.channel().await;
    for variant in VARIANTS {
        let (at_limit, next) = record(variant, LIMIT);
        let (over, after) = record(variant, LIMIT + 1);
        for (rpc, result) in call_each(&channel, variant, &at_limit, &next).await {
            assert!(result.is_ok(), "{variant:?} {rpc}: {LIMIT} moves refused: {result:?}");
        }
        for (rpc, result) in call_each(&channel, variant, &over, &after).await {
            let err = result.err().unwrap_or_else(|| panic!("{variant:?} {rpc}: {} moves served", LIMIT + 1));
            assert_eq!(bad_field(&err), "position.moves", "{variant:?} {rpc}: {err:?}");
        }
    }
    server.shutdown().await;
}

/// ConvertMoves counts the start's moves and the moves to convert together.
#[tokio::test]
async fn convert_moves_counts_the_start_and_the_moves_together() {
    let server = common::server::start(ServerConfig { max_game_plies: LIMIT, ..ServerConfig::default() }).await;
    let mut client = server.notations().await;
    for variant in [Variant::Xiangqi, Variant::Janggi] {
        for total in [LIMIT, LIMIT + 1] {
            let (moves, _) = record(variant, total);
            for split in [0, 1, LIMIT / 2, total - 1, total] {
                let start = position(variant, &moves[..split]);
                let rest = moves[split..].join(" ");
                let request = convert_request(start, &rest, Notation::Iccs, Notation::Iccs);
                let result = client.convert_moves(request).await;
                let context = format!("{variant:?}: {split} moves in the start, {} to convert", total - split);
                if total <= LIMIT {
                    let resp = result.unwrap_or_else(|e| panic!("{context}: refused: {e:?}"));
                    assert_eq!(resp.into_inner().moves, moves[split..], "{context}");
                } else {
                    let err = result.err().unwrap_or_else(|| panic!("{context}: served"));
                    let field = bad_field(&err);
                    if split == total {
                        assert!(field == "moves" || field == "start.moves", "{context}: {field}");
                    } else {
                        assert_eq!(field, "moves", "{context}");
                    }
                }
            }
        }
    }
    server.shutdown().await;
}

/// ImportRecord counts the record's moves.
#[tokio::test]
async fn import_record_counts_the_record_moves() {
    let server = common::server::start(ServerConfig { max_game_plies: LIMIT, ..ServerConfig::default() }).await;
    let mut client = server.notations().await;
    for variant in [Variant::Xiangqi, Variant::Janggi] {
        for total in [LIMIT, LIMIT + 1] {
            let (moves, _) = record(variant, total);
            let mut text = String::new();
            if variant == Variant::Janggi {
                text.push_str("[Variant \"Janggi\"]\n\n");
            }
            for (i, pair) in moves.chunks(2).enumerate() {
                text.push_str(&format!("{}. {} ", i + 1, pair.join(" ")));
            }
            let request = proto::ImportRecordRequest {
                text: text.clone(),
                notation: Notation::Iccs as i32,
                ..Default::default()
            };
            let result = client.import_record(request).await;
            if total <= LIMIT {
                let resp = result.unwrap_or_else(|e| panic!("{variant:?} {text}: refused: {e:?}"));
                assert_eq!(resp.into_inner().position.unwrap().moves, moves, "{variant:?}");
            } else {
                let err = result.err().unwrap_or_else(|| panic!("{variant:?}: {total} moves served"));
                assert_eq!(bad_field(&err), "text", "{variant:?}");
            }
        }
    }
    server.shutdown().await;
}
