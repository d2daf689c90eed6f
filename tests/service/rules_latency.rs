//! ListLegalMoves latency while searches fill every search thread (one per core): with
//! the search threads at nice +10 and under `SCHED_IDLE` (`chuhe serve`'s default),
//! alternately. A measurement, not a check (its figures depend on the machine and its
//! load), so it is ignored by default:
//!
//! ```text
//! cargo test --test service rules_latency -- --ignored --nocapture
//! ```
//!
//! It prints, for each setting, the p50 and p99 of ListLegalMoves (from the start and
//! from a middlegame, 16 calls at a time over 4 connections) alone, then with one
//! AnalyzeStream per search thread running, the ratio of the two p99s, and the nodes
//! the searches reached meanwhile (what the searches gave up).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chuhe::api::proto::{self, rules_service_client::RulesServiceClient};
use chuhe::engine::{EngineConfig, SearchPriority};
use chuhe::service::server::ServerConfig;
use tokio_stream::StreamExt;

use crate::common::list_request as list;
use crate::common::server::start;

const MIDDLEGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

/// p50 and p99 of `calls` ListLegalMoves, 16 at a time over `clients`.
async fn latencies(clients: &[RulesServiceClient<tonic::transport::Channel>], calls: usize) -> (Duration, Duration) {
    let per_loop = calls / 16;
    let loops: Vec<_> = (0..16)
        .map(|i| {
            let mut client = clients[i % clients.len()].clone();
            tokio::spawn(async move {
                let mut times = Vec::with_capacity(per_loop);
                for j in 0..per_loop {
                    let request = list(if j % 2 == 0 { "startpos" } else { MIDDLEGAME });
                    let sent = Instant::now();
                    client.list_legal_moves(request).await.expect("listed");
                    times.push(sent.elapsed());
                }
                times
            })
        })
        .collect();
    p50_p99(loops).await
}

/// The p50 and p99 of the times the `loops` measured.
pub(crate) async fn p50_p99(loops: Vec<tokio::task::JoinHandle<Vec<Duration>>>) -> (Duration, Duration) {
    let mut times = Vec::new();
    for l in loops {
        times.extend(l.await.expect("every call answered"));
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    (at(0.5), at(0.99))
}

async fn measure(search_priority: SearchPriority) {
    let engine = EngineConfig { hash_mb: 16, search_priority, ..EngineConfig::default() };
    let workers = engine.workers;
    let server = start(ServerConfig { engine, ..ServerConfig::default() }).await;
    let mut clients = Vec::new();
    for _ in 0..4 {
        clients.push(RulesServiceClient::new(server.channel().await));
    }
    latencies(&clients, 2_000).await; // warm-up
    let (p50, p99) = latencies(&clients, 8_000).await;

    // One long search per search thread, each read as it comes.
    let mut searches = Vec::new();
    let mut counts = Vec::new();
    for _ in 0..workers {
        let mut analysis = server.analysis().await;
        let request = proto::AnalyzeStreamRequest {
            position: list("startpos").position,
            limits: Some(proto::SearchLimits { movetime_ms: 60_000, ..Default::default() }),
            ..Default::default()
        };
        let mut stream = analysis.analyze_stream(request).await.expect("admitted").into_inner();
        stream.next().await.expect("a message").expect("a depth");
        let nodes = Arc::new(AtomicU64::new(0));
        let seen = nodes.clone();
        searches.push(tokio::spawn(async move {
            while let Some(Ok(message)) = stream.next().await {
                seen.fetch_max(message.nodes, Ordering::Relaxed);
            }
        }));
        counts.push(nodes);
    }
    let loaded = Instant::now();
    let (loaded_p50, loaded_p99) = latencies(&clients, 8_000).await;
    let nodes: u64 = counts.iter().map(|n| n.load(Ordering::Relaxed)).sum();
    println!(
        "{search_priority:?}, {workers} search threads: alone p50 {p50:.2?} p99 {p99:.2?}; \
         with searches p50 {loaded_p50:.2?} p99 {loaded_p99:.2?}; p99 ratio {:.2}; \
         searches reached {:.0} knodes/s",
        loaded_p99.as_secs_f64() / p99.as_secs_f64(),
        nodes as f64 / loaded.elapsed().as_secs_f64() / 1000.0
    );
    for s in searches {
        s.abort();
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service rules_latency -- --ignored --nocapture`"]
async fn list_legal_moves_latency_while_searches_fill_the_pool() {
    println!("load average: {}", crate::probe::load_average());
    for _ in 0..2 {
        measure(SearchPriority { idle: false, nice: 10 }).await;
        measure(SearchPriority::SERVER).await;
    }
}
