//! What the job queue does and costs, with a real `redis-server` on this machine
//! (started on a free loopback port and killed at the end):
//!
//! - the same audit jobs (real games, AuditGame's default budget of 50,000 nodes a
//!   ply) done on this thread without a queue, then through the queue by one worker
//!   and by two: jobs per second, and the speed-up of two workers;
//! - the queue's own work per job, timed without a search: submit, take (lease), a
//!   part saved per ply, finish, for jobs of the same size, against a job's time.
//!
//! ```sh
//! cargo bench --bench jobs                     # needs redis-server on PATH
//! cargo bench --bench jobs -- --jobs 10 --nodes 20000
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use chuhe::api::audit::audit_here;
use chuhe::api::convert::ContentLimits;
use chuhe::api::fairplay::Models;
use chuhe::api::jobs::audit_submission;
use chuhe::api::proto;
use chuhe::api::worker::{WorkerSettings, work};
use chuhe::engine::queue::{JobQueue, NewJob, RedisQueue, RedisQueueConfig, Taken};
use chuhe::engine::{Engine, EngineConfig};
use chuhe::fairplay::games::read_games;
use chuhe::game::{RuleSet, Variant};
use chuhe::search::nnue::Evaluation;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../tests/common/redis_server.rs"]
#[allow(dead_code)]
mod redis_server;

const LIMITS: ContentLimits = ContentLimits { max_game_plies: 10_000 };

/// The Xiangqi games of the test records (one file of each game).
const RECORDS: &[&str] = &[
    "le-thien-vi-bi-bingjian-1997-iccs.pgn",
    "li-yiting-wang-jialiang-1959.pgn",
    "liu-dahua-yang-guanlin-1982-iccs.pgn",
    "lu-qin-xu-yinchuan-2004.pgn",
    "xu-yinchuan-nie-weiping-1999.pgn",
];

/// `count` distinct audits: the records' games in turn, each next round with two more
/// book plies (another request, nearly the same work).
fn audits(count: usize, nodes: u64) -> Vec<proto::AuditGameRequest> {
    let rules = RuleSet::default_for(Variant::Xiangqi);
    let games: Vec<proto::Position> = RECORDS
        .iter()
        .map(|name| {
            let path = format!("{}/tests/data/records/{name}", env!("CARGO_MANIFEST_DIR"));
            let text = std::fs::read_to_string(&path).unwrap();
            let game = read_games(name, &text, rules, false).unwrap().remove(0);
            proto::Position {
                variant: proto::Variant::Xiangqi as i32,
                fen: game.start.fen(),
                moves: game.moves.iter().map(|m| m.to_string()).collect(),
                ..Default::default()
            }
        })
        .collect();
    (0..count)
        .map(|i| proto::AuditGameRequest {
            position: Some(games[i % games.len()].clone()),
            nodes_per_ply: nodes,
            book_plies: 2 * (i / games.len()) as u32,
            ..Default::default()
        })
        .collect()
}

fn engine() -> Arc<Engine> {
    Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() })
}

fn queue(url: &str) -> Arc<RedisQueue> {
    Arc::new(RedisQueue::connect(RedisQueueConfig::new(url)).unwrap())
}

/// Submits `jobs`, runs `workers` workers in this process until every job has ended,
/// and gives the time from the first submit to the last finish.
async fn through_the_queue(url: &str, jobs: &[NewJob], workers: usize) -> Duration {
    let queue = queue(url);
    let started = Instant::now();
    for job in jobs {
        queue.submit(job).await.unwrap();
    }
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut running = Vec::new();
    for i in 0..workers {
        let settings = WorkerSettings {
            name: format!("bench-{workers}-{i}"),
            lease: Duration::from_secs(30),
            limits: LIMITS,
            models: Arc::new(Models::default()),
        };
        let queue: Arc<dyn JobQueue> = queue.clone();
        running.push(tokio::spawn(work(engine(), queue, settings, stopped.clone())));
    }
    loop {
        if queue.stats().await.unwrap().open == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let elapsed = started.elapsed();
    let _ = stop.send(true);
    for r in running {
        let _ = r.await;
    }
    elapsed
}

/// The queue's own steps for one job of `plies` parts, with no search between them.
async fn queue_steps(queue: &RedisQueue, job: &NewJob, plies: usize) -> Duration {
    let started = Instant::now();
    queue.submit(job).await.unwrap();
    let lease = match queue.take("steps", Duration::from_secs(1)).await.unwrap() {
        Taken::Job(lease) => lease,
        other => panic!("no job taken: {other:?}"),
    };
    assert!(queue.renew(&lease).await.unwrap());
    let part = vec![0u8; 200];
    for i in 0..plies {
        assert!(queue.save_part(&lease, i as u32, &part).await.unwrap());
    }
    assert!(queue.finish(&lease, &vec![0u8; 200 * plies]).await.unwrap());
    started.elapsed()
}

fn flush(redis: &redis_server::Redis) {
    let status = std::process::Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &redis.addr.port().to_string(), "FLUSHALL"])
        .stdout(std::process::Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "redis-cli FLUSHALL");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |name: &str, default: u64| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let (count, nodes) = (value("--jobs", 20) as usize, value("--nodes", 50_000));
    let redis = redis_server::Redis::start();
    let url = redis.url(0);
    let requests = audits(count, nodes);
    let evaluation = Evaluation::default();
    let jobs: Vec<NewJob> =
        requests.iter().map(|r| audit_submission("bench", r, LIMITS, &evaluation).unwrap()).collect();
    let plies: usize = requests.iter().map(|r| r.position.as_ref().unwrap().moves.len()).sum();
    println!("{count} audit jobs of real games, {plies} plies in all, {nodes} nodes a ply");

    let engine = engine();
    let started = Instant::now();
    for r in &requests {
        audit_here(&engine, r, LIMITS, &mut |_| {}).unwrap();
    }
    let alone = started.elapsed();
    println!("no queue, this thread: {:.1} s, {:.3} jobs/s", alone.as_secs_f64(), count as f64 / alone.as_secs_f64());

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let mut one = Duration::ZERO;
    for workers in [1, 2] {
        flush(&redis);
        let took = runtime.block_on(through_the_queue(&url, &jobs, workers));
        if workers == 1 {
            one = took;
        }
        println!(
            "queue, {workers} worker(s): {:.1} s, {:.3} jobs/s{}",
            took.as_secs_f64(),
            count as f64 / took.as_secs_f64(),
            if workers == 2 {
                format!(", {:.2}x one worker", one.as_secs_f64() / took.as_secs_f64())
            } else {
                String::new()
            }
        );
    }
    flush(&redis);
    let per_job = plies / count.max(1);
    let steps: Vec<Duration> = runtime.block_on(async {
        let queue = queue(&url);
        let mut times = Vec::new();
        for job in &jobs {
            times.push(queue_steps(&queue, job, per_job).await);
        }
        times
    });
    let mut sorted = steps.clone();
    sorted.sort();
    let median = sorted[sorted.len() / 2];
    let job_time = alone / count.max(1) as u32;
    println!(
        "queue steps of a job of {per_job} plies (submit, lease, renew, {per_job} parts, finish): median {:.2} ms, \
         {:.3} % of a job's {:.2} s; end to end with one worker {:+.2} % against no queue",
        median.as_secs_f64() * 1e3,
        100.0 * median.as_secs_f64() / job_time.as_secs_f64(),
        job_time.as_secs_f64(),
        100.0 * (one.as_secs_f64() / alone.as_secs_f64() - 1.0)
    );
}
