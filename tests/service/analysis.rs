//! AnalysisService through the real server and the generated client.

use std::time::{Duration, Instant};

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::engine::EngineConfig;
use chuhe::service::server::ServerConfig;
use tonic::Code;
use tonic::transport::Channel;

use crate::common;

use common::replay::{assert_analysis, assert_move_of_mover};

/// The score of an answer's line, as the search library writes it.
fn score(line: &proto::PrincipalVariation) -> chuhe::search::Score {
    match line.score.as_ref().and_then(|s| s.value) {
        Some(proto::score::Value::Mate(n)) => chuhe::search::Score::Mate(n),
        Some(proto::score::Value::Cp(c)) => chuhe::search::Score::Centipawns(c),
        None => panic!("a line without a score"),
    }
}

/// A server with this engine and a client to it; the server stops when the second value
/// is dropped.
async fn start(engine: EngineConfig) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    let server = common::server::start(ServerConfig { engine, ..ServerConfig::default() }).await;
    (server.analysis().await, server)
}

fn position(fen: &str) -> proto::Position {
    proto::Position { variant: proto::Variant::Xiangqi as i32, fen: fen.into(), ..Default::default() }
}

fn limits(depth: u32, movetime_ms: u32) -> Option<proto::SearchLimits> {
    Some(proto::SearchLimits { depth, nodes: 0, movetime_ms, clock: None })
}

fn small() -> EngineConfig {
    common::server::small_engine()
}

#[tokio::test]
async fn analyze_reports_the_search() {
    let (mut client, _stop) = start(small()).await;
    let mated = position("4k4/9/9/9/9/9/9/9/9/RR1K5 w - - 0 1");
    let resp = client
        .analyze(proto::AnalyzeRequest {
            position: Some(mated.clone()),
            limits: limits(6, 0),
            multipv: 2,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.lines.len(), 2);
    assert_eq!(resp.lines[0].score.as_ref().unwrap().value, Some(proto::score::Value::Mate(2)));
    assert_analysis(&mated, &resp.lines, &resp.best_move, &resp.ponder_move, "mate in two");
    // Each line's mate, if it reports one, is forced in exactly that many moves.
    let root = chuhe::notation::fen::xiangqi(&mated.fen).unwrap();
    let mut solver = common::mate::Solver::default();
    for line in &resp.lines {
        let pv: Vec<chuhe::rules::types::Move> =
            line.pv.iter().map(|m| chuhe::rules::types::Move::parse_iccs(m).unwrap()).collect();
        solver.check_line(&root, score(line), &pv, resp.depth, "mate in two");
    }
    assert!(resp.nodes > 0);
    // With several lines the search runs to its depth.
    assert_eq!((resp.depth, resp.stop_reason), (6, proto::StopReason::Depth as i32));

    let resp = client
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos")),
            limits: limits(5, 0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.depth, 5);
    assert_eq!(resp.stop_reason, proto::StopReason::Depth as i32);
    assert_analysis(&position("startpos"), &resp.lines, &resp.best_move, &resp.ponder_move, "startpos");
    // Iterative deepening finds the shallower depths' entries in the table: a share of
    // the probes hits, and a share is at most one.
    assert!(resp.hash_hit_rate > 0.0 && resp.hash_hit_rate <= 1.0, "{}", resp.hash_hit_rate);

    let err = client
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos")),
            exclude_moves: vec!["zz".into()],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
}

#[tokio::test]
async fn analyze_honours_the_client_deadline() {
    let (mut client, _stop) = start(small()).await;
    // A stream: the client's deadline reaches the server as `grpc-timeout` and becomes
    // the search's budget, but (unlike a unary answer) the messages that follow the
    // response's headers are not cut at it, so the final message shows how long the
    // search ran as the server measured it, however late a loaded machine delivers it.
    // A unary answer would be cut by the client at its deadline counted from its own
    // send, and on a loaded machine the answer's way back can take more than the
    // server's margin (50 ms for one second).
    let mut request = tonic::Request::new(proto::AnalyzeStreamRequest {
        position: Some(position("startpos")),
        limits: limits(0, 5_000),
        ..Default::default()
    });
    request.set_timeout(Duration::from_millis(1000));
    let mut stream = client.analyze_stream(request).await.unwrap().into_inner();
    let mut last = None;
    while let Some(msg) = stream.message().await.unwrap() {
        last = Some(msg);
    }
    let resp = last.filter(|m| m.is_final).expect("a final message");
    // The client's deadline became the search's budget: the search stopped on time,
    // long before the five seconds asked for.
    // (Half-way between the 950 ms it may search and the 5 s asked, as room for a
    // loaded machine's delays.)
    let on_time = [proto::StopReason::Movetime as i32, proto::StopReason::Deadline as i32];
    assert!(on_time.contains(&resp.stop_reason) && resp.time_ms < 3_000, "{resp:?}");
    assert_analysis(&position("startpos"), &resp.lines, &resp.best_move, &resp.ponder_move, "cut by the deadline");
}

#[tokio::test]
async fn stream_sends_each_depth_then_a_final_message() {
    let (mut client, _stop) = start(small()).await;
    let mut stream = client
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(position("startpos")),
            limits: limits(5, 0),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut depths = Vec::new();
    let mut finals = 0;
    while let Some(msg) = stream.message().await.unwrap() {
        let context = format!("depth {} (final: {})", msg.depth, msg.is_final);
        assert_analysis(&position("startpos"), &msg.lines, &msg.best_move, &msg.ponder_move, &context);
        if msg.is_final {
            finals += 1;
            assert_eq!(msg.depth, 5);
        } else {
            depths.push(msg.depth);
        }
    }
    assert_eq!(depths, vec![1, 2, 3, 4, 5]);
    assert_eq!(finals, 1);
}

#[tokio::test]
async fn a_cancelled_stream_frees_its_search_thread() {
    let engine = EngineConfig { workers: 1, max_queue_wait: Duration::from_secs(3), ..small() };
    let (mut client, _stop) = start(engine).await;
    let long = proto::AnalyzeStreamRequest {
        position: Some(position("startpos")),
        limits: limits(0, 8_000),
        ..Default::default()
    };
    let mut stream = client.analyze_stream(long).await.unwrap().into_inner();
    let _first = stream.message().await.unwrap();
    drop(stream);
    // With the only search thread released, the next request is admitted and answered
    // (were it still held, the request would be refused once its 3 s in the queue are
    // over, long before the 8 s search ends; the wait leaves a loaded machine time to
    // run the search thread, which then stops).
    let resp = client
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos")),
            limits: limits(3, 0),
            ..Default::default()
        })
        .await;
    let resp = resp.unwrap_or_else(|e| panic!("not admitted: {e:?}")).into_inner();
    assert_eq!(resp.depth, 3);
}

