//! Janggi through the real server and the generated clients: rules and analysis.

use chuhe::service::proto::{
    self, analysis_service_client::AnalysisServiceClient, rules_service_client::RulesServiceClient,
};
use tonic::Code;
use tonic::transport::Channel;

mod common;

/// A server with a small engine, and a channel to it; the server stops when the second
/// value is dropped.
async fn start() -> (Channel, common::server::Running) {
    let server = common::server::start_small().await;
    (server.channel().await, server)
}

fn janggi(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Janggi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn list(p: proto::Position) -> proto::ListLegalMovesRequest {
    proto::ListLegalMovesRequest { position: Some(p), ..Default::default() }
}

#[tokio::test]
async fn legal_moves_include_the_pass() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let resp = client.list_legal_moves(list(janggi("startpos", ""))).await.unwrap().into_inner();
    assert_eq!(resp.moves.len(), 32);
    let pass = resp.moves.iter().find(|m| m.iccs == "pass").expect("a pass");
    assert!(pass.is_pass && pass.from.is_none() && pass.to.is_none());
    assert_eq!(resp.moves.iter().filter(|m| m.is_pass).count(), 1);
    assert!(resp.moves.last().is_some_and(|m| m.is_pass), "the pass is listed last");
    let status = resp.status.unwrap();
    assert_eq!(status.status, proto::GameStatus::Ongoing as i32);
    assert!(!status.bikjang);

    // Two passes end the game.
    let resp = client.list_legal_moves(list(janggi("startpos", "pass pass"))).await.unwrap().into_inner();
    assert!(resp.moves.is_empty());
    assert_eq!(resp.status.unwrap().status, proto::GameStatus::Ended as i32);

    // Setups: Cho with elephants outside has elephants on b0 and h0.
    let mut p = janggi("", "");
    p.red_setup = proto::JanggiSetup::ElephantHorseHorseElephant as i32;
    p.black_setup = proto::JanggiSetup::HorseElephantHorseElephant as i32;
    let resp = client.list_legal_moves(list(p)).await.unwrap().into_inner();
    let fen = resp.status.unwrap().fen;
    assert!(fen.ends_with("RBNA1ANBR w - - 0 1"), "{fen}");
    assert!(fen.starts_with("rbna1abnr/4k4/"), "{fen}");

    // Bikjang shows in the status.
    let resp = client.list_legal_moves(list(janggi("4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1", ""))).await.unwrap();
    assert!(resp.into_inner().status.unwrap().bikjang);

    // A Xiangqi rule set does not apply to Janggi.
    let mut req = list(janggi("startpos", ""));
    req.rule_set = proto::RuleSet::AsianV1 as i32;
    assert_eq!(client.list_legal_moves(req).await.unwrap_err().code(), Code::InvalidArgument);
}

#[tokio::test]
async fn validate_move_and_game() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let validate = |fen: &str, moves: &str, mv: &str| proto::ValidateMoveRequest {
        position: Some(janggi(fen, moves)),
        r#move: mv.to_string(),
        ..Default::default()
    };
    let ok = client.validate_move(validate("startpos", "", "pass")).await.unwrap().into_inner();
    assert!(ok.legal && ok.r#move.unwrap().is_pass);
    let ok = client.validate_move(validate("startpos", "pass", "pass")).await.unwrap().into_inner();
    assert!(ok.legal);
    assert_eq!(ok.status.unwrap().status, proto::GameStatus::Ended as i32);

    // In check (the chariot on f0 sees the general on f9), no pass.
    let no = client.validate_move(validate("5k3/9/9/9/9/9/9/9/9/3K1R3 b - - 0 1", "", "pass")).await;
    let no = no.unwrap().into_inner();
    assert!(!no.legal);
    assert_eq!(no.reason, proto::IllegalMoveReason::PassNotAllowed as i32);

    let bad = client.validate_move(validate("startpos", "", "a0a5")).await.unwrap().into_inner();
    assert!(!bad.legal);
    assert_eq!(bad.reason, proto::IllegalMoveReason::CannotMoveThatWay as i32);

    let game = client
        .validate_game(proto::ValidateGameRequest { position: Some(janggi("startpos", "b0c2 pass b2b5 b7b5")) })
        .await
        .unwrap()
        .into_inner();
    assert!(!game.legal);
    assert_eq!(game.plies, 2);
    assert_eq!(game.first_illegal_index, 2);
}

fn adjudicate(position: proto::Position, rules: proto::RuleSet) -> proto::AdjudicateRequest {
    proto::AdjudicateRequest { position: Some(position), rule_set: rules as i32, events: Vec::new() }
}

