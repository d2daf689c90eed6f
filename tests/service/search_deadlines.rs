//! A search's time under a deadline: counted from the call's arrival (a search admitted
//! after waiting for a search thread still answers before the call's deadline), and
//! its stop reason says what stopped it (the move time, or the server's cap or the
//! call's deadline). The real server on an ephemeral port, called with a real client.
//!
//! Where the deadline is what is checked, the call's deadline is the server's own limit
//! on a call's time (`request_timeout`; a client's `grpc-timeout` takes the same path,
//! the smaller of the two being the call's deadline) and the search is an AnalyzeStream,
//! whose messages are not cut at the deadline: the test then reads how long the search
//! ran as the server measured it. A unary answer is cut at the deadline, by the client
//! from its own send and by the server from the arrival, so on a loaded machine the
//! time between the search's end and the answer's arrival (the threads of both waiting
//! for a core) eats the server's margin of at most 50 ms and the call fails however
//! well the search kept its time. The unary path with a client's deadline is checked by
//! `analysis`'s `analyze_honours_the_client_deadline`.

use std::time::Duration;

use chuhe::api::proto;
use chuhe::engine::{EngineConfig, SearchPriority};
use chuhe::service::server::ServerConfig;
use tokio::task::JoinHandle;
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

/// One search thread, and searches may wait for it for up to 5 s; calls may take up to
/// `call_limit`.
///
/// The search thread runs at the test's own priority. What is checked here is the time
/// a search is given; how searches give way to rules calls is checked by
/// `search_priority`, and measured by `cargo bench --bench load -- --searches 2`. With the default nice value of 10, on a
/// loaded machine (a load of 15-20 on 2 cores) the search thread gets about a tenth of
/// the share of the threads around it, and the few milliseconds of work between its
/// deadline and its answer stretch past the server's margin.
fn one_search_thread(max_analysis: Duration, call_limit: Duration) -> ServerConfig {
    let engine = EngineConfig {
        hash_mb: 8,
        workers: 1,
        max_queue_wait: Duration::from_secs(5),
        max_analysis,
        search_priority: SearchPriority::UNCHANGED,
        ..EngineConfig::default()
    };
    ServerConfig { engine, request_timeout: call_limit, ..ServerConfig::default() }
}

/// The default limit on a call's time, far above every search of these tests.
const NO_CALL_LIMIT: Duration = Duration::from_secs(60);

/// The final message of an AnalyzeStream, its messages read as they come (so that the
/// search never waits for its reader).
fn drain(mut stream: tonic::Streaming<proto::AnalyzeStreamResponse>) -> JoinHandle<proto::AnalyzeStreamResponse> {
    tokio::spawn(async move {
        let mut last = None;
        while let Some(m) = stream.next().await {
            last = Some(m.expect("a message"));
        }
        last.filter(|m| m.is_final).expect("a final message")
    })
}

