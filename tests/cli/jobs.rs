//! The job queue with real parts: a `redis-server` on a free loopback port and `chuhe
//! worker` processes, killed, paused and stopped as a platform's pods are. Each test
//! waits on conditions with generous deadlines, never on a time alone.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use chuhe::rules::types::MoveList;
use chuhe::rules::xiangqi;
use redis::Value;

use crate::common::redis_server::Redis;
use crate::common::rng::Rng;
use crate::common::scratch::Scratch;

const PREFIX: &str = chuhe::engine::queue::KEY_PREFIX;
/// Nodes per ply: small, so that a batch runs in seconds on a busy machine.
const NODES: u64 = 1500;
/// The longest any condition is waited for.
const DEADLINE: Duration = Duration::from_secs(120);
/// A short lease, so that a lapsed one is taken over within seconds.
const LEASE_S: &str = "3";

/// A `chuhe worker` process, killed when dropped; its log kept in a file.
struct Worker {
    child: Child,
    log: PathBuf,
}

impl Worker {
    fn start(redis: &Redis, name: &str, dir: &Path, extra: &[&str]) -> Worker {
        let log = dir.join(format!("{name}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_chuhe"))
            .args(["worker", "--queue", &redis.url(0), "--name", name, "--lease-s", LEASE_S])
            .args(extra)
            .stdout(Stdio::null())
            .stderr(File::create(&log).unwrap())
            .spawn()
            .expect("chuhe worker starts");
        Worker { child, log }
    }

