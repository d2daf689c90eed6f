//! Three Kingdoms over gRPC: the real server on an ephemeral port, generated clients.

use chuhe::api::proto::{
    self, analysis_service_client::AnalysisServiceClient, rules_service_client::RulesServiceClient,
};
use tonic::Code;
use tonic::transport::Channel;

use crate::common;
use common::bad_field;

/// A server with a small engine, and a channel to it; the server stops when the second
/// value is dropped.
async fn start() -> (Channel, common::server::Running) {
    let server = common::server::start_small().await;
    (server.channel().await, server)
}

fn position(fen: &str, moves: &[String]) -> proto::Position {
    proto::Position {
        variant: proto::Variant::ThreeKingdoms as i32,
        fen: fen.to_string(),
        moves: moves.to_vec(),
        ..Default::default()
    }
}

#[tokio::test]
async fn legal_moves_from_the_start() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let resp = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("startpos", &[])),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.moves.len(), 40);
    let status = resp.status.unwrap();
    assert_eq!(status.side_to_move, proto::Player::Shu as i32);
    assert_eq!(status.status, proto::GameStatus::Ongoing as i32);
    assert!(status.eliminated.is_empty());
    let cannon = resp.moves.iter().find(|m| m.iccs == "Rh3-Rg3").expect("the cannon along its rank");
    assert_eq!(cannon.from.as_ref().unwrap().name, "Rh3");
    assert_eq!(cannon.to.as_ref().unwrap().name, "Rg3");
    assert_eq!(cannon.piece, proto::PieceKind::Cannon as i32);
    assert_eq!(cannon.player, proto::Player::Unspecified as i32, "the mover is named once, in the status");

    // Without flag bearers: the position text says so.
    let resp = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position(chuhe::rules::three_kingdoms::text::START_WITHOUT_FLAG_BEARERS, &[])),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.moves.len(), 44);
}