#[tokio::test]
async fn admission_refuses_at_once_when_busy() {
    let engine = EngineConfig { workers: 1, max_queue_wait: Duration::from_millis(20), ..small() };
    let (client, _stop) = start(engine).await;
    // The long search holds the only search thread once its first depth is reported.
    let mut busy = client.clone();
    let mut long = busy
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(position("startpos")),
            limits: limits(0, 120_000),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let first = long.message().await.unwrap().expect("a first depth");
    assert!(!first.is_final, "{first:?}");
    let mut second = client.clone();
    let start = Instant::now();
    let err = second
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos")),
            limits: limits(0, 100),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted);
    // Refused after its 20 ms in the queue, not when the two-minute search ends (had
    // it waited for that, it would have been admitted). The bound is half the long
    // search's time, which no load of this machine reaches for a 20 ms wait.
    assert!(start.elapsed() < Duration::from_secs(60), "refused late: {:?}", start.elapsed());
    drop(long);
}

#[tokio::test]
async fn hint_and_draw_offer() {
    let (mut client, _stop) = start(small()).await;
    let hint = client
        .hint(proto::HintRequest { position: Some(position("startpos")), movetime_ms: 100, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let m = hint.r#move.unwrap();
    assert_eq!(m.player, proto::Player::Red as i32);
    assert_move_of_mover(&position("startpos"), &m, "hint");
    // Black to move after a move: the hint is Black's.
    let mut after = position("startpos");
    after.moves = vec!["h2e2".into()];
    let hint = client
        .hint(proto::HintRequest { position: Some(after.clone()), movetime_ms: 100, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let m = hint.r#move.unwrap();
    assert_eq!(m.player, proto::Player::Black as i32);
    assert_move_of_mover(&after, &m, "hint after h2e2");

    // Red is a chariot up; Black (to move) receives Red's offer: it stands worse, accepts.
    let up = "3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1";
    let offer = |fen: &str, by: proto::Player| proto::EvaluateDrawOfferRequest {
        position: Some(position(fen)),
        offered_by: by as i32,
        movetime_ms: 100,
        ..Default::default()
    };
    let resp = client.evaluate_draw_offer(offer(up, proto::Player::Red)).await.unwrap().into_inner();
    assert!(resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::StandsWorse as i32);
    // Black offers; the engine answers for Red, which stands better and declines.
    let resp = client.evaluate_draw_offer(offer(up, proto::Player::Black)).await.unwrap().into_inner();
    assert!(!resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::StandsBetter as i32);
    // Bare generals with advisors: level and quiet, accepted.
    let level = "3k1a3/9/9/9/9/9/9/9/9/4KA3 w - - 0 1";
    let resp = client.evaluate_draw_offer(offer(level, proto::Player::Black)).await.unwrap().into_inner();
    assert!(resp.accept);
    assert_eq!(resp.reason, proto::DrawOfferReason::LevelAndQuiet as i32);
}

/// The request's rule set reaches the search: under the Asian rules the engine leaves a
/// perpetual chase that would lose, under the simplified rules it repeats for the draw;
/// a rule set of another variant is refused by name.
#[tokio::test]
async fn analyze_follows_the_requested_rule_set() {
    let (mut client, _stop) = start(small()).await;
    let mut pos = position("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1");
    pos.moves = "c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7".split(' ').map(String::from).collect();
    let request = |rule_set: proto::RuleSet| proto::AnalyzeRequest {
        position: Some(pos.clone()),
        limits: limits(4, 0),
        rule_set: rule_set as i32,
        ..Default::default()
    };
    let simplified = client.analyze(request(proto::RuleSet::SimplifiedV1)).await.unwrap().into_inner();
    assert_eq!(simplified.best_move, "b2a2");
    let asian = client.analyze(request(proto::RuleSet::AsianV1)).await.unwrap().into_inner();
    assert_ne!(asian.best_move, "b2a2");
    let err = client.analyze(request(proto::RuleSet::JanggiTournamentV1)).await.unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument);
    assert_eq!(common::bad_field(&err), "rule_set");
}