    fn signal(&self, signal: &str) {
        let status = Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
        assert!(status.success(), "kill {signal}");
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // A paused worker is woken first, so that the kill is not held up.
        let _ = Command::new("kill").args(["-CONT", &self.child.id().to_string()]).stderr(Stdio::null()).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn chuhe(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("chuhe runs")
}

fn stdout(out: &Output) -> String {
    assert!(out.status.success(), "chuhe failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// Waits until `done` holds, up to [`DEADLINE`].
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < DEADLINE, "gave up waiting: {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `n` records of random Xiangqi games of `plies` moves (the same for the same seed).
fn games(dir: &Path, n: usize, plies: usize, seed: u64) -> Vec<PathBuf> {
    let mut rng = Rng(seed | 1);
    (0..n)
        .map(|i| {
            let mut position = xiangqi::Position::startpos();
            let mut moves = Vec::new();
            while moves.len() < plies {
                let mut list = MoveList::new();
                position.legal_moves(&mut list);
                if list.is_empty() {
                    break;
                }
                let m = list.iter().copied().nth(rng.below(list.len())).unwrap();
                position.play_unchecked(m);
                moves.push(m.to_string());
            }
            let path = dir.join(format!("game-{seed}-{i}.pgn"));
            std::fs::write(&path, format!("[Format \"ICCS\"]\n\n{}\n", moves.join(" "))).unwrap();
            path
        })
        .collect()
}

/// Submits the audits of `records`; their job ids, in order.
fn submit(redis: &Redis, records: &[PathBuf], extra: &[&str]) -> Vec<String> {
    let url = redis.url(0);
    let nodes = NODES.to_string();
    let mut args = vec!["jobs", "submit", "--queue", &url, "--nodes", &nodes];
    args.extend_from_slice(extra);
    args.push("--audit");
    args.extend(records.iter().map(|p| p.to_str().unwrap()));
    let out = stdout(&chuhe(&args));
    out.lines().map(|l| l.split_whitespace().next().unwrap().to_string()).collect()
}

/// `chuhe audit --json` of `record` at the jobs' budget.
fn audit_alone(record: &Path) -> serde_json::Value {
    let nodes = NODES.to_string();
    let out = chuhe(&["audit", "--record", record.to_str().unwrap(), "--nodes", &nodes, "--json"]);
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// `chuhe jobs wait --json`: each job's object, by id.
fn wait_for_jobs(redis: &Redis) -> HashMap<String, serde_json::Value> {
    let out = chuhe(&["jobs", "wait", "--queue", &redis.url(0), "--json", "--timeout-s", "120"]);
    stdout(&out)
        .lines()
        .map(|l| {
            let job: serde_json::Value = serde_json::from_str(l).unwrap();
            (job["id"].as_str().unwrap().to_string(), job)
        })
        .collect()
}

fn connection(redis: &Redis) -> redis::Connection {
    redis::Client::open(redis.url(0)).unwrap().get_connection().expect("Redis answers")
}

fn field(redis: &Redis, id: &str, name: &str) -> Option<String> {
    redis::cmd("HGET").arg(format!("{PREFIX}job:{id}")).arg(name).query(&mut connection(redis)).unwrap()
}

/// The parts a job holds (an audit's plies judged so far).
fn parts(redis: &Redis, id: &str) -> usize {
    let fields: Vec<String> =
        redis::cmd("HKEYS").arg(format!("{PREFIX}job:{id}")).query(&mut connection(redis)).unwrap();
    fields.iter().filter(|f| f.starts_with("part:")).count()
}

/// The entries of the tenant's result stream: (job id, state) in order.
fn result_stream(redis: &Redis, tenant: &str) -> Vec<(String, String)> {
    let entries: Value = redis::cmd("XRANGE")
        .arg(format!("{PREFIX}results:{tenant}"))
        .arg("-")
        .arg("+")
        .query(&mut connection(redis))
        .unwrap();
    let text = |v: &Value| match v {
        Value::BulkString(b) => String::from_utf8_lossy(b).into_owned(),
        other => format!("{other:?}"),
    };
    let Value::Array(entries) = entries else { return Vec::new() };
    entries
        .iter()
        .map(|e| {
            let Value::Array(parts) = e else { panic!("an entry: {e:?}") };
            let Value::Array(fields) = &parts[1] else { panic!("fields: {e:?}") };
            let get =
                |name: &str| fields.chunks(2).find(|p| text(&p[0]) == name).map(|p| text(&p[1])).unwrap_or_default();
            (get("id"), get("state"))
        })
        .collect()
}

fn len(redis: &Redis, key: &str) -> u64 {
    redis::cmd("XLEN").arg(format!("{PREFIX}{key}")).query(&mut connection(redis)).unwrap()
}

/// The job `worker` runs now, if it is running one.
fn job_of(redis: &Redis, ids: &[String], worker: &str) -> Option<String> {
    ids.iter()
        .find(|id| {
            field(redis, id, "state").as_deref() == Some("running")
                && field(redis, id, "worker").as_deref() == Some(worker)
        })
        .cloned()
}

/// Pauses `worker` at a moment it holds a job with at least `min_parts` plies kept, and
/// returns that job (paused, the worker cannot finish it in between).
fn pause_mid_job(redis: &Redis, ids: &[String], worker: &Worker, name: &str, min_parts: usize) -> String {
    let mut held = None;
    wait_until("the worker holds a job part done", || {
        worker.signal("-STOP");
        held = job_of(redis, ids, name).filter(|id| parts(redis, id) >= min_parts);
        if held.is_none() {
            worker.signal("-CONT");
        }
        held.is_some()
    });
    held.unwrap()
}

/// Every job in the result stream once, done, with the result of its audit run alone.
fn check_results(redis: &Redis, ids: &[String], records: &[PathBuf], jobs: &HashMap<String, serde_json::Value>) {
    let stream = result_stream(redis, "default");
    assert_eq!(stream.len(), ids.len(), "one result stream entry per job: {stream:?}");
    for (id, record) in ids.iter().zip(records) {
        let entries: Vec<_> = stream.iter().filter(|(i, _)| i == id).collect();
        assert_eq!(entries.len(), 1, "job {id} once in the result stream");
        assert_eq!(entries[0].1, "done");
        let job = &jobs[id];
        assert_eq!(job["state"], "done", "{job}");
        assert_eq!(job["result"], audit_alone(record), "job {id} ({}) as its audit alone", record.display());
    }
    assert_eq!(len(redis, "work"), 0, "the work stream holds open jobs only");
}

/// The answer to `GET path` at `addr`, status line included (empty while nothing
/// listens there).
fn http_get(addr: &str, path: &str) -> String {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else { return String::new() };
    let _ = stream.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes());
    let mut text = String::new();
    let _ = stream.read_to_string(&mut text);
    text
}

#[test]
fn forty_audits_on_two_workers_one_killed_mid_job_each_give_their_result_once() {
    let redis = Redis::start();
    let dir = Scratch::new("jobs-forty");
    let records = games(&dir.0, 40, 8, 40);
    let ids = submit(&redis, &records, &[]);
    assert_eq!(ids.len(), 40);
    let doomed = Worker::start(&redis, "doomed", &dir.0, &[]);
    let _survivor = Worker::start(&redis, "survivor", &dir.0, &[]);
    let killed_in = pause_mid_job(&redis, &ids, &doomed, "doomed", 1);
    doomed.signal("-KILL");
    let jobs = wait_for_jobs(&redis);
    assert_eq!(jobs.len(), 40);
    check_results(&redis, &ids, &records, &jobs);
    assert!(jobs[&killed_in]["deliveries"].as_u64().unwrap() >= 2, "the killed worker's job was delivered again");
    assert_eq!(field(&redis, &killed_in, "worker").as_deref(), Some("survivor"));
}

#[test]
fn a_worker_paused_past_its_lease_loses_its_job_and_its_late_finish_is_discarded() {
    let redis = Redis::start();
    let dir = Scratch::new("jobs-paused");
    let records = games(&dir.0, 1, 24, 7);
    let ids = submit(&redis, &records, &[]);
    let paused = Worker::start(&redis, "paused", &dir.0, &[]);
    let id = pause_mid_job(&redis, &ids, &paused, "paused", 2);
    let kept = parts(&redis, &id);
    let taker = Worker::start(&redis, "taker", &dir.0, &[]);
    wait_until("the job is done by the other worker", || field(&redis, &id, "state").as_deref() == Some("done"));
    assert_eq!(field(&redis, &id, "worker").as_deref(), Some("taker"));
    paused.signal("-CONT");
    wait_until("the paused worker finds its lease lost", || paused.log().contains("lease lost to another worker"));
    let jobs = wait_for_jobs(&redis);
    check_results(&redis, &ids, &records, &jobs);
    // The other worker judged only the plies the paused one had not kept.
    let started = taker.log().lines().find(|l| l.contains("job started")).unwrap_or_default().to_string();
    let reused: usize = started.split("kept_parts=").nth(1).and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    assert!(reused >= kept, "the taker reused the {kept} plies kept: {started}");
}

#[test]
fn a_redis_restart_with_appendonly_mid_batch_loses_no_job_and_no_result() {
    let dir = Scratch::new("jobs-restart");
    let aof = dir.0.join("redis");
    std::fs::create_dir_all(&aof).unwrap();
    let mut redis = Redis::start_durable(&aof);
    let records = games(&dir.0, 20, 8, 20);
    let ids = submit(&redis, &records, &[]);
    let one = Worker::start(&redis, "one", &dir.0, &[]);
    let two = Worker::start(&redis, "two", &dir.0, &[]);
    wait_until("a few jobs done", || result_stream(&redis, "default").len() >= 4);
    // Paused, the workers change nothing while the queue is looked at: what Redis held
    // before its kill is what it holds after its restart.
    one.signal("-STOP");
    two.signal("-STOP");
    let (results, open) = (result_stream(&redis, "default"), len(&redis, "work"));
    assert!(open > 0, "the batch is under way");
    redis.stop();
    redis.resume();
    assert_eq!(result_stream(&redis, "default"), results, "the results written before the restart are kept");
    assert_eq!(len(&redis, "work"), open, "the open jobs are kept");
    one.signal("-CONT");
    two.signal("-CONT");
    let jobs = wait_for_jobs(&redis);
    assert_eq!(jobs.len(), 20);
    check_results(&redis, &ids, &records, &jobs);
}

#[test]
fn the_same_ten_jobs_submitted_by_twenty_clients_at_once_are_ten_jobs() {
    let redis = Redis::start();
    let dir = Scratch::new("jobs-twenty");
    let records = games(&dir.0, 10, 6, 10);
    let url = redis.url(0);
    let nodes = NODES.to_string();
    let clients: Vec<Child> = (0..20)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_chuhe"))
                .args(["jobs", "submit", "--queue", &url, "--nodes", &nodes, "--audit"])
                .args(&records)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let lines: Vec<String> = clients
        .into_iter()
        .flat_map(|c| stdout(&c.wait_with_output().unwrap()).lines().map(str::to_string).collect::<Vec<_>>())
        .collect();
    assert_eq!(lines.len(), 200);
    let queued_now = |l: &&String| l.split_whitespace().nth(1) == Some("queued");
    assert_eq!(lines.iter().filter(queued_now).count(), 10, "{lines:?}");
    assert_eq!(len(&redis, "work"), 10);
    let _worker = Worker::start(&redis, "only", &dir.0, &[]);
    let jobs = wait_for_jobs(&redis);
    assert_eq!(jobs.len(), 10);
    // Each client names the ten jobs in the order of the records, queued or not.
    let ids: Vec<String> = lines[..10].iter().map(|l| l.split_whitespace().next().unwrap().to_string()).collect();
    for client in lines.chunks(10) {
        let named: Vec<&str> = client.iter().map(|l| l.split_whitespace().next().unwrap()).collect();
        assert_eq!(named, ids, "every client computes the same ids");
    }
    check_results(&redis, &ids, &records, &jobs);
}

#[test]
fn a_bad_job_is_dead_lettered_with_its_reason_after_its_deliveries_and_the_rest_are_done() {
    let redis = Redis::start();
    let dir = Scratch::new("jobs-bad");
    let records = games(&dir.0, 3, 6, 3);
    let bad = dir.0.join("bad.json");
    std::fs::write(&bad, r#"{"position": {"variant": "VARIANT_XIANGQI", "fen": "startpos", "moves": ["h2e2", "a0a9"]}, "nodesPerPly": "1500"}"#).unwrap();
    let url = redis.url(0);
    let out = stdout(&chuhe(&["jobs", "submit", "--queue", &url, "--audit-request", bad.to_str().unwrap()]));
    let bad_id = out.split_whitespace().next().unwrap().to_string();
    let ids = submit(&redis, &records, &[]);
    let _worker = Worker::start(&redis, "only", &dir.0, &["--max-deliveries", "3"]);
    let jobs = wait_for_jobs(&redis);
    assert_eq!(jobs.len(), 4);
    let dead = &jobs[&bad_id];
    assert_eq!(dead["state"], "dead", "{dead}");
    assert_eq!(dead["deliveries"], 3, "{dead}");
    let error = dead["error"].as_str().unwrap();
    assert!(error.contains("delivered 3 times") && error.contains("a0a9"), "{error}");
    assert_eq!(len(&redis, "dead"), 1);
    for id in &ids {
        assert_eq!(jobs[id]["state"], "done");
    }
    let stream = result_stream(&redis, "default");
    assert_eq!(stream.iter().filter(|(i, s)| *i == bad_id && s == "dead").count(), 1, "{stream:?}");
}

#[test]
fn at_its_bound_the_queue_refuses_a_submit_and_loses_nothing_queued() {
    let mut redis = Redis::start();
    let dir = Scratch::new("jobs-bound");
    let records = games(&dir.0, 6, 6, 6);
    let ids = submit(&redis, &records[..5], &["--max-open", "5"]);
    assert_eq!(ids.len(), 5);
    let url = redis.url(0);
    let refused =
        chuhe(&["jobs", "submit", "--queue", &url, "--max-open", "5", "--audit", records[5].to_str().unwrap()]);
    assert!(!refused.status.success());
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("bound of 5"), "{said}");
    assert_eq!(len(&redis, "work"), 5);
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let metrics = format!("127.0.0.1:{port}");
    let _worker = Worker::start(&redis, "only", &dir.0, &["--metrics-listen", &metrics]);
    let jobs = wait_for_jobs(&redis);
    assert_eq!(jobs.len(), 5);
    check_results(&redis, &ids, &records[..5], &jobs);
    // The worker's metrics: its jobs done, and the queue's gauges once they are read.
    wait_until("the queue's gauges show it empty", || {
        let text = http_get(&metrics, "/metrics");
        text.contains("chuhe_jobs_done_total{kind=\"audit\"} 5")
            && text.contains("chuhe_jobs_open 0")
            && text.contains("chuhe_jobs_queue_up 1")
    });
    // With room again, the refused job is taken.
    let again = submit(&redis, &records[5..], &["--max-open", "5"]);
    assert_eq!(again.len(), 1);
    // The worker's health follows the queue: 503 while Redis is gone, 200 once it is back.
    let healthy = |code: &str| http_get(&metrics, "/healthz").starts_with(&format!("HTTP/1.1 {code}"));
    wait_until("the worker healthy", || healthy("200"));
    redis.stop();
    wait_until("the worker unhealthy without its queue", || healthy("503"));
    redis.resume();
    wait_until("the worker healthy again", || healthy("200"));
}

#[test]
fn a_worker_stopped_by_sigterm_hands_its_job_back_with_the_plies_it_judged() {
    let redis = Redis::start();
    let dir = Scratch::new("jobs-sigterm");
    let records = games(&dir.0, 1, 24, 11);
    let ids = submit(&redis, &records, &[]);
    let mut leaving = Worker::start(&redis, "leaving", &dir.0, &[]);
    let id = pause_mid_job(&redis, &ids, &leaving, "leaving", 2);
    leaving.signal("-TERM");
    leaving.signal("-CONT");
    let mut status = None;
    wait_until("the worker exits", || {
        status = leaving.child.try_wait().unwrap();
        status.is_some()
    });
    assert!(status.unwrap().success());
    assert!(leaving.log().contains("job handed back"), "{}", leaving.log());
    assert_eq!(field(&redis, &id, "state").as_deref(), Some("queued"));
    assert_eq!(field(&redis, &id, "deliveries").as_deref(), Some("0"), "a hand back is not a delivery");
    assert!(parts(&redis, &id) >= 2);
    let _next = Worker::start(&redis, "next", &dir.0, &[]);
    let jobs = wait_for_jobs(&redis);
    check_results(&redis, &ids, &records, &jobs);
}

/// The queue's steps on their own: a lease taken over leaves its first holder unable to
/// change the job, and the new holder's result is kept once.
#[tokio::test]
async fn a_lease_taken_over_cannot_save_finish_or_fail_the_job() {
    use chuhe::engine::queue::{
        Cancelled, Failed, JobId, JobIdentity, JobKind, JobQueue, JobState, NewJob, RedisQueue, RedisQueueConfig, Taken,
    };
    let redis = Redis::start();
    let config = RedisQueueConfig { lease: Duration::from_millis(200), ..RedisQueueConfig::new(&redis.url(0)) };
    let queue = RedisQueue::connect(config).unwrap();
    let identity = JobIdentity {
        tenant: "platform",
        kind: JobKind::Audit,
        request: b"a request",
        engine_version: "test",
        evaluation: "classical",
        rule_set: "RULE_SET_UNSPECIFIED",
    };
    let job = NewJob {
        id: JobId::of(&identity),
        tenant: "platform".into(),
        platform_id: String::new(),
        kind: JobKind::Audit,
        request: b"a request".to_vec(),
    };
    queue.submit(&job).await.unwrap();
    let take = |worker: &'static str| {
        let queue = &queue;
        async move {
            let started = Instant::now();
            loop {
                match queue.take(worker, Duration::from_millis(100)).await.unwrap() {
                    Taken::Job(lease) => return lease,
                    _ => assert!(started.elapsed() < DEADLINE, "{worker} found no job"),
                }
            }
        }
    };
    let first = take("first").await;
    assert_eq!((first.delivery, first.request.as_slice()), (1, b"a request".as_slice()));
    assert!(first.parts.is_empty());
    assert!(queue.save_part(&first, 0, b"ply 0").await.unwrap());
    // Not renewed, the lease lapses and the second worker takes the job over, with the
    // part the first kept.
    let second = take("second").await;
    assert_eq!(second.delivery, 2);
    assert_eq!(second.parts, vec![(0, b"ply 0".to_vec())]);
    assert!(!queue.renew(&first).await.unwrap());
    assert!(!queue.save_part(&first, 1, b"late ply").await.unwrap());
    assert!(!queue.finish(&first, b"late result").await.unwrap());
    assert_eq!(queue.fail(&first, "late error").await.unwrap(), Failed::LeaseLost);
    assert!(queue.renew(&second).await.unwrap());
    assert!(queue.finish(&second, b"result").await.unwrap());
    assert!(!queue.finish(&second, b"again").await.unwrap(), "a job is finished once");
    let record = queue.get("platform", &job.id).await.unwrap().unwrap();
    assert_eq!((record.state, record.result.as_deref()), (JobState::Done, Some(b"result".as_slice())));
    assert_eq!(record.worker.as_deref(), Some("second"));
    assert_eq!(queue.get("another", &job.id).await.unwrap(), None, "a tenant sees its own jobs only");
    assert_eq!(queue.cancel("another", &job.id).await.unwrap(), Cancelled::Unknown);
    assert_eq!(queue.cancel("platform", &job.id).await.unwrap(), Cancelled::AlreadyFinal(JobState::Done));
    assert_eq!(result_stream(&redis, "platform"), vec![(job.id.to_string(), "done".to_string())]);
    let stats = queue.stats().await.unwrap();
    assert_eq!((stats.open, stats.pending, stats.lag), (0, 0, 0));
}

/// A queued job cancelled by its tenant is never delivered, and its end is in the
/// result stream.
#[tokio::test]
async fn a_cancelled_job_is_not_delivered() {
    use chuhe::engine::queue::{
        Cancelled, JobId, JobIdentity, JobKind, JobQueue, NewJob, RedisQueue, RedisQueueConfig, Taken,
    };
    let redis = Redis::start();
    let queue = RedisQueue::connect(RedisQueueConfig::new(&redis.url(0))).unwrap();
    let identity = JobIdentity {
        tenant: "platform",
        kind: JobKind::Audit,
        request: b"r",
        engine_version: "test",
        evaluation: "classical",
        rule_set: "x",
    };
    let job = NewJob {
        id: JobId::of(&identity),
        tenant: "platform".into(),
        platform_id: String::new(),
        kind: JobKind::Audit,
        request: b"r".to_vec(),
    };
    queue.submit(&job).await.unwrap();
    assert_eq!(queue.cancel("platform", &job.id).await.unwrap(), Cancelled::Cancelled);
    assert!(matches!(queue.take("w", Duration::from_millis(100)).await.unwrap(), Taken::Nothing));
    assert_eq!(result_stream(&redis, "platform"), vec![(job.id.to_string(), "cancelled".to_string())]);
    assert_eq!(queue.stats().await.unwrap().open, 0);
}
