//! A search's time under a deadline: counted from the call's arrival (a search admitted
//! after waiting for a search thread still answers before its client's deadline), and
//! its stop reason says what stopped it (the move time, or the server's cap or the
//! call's deadline). The real server on an ephemeral port, called with a real client.

use std::time::{Duration, Instant};

use chuhe::api::proto;
use chuhe::engine::EngineConfig;
use chuhe::service::server::ServerConfig;
use tokio_stream::StreamExt;

use crate::common::server::start;

fn start_position() -> proto::Position {
    proto::Position { variant: proto::Variant::Xiangqi as i32, fen: "startpos".into(), ..Default::default() }
}

fn analyze(movetime_ms: u32) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: Some(start_position()),
        limits: Some(proto::SearchLimits { movetime_ms, ..Default::default() }),
        ..Default::default()
    }
}

fn with_deadline<T>(message: T, deadline: Duration) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(deadline);
    request
}

/// One search thread, and searches may wait for it for up to 5 s.
fn one_search_thread(max_analysis: Duration) -> ServerConfig {
    let engine = EngineConfig {
        hash_mb: 8,
        workers: 1,
        max_queue_wait: Duration::from_secs(5),
        max_analysis,
        ..EngineConfig::default()
    };
    ServerConfig { engine, ..ServerConfig::default() }
}

#[tokio::test]
async fn a_search_admitted_after_a_wait_answers_before_the_deadline() {
    let server = start(one_search_thread(Duration::from_secs(10))).await;
    let mut client = server.analysis().await;
    for round in 0..2 {
        // The only search thread is taken: the stream's first message is a finished depth.
        let busy = proto::AnalyzeStreamRequest {
            position: Some(start_position()),
            limits: Some(proto::SearchLimits { movetime_ms: 1_000, ..Default::default() }),
            ..Default::default()
        };
        let mut stream = client.analyze_stream(busy).await.expect("admitted").into_inner();
        stream.next().await.expect("a message").expect("a depth");
        // Read as it comes, so that the search never waits for its reader.
        let drained = tokio::spawn(async move { stream.map(|m| m.expect("a message")).collect::<Vec<_>>().await });

        // This one waits for the thread (about 1 s of its 2.5 s), then may search only
        // what is left of its deadline, not 2.5 s from its start.
        let deadline = Duration::from_millis(2_500);
        let sent = Instant::now();
        let answer = client
            .clone()
            .analyze(with_deadline(analyze(20_000), deadline))
            .await
            .unwrap_or_else(|status| panic!("round {round}: the admitted search answered {status:?}"))
            .into_inner();
        let took = sent.elapsed();
        assert!(took < deadline, "round {round}: answered after {took:?}");
        assert!(!answer.best_move.is_empty(), "round {round}: {answer:?}");
        assert_eq!(answer.stop_reason(), proto::StopReason::Deadline, "round {round}");
        // The stream ran its whole move time meanwhile.
        let last = drained.await.expect("the stream's reader");
        assert!(last.last().is_some_and(|m| m.is_final), "round {round}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn concurrent_searches_under_a_deadline_answer_in_time_or_are_refused() {
    let server = start(one_search_thread(Duration::from_secs(10))).await;
    let client = server.analysis().await;
    let deadline = Duration::from_millis(1_500);
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move { client.analyze(with_deadline(analyze(20_000), deadline)).await })
        })
        .collect();
    let mut answered = 0;
    for call in calls {
        match call.await.expect("the call's task") {
            Ok(answer) => {
                answered += 1;
                assert!(!answer.get_ref().best_move.is_empty());
            }
            // No search thread freed up in time to search before the deadline.
            Err(status) => assert_eq!(status.code(), tonic::Code::ResourceExhausted, "{status:?}"),
        }
    }
    assert!(answered >= 1);
    server.shutdown().await;
}

#[tokio::test]
async fn the_stop_reason_names_what_stopped_the_search() {
    let server = start(one_search_thread(Duration::from_millis(400))).await;
    let mut client = server.analysis().await;
    let reason = |r: Result<tonic::Response<proto::AnalyzeResponse>, tonic::Status>| {
        r.expect("an answer").into_inner().stop_reason()
    };
    // The request's own move time.
    assert_eq!(reason(client.analyze(analyze(150)).await), proto::StopReason::Movetime);
    // The server's cap (400 ms) below the move time asked.
    assert_eq!(reason(client.analyze(analyze(5_000)).await), proto::StopReason::Deadline);
    // The client's deadline below the move time asked.
    let server = {
        server.shutdown().await;
        start(one_search_thread(Duration::from_secs(10))).await
    };
    let mut client = server.analysis().await;
    let r = client.analyze(with_deadline(analyze(5_000), Duration::from_millis(1_000))).await;
    assert_eq!(reason(r), proto::StopReason::Deadline);
    server.shutdown().await;
}