#[tokio::test]
async fn adjudicate_under_both_rule_sets() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let casual = proto::RuleSet::JanggiCasualV1;
    let tournament = proto::RuleSet::JanggiTournamentV1;

    let r = client.adjudicate(adjudicate(janggi("startpos", "pass pass"), casual)).await.unwrap().into_inner();
    assert_eq!(r.result, proto::GameResult::Draw as i32);
    assert_eq!(r.termination, proto::Termination::DoublePass as i32);
    assert_eq!(r.final_status.unwrap().status, proto::GameStatus::Ended as i32);
    assert!(r.rule.starts_with("JANGGI_CASUAL_V1"), "{}", r.rule);

    let r = client.adjudicate(adjudicate(janggi("startpos", "pass pass"), tournament)).await.unwrap().into_inner();
    assert_eq!((r.result, r.winner), (proto::GameResult::Win as i32, proto::Player::Black as i32));
    let points: Vec<(i32, f64)> = r.points.iter().map(|p| (p.player, p.points)).collect();
    assert_eq!(points, vec![(proto::Player::Red as i32, 72.0), (proto::Player::Black as i32, 73.5)]);
    assert!(r.rule.starts_with("JANGGI_TOURNAMENT_V1"), "{}", r.rule);

    // Perpetual check: a draw in casual play, a loss in tournament play.
    let perpetual = janggi("5k3/9/R8/9/9/9/9/9/9/3K5 w - - 0 1", "a7a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9");
    let r = client.adjudicate(adjudicate(perpetual.clone(), casual)).await.unwrap().into_inner();
    assert_eq!(r.result, proto::GameResult::Draw as i32);
    let r = client.adjudicate(adjudicate(perpetual, tournament)).await.unwrap().into_inner();
    assert_eq!(r.termination, proto::Termination::PerpetualCheck as i32);
    assert_eq!(r.side_at_fault, proto::Player::Red as i32);

    // A bikjang claim by the side to move.
    let facing = "4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1";
    let mut req = adjudicate(janggi(facing, ""), casual);
    req.events.push(proto::GameEvent {
        kind: proto::GameEventKind::BikjangClaim as i32,
        player: proto::Player::Red as i32,
        ply: 0,
    });
    let r = client.adjudicate(req.clone()).await.unwrap().into_inner();
    assert_eq!((r.result, r.termination), (proto::GameResult::Draw as i32, proto::Termination::Bikjang as i32));
    req.rule_set = tournament as i32;
    let r = client.adjudicate(req.clone()).await.unwrap().into_inner();
    assert_eq!((r.result, r.winner), (proto::GameResult::Win as i32, proto::Player::Red as i32));
    assert_eq!(r.points.len(), 2);
    req.events[0].player = proto::Player::Black as i32;
    assert_eq!(client.adjudicate(req).await.unwrap_err().code(), Code::InvalidArgument);

    // Checkmate.
    let r = client
        .adjudicate(adjudicate(janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "h4e4"), casual))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.termination, proto::Termination::Checkmate as i32);
    assert_eq!(r.winner, proto::Player::Red as i32);
}

#[tokio::test]
async fn analysis_serves_janggi() {
    let (channel, _stop) = start().await;
    let mut client = AnalysisServiceClient::new(channel.clone());
    let limits = Some(proto::SearchLimits { depth: 4, nodes: 0, movetime_ms: 0 });
    let resp = client
        .analyze(proto::AnalyzeRequest {
            position: Some(janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "")),
            limits,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.best_move, "h4e4");
    assert_eq!(resp.lines[0].score.as_ref().unwrap().value, Some(proto::score::Value::Mate(1)));

    // The best move from the start is legal (checked by the rules service).
    let resp = client
        .analyze(proto::AnalyzeRequest { position: Some(janggi("startpos", "")), limits, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let mut rules = RulesServiceClient::new(channel);
    let check = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(janggi("startpos", "")),
            r#move: resp.best_move.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(check.legal, "{}", resp.best_move);

    let hint = client
        .hint(proto::HintRequest { position: Some(janggi("startpos", "pass")), movetime_ms: 200, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(hint.r#move.is_some());

    let mut stream = client
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(janggi("startpos", "")),
            limits,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut last = None;
    while let Some(msg) = stream.message().await.unwrap() {
        last = Some(msg);
    }
    assert!(last.unwrap().is_final);

    let offer = client
        .evaluate_draw_offer(proto::EvaluateDrawOfferRequest {
            position: Some(janggi("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 1", "")),
            offered_by: proto::Player::Black as i32,
            movetime_ms: 200,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!offer.accept, "a chariot up, Cho declines");
}
