//! `SearchLimits.clock` through the real server and the generated client: the search
//! spends what the time manager gives a move on that clock, and a bad clock is refused
//! naming its field.

use std::time::Duration;

use chuhe::api::proto;
use chuhe::engine::EngineConfig;
use chuhe::service::server::ServerConfig;

use crate::common;

fn request(clock: proto::SearchClock) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen: "startpos".into(),
            ..Default::default()
        }),
        limits: Some(proto::SearchLimits { clock: Some(clock), ..Default::default() }),
        ..Default::default()
    }
}

/// A server whose default analysis time (used when a request gives no limit) is far
/// longer than any clock below allows.
async fn start() -> common::server::Running {
    let engine = EngineConfig { default_analysis: Duration::from_secs(8), ..common::server::small_engine() };
    common::server::start(ServerConfig { engine, ..ServerConfig::default() }).await
}

#[tokio::test]
async fn a_search_on_a_clock_answers_well_inside_it() {
    let server = start().await;
    let mut client = server.analysis().await;
    // Two seconds for the rest of the game: the move's hard budget is about a quarter
    // second (four soft budgets of (2 s - 30 ms) / 30).
    let clock = proto::SearchClock { time_left_ms: 2_000, increment_ms: 0, moves_to_go: 0 };
    let resp = client.analyze(request(clock)).await.expect("searched").into_inner();
    // The search's time as the server measured it (the test's clock would also count
    // the call's way there and back, which a loaded machine stretches).
    assert!(resp.time_ms < 1_000, "took {} ms of a 2 s clock: {resp:?}", resp.time_ms);
    assert_eq!(resp.best_move.len(), 4, "a move in ICCS: {:?}", resp.best_move);
    assert!(resp.depth >= 1);
}

#[tokio::test]
async fn a_bad_clock_is_refused_naming_its_field() {
    let server = start().await;
    let mut client = server.analysis().await;
    let cases = [
        (proto::SearchClock { time_left_ms: 0, increment_ms: 100, moves_to_go: 0 }, "limits.clock.time_left_ms"),
        (proto::SearchClock { time_left_ms: 86_400_001, ..Default::default() }, "limits.clock.time_left_ms"),
        (
            proto::SearchClock { time_left_ms: 1_000, increment_ms: 3_600_001, moves_to_go: 0 },
            "limits.clock.increment_ms",
        ),
        (proto::SearchClock { time_left_ms: 1_000, increment_ms: 0, moves_to_go: 1_001 }, "limits.clock.moves_to_go"),
    ];
    for (clock, field) in cases {
        let status = client.analyze(request(clock)).await.expect_err("refused");
        assert_eq!(common::bad_field(&status), field, "{clock:?}");
    }
}
