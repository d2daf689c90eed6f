//! Clients that hold the server on purpose: responses never read (a flow-control window
//! of 0) and request bodies never ended, many streams over a few connections from one
//! address. A fresh client from another address is served while they wait, and their
//! calls end within the write and request body timeouts. The real server on an
//! ephemeral port, a raw HTTP/2 client for the attacker and a gRPC client for the
//! fresh one; every wait is bounded and generous.

use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use bytes::Bytes;
use chuhe::api::proto;
use chuhe::service::connections::ConnectionLimits;
use chuhe::service::server::ServerConfig;

use crate::common;
use crate::hardening::{metrics, sample};
use common::raw_h2::{connect, framed, grpc_request, grpc_status};
use common::server::{Running, small_engine, start_alone};

/// The attacker's address; the fresh client calls from 127.0.0.1.
const ATTACKER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));
const STREAMS_PER_CONNECTION: usize = 130;
const LIST_MOVES: &str = "/chuhe.v1.RulesService/ListLegalMoves";

fn start_position() -> proto::Position {
    proto::Position { variant: proto::Variant::Xiangqi as i32, fen: "startpos".into(), ..Default::default() }
}

fn config(write_timeout: Duration, body_timeout: Duration) -> ServerConfig {
    ServerConfig {
        request_body_timeout: body_timeout,
        engine: small_engine(),
        connections: ConnectionLimits {
            write_timeout: Some(write_timeout),
            max_connection_age_grace: Duration::from_secs(1),
            ..ConnectionLimits::default()
        },
        ..ServerConfig::default()
    }
}

/// A game of `plies` plies converted into Chinese, framed: a large response.
fn long_conversion(plies: usize) -> Bytes {
    let moves: Vec<String> =
        ["h2e2", "h9g7", "e2h2", "g7h9"].iter().cycle().take(plies).map(|m| m.to_string()).collect();
    let request = proto::ConvertMovesRequest {
        start: Some(start_position()),
        moves,
        to: proto::Notation::Chinese as i32,
        ..Default::default()
    };
    framed(&request)
}

/// A call of `path` with `body` whose response is never read (on a connection with a
/// window of 0): whether it got data before it ended (none: refused or reset).
fn unread_call(
    connection: &h2::client::SendRequest<Bytes>,
    path: &'static str,
    body: &Bytes,
) -> tokio::task::JoinHandle<Option<bool>> {
    let (connection, body) = (connection.clone(), body.clone());
    tokio::spawn(async move {
        // Streams past the server's limit wait here for one to end.
        let mut connection = connection.ready().await.ok()?;
        let (response, mut send) = connection.send_request(grpc_request(path), false).ok()?;
        send.send_data(body, true).ok()?;
        let mut response = response.await.ok()?.into_body();
        // Never read: the window stays 0, so this waits until the stream ends.
        response.data().await.map(|d| d.is_ok())
    })
}

/// A ListLegalMoves whose request body is three bytes of a message and never ends: the
/// grpc-status it ends with, or the error that ended it.
fn unended_call(connection: &h2::client::SendRequest<Bytes>) -> tokio::task::JoinHandle<Result<Option<i32>, String>> {
    let connection = connection.clone();
    tokio::spawn(async move {
        let mut connection = connection.ready().await.map_err(|e| format!("ready: {e}"))?;
        let (response, mut send) =
            connection.send_request(grpc_request(LIST_MOVES), false).map_err(|e| format!("send: {e}"))?;
        send.send_data(Bytes::from_static(b"\0\0\0"), false).map_err(|e| format!("data: {e}"))?;
        let response = response.await.map_err(|e| format!("response: {e}"))?;
        drop(send);
        Ok(grpc_status(response.headers()))
    })
}

/// A fresh client's ListLegalMoves, which must be OK (within a generous bound).
async fn fresh_client_is_served(server: &Running) -> Duration {
    let asked = Instant::now();
    let mut rules = server.rules().await;
    let request = proto::ListLegalMovesRequest { position: Some(start_position()), ..Default::default() };
    let answer = tokio::time::timeout(Duration::from_secs(10), rules.list_legal_moves(request))
        .await
        .expect("the fresh client is answered")
        .expect("the fresh client is served, not refused");
    assert_eq!(answer.into_inner().moves.len(), 44);
    asked.elapsed()
}