fn analyze_stream(movetime_ms: u32) -> proto::AnalyzeStreamRequest {
    proto::AnalyzeStreamRequest {
        position: Some(start_position()),
        limits: Some(proto::SearchLimits { movetime_ms, ..Default::default() }),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_search_admitted_after_a_wait_answers_before_the_deadline() {
    // Every call may take 2.5 s from its arrival.
    let deadline = Duration::from_millis(2_500);
    let server = start(one_search_thread(Duration::from_secs(10), deadline)).await;
    let mut client = server.analysis().await;
    for round in 0..2 {
        // The only search thread is taken: the stream's first message is a finished depth.
        let mut stream = client.analyze_stream(analyze_stream(1_000)).await.expect("admitted").into_inner();
        let first = stream.next().await.expect("a message").expect("a depth");
        let busy = drain(stream);

        // This one waits for the thread (most of the second the first search has left),
        // then may search only what is left of its 2.5 s, not 2.5 s from its admission.
        // A stream's messages are not cut at the deadline, so what it reports shows
        // how long it searched, however late a loaded machine delivers it.
        let waiting = client.clone().analyze_stream(analyze_stream(20_000)).await;
        let waiting =
            drain(waiting.unwrap_or_else(|status| panic!("round {round}: not admitted: {status:?}")).into_inner());
        let (busy, waiting) = (busy.await.expect("a reader"), waiting.await.expect("a reader"));

        // The first search ran its whole move time, as the server measured it.
        assert_eq!(busy.stop_reason(), proto::StopReason::Movetime, "round {round}");
        assert!(busy.time_ms >= 1_000, "round {round}: the first search ran {} ms", busy.time_ms);
        // The second was sent after the first search's first depth and admitted after
        // its end: it waited for about `busy.time_ms - first.time_ms` (less the time a
        // message takes between client and server). Given 2.5 s from its admission,
        // it would have searched about 2.45 s; from its arrival, about that wait less.
        // Half the wait tells the two apart with room for a loaded machine's delays.
        let wait_ms = busy.time_ms.saturating_sub(first.time_ms);
        assert!(wait_ms >= 500, "round {round}: the first search's depth 1 took {} ms", first.time_ms);
        assert_eq!(waiting.stop_reason(), proto::StopReason::Deadline, "round {round}: {waiting:?}");
        assert!(!waiting.best_move.is_empty(), "round {round}: {waiting:?}");
        let budget_ms = deadline.as_millis() as u32;
        assert!(
            waiting.time_ms < budget_ms - wait_ms / 2,
            "round {round}: waited about {wait_ms} ms, then searched {} ms of a {budget_ms} ms deadline",
            waiting.time_ms
        );
    }
    server.shutdown().await;
}

#[tokio::test]
async fn concurrent_searches_under_a_deadline_answer_in_time_or_are_refused() {
    // Every call may take 1.5 s from its arrival; six arrive at once for one thread.
    let deadline = Duration::from_millis(1_500);
    let server = start(one_search_thread(Duration::from_secs(10), deadline)).await;
    let client = server.analysis().await;
    let calls: Vec<_> = (0..6)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move {
                let mut stream = client.analyze_stream(analyze_stream(20_000)).await?.into_inner();
                let mut last = None;
                while let Some(m) = stream.next().await {
                    last = Some(m?);
                }
                Ok::<_, tonic::Status>(last.filter(|m| m.is_final).expect("a final message"))
            })
        })
        .collect();
    let mut answered = 0;
    for call in calls {
        match call.await.expect("the call's task") {
            Ok(answer) => {
                answered += 1;
                assert!(!answer.best_move.is_empty(), "{answer:?}");
                // The search ended by the call's deadline, as the server measured it.
                assert_eq!(answer.stop_reason(), proto::StopReason::Deadline, "{answer:?}");
                assert!(answer.time_ms < deadline.as_millis() as u32, "{answer:?}");
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
    let server = start(one_search_thread(Duration::from_millis(400), NO_CALL_LIMIT)).await;
    let mut client = server.analysis().await;
    let reason = |r: Result<tonic::Response<proto::AnalyzeResponse>, tonic::Status>| {
        r.expect("an answer").into_inner().stop_reason()
    };
    // The request's own move time.
    assert_eq!(reason(client.analyze(analyze(150)).await), proto::StopReason::Movetime);
    // The server's cap (400 ms) below the move time asked.
    assert_eq!(reason(client.analyze(analyze(5_000)).await), proto::StopReason::Deadline);
    // The call's deadline (1 s) below the move time asked.
    let server = {
        server.shutdown().await;
        start(one_search_thread(Duration::from_secs(10), Duration::from_millis(1_000))).await
    };
    let mut client = server.analysis().await;
    let stream = client.analyze_stream(analyze_stream(5_000)).await.expect("admitted").into_inner();
    let done = drain(stream).await.expect("a reader");
    assert_eq!(done.stop_reason(), proto::StopReason::Deadline, "{done:?}");
    server.shutdown().await;
}
