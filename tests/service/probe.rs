//! The figures of the operator's robustness probe, measured again against the server as
//! it is: metric series after 15,000 calls to made-up methods, the CPU of a maximal
//! `notations` request, idle connections left after the first-request timeout, and
//! searches answered in time under a short deadline. (ListLegalMoves p99 under analysis
//! load is `cargo bench --bench load -- --searches 2`.) Measurements whose figures depend on the machine, printed,
//! so ignored by default; each asserts only that the server answered as it should:
//!
//! ```text
//! cargo test --test service probe -- --ignored --nocapture --test-threads 1
//! ```

use std::time::{Duration, Instant};

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::service::server::ServerConfig;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tonic::Code;

use crate::common::list_request;
use crate::common::server::start_alone;
use crate::hardening::{PREFACE, SETTINGS, call_made_up_methods, metrics};

/// The process's CPU time (user and system) so far.
fn cpu_time() -> Duration {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// The process's resident memory, in MiB.
fn resident_mib() -> f64 {
    let pages = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0);
    pages * 4096.0 / (1024.0 * 1024.0)
}

/// The machine's load average, as /proc/loadavg gives it.
pub(crate) fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(|_| "unknown".into(), |l| l.trim().to_string())
}

/// The samples of a metrics text (lines that are not comments).
fn series(text: &str) -> usize {
    text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).count()
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service probe -- --ignored --nocapture --test-threads 1`"]
async fn probe_series_after_15000_made_up_methods() {
    metrics();
    let server = start_alone(ServerConfig::default()).await;
    let channel = server.channel().await;
    let before = metrics();
    let memory = resident_mib();
    let started = Instant::now();
    call_made_up_methods(&channel, 15_000).await;
    let after = metrics();
    println!(
        "15000 calls to made-up methods in {:.1?}: metric series {} -> {} ({} -> {} bytes), resident {memory:.0} -> {:.0} MiB; load average {}",
        started.elapsed(),
        series(&before),
        series(&after),
        before.len(),
        after.len(),
        resident_mib(),
        load_average()
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service probe -- --ignored --nocapture --test-threads 1`"]
async fn probe_cpu_of_a_maximal_notations_request() {
    let server = start_alone(ServerConfig::default()).await;
    let mut rules = server.rules().await;
    for entries in [200_000, 2_000_000] {
        let mut request = list_request("startpos");
        // WXF, one byte each once packed.
        request.notations = vec![proto::Notation::Wxf as i32; entries];
        let bytes = prost::Message::encoded_len(&request);
        let cpu = cpu_time();
        let started = Instant::now();
        let answer = rules.list_legal_moves(request).await;
        let (cpu, wall) = (cpu_time() - cpu, started.elapsed());
        let status = answer.expect_err("too many notations");
        assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
        println!(
            "ListLegalMoves with {entries} notations ({bytes} bytes): {:?} in {wall:.1?}, process CPU {cpu:.1?} \
             (client and server); load average {}",
            status.code(),
            load_average()
        );
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service probe -- --ignored --nocapture --test-threads 1`"]
async fn probe_idle_connections_after_the_first_request_timeout() {
    let config = ServerConfig::default();
    let timeout = config.connections.first_request_timeout;
    let server = start_alone(config).await;
    let addr = server.addr;
    // 2,000 connections: silent, half a preface, or SETTINGS then silence.
    let mut watchers = Vec::new();
    let started = Instant::now();
    for batch in 0..20 {
        let mut connects = Vec::new();
        for i in 0..100 {
            connects.push(tokio::spawn(async move {
                let mut stream = TcpStream::connect(addr).await.expect("connect");
                match (batch * 100 + i) % 3 {
                    0 => {}
                    1 => stream.write_all(&PREFACE[..10]).await.unwrap(),
                    _ => {
                        stream.write_all(PREFACE).await.unwrap();
                        stream.write_all(SETTINGS).await.unwrap();
                    }
                }
                stream
            }));
        }
        for c in connects {
            let mut stream = c.await.unwrap();
            watchers.push(tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                loop {
                    match tokio::time::timeout(Duration::from_secs(120), stream.read(&mut buf)).await {
                        Ok(Ok(0) | Err(_)) => return Some(Instant::now()),
                        Ok(Ok(_)) => {}
                        Err(_) => return None,
                    }
                }
            }));
        }
    }
    let opened = started.elapsed();
    let mut closed = Vec::new();
    for w in watchers {
        closed.push(w.await.unwrap());
    }
    let open_at = |after: Duration| closed.iter().filter(|c| c.is_none_or(|c| c > started + after)).count();
    let last = closed.iter().flatten().max().map(|c| c.duration_since(started));
    println!(
        "2000 idle connections opened in {opened:.1?}, first-request timeout {timeout:?}: still open after {:?}: {}, \
         after 90 s: {}; the last closed at {last:.1?}; load average {}",
        timeout + Duration::from_secs(5),
        open_at(timeout + Duration::from_secs(5)),
        open_at(Duration::from_secs(90)),
        load_average()
    );
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service probe -- --ignored --nocapture --test-threads 1`"]
async fn probe_searches_answered_under_a_300ms_deadline() {
    let server = start_alone(ServerConfig::default()).await;
    let channel = server.channel().await;
    let loops: Vec<_> = (0..8)
        .map(|_| {
            let mut analysis = AnalysisServiceClient::new(channel.clone());
            tokio::spawn(async move {
                let mut codes = Vec::new();
                let until = Instant::now() + Duration::from_secs(15);
                while Instant::now() < until {
                    let mut request = tonic::Request::new(proto::AnalyzeRequest {
                        position: list_request("startpos").position,
                        limits: Some(proto::SearchLimits { movetime_ms: 500, ..Default::default() }),
                        ..Default::default()
                    });
                    request.set_timeout(Duration::from_millis(300));
                    let answer = analysis.analyze(request).await;
                    codes.push(match answer {
                        Ok(r) => {
                            assert!(!r.into_inner().best_move.is_empty(), "an answer has a move");
                            Code::Ok
                        }
                        Err(status) => status.code(),
                    });
                }
                codes
            })
        })
        .collect();
    let mut codes = Vec::new();
    for l in loops {
        codes.extend(l.await.unwrap());
    }
    let count = |code: Code| codes.iter().filter(|&&c| c == code).count();
    let (ok, late, refused) = (count(Code::Ok), count(Code::DeadlineExceeded), count(Code::ResourceExhausted));
    assert_eq!(ok + late + refused, codes.len(), "only OK, DEADLINE_EXCEEDED or RESOURCE_EXHAUSTED");
    println!(
        "8 loops of Analyze (500 ms move time, 300 ms deadline) for 15 s, {} search threads: {} calls, {} admitted, \
         {ok} answered in time, {late} DEADLINE_EXCEEDED, {refused} refused; load average {}",
        chuhe::engine::EngineConfig::default().workers,
        codes.len(),
        ok + late,
        load_average()
    );
    server.shutdown().await;
}