/// A small deterministic generator for the random game.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[tokio::test]
async fn a_random_game_through_the_service() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let mut rng = Lcg(7);
    let mut moves: Vec<String> = Vec::new();
    let mut eliminated = Vec::new();
    while moves.len() < 300 {
        let listed = rules
            .list_legal_moves(proto::ListLegalMovesRequest {
                position: Some(position("", &moves)),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        let status = listed.status.unwrap();
        if status.status == proto::GameStatus::Ended as i32 || status.status == proto::GameStatus::Drawn as i32 {
            assert!(listed.moves.is_empty());
            break;
        }
        assert!(!listed.moves.is_empty());
        // Prefer captures, so that the game has defeats.
        let captures: Vec<_> = listed.moves.iter().filter(|m| m.captured != 0).collect();
        let pick = if !captures.is_empty() && rng.next(3) > 0 {
            captures[rng.next(captures.len())].clone()
        } else {
            listed.moves[rng.next(listed.moves.len())].clone()
        };
        let checked = rules
            .validate_move(proto::ValidateMoveRequest {
                position: Some(position("", &moves)),
                r#move: pick.iccs.clone(),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(checked.legal, "{} {:?}", pick.iccs, checked.detail);
        assert_eq!(checked.r#move.as_ref().unwrap().iccs, pick.iccs);
        // The same move given by points.
        let by_points = rules
            .validate_move(proto::ValidateMoveRequest {
                position: Some(position("", &moves)),
                from: pick.from.clone(),
                to: Some(proto::Point { name: pick.to.as_ref().unwrap().name.clone(), ..Default::default() }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert!(by_points.legal);
        moves.push(pick.iccs.clone());
        let after = checked.status.unwrap();
        assert_eq!(after.fen, checked.fen_after);
        assert!(after.eliminated.len() >= eliminated.len());
        eliminated = after.eliminated.clone();
        if after.status != proto::GameStatus::Ended as i32 {
            assert!(!eliminated.contains(&after.side_to_move));
        }
    }
    let game = rules
        .validate_game(proto::ValidateGameRequest { position: Some(position("startpos", &moves)) })
        .await
        .unwrap()
        .into_inner();
    assert!(game.legal, "{}", game.detail);
    assert_eq!(game.plies as usize, moves.len());
    let judged = rules
        .adjudicate(proto::AdjudicateRequest { position: Some(position("startpos", &moves)), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let final_status = game.final_status.unwrap();
    assert_eq!(final_status.eliminated, eliminated);
    if final_status.status == proto::GameStatus::Ended as i32 {
        assert_eq!(judged.result, proto::GameResult::Win as i32);
        assert_eq!(judged.termination, proto::Termination::GeneralCaptured as i32);
        assert_eq!(judged.winner, final_status.side_to_move);
        assert_eq!(judged.decided_at_ply as usize, moves.len());
    } else if judged.result == proto::GameResult::Ongoing as i32 {
        assert_eq!(judged.final_status.unwrap().fen, game.final_fen);
    } else {
        assert_eq!(judged.result, proto::GameResult::Draw as i32);
    }

    // A kingdom in play resigning at the end: the others share the victory, or the
    // last one wins.
    if final_status.status != proto::GameStatus::Ended as i32 && judged.result == proto::GameResult::Ongoing as i32 {
        let resigner = final_status.side_to_move;
        let judged = rules
            .adjudicate(proto::AdjudicateRequest {
                position: Some(position("startpos", &moves)),
                events: vec![proto::GameEvent {
                    kind: proto::GameEventKind::Resign as i32,
                    player: resigner,
                    ply: moves.len() as u32,
                }],
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(judged.termination, proto::Termination::Resignation as i32);
        assert_eq!(judged.side_at_fault, resigner);
        if final_status.eliminated.is_empty() {
            assert_eq!(judged.result, proto::GameResult::SharedVictory as i32);
            assert_eq!(judged.winners.len(), 2);
            assert!(!judged.winners.contains(&resigner));
        } else {
            assert_eq!(judged.result, proto::GameResult::Win as i32);
            assert_ne!(judged.winner, resigner);
        }
    }
}

#[tokio::test]
async fn leaving_at_the_start_shares_the_victory() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let judged = rules
        .adjudicate(proto::AdjudicateRequest {
            position: Some(position("startpos", &["Rh3-Rg3".to_string()])),
            events: vec![proto::GameEvent {
                kind: proto::GameEventKind::Leave as i32,
                player: proto::Player::Wu as i32,
                ply: 1,
            }],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(judged.result, proto::GameResult::SharedVictory as i32);
    assert_eq!(judged.termination, proto::Termination::LeftGame as i32);
    assert_eq!(judged.winners, vec![proto::Player::Shu as i32, proto::Player::Wei as i32]);
    assert_eq!(judged.winner, proto::Player::Unspecified as i32);
}

async fn ask(rules: &mut RulesServiceClient<Channel>, text: &str) -> proto::ValidateMoveResponse {
    ask_in(rules, "", text).await
}

async fn ask_in(rules: &mut RulesServiceClient<Channel>, fen: &str, text: &str) -> proto::ValidateMoveResponse {
    ask_after(rules, fen, &[], text).await
}

/// ValidateMove of `text` after `moves` from `fen`.
async fn ask_after(
    rules: &mut RulesServiceClient<Channel>,
    fen: &str,
    moves: &[String],
    text: &str,
) -> proto::ValidateMoveResponse {
    rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(position(fen, moves)),
            r#move: text.to_string(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
}

async fn validate_game(
    rules: &mut RulesServiceClient<Channel>,
    fen: &str,
    moves: &[String],
) -> proto::ValidateGameResponse {
    rules.validate_game(proto::ValidateGameRequest { position: Some(position(fen, moves)) }).await.unwrap().into_inner()
}

#[tokio::test]
async fn illegal_moves_have_reasons() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let r = ask(&mut rules, "Re2-Re3").await;
    assert!(!r.legal);
    assert_eq!(r.reason, proto::IllegalMoveReason::NoPiece as i32);
    let r = ask(&mut rules, "Gh3-Ge3").await;
    assert_eq!(r.reason, proto::IllegalMoveReason::NotYourPiece as i32);
    let r = ask(&mut rules, "Ra1-Rb2").await;
    assert_eq!(r.reason, proto::IllegalMoveReason::CannotMoveThatWay as i32);
    assert!(!r.detail.is_empty());
    // Shu's horse on Re2 shields its general from Wu's chariot on Re4.
    let pinned = "4K4/4N4/9/4gR4/9 4K4/9/9/4P4/9 4K4/9/9/4P4/9 R RGB - 0 1";
    let r = ask_in(&mut rules, pinned, "Re2-Rd4").await;
    assert_eq!(r.reason, proto::IllegalMoveReason::LeavesGeneralAttacked as i32, "{}", r.detail);
    let r = ask_in(&mut rules, pinned, "Re1-Rd1").await;
    assert!(r.legal, "{}", r.detail);
    assert_eq!(r.status.unwrap().side_to_move, proto::Player::Wu as i32);
}

#[tokio::test]
async fn bad_inputs_name_the_field() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let e = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("nonsense", &[])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "position.fen");
    let e = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("", &["Rh3-Rg3".to_string(), "h2e2".to_string()])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "position.moves[1]");
    let e = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("", &["Rh3-Rg3".to_string(), "Rh1-Rh5".to_string()])),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "position.moves[1]");
    let e = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(position("", &[])),
            r#move: "Rz9-Re3".to_string(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "move");
    let e = rules
        .adjudicate(proto::AdjudicateRequest {
            position: Some(position("", &[])),
            events: vec![proto::GameEvent {
                kind: proto::GameEventKind::Resign as i32,
                player: proto::Player::Red as i32,
                ply: 0,
            }],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "events[0].player");
    let e = rules
        .adjudicate(proto::AdjudicateRequest {
            position: Some(position("", &[])),
            rule_set: proto::RuleSet::SimplifiedV1 as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "rule_set");
}

#[tokio::test]
async fn analyze_answers_a_legal_move_in_time() {
    let (channel, _stop) = start().await;
    let mut analysis = AnalysisServiceClient::new(channel.clone());
    let mut rules = RulesServiceClient::new(channel);
    let moves = vec!["Rh3-Rg3".to_string()];
    let resp = analysis
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos", &moves)),
            limits: Some(proto::SearchLimits { movetime_ms: 300, ..Default::default() }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    // 300 ms asked for, and the search's time as the server measured it (not the
    // test's clock, which also counts the way there and back on a loaded machine): the
    // move time stopped it, and ten times the budget still tells a search that ignores it.
    assert_eq!(resp.stop_reason(), proto::StopReason::Movetime, "{resp:?}");
    assert!((300..3_000).contains(&resp.time_ms), "{resp:?}");
    assert!(resp.depth >= 1);
    assert_eq!(resp.lines.len(), 1);
    let context = "Wu's answer";
    common::replay::assert_analysis(
        &position("startpos", &moves),
        &resp.lines,
        &resp.best_move,
        &resp.ponder_move,
        context,
    );
    let checked = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(position("startpos", &moves)),
            r#move: resp.best_move.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(checked.legal, "{}: {}", resp.best_move, checked.detail);
    assert_eq!(checked.r#move.unwrap().player, proto::Player::Wu as i32);

    let hint = analysis
        .hint(proto::HintRequest { position: Some(position("startpos", &[])), movetime_ms: 100, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let m = hint.r#move.unwrap();
    assert_eq!(m.player, proto::Player::Shu as i32);
    common::replay::assert_move_of_mover(&position("startpos", &[]), &m, "Shu's hint");
}

fn to_depth(depth: u32) -> Option<proto::SearchLimits> {
    Some(proto::SearchLimits { depth, ..Default::default() })
}

/// Analyze to `depth` with `multipv` lines.
async fn analyze_to(
    analysis: &mut AnalysisServiceClient<Channel>,
    fen: &str,
    moves: &[String],
    depth: u32,
    multipv: u32,
) -> proto::AnalyzeResponse {
    let request = proto::AnalyzeRequest {
        position: Some(position(fen, moves)),
        limits: to_depth(depth),
        multipv,
        ..Default::default()
    };
    analysis.analyze(request).await.unwrap().into_inner()
}

/// Is `text` a legal move after `moves` from the start?
async fn is_legal(rules: &mut RulesServiceClient<Channel>, moves: &[String], text: &str) -> bool {
    ask_after(rules, "startpos", moves, text).await.legal
}

#[tokio::test]
async fn multipv_lines_are_the_best_moves_of_the_side_to_move() {
    let (channel, _stop) = start().await;
    let mut analysis = AnalysisServiceClient::new(channel.clone());
    let mut rules = RulesServiceClient::new(channel);
    let moves = vec!["Rh3-Rg3".to_string()];
    let resp = analyze_to(&mut analysis, "startpos", &moves, 3, 3).await;
    assert_eq!(resp.lines.len(), 3);
    assert_eq!(resp.lines.iter().map(|l| l.multipv).collect::<Vec<_>>(), vec![1, 2, 3]);
    assert_eq!(resp.best_move, resp.lines[0].pv[0]);
    let cp = |l: &proto::PrincipalVariation| match l.score.as_ref().unwrap().value {
        Some(proto::score::Value::Cp(c)) => c,
        ref other => panic!("{other:?}"),
    };
    assert!(resp.lines.windows(2).all(|w| cp(&w[0]) >= cp(&w[1])));
    for (i, line) in resp.lines.iter().enumerate() {
        assert!(!resp.lines[..i].iter().any(|l| l.pv[0] == line.pv[0]), "{} twice", line.pv[0]);
        assert!(is_legal(&mut rules, &moves, &line.pv[0]).await, "{}", line.pv[0]);
    }
}

#[tokio::test]
async fn analyze_stream_sends_each_depth_then_a_final_message() {
    let (channel, _stop) = start().await;
    let mut analysis = AnalysisServiceClient::new(channel.clone());
    let mut rules = RulesServiceClient::new(channel);
    let mut stream = analysis
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(position("startpos", &[])),
            limits: to_depth(4),
            multipv: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut depths = Vec::new();
    let mut last = None;
    while let Some(msg) = stream.message().await.unwrap() {
        assert_eq!(msg.lines.len(), 2);
        if msg.is_final {
            assert!(last.is_none(), "one final message");
            last = Some(msg);
        } else {
            assert_eq!(msg.stop_reason, proto::StopReason::Unspecified as i32);
            depths.push(msg.depth);
        }
    }
    assert_eq!(depths, vec![1, 2, 3, 4]);
    let last = last.expect("a final message");
    assert_eq!((last.depth, last.stop_reason), (4, proto::StopReason::Depth as i32));
    assert!(is_legal(&mut rules, &[], &last.best_move).await, "{}", last.best_move);

    // Bad input is refused before the stream starts.
    let e = analysis
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(position("startpos", &[])),
            exclude_moves: vec!["h2e2".to_string()],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "exclude_moves[0]");
}

#[tokio::test]
async fn a_cancelled_stream_frees_its_search_thread() {
    let engine = chuhe::engine::EngineConfig {
        workers: 1,
        max_queue_wait: std::time::Duration::from_secs(3),
        ..common::server::small_engine()
    };
    let server = common::server::start(chuhe::service::server::ServerConfig { engine, ..Default::default() }).await;
    let mut analysis = server.analysis().await;
    let long = proto::AnalyzeStreamRequest {
        position: Some(position("startpos", &[])),
        limits: Some(proto::SearchLimits { movetime_ms: 8_000, ..Default::default() }),
        ..Default::default()
    };
    let mut stream = analysis.analyze_stream(long).await.unwrap().into_inner();
    let first = stream.message().await.unwrap().unwrap();
    assert!(!first.is_final);
    drop(stream);
    // With the only search thread released, the next request is admitted and answered.
    let resp = analysis
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos", &[])),
            limits: Some(proto::SearchLimits { depth: 3, ..Default::default() }),
            ..Default::default()
        })
        .await;
    // Were the thread still held, the request would be refused after its 3 s in the
    // queue, long before the 8 s search ends (the wait leaves a loaded machine time to
    // run the search thread, which then stops).
    let resp = resp.unwrap_or_else(|e| panic!("not admitted: {e:?}")).into_inner();
    assert_eq!(resp.depth, 3);
}

fn offer(fen: &str, by: proto::Player) -> proto::EvaluateDrawOfferRequest {
    proto::EvaluateDrawOfferRequest {
        position: Some(position(fen, &[])),
        offered_by: by as i32,
        movetime_ms: 200,
        ..Default::default()
    }
}

#[tokio::test]
async fn draw_offers_are_answered_by_the_kingdom_to_move() {
    let (channel, _stop) = start().await;
    let mut analysis = AnalysisServiceClient::new(channel);
    // Three bare generals: level and quiet, Shu accepts.
    let bare = "3K5/9/9/9/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
    let resp = analysis.evaluate_draw_offer(offer(bare, proto::Player::Wu)).await.unwrap().into_inner();
    assert!(resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::LevelAndQuiet as i32);
    assert_eq!(resp.score.unwrap().value, Some(proto::score::Value::Cp(0)));
    // Shu, a bare general against two chariots, is lost: it accepts.
    let lost = "3K5/9/9/9/9 R2K5/9/9/9/9 R2K5/9/9/9/9 R RGB - 0 1";
    let resp = analysis.evaluate_draw_offer(offer(lost, proto::Player::Wei)).await.unwrap().into_inner();
    assert!(resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::StandsWorse as i32);
    // Lost by far: a mate against it, or, when a loaded machine leaves the 200 ms search
    // short of the mate, at least a chariot down.
    let score = resp.score.unwrap().value;
    assert!(
        matches!(score, Some(proto::score::Value::Mate(n)) if n < 0)
            || matches!(score, Some(proto::score::Value::Cp(c)) if c <= -800),
        "{score:?}"
    );
    // Shu with two chariots against two bare generals stands better: it declines.
    let ahead = "R2K4R/9/9/9/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
    let resp = analysis.evaluate_draw_offer(offer(ahead, proto::Player::Wu)).await.unwrap().into_inner();
    assert!(!resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::StandsBetter as i32);

    // The offer comes from another kingdom in play.
    for by in [proto::Player::Shu, proto::Player::Red] {
        let e = analysis.evaluate_draw_offer(offer(bare, by)).await.unwrap_err();
        assert_eq!(bad_field(&e), "offered_by");
    }
}

#[tokio::test]
async fn analyze_takes_a_general() {
    let (channel, _stop) = start().await;
    let mut analysis = AnalysisServiceClient::new(channel);
    let fen = "4K4/9/9/4P4/9 4K4/9/4rR4/9/9 4K4/9/9/4P4/9 R RGB - 0 1";
    let resp = analysis
        .analyze(proto::AnalyzeRequest {
            position: Some(position(fen, &[])),
            limits: Some(proto::SearchLimits { depth: 3, ..Default::default() }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.best_move, "Ge3xGe1");
    let e = analysis
        .analyze(proto::AnalyzeRequest {
            position: Some(position(fen, &[])),
            search_moves: vec!["e3e1".to_string()],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "search_moves[0]");
}

#[tokio::test]
async fn the_third_repetition_draws() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let cycle = ["Ra1-Ra2", "Ga1-Ga2", "Ba1-Ba2", "Ra2-Ra1", "Ga2-Ga1", "Ba2-Ba1"];
    let moves: Vec<String> = cycle.iter().cycle().take(13).map(|m| m.to_string()).collect();
    let judged = rules
        .adjudicate(proto::AdjudicateRequest { position: Some(position("startpos", &moves)), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(judged.result, proto::GameResult::Draw as i32);
    assert_eq!(judged.termination, proto::Termination::RepetitionDraw as i32);
    assert_eq!(judged.decided_at_ply, 12);
    assert_eq!(judged.moves_after_end, 1);
    assert!(judged.winners.is_empty());
    assert_eq!(judged.rule, "repetition");
    assert_eq!(judged.final_status.unwrap().status, proto::GameStatus::Drawn as i32);
}

async fn list(rules: &mut RulesServiceClient<Channel>, fen: &str, moves: &[String]) -> proto::ListLegalMovesResponse {
    rules
        .list_legal_moves(proto::ListLegalMovesRequest { position: Some(position(fen, moves)), ..Default::default() })
        .await
        .unwrap()
        .into_inner()
}

#[tokio::test]
async fn the_status_shows_a_drawn_game() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel.clone());
    let ongoing = proto::GameStatus::Ongoing as i32;
    let drawn = proto::GameStatus::Drawn as i32;
    // The third occurrence of the start position after two cycles of twelve plies.
    let cycle = ["Ra1-Ra2", "Ga1-Ga2", "Ba1-Ba2", "Ra2-Ra1", "Ga2-Ga1", "Ba2-Ba1"];
    let moves: Vec<String> = cycle.iter().cycle().take(13).map(|m| m.to_string()).collect();
    let before = list(&mut rules, "startpos", &moves[..11]).await;
    assert_eq!(before.status.unwrap().status, ongoing);
    assert!(!before.moves.is_empty());
    let after = list(&mut rules, "startpos", &moves[..12]).await;
    assert_eq!(after.status.unwrap().status, drawn);
    assert!(after.moves.is_empty(), "no move follows a draw");
    let r = ask_after(&mut rules, "startpos", &moves[..11], &moves[11]).await;
    assert!(r.legal, "{}", r.detail);
    assert_eq!(r.status.unwrap().status, drawn);
    let r = ask_after(&mut rules, "startpos", &moves[..12], &moves[12]).await;
    assert!(!r.legal);
    assert_eq!(r.reason, proto::IllegalMoveReason::GameOver as i32);
    assert!(r.detail.contains("third time"), "{}", r.detail);
    let game = validate_game(&mut rules, "startpos", &moves).await;
    assert!(!game.legal);
    assert_eq!((game.first_illegal_index, game.plies), (12, 12));
    assert_eq!(game.reason, proto::IllegalMoveReason::GameOver as i32);
    assert_eq!(game.final_status.unwrap().status, drawn);
    let e = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("startpos", &moves)),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(bad_field(&e), "position.moves[12]");

    // The 180th ply without a capture or a defeat, in the record or in the text.
    let near = chuhe::rules::three_kingdoms::text::START_WITHOUT_FLAG_BEARERS.replace(" 0 1", " 178 9");
    assert_eq!(list(&mut rules, &near, &moves[..1]).await.status.unwrap().status, ongoing);
    let over = list(&mut rules, &near, &moves[..2]).await;
    assert_eq!(over.status.unwrap().status, drawn);
    assert!(over.moves.is_empty());
    let at_limit = near.replace(" 178 9", " 180 9");
    assert_eq!(list(&mut rules, &at_limit, &[]).await.status.unwrap().status, drawn);
    let judged = rules
        .adjudicate(proto::AdjudicateRequest { position: Some(position(&near, &moves[..2])), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(judged.termination, proto::Termination::MoveLimit as i32);
    assert_eq!(judged.final_status.unwrap().status, drawn);

    // Analysis of a drawn record has nothing to search; a hint or a draw offer is refused.
    let mut analysis = AnalysisServiceClient::new(channel);
    for (fen, record) in [("startpos", &moves[..12]), (near.as_str(), &moves[..2])] {
        let r = analysis
            .analyze(proto::AnalyzeRequest {
                position: Some(position(fen, record)),
                limits: Some(proto::SearchLimits { depth: 3, ..Default::default() }),
                ..Default::default()
            })
            .await
            .unwrap()
            .into_inner();
        assert_eq!(r.stop_reason, proto::StopReason::NoLegalMoves as i32);
        assert!(r.best_move.is_empty() && r.lines.is_empty() && r.nodes == 0);
        let e = analysis
            .hint(proto::HintRequest { position: Some(position(fen, record)), ..Default::default() })
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition);
        assert!(e.message().contains("the game is over"), "{}", e.message());
        let e = analysis
            .evaluate_draw_offer(proto::EvaluateDrawOfferRequest {
                position: Some(position(fen, record)),
                offered_by: proto::Player::Wu as i32,
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(e.code(), Code::FailedPrecondition);
        assert!(e.message().contains("third time") || e.message().contains("180"), "{}", e.message());
    }
}

#[tokio::test]
async fn a_move_onto_a_rival_generals_file_gives_check() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let fen = "4K4/9/9/4P4/9 4K4/9/3rR5/9/9 4K4/9/9/4P4/9 R RGB - 0 1";
    let r = ask_in(&mut rules, fen, "Gd3-Ge3").await;
    assert!(r.legal, "{}", r.detail);
    let m = r.r#move.unwrap();
    assert!(m.gives_check);
    assert_eq!(m.piece, proto::PieceKind::Chariot as i32);
    let status = r.status.unwrap();
    assert_eq!(status.side_to_move, proto::Player::Wu as i32);
    assert!(status.in_check);
    assert_eq!(status.checkers[0].name, "Ge3");
    let r = ask_in(&mut rules, fen, "Gd3-Gc3").await;
    assert!(r.legal, "{}", r.detail);
    assert!(!r.r#move.unwrap().gives_check);
}

/// Only Rf3-Re3 (Shu's general onto the central file, facing Wu's e file) leaves Wu,
/// hemmed in by Wei's horses, without a legal move.
const WU_BOXED_IN: &str = "N2N5/9/5K3/9/9 5K3/9/7bN1/3bN5/9 9/5K3/9/9/9 R RGB - 0 1";
/// Wu is out; only Bh3-Bh1 leaves Wei without a legal move, and Shu is left alone.
const WEI_BOXED_IN: &str = "1bP1K5/9/9/9/9 9/9/9/9/9 3K5/8rR/7rR1/9/9 R RRB F 0 1";

async fn adjudicate(rules: &mut RulesServiceClient<Channel>, fen: &str, moves: &[String]) -> proto::AdjudicateResponse {
    let request = proto::AdjudicateRequest { position: Some(position(fen, moves)), ..Default::default() };
    rules.adjudicate(request).await.unwrap().into_inner()
}

#[tokio::test]
async fn a_kingdom_left_without_a_legal_move_is_defeated() {
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel.clone());
    let mut analysis = AnalysisServiceClient::new(channel);
    let (shu, wu, wei) = (proto::Player::Shu as i32, proto::Player::Wu as i32, proto::Player::Wei as i32);

    // The defeat on the board: Wu's general leaves, Shu (which moved last) takes its
    // army, and Wei is to move.
    let moves = vec!["Rf3-Re3".to_string()];
    let r = ask_in(&mut rules, WU_BOXED_IN, &moves[0]).await;
    assert!(r.legal, "{}", r.detail);
    let status = r.status.unwrap();
    assert_eq!(status.eliminated, vec![wu]);
    assert_eq!((status.side_to_move, status.status), (wei, proto::GameStatus::Ongoing as i32));
    assert!(r.fen_after.contains(" B RRB "), "{}", r.fen_after);
    let game = validate_game(&mut rules, WU_BOXED_IN, &moves).await;
    assert!(game.legal);
    assert_eq!(game.final_status.unwrap().eliminated, vec![wu]);
    let judged = adjudicate(&mut rules, WU_BOXED_IN, &moves).await;
    assert_eq!(judged.result, proto::GameResult::Ongoing as i32);
    assert_eq!(judged.final_status.unwrap().eliminated, vec![wu]);
    // The search finds the move.
    assert_eq!(analyze_to(&mut analysis, WU_BOXED_IN, &[], 4, 1).await.best_move, "Rf3-Re3");

    // With two kingdoms left the same kind of move wins: Shu is the last general.
    let moves = vec!["Bh3-Bh1".to_string()];
    let judged = adjudicate(&mut rules, WEI_BOXED_IN, &moves).await;
    assert_eq!((judged.result, judged.winner), (proto::GameResult::Win as i32, shu));
    assert_eq!(judged.termination, proto::Termination::GeneralCaptured as i32);
    let final_status = judged.final_status.unwrap();
    assert_eq!(final_status.status, proto::GameStatus::Ended as i32);
    assert_eq!(final_status.eliminated, vec![wu, wei]);
    let resp = analyze_to(&mut analysis, WEI_BOXED_IN, &[], 5, 1).await;
    assert_eq!(resp.best_move, "Bh3-Bh1");
    assert_eq!(resp.lines[0].score.as_ref().unwrap().value, Some(proto::score::Value::Mate(1)));
    assert_eq!(resp.stop_reason, proto::StopReason::MateFound as i32);
}
