//! The server under abuse and at its edges: made-up method names, silent and idle
//! connections, more connections than it takes, huge inputs echoed in errors, the
//! metrics of refused, cancelled and streamed calls, the codes of what the framework
//! rejects, and the steps of a shutdown. The real server on an ephemeral port of
//! 127.0.0.1, called with a real gRPC client or a raw TCP socket; every wait is bounded.

use std::time::{Duration, Instant};

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::service::connections::ConnectionLimits;
use chuhe::service::server::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::Code;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse, health_client::HealthClient};

use crate::common;
use common::server::{small_engine, start, start_alone};

fn position(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn config() -> ServerConfig {
    ServerConfig { engine: small_engine(), ..ServerConfig::default() }
}

fn with_connections(connections: ConnectionLimits) -> ServerConfig {
    ServerConfig { connections, ..config() }
}

/// The metrics as `/metrics` would render them now.
pub(crate) fn metrics() -> String {
    chuhe::telemetry::metrics_handle();
    chuhe::telemetry::render_metrics()
}

/// The sum of the samples of `name` whose labels hold all of `labels`.
pub(crate) fn sample(text: &str, name: &str, labels: &[&str]) -> f64 {
    text.lines()
        .filter(|l| l.split(['{', ' ']).next() == Some(name) && labels.iter().all(|x| l.contains(x)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Polls `f` every 20 ms for at most `limit` until it holds.
async fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let started = Instant::now();
    while started.elapsed() < limit {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}

/// A unary call of any path, with a health check request as its message.
pub(crate) async fn call_path(
    channel: &tonic::transport::Channel,
    path: &str,
) -> Result<HealthCheckResponse, tonic::Status> {
    let mut grpc = tonic::client::Grpc::new(channel.clone());
    grpc.ready().await.map_err(|e| tonic::Status::unknown(e.to_string()))?;
    let path = http::uri::PathAndQuery::try_from(path).expect("a path");
    let codec = tonic_prost::ProstCodec::<HealthCheckRequest, HealthCheckResponse>::default();
    grpc.unary(tonic::Request::new(HealthCheckRequest::default()), path, codec).await.map(|r| r.into_inner())
}

/// `calls` calls to made-up methods, 16 at a time on `channel`; each must be
/// UNIMPLEMENTED.
pub(crate) async fn call_made_up_methods(channel: &tonic::transport::Channel, calls: u32) {
    let loops: Vec<_> = (0..16)
        .map(|l| {
            let channel = channel.clone();
            tokio::spawn(async move {
                for i in (l..calls).step_by(16) {
                    let path = format!("/x{:x}.Svc{i}/M{i}", i.wrapping_mul(2_654_435_761));
                    let err = call_path(&channel, &path).await.unwrap_err();
                    assert_eq!(err.code(), Code::Unimplemented, "{err:?}");
                }
            })
        })
        .collect();
    for l in loops {
        l.await.expect("every call answered UNIMPLEMENTED");
    }
}

#[tokio::test]
async fn unknown_methods_share_one_metric_series() {
    metrics();
    let server = start_alone(config()).await;
    let channel = server.channel().await;
    let before = metrics();
    // As many as the probe made, 16 at a time on one connection: each is answered
    // before its body is read, and the connection must outlive them all.
    let calls = 15_000;
    call_made_up_methods(&channel, calls).await;
    let after = metrics();
    assert!(!after.contains("Svc1"), "a made-up name became a label");
    let grown = after.lines().count().saturating_sub(before.lines().count());
    assert!(grown < 40, "{calls} calls to made-up methods added {grown} lines of metrics");
    let unknown = ["grpc_service=\"unknown\"", "grpc_method=\"unknown\""];
    let started = sample(&after, "grpc_server_started_total", &unknown);
    assert!(started - sample(&before, "grpc_server_started_total", &unknown) >= calls as f64);
    let handled = [unknown[0], unknown[1], "grpc_code=\"Unimplemented\""];
    assert!(sample(&after, "grpc_server_handled_total", &handled) >= calls as f64);
    server.shutdown().await;
}

/// Reads until the server closes the connection (or `limit` passes: then None).
async fn closed_within(stream: &mut TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(limit.saturating_sub(started.elapsed()), stream.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => {}
        }
    }
}

pub(crate) const PREFACE: &[u8] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// An empty SETTINGS frame.
pub(crate) const SETTINGS: &[u8] = &[0, 0, 0, 4, 0, 0, 0, 0, 0];

#[tokio::test]
async fn connections_without_a_request_are_closed() {
    let timeout = Duration::from_millis(300);
    let server =
        start(with_connections(ConnectionLimits { first_request_timeout: timeout, ..ConnectionLimits::default() }))
            .await;
    let silent = TcpStream::connect(server.addr).await.unwrap();
    let mut half_preface = TcpStream::connect(server.addr).await.unwrap();
    half_preface.write_all(&PREFACE[..10]).await.unwrap();
    let mut settings_only = TcpStream::connect(server.addr).await.unwrap();
    settings_only.write_all(PREFACE).await.unwrap();
    settings_only.write_all(SETTINGS).await.unwrap();
    for (name, mut stream) in [("silent", silent), ("half a preface", half_preface), ("settings", settings_only)] {
        let closed = closed_within(&mut stream, Duration::from_secs(5)).await;
        let closed = closed.unwrap_or_else(|| panic!("{name}: still open after 5 s"));
        assert!(closed < Duration::from_secs(3), "{name}: closed after {closed:?}");
    }
    // A client that asks in time is served.
    let mut health = HealthClient::new(server.channel().await);
    assert!(health.check(HealthCheckRequest::default()).await.is_ok());
    server.shutdown().await;
}

#[tokio::test]
async fn idle_connections_are_closed_but_not_during_a_call() {
    let idle = Duration::from_millis(300);
    let limits = ConnectionLimits { idle_timeout: Some(idle), ..ConnectionLimits::default() };
    let server = start_alone(with_connections(limits)).await;
    let closed = |text: &str| sample(text, "chuhe_connections_closed_total", &["reason=\"idle_timeout\""]);
    let before = closed(&metrics());
    let channel = server.channel().await;
    // A search longer than the idle timeout keeps its connection.
    let resp = AnalysisServiceClient::new(channel.clone())
        .analyze(proto::AnalyzeRequest {
            position: Some(position("startpos", "")),
            limits: Some(proto::SearchLimits { movetime_ms: 700, ..Default::default() }),
            ..Default::default()
        })
        .await;
    assert!(resp.is_ok(), "{resp:?}");
    assert!(
        eventually(Duration::from_secs(5), || closed(&metrics()) > before).await,
        "the idle connection was not closed"
    );
    // The client connects again.
    let mut health = HealthClient::new(channel);
    assert!(health.check(HealthCheckRequest::default()).await.is_ok());
    server.shutdown().await;
}

#[tokio::test]
async fn connections_over_the_limit_wait_for_a_free_one() {
    let limits = ConnectionLimits { max_connections: 2, ..ConnectionLimits::default() };
    let server = start(with_connections(limits)).await;
    let first = TcpStream::connect(server.addr).await.unwrap();
    let _second = TcpStream::connect(server.addr).await.unwrap();
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{}", server.addr)).unwrap().connect_lazy();
    let mut health = HealthClient::new(channel);
    let waited = tokio::time::timeout(Duration::from_millis(500), health.check(HealthCheckRequest::default())).await;
    assert!(waited.is_err(), "a third connection was served: {waited:?}");
    drop(first);
    let served = tokio::time::timeout(Duration::from_secs(5), health.check(HealthCheckRequest::default())).await;
    assert!(matches!(served, Ok(Ok(_))), "{served:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn the_listen_backlog_holds_a_burst() {
    let somaxconn: u32 = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(4096);
    if somaxconn < 512 {
        eprintln!("net.core.somaxconn is {somaxconn}: the kernel caps the backlog; skipped");
        return;
    }
    // Nothing accepts: every connection waits in the backlog.
    let listener = chuhe::service::connections::bind("127.0.0.1:0".parse().unwrap(), 1024).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut connects = tokio::task::JoinSet::new();
    for _ in 0..400 {
        connects.spawn(tokio::time::timeout(Duration::from_millis(1500), TcpStream::connect(addr)));
    }
    let mut open = Vec::new();
    while let Some(done) = connects.join_next().await {
        if let Ok(Ok(stream)) = done.unwrap() {
            open.push(stream);
        }
    }
    assert_eq!(open.len(), 400, "connections that got into the backlog");
    drop(listener);
}

#[tokio::test]
async fn a_huge_input_echoed_in_an_error_fits_a_default_client() {
    let server = start(config()).await;
    let mut client = server.rules().await;
    let text = "h2e2".repeat(2_000);
    let err = client
        .validate_move(proto::ValidateMoveRequest {
            position: Some(position("startpos", "")),
            r#move: text.clone(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().len() < 2048, "{} bytes of message", err.message().len());
    assert!(err.message().contains(" bytes)…"), "{}", err.message());
    let (field, reason) = common::violation(&err);
    assert_eq!(field, "move");
    assert!(reason.len() < 2048 && reason.contains(" bytes)…"), "{reason}");

    let mut notations = server.notations().await;
    let err = notations
        .convert_moves(proto::ConvertMovesRequest {
            start: Some(position("startpos", "")),
            moves: vec!["马".repeat(3_000)],
            from: proto::Notation::Chinese as i32,
            to: proto::Notation::Iccs as i32,
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::InvalidArgument, "{err:?}");
    assert!(err.message().len() < 2048, "{} bytes of message", err.message().len());
    server.shutdown().await;
}

#[tokio::test]
async fn a_response_refused_for_its_size_is_resource_exhausted_not_ok() {
    metrics();
    let server = start_alone(ServerConfig { max_message_bytes: 64 * 1024, ..config() }).await;
    let mut notations = server.notations().await;
    let record: Vec<String> =
        ["b0c2", "b9c7", "c2b0", "c7b9"].iter().cycle().take(2_000).map(|s| s.to_string()).collect();
    let labels = ["grpc_method=\"ConvertMoves\"", "grpc_code=\"ResourceExhausted\""];
    let before = sample(&metrics(), "grpc_server_handled_total", &labels);
    let err = notations
        .convert_moves(proto::ConvertMovesRequest {
            start: Some(position("startpos", "")),
            moves: record,
            to: proto::Notation::Chinese as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::ResourceExhausted, "{err:?}");
    assert_eq!(sample(&metrics(), "grpc_server_handled_total", &labels) - before, 1.0);
    server.shutdown().await;
}

/// A request of raw bytes in one gRPC frame with compression flag `flag`; the status
/// of the answer, from its headers or its trailers.
async fn raw_call(channel: &tonic::transport::Channel, path: &str, flag: u8, message: &[u8]) -> Code {
    use tower::ServiceExt;
    let mut frame = vec![flag];
    frame.extend_from_slice(&u32::try_from(message.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(message);
    let request = http::Request::builder()
        .method("POST")
        .uri(format!("http://localhost{path}"))
        .header("content-type", "application/grpc")
        .header("te", "trailers")
        .body(tonic::body::Body::new(http_body_full(frame)))
        .unwrap();
    let response = channel.clone().oneshot(request).await.expect("an HTTP answer");
    if let Some(status) = response.headers().get("grpc-status") {
        return Code::from_bytes(status.as_bytes());
    }
    let mut body = response.into_body();
    loop {
        let frame = std::future::poll_fn(|cx| http_body::Body::poll_frame(std::pin::Pin::new(&mut body), cx)).await;
        match frame {
            Some(Ok(frame)) => {
                if let Some(status) = frame.trailers_ref().and_then(|t| t.get("grpc-status")) {
                    return Code::from_bytes(status.as_bytes());
                }
            }
            Some(Err(status)) => return status.code(),
            None => return Code::Unknown,
        }
    }
}

/// A body of one chunk.
fn http_body_full(bytes: Vec<u8>) -> impl http_body::Body<Data = bytes::Bytes, Error = tonic::Status> + Send {
    StreamBody(tokio_stream::once(Ok(http_body::Frame::data(bytes::Bytes::from(bytes)))))
}

/// A body of the frames of a stream.
struct StreamBody<S>(S);

impl<S> http_body::Body for StreamBody<S>
where
    S: tokio_stream::Stream<Item = Result<http_body::Frame<bytes::Bytes>, tonic::Status>> + Unpin,
{
    type Data = bytes::Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<http_body::Frame<bytes::Bytes>, tonic::Status>>> {
        std::pin::Pin::new(&mut self.0).poll_next(cx)
    }
}

#[tokio::test]
async fn undecodable_requests_and_malformed_frames_are_invalid_argument() {
    let server = start(config()).await;
    let channel = server.channel().await;
    let list = "/chuhe.v1.RulesService/ListLegalMoves";
    // Field 1 (the position, a message) as a varint.
    assert_eq!(raw_call(&channel, list, 0, &[0x08, 0x05]).await, Code::InvalidArgument);
    // Not protobuf at all.
    assert_eq!(raw_call(&channel, list, 0, &[0xff, 0xff, 0xff]).await, Code::InvalidArgument);
    // A compression flag that does not exist.
    assert_eq!(raw_call(&channel, list, 7, &[]).await, Code::InvalidArgument);
    // A good request still answers.
    let ok = proto::ListLegalMovesRequest { position: Some(position("startpos", "")), ..Default::default() };
    assert_eq!(raw_call(&channel, list, 0, &prost::Message::encode_to_vec(&ok)).await, Code::Ok);
    server.shutdown().await;
}

fn long_search() -> proto::AnalyzeStreamRequest {
    proto::AnalyzeStreamRequest {
        position: Some(position("startpos", "")),
        limits: Some(proto::SearchLimits { movetime_ms: 3_000, ..Default::default() }),
        ..Default::default()
    }
}

#[tokio::test]
async fn streams_are_timed_to_their_end_and_dropped_ones_are_cancelled() {
    metrics();
    let server = start_alone(config()).await;
    let mut client = server.analysis().await;
    let stream = ["grpc_method=\"AnalyzeStream\""];
    let cancelled = ["grpc_method=\"AnalyzeStream\"", "grpc_code=\"Canceled\""];
    let before = metrics();

    // A whole stream of about 400 ms: its time is the stream's, not its headers'.
    let mut whole = long_search();
    whole.limits = Some(proto::SearchLimits { movetime_ms: 400, ..Default::default() });
    let mut responses = client.analyze_stream(whole).await.unwrap().into_inner();
    while responses.message().await.unwrap().is_some() {}
    let after = metrics();
    let seconds = sample(&after, "grpc_server_handling_seconds_sum", &stream)
        - sample(&before, "grpc_server_handling_seconds_sum", &stream);
    assert!(seconds >= 0.35, "the stream took {seconds} s by the histogram");

    // A stream the client drops is CANCELLED, and counted once it is.
    let mut responses = client.analyze_stream(long_search()).await.unwrap().into_inner();
    let _first = responses.message().await;
    drop(responses);
    let counted = eventually(Duration::from_secs(5), || {
        sample(&metrics(), "grpc_server_handled_total", &cancelled)
            > sample(&before, "grpc_server_handled_total", &cancelled)
    })
    .await;
    assert!(counted, "the dropped stream was not counted as cancelled");
    let now = metrics();
    assert!(
        sample(&now, "grpc_server_handled_total", &stream) >= sample(&now, "grpc_server_started_total", &stream) - 8.0
    );
    server.shutdown().await;
}

#[tokio::test]
async fn a_unary_call_the_client_gives_up_is_cancelled() {
    metrics();
    let server = start_alone(config()).await;
    let mut client = server.analysis().await;
    let cancelled = ["grpc_method=\"Hint\"", "grpc_code=\"Canceled\""];
    let before = sample(&metrics(), "grpc_server_handled_total", &cancelled);
    let hint =
        proto::HintRequest { position: Some(position("startpos", "")), movetime_ms: 2_000, ..Default::default() };
    let gave_up = tokio::time::timeout(Duration::from_millis(200), client.hint(hint)).await;
    assert!(gave_up.is_err(), "{gave_up:?}");
    let counted =
        eventually(Duration::from_secs(5), || sample(&metrics(), "grpc_server_handled_total", &cancelled) > before)
            .await;
    assert!(counted, "the call given up was not counted");
    server.shutdown().await;
}

#[tokio::test]
async fn shed_calls_and_deadline_overruns_are_exported() {
    metrics();
    let text = metrics();
    assert!(text.contains("chuhe_search_deadline_overruns_total"), "overruns exported before any");
    let server = start_alone(ServerConfig { max_concurrency: 1, ..config() }).await;
    let shed = |text: &str| sample(text, "chuhe_requests_shed_total", &["grpc_method=\"Hint\""]);
    let before = shed(&metrics());
    let mut calls = Vec::new();
    for _ in 0..6 {
        let mut client = server.analysis().await;
        calls.push(tokio::spawn(async move {
            let hint =
                proto::HintRequest { position: Some(position("startpos", "")), movetime_ms: 300, ..Default::default() };
            client.hint(hint).await.map(|_| ()).map_err(|s| s.code())
        }));
    }
    let mut refused = 0.0;
    for c in calls {
        if c.await.unwrap() == Err(Code::ResourceExhausted) {
            refused += 1.0;
        }
    }
    assert!(refused >= 1.0);
    assert!(shed(&metrics()) - before >= refused, "shed {refused}, counted {}", shed(&metrics()) - before);
    server.shutdown().await;
}

async fn health_status(channel: tonic::transport::Channel) -> Option<i32> {
    let mut health = HealthClient::new(channel);
    let request = HealthCheckRequest { service: String::new() };
    tokio::time::timeout(Duration::from_secs(1), health.check(request)).await.ok()?.ok().map(|r| r.into_inner().status)
}

#[tokio::test]
async fn shutdown_answers_not_serving_while_it_drains() {
    let server = start(ServerConfig { drain_delay: Duration::from_millis(800), ..config() }).await;
    let addr = server.addr;
    let channel = server.channel().await;
    assert_eq!(health_status(channel.clone()).await, Some(ServingStatus::Serving as i32));
    let mut server = server;
    server.signal_shutdown();
    let mut not_serving = false;
    for _ in 0..100 {
        if health_status(channel.clone()).await == Some(ServingStatus::NotServing as i32) {
            not_serving = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert!(not_serving, "health never answered NOT_SERVING");
    // Still accepting during the drain delay.
    let late = tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await;
    assert!(late.is_ok(), "refused during the drain delay");
    assert_eq!(health_status(late.unwrap()).await, Some(ServingStatus::NotServing as i32));
    let served = server.stopped().await;
    assert_eq!(served, Default::default(), "nothing was cut");
    assert!(TcpStream::connect(addr).await.is_err(), "still accepting after the drain");
}

#[tokio::test]
async fn calls_still_running_after_the_grace_period_end_unavailable() {
    let config = ServerConfig { grace_period: Duration::from_millis(300), ..config() };
    // Alone, so that the started calls counted are this server's.
    let mut server = start_alone(config).await;
    let mut streaming = server.analysis().await;
    let mut unary = server.analysis().await;
    let mut responses = streaming.analyze_stream(long_search()).await.unwrap().into_inner();
    let before = common::server::calls_started("Analyze");
    let call = tokio::spawn(async move {
        unary
            .analyze(proto::AnalyzeRequest {
                position: Some(position("startpos", "")),
                limits: Some(proto::SearchLimits { movetime_ms: 3_000, ..Default::default() }),
                ..Default::default()
            })
            .await
    });
    // Both calls in flight before the shutdown: the unary one once the server counts it
    // as started.
    common::server::until_started("Analyze", before).await;
    server.signal_shutdown();
    // The stream goes on through the grace period, then gets a status, not a reset.
    let last = loop {
        match tokio::time::timeout(Duration::from_secs(5), responses.message()).await.expect("the stream ends") {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended OK before its time"),
            Err(status) => break status,
        }
    };
    assert_eq!(last.code(), Code::Unavailable, "{last:?}");
    assert!(last.message().contains("shutting down"), "{last:?}");
    let unary = call.await.unwrap().unwrap_err();
    assert_eq!(unary.code(), Code::Unavailable, "{unary:?}");
    let served = server.stopped().await;
    assert_eq!(served.calls_cut, 2, "{served:?}");
}

/// `chuhe serve` on an ephemeral port of 127.0.0.1 with `args` besides, its stderr
/// piped, and a channel to it once it answers.
pub(crate) async fn spawn_chuhe_serve(args: &[&str]) -> (std::process::Child, tonic::transport::Channel) {
    spawn_chuhe_serve_in(None, args).await
}

/// [`spawn_chuhe_serve`], started in the cgroup of directory `cgroup` (a shell moves
/// itself there, then runs the server in its place).
pub(crate) async fn spawn_chuhe_serve_in(
    cgroup: Option<&std::path::Path>,
    args: &[&str],
) -> (std::process::Child, tonic::transport::Channel) {
    use std::process::{Command, Stdio};
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let addr = format!("127.0.0.1:{port}");
    let mut command = match cgroup {
        None => Command::new(env!("CARGO_BIN_EXE_chuhe")),
        Some(dir) => {
            let mut sh = Command::new("sh");
            let procs = dir.join("cgroup.procs");
            sh.args(["-c", r#"echo $$ > "$0" && exec "$@""#, procs.to_str().unwrap(), env!("CARGO_BIN_EXE_chuhe")]);
            sh
        }
    };
    let mut child = command
        .args(["serve", "--listen", &addr, "--metrics-listen", "127.0.0.1:0"])
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("chuhe runs");
    let started = Instant::now();
    loop {
        match tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await {
            Ok(channel) => return (child, channel),
            Err(_) if started.elapsed() < Duration::from_secs(10) => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            Err(e) => {
                let _ = child.kill();
                panic!("the server did not start: {e}");
            }
        }
    }
}

#[tokio::test]
async fn chuhe_serve_exits_with_status_3_when_calls_are_cut() {
    use std::process::Command;
    let args = ["--drain-delay-s", "0", "--grace-period-s", "1", "--hash-mb", "8", "--search-workers", "1"];
    let (mut child, channel) = spawn_chuhe_serve(&args).await;
    let started = Instant::now();
    let mut search = long_search();
    search.limits = Some(proto::SearchLimits { movetime_ms: 8_000, ..Default::default() });
    let mut responses = AnalysisServiceClient::new(channel).analyze_stream(search).await.unwrap().into_inner();
    let term = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().expect("kill runs");
    assert!(term.success());
    let last = loop {
        match tokio::time::timeout(Duration::from_secs(10), responses.message()).await.expect("the stream ends") {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the stream ended OK before its time"),
            Err(status) => break status,
        }
    };
    assert_eq!(last.code(), Code::Unavailable, "{last:?}");
    let exited = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("the server did not exit");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(exited.code(), Some(3), "{stderr}");
    assert!(stderr.contains("cut off"), "{stderr}");
}
