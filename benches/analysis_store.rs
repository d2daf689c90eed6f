//! What the evaluation store costs and saves, with a real `redis-server` on this
//! machine (started on a free loopback port and killed at the end):
//!
//! - a 1 s Analyze searched, then the same Analyze 1,000 times served from the store:
//!   each call's latency (median, p99, max) against the search's time;
//! - the overhead a miss adds to a search: the key, the lookup that finds nothing and
//!   the write of the result, timed on the store itself 1,000 times (median, p99), and
//!   end to end: the same 200 node-bounded searches of distinct positions through a
//!   server on Redis and one without a store.
//!
//! ```sh
//! cargo bench --bench analysis_store              # needs redis-server on PATH
//! cargo bench --bench analysis_store -- --calls 5000
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::engine::EngineConfig;
use chuhe::engine::store::{AnalysisStore, Lookup, StoreConfig, StoreKey, StoreKind, StoredSearch};
use chuhe::game::{BoardGame, Variant};
use chuhe::rules::types::MoveList;
use chuhe::service::server::{ServerConfig, serve};
use tokio::net::TcpListener;
use tonic::transport::Channel;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/common/redis_server.rs"]
#[allow(dead_code)]
mod redis_server;

/// Quantiles of a set of durations.
struct Quantiles {
    median: Duration,
    p99: Duration,
    max: Duration,
}

fn quantiles(mut times: Vec<Duration>) -> Quantiles {
    times.sort();
    let at = |q: f64| times[((times.len() as f64 * q) as usize).min(times.len() - 1)];
    Quantiles { median: at(0.5), p99: at(0.99), max: at(1.0) }
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

async fn start(kind: StoreKind) -> (SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let engine = EngineConfig { hash_mb: 64, workers: 1, ..EngineConfig::default() };
    let analysis_cache = StoreConfig { kind, ..StoreConfig::default() };
    let config = ServerConfig { engine, analysis_cache, ..ServerConfig::default() };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve(config, listener, async move {
        let _ = stopped.await;
    }));
    (addr, stop)
}

async fn client(addr: SocketAddr) -> AnalysisServiceClient<Channel> {
    let channel = Channel::from_shared(format!("http://{addr}")).unwrap().tcp_nodelay(true).connect().await.unwrap();
    AnalysisServiceClient::new(channel)
}

fn request(moves: &[String], limits: proto::SearchLimits) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen: "startpos".into(),
            moves: moves.to_vec(),
            ..Default::default()
        }),
        limits: Some(limits),
        ..Default::default()
    }
}

/// Distinct positions: the start and every two-ply opening, in order.
fn openings(count: usize) -> Vec<Vec<String>> {
    let start = BoardGame::startpos(Variant::Xiangqi);
    let mut firsts = MoveList::new();
    start.legal_moves(&mut firsts);
    let mut out = Vec::new();
    for &a in firsts.iter() {
        let after = start.after(a);
        let mut replies = MoveList::new();
        after.legal_moves(&mut replies);
        out.extend(replies.iter().map(|b| vec![a.to_string(), b.to_string()]));
    }
    out.truncate(count);
    out
}

/// An entry of a 16-ply line, a typical size.
fn entry(key: &StoreKey) -> StoredSearch {
    let pv = "h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 c3c4 g6g5 h0h6 h7i7 h6g6 i7i8 b0c2 d9e8 c2d4 i8g8";
    StoredSearch::one_line(key, 14, pv.split(' ').map(str::to_string).collect())
}

async fn run(calls: usize, redis: &redis_server::Redis) {
    let url = redis.url(0);
    let (on_redis, _stop_a) = start(StoreKind::Redis { url: url.clone(), password: None }).await;
    let (no_store, _stop_b) = start(StoreKind::Off).await;
    let mut cached = client(on_redis).await;
    let mut plain = client(no_store).await;

    // A 1 s search, then the same question served from the store.
    let second = proto::SearchLimits { movetime_ms: 1000, ..Default::default() };
    let moves: Vec<String> = ["h2e2", "h9g7"].iter().map(|m| m.to_string()).collect();
    let started = Instant::now();
    let searched = cached.analyze(request(&moves, second)).await.unwrap().into_inner();
    let search_time = started.elapsed();
    assert!(!searched.from_cache);
    // The search is written in the background, after its answer.
    let written = Instant::now();
    while !cached.analyze(request(&moves, second)).await.unwrap().into_inner().from_cache {
        assert!(written.elapsed() < Duration::from_secs(60), "the search was written");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let mut served = Vec::with_capacity(calls);
    for _ in 0..calls {
        let t = Instant::now();
        let answer = cached.analyze(request(&moves, second)).await.unwrap().into_inner();
        served.push(t.elapsed());
        assert!(answer.from_cache && answer.best_move == searched.best_move);
    }
    let q = quantiles(served);
    println!(
        "1 s Analyze: searched in {} ms (depth {}); served from Redis x{calls}: median {}, p99 {}, max {}; \
         p99 is {:.3} % of the search",
        search_time.as_millis(),
        searched.depth,
        us(q.median),
        us(q.p99),
        us(q.max),
        100.0 * q.p99.as_secs_f64() / search_time.as_secs_f64()
    );

    // The miss path on the store itself: key, lookup of nothing, write.
    let config = StoreConfig { kind: StoreKind::Redis { url, password: None }, ..StoreConfig::default() };
    let store = AnalysisStore::open(&config).unwrap().unwrap();
    let games: Vec<BoardGame> = openings(calls)
        .iter()
        .map(|m| {
            let mut g = BoardGame::startpos(Variant::Xiangqi);
            g.play_iccs(m.iter().map(String::as_str)).unwrap();
            g
        })
        .collect();
    // Keys no server wrote: a multipv of 7.
    let mut misses = Vec::with_capacity(games.len());
    for game in &games {
        let t = Instant::now();
        let key = StoreKey::of(game, 7, "classical", None);
        let found = store.lookup(&key, |_| true).await;
        store.save(&key, &entry(&key), false).await;
        misses.push(t.elapsed());
        assert!(matches!(found, Lookup::Miss { .. }));
    }
    let q = quantiles(misses);
    println!(
        "miss overhead on Redis (key + lookup + queueing the write) x{}: median {}, p99 {}, max {}",
        games.len(),
        us(q.median),
        us(q.p99),
        us(q.max)
    );

    // End to end: the same node-bounded searches of distinct positions, with and without.
    let nodes = proto::SearchLimits { nodes: 20_000, ..Default::default() };
    let positions = openings(200);
    for (name, client) in [("no store", &mut plain), ("Redis, all misses", &mut cached)] {
        let mut times = Vec::with_capacity(positions.len());
        for moves in &positions {
            let t = Instant::now();
            let answer = client.analyze(request(moves, nodes)).await.unwrap().into_inner();
            times.push(t.elapsed());
            assert!(!answer.from_cache);
        }
        let q = quantiles(times);
        println!("Analyze 20,000 nodes x{} ({name}): median {}, p99 {}", positions.len(), us(q.median), us(q.p99));
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut calls = 1000;
    while let Some(a) = args.next() {
        if a == "--calls" {
            calls = args.next().and_then(|n| n.parse().ok()).expect("--calls N");
        }
    }
    if std::process::Command::new("redis-server").arg("--version").output().is_err() {
        eprintln!("redis-server is not on PATH (apt-get install redis-server)");
        std::process::exit(2);
    }
    let redis = redis_server::Redis::start();
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(run(calls, &redis));
    drop(runtime);
    drop(redis);
}