/// The test process's resident memory (server and clients), for `--nocapture` runs.
fn rss() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .unwrap_or("VmRSS unknown")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Waits (at most 30 s) until the server has started `calls` more ListLegalMoves calls
/// than `before`.
async fn until_calls(before: f64, calls: f64) {
    let waiting = Instant::now();
    while sample(&metrics(), "grpc_server_started_total", &["grpc_method=\"ListLegalMoves\""]) < before + calls {
        assert!(waiting.elapsed() < Duration::from_secs(30), "the attacker's calls did not reach the server");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn unread_responses_leave_the_server_to_others_and_are_given_up() {
    let write_timeout = Duration::from_secs(3);
    let server = start_alone(config(write_timeout, Duration::from_secs(10))).await;
    let before = sample(&metrics(), "grpc_server_started_total", &["grpc_method=\"ListLegalMoves\""]);
    let given_up_before = sample(&metrics(), "chuhe_responses_write_timed_out_total", &[]);
    let body = framed(&proto::ListLegalMovesRequest { position: Some(start_position()), ..Default::default() });
    let mut calls = Vec::new();
    for _ in 0..2 {
        let connection = connect(ATTACKER, server.addr, 0).await;
        for _ in 0..STREAMS_PER_CONNECTION {
            calls.push(unread_call(&connection, LIST_MOVES, &body));
        }
    }
    // Each connection gets its streams' worth of places (64), no more.
    until_calls(before, 128.0).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = sample(&metrics(), "grpc_server_started_total", &["grpc_method=\"ListLegalMoves\""]) - before;
    assert!(started <= 128.0 + 1.0, "{started} streams were served at once over two connections");
    let served = fresh_client_is_served(&server).await;
    println!("unread responses: a fresh client served in {served:?} while {started} streams stalled; {}", rss());

    // Given up after about the write timeout; the connection goes a grace later.
    let ended_by = Instant::now() + write_timeout * 2 + Duration::from_secs(1) + Duration::from_secs(10);
    for call in calls {
        let read_data = tokio::time::timeout_at(ended_by.into(), call).await.expect("every stalled call ends").unwrap();
        assert_ne!(read_data, Some(true), "no data was read with a window of 0");
    }
    let given_up = sample(&metrics(), "chuhe_responses_write_timed_out_total", &[]) - given_up_before;
    assert!(given_up >= 128.0, "{given_up} responses given up");
    assert_eq!(sample(&metrics(), "chuhe_response_bytes_waiting", &[]), 0.0, "no bytes are held once given up");
    // Every place is free again: as many calls at once as the server serves.
    fresh_client_is_served(&server).await;
    server.shutdown().await;
}

#[tokio::test]
async fn the_bytes_of_unread_large_responses_are_bounded_and_freed() {
    let write_timeout = Duration::from_secs(1);
    let server = start_alone(config(write_timeout, Duration::from_secs(10))).await;
    // A game of 4,000 plies converted into Chinese: a response of some 50 KiB.
    let body = long_conversion(4_000);
    let connection = connect(ATTACKER, server.addr, 0).await;
    let calls: Vec<_> =
        (0..32).map(|_| unread_call(&connection, "/chuhe.v1.NotationService/ConvertMoves", &body)).collect();
    // While they wait, each holds what HTTP/2 did not take: the server counts it.
    let waiting = Instant::now();
    let held = loop {
        let held = sample(&metrics(), "chuhe_response_bytes_waiting", &[]);
        if held > 0.0 || waiting.elapsed() > Duration::from_secs(30) {
            break held;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert!(held > 0.0, "the unread responses are held by the server's response bodies");
    println!("unread large responses: {held} bytes waiting; {}", rss());
    for call in calls {
        let ended = tokio::time::timeout(Duration::from_secs(20), call).await.expect("every stalled call ends");
        assert_ne!(ended.unwrap(), Some(true));
    }
    assert_eq!(sample(&metrics(), "chuhe_response_bytes_waiting", &[]), 0.0, "freed when given up");
    println!("unread large responses given up: {}", rss());
    server.shutdown().await;
}

#[tokio::test]
async fn unended_request_bodies_leave_the_server_to_others_and_time_out() {
    let body_timeout = Duration::from_secs(4);
    let server = start_alone(config(Duration::from_secs(10), body_timeout)).await;
    let before = sample(&metrics(), "grpc_server_started_total", &["grpc_method=\"ListLegalMoves\""]);
    let mut calls = Vec::new();
    for _ in 0..2 {
        let connection = connect(ATTACKER, server.addr, 65_535).await;
        for _ in 0..STREAMS_PER_CONNECTION {
            calls.push(unended_call(&connection));
        }
    }
    until_calls(before, 128.0).await;
    let asked = Instant::now();
    let served = fresh_client_is_served(&server).await;
    println!("unended bodies: a fresh client served in {served:?}; {}", rss());
    assert!(asked.elapsed() < body_timeout, "served before the held calls timed out: {:?}", asked.elapsed());

    // In batches of a connection's streams, each within the body timeout. A stream the
    // client opens while the server still counts an ended one against the connection's
    // limit is refused (REFUSED_STREAM: not processed, which a client may retry).
    let mut timed_out = 0;
    for call in calls {
        let status = tokio::time::timeout(Duration::from_secs(30), call).await.expect("every held call ends").unwrap();
        timed_out += usize::from(status.is_ok());
        match status {
            Ok(status) => assert_eq!(status, Some(tonic::Code::DeadlineExceeded as i32), "the body timeout's status"),
            Err(e) => assert!(e.contains("refused stream"), "{e}"),
        }
    }
    assert!(timed_out >= 128, "{timed_out} calls ended at the body timeout");
    server.shutdown().await;
}

#[tokio::test]
async fn the_metrics_port_closes_idle_and_half_sent_connections() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (first_request, idle) = (Duration::from_millis(500), Duration::from_millis(800));
    let timeouts = chuhe::telemetry::MetricsTimeouts { first_request, idle: Some(idle) };
    let server = tokio::spawn(chuhe::telemetry::serve_metrics(listener, timeouts, None, std::future::pending()));
    let silent = tokio::net::TcpStream::connect(addr).await.unwrap();
    let mut half_sent = tokio::net::TcpStream::connect(addr).await.unwrap();
    half_sent.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n").await.unwrap();
    let mut served = tokio::net::TcpStream::connect(addr).await.unwrap();
    served.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
    // Each is closed by the server: its read ends (after the response, for the one served).
    for (name, mut stream) in [("silent", silent), ("half-sent", half_sent), ("served, then idle", served)] {
        let mut received = Vec::new();
        let closed = tokio::time::timeout(Duration::from_secs(20), stream.read_to_end(&mut received)).await;
        assert!(closed.is_ok(), "the {name} connection is closed");
        if name.starts_with("served") {
            assert!(String::from_utf8_lossy(&received).starts_with("HTTP/1.1 200"), "the request was answered first");
        } else {
            assert!(received.is_empty() || !String::from_utf8_lossy(&received).contains("200 OK"), "{name}");
        }
    }
    server.abort();
}

#[tokio::test]
async fn hint_renders_and_checks_notations_as_list_legal_moves_does() {
    let server = common::server::start(ServerConfig { engine: small_engine(), ..ServerConfig::default() }).await;
    let mut analysis = server.analysis().await;
    let hint = |notations: Vec<i32>, variant: proto::Variant| proto::HintRequest {
        position: Some(proto::Position { variant: variant as i32, fen: "startpos".into(), ..Default::default() }),
        movetime_ms: 50,
        notations,
        ..Default::default()
    };
    let (wxf, chinese) = (proto::Notation::Wxf as i32, proto::Notation::Chinese as i32);
    let answer = analysis.hint(hint(vec![wxf, chinese], proto::Variant::Xiangqi)).await.unwrap().into_inner();
    let m = answer.r#move.expect("a move");
    let rendered: Vec<i32> = m.notations.iter().map(|n| n.notation).collect();
    assert_eq!(rendered, vec![wxf, chinese], "{m:?}");
    assert!(m.notations.iter().all(|n| !n.text.is_empty()), "{m:?}");
    for (notations, variant, field) in [
        (vec![wxf; 9], proto::Variant::Xiangqi, "notations"),
        (vec![wxf, 999], proto::Variant::Xiangqi, "notations[1]"),
        (vec![wxf], proto::Variant::Janggi, "notations[0]"),
    ] {
        let refused = analysis.hint(hint(notations, variant)).await.unwrap_err();
        assert_eq!(refused.code(), tonic::Code::InvalidArgument, "{refused:?}");
        let bad = tonic_types::StatusExt::get_details_bad_request(&refused).expect("a BadRequest");
        assert_eq!(bad.field_violations[0].field, field, "{refused:?}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn an_undecodable_message_names_the_field_the_decoder_reports() {
    let server = common::server::start(ServerConfig { engine: small_engine(), ..ServerConfig::default() }).await;
    let mut connection = connect(IpAddr::V4(Ipv4Addr::LOCALHOST), server.addr, 65_535).await;
    // Position.fen (field 2 of field 1) holding bytes that are not UTF-8.
    let message = [0x0a, 0x04, 0x12, 0x02, 0xff, 0xfe];
    let mut body = vec![0, 0, 0, 0, message.len() as u8];
    body.extend_from_slice(&message);
    connection = connection.ready().await.unwrap();
    let (response, mut send) = connection.send_request(grpc_request(LIST_MOVES), false).unwrap();
    send.send_data(Bytes::from(body), true).unwrap();
    let response = tokio::time::timeout(Duration::from_secs(10), response).await.unwrap().unwrap();
    let status = tonic::Status::from_header_map(response.headers()).expect("a trailers-only status");
    assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
    let bad = tonic_types::StatusExt::get_details_bad_request(&status).expect("a BadRequest");
    assert_eq!(bad.field_violations[0].field, "position.fen", "{status:?}");
    server.shutdown().await;
}

/// A unary call whose body is `body`, sent raw; its status.
async fn raw_unary(server: &Running, body: &'static [u8], encoding: Option<&str>) -> tonic::Status {
    let mut connection = connect(IpAddr::V4(Ipv4Addr::LOCALHOST), server.addr, 65_535).await;
    connection = connection.ready().await.unwrap();
    let mut request = grpc_request(LIST_MOVES);
    if let Some(encoding) = encoding {
        request.headers_mut().insert("grpc-encoding", encoding.parse().unwrap());
    }
    let (response, mut send) = connection.send_request(request, body.is_empty()).unwrap();
    if !body.is_empty() {
        send.send_data(Bytes::from_static(body), true).unwrap();
    }
    let response = tokio::time::timeout(Duration::from_secs(10), response).await.unwrap().unwrap();
    if let Some(status) = tonic::Status::from_header_map(response.headers()) {
        return status;
    }
    let mut body = response.into_body();
    while let Some(data) = body.data().await {
        data.unwrap();
    }
    let trailers = body.trailers().await.unwrap().expect("trailers");
    tonic::Status::from_header_map(&trailers).expect("a status")
}

#[tokio::test]
async fn protocol_faults_of_a_request_are_invalid_argument() {
    let server = common::server::start(ServerConfig { engine: small_engine(), ..ServerConfig::default() }).await;
    // An empty ListLegalMovesRequest is a message of 0 bytes; two of them are two messages.
    for (body, encoding, says) in [
        (&b""[..], None, "no request message"),
        (&b"\0\0\0\0\0\0\0\0\0\0"[..], None, "one request message"),
        (&b"\x01\0\0\0\0"[..], None, "grpc-encoding"),
    ] {
        let status = raw_unary(&server, body, encoding).await;
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        assert!(status.message().contains(says), "{status:?}");
    }
    server.shutdown().await;
}

/// Both attacks of the slow-client issue against a real `chuhe serve` with its defaults
/// (the binary of `CHUHE_BIN`, else the tests' own): 2 connections x 130 ConvertMoves of
/// 10,000 plies into Chinese whose responses are never read, then 260 request bodies
/// never ended. It prints how long a fresh client waits to be served, and the server's
/// resident memory before, while the calls stall and after they are given up. A
/// measurement, not a check:
///
/// ```text
/// cargo build --release && CHUHE_BIN=target/release/chuhe \
///     cargo test --test service attacks_on_chuhe_serve -- --ignored --nocapture
/// ```
#[tokio::test]
#[ignore = "a measurement: run with `cargo test --test service attacks_on_chuhe_serve -- --ignored --nocapture`"]
async fn attacks_on_chuhe_serve() {
    use std::process::{Command, Stdio};
    let free_port = || std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (grpc, metrics_port) = (free_port(), free_port());
    let binary = std::env::var("CHUHE_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_chuhe").to_string());
    let mut child = Command::new(&binary)
        .args(["serve", "--listen", &format!("127.0.0.1:{grpc}"), "--metrics-listen"])
        .arg(format!("127.0.0.1:{metrics_port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("chuhe serve runs");
    let addr: std::net::SocketAddr = format!("127.0.0.1:{grpc}").parse().unwrap();
    let pid = child.id();
    let rss = move || {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let kb =
            status.lines().find(|l| l.starts_with("VmRSS")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok());
        format!("{:.0} MB", kb.unwrap_or(0u64) as f64 / 1024.0)
    };
    let scrape = move || {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", metrics_port)).ok()?;
        use std::io::{Read, Write};
        stream.write_all(b"GET /metrics HTTP/1.0\r\nHost: localhost\r\n\r\n").ok()?;
        let mut text = String::new();
        stream.read_to_string(&mut text).ok()?;
        Some(text)
    };
    let started = |method: &str| sample(&scrape().unwrap_or_default(), "grpc_server_started_total", &[method]);
    let waiting_bytes = || sample(&scrape().unwrap_or_default(), "chuhe_response_bytes_waiting", &[]);
    let waiting = Instant::now();
    let channel = loop {
        match tonic::transport::Channel::from_shared(format!("http://{addr}")).unwrap().connect().await {
            Ok(channel) => break channel,
            Err(e) => {
                assert!(waiting.elapsed() < Duration::from_secs(20), "the server did not start: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    };
    let fresh = || {
        let mut rules = chuhe::api::proto::rules_service_client::RulesServiceClient::new(channel.clone());
        async move {
            let asked = Instant::now();
            let request = proto::ListLegalMovesRequest { position: Some(start_position()), ..Default::default() };
            let answer = rules.list_legal_moves(request).await;
            (asked.elapsed(), answer.map(|a| a.into_inner().moves.len()).map_err(|s| s.code()))
        }
    };
    println!("chuhe serve ({binary}) started: {}; {}", rss(), crate::probe::load_average());

    // 1. Responses never read.
    let body = long_conversion(10_000);
    let before = started("ConvertMoves");
    let attack = Instant::now();
    let mut calls = Vec::new();
    for _ in 0..2 {
        let connection = connect(ATTACKER, addr, 0).await;
        for _ in 0..STREAMS_PER_CONNECTION {
            calls.push(unread_call(&connection, "/chuhe.v1.NotationService/ConvertMoves", &body));
        }
    }
    while started("ConvertMoves") < before + 128.0 && attack.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let in_place = attack.elapsed();
    let (waited, answer) = fresh().await;
    println!(
        "unread responses: {} calls in place after {in_place:?}; a fresh client answered {answer:?} in {waited:?}; \
         server {} while they stall, {} response bytes waiting",
        started("ConvertMoves") - before,
        rss(),
        waiting_bytes()
    );
    for call in calls {
        let _ = tokio::time::timeout(Duration::from_secs(60), call).await;
    }
    println!(
        "unread responses: all ended {:?} after the attack began; server {}, {} response bytes waiting",
        attack.elapsed(),
        rss(),
        waiting_bytes()
    );

    // 2. Request bodies never ended.
    let before = started("ListLegalMoves");
    let attack = Instant::now();
    let mut calls = Vec::new();
    for _ in 0..2 {
        let connection = connect(ATTACKER, addr, 65_535).await;
        for _ in 0..STREAMS_PER_CONNECTION {
            calls.push(unended_call(&connection));
        }
    }
    while started("ListLegalMoves") < before + 128.0 && attack.elapsed() < Duration::from_secs(30) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let in_place = attack.elapsed();
    let (waited, answer) = fresh().await;
    println!(
        "unended bodies: {} calls in place after {in_place:?}; a fresh client answered {answer:?} in {waited:?}; \
         server {}",
        started("ListLegalMoves") - before - 1.0,
        rss()
    );
    let mut statuses = std::collections::BTreeMap::new();
    for call in calls {
        let status = tokio::time::timeout(Duration::from_secs(60), call).await.ok().and_then(|c| c.ok());
        *statuses
            .entry(status.map(|s| s.map_err(|e| e.split(':').next().unwrap_or_default().to_string())))
            .or_insert(0) += 1;
    }
    println!(
        "unended bodies: all ended {:?} after the attack began (grpc-status: calls {statuses:?}); server {}",
        attack.elapsed(),
        rss()
    );
    let _ = child.kill();
    let _ = child.wait();
}
