//! `chuhe jobs`: submit audits to the job queue, wait for their results, look at the
//! queue, cancel jobs; `chuhe worker`: a worker process ([`chuhe::api::worker`]).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chuhe::api::convert::ContentLimits;
use chuhe::api::fairplay::Models;
use chuhe::api::jobs::{DEFAULT_TENANT, audit_submission, result_json};
use chuhe::api::proto;
use chuhe::api::worker::{WorkerSettings, export_queue_metrics, work};
use chuhe::engine::queue::{
    self, Cancelled, JobId, JobQueue, JobRecord, JobState, RedisQueue, RedisQueueConfig, Submitted,
};
use chuhe::engine::{Engine, EngineConfig};
use chuhe::game::{RuleSet, Variant};
use chuhe::search::nnue::Evaluation;

use super::args::{api_failure, proto_rule_set};
use super::audit::read_record;
use crate::Failure;

#[derive(clap::Args)]
/// The queue a command uses, and its settings (each process of a queue should give the
/// same).
pub struct QueueArgs {
    /// The queue's Redis: `redis://HOST:PORT[/DB]` (or `rediss://`), Redis 7.0 or newer.
    #[arg(long, env = "CHUHE_QUEUE")]
    queue: Option<String>,
    /// Most open (queued or running) jobs; a submit beyond is refused.
    #[arg(long, env = "CHUHE_QUEUE_MAX_OPEN", default_value_t = queue::DEFAULT_MAX_OPEN)]
    max_open: u64,
    /// How long an ended job and its result are kept, in seconds.
    #[arg(long, env = "CHUHE_QUEUE_RESULT_TTL_S", default_value_t = queue::DEFAULT_RESULT_TTL.as_secs())]
    result_ttl_s: u64,
    /// A lease's length in seconds: a job whose worker has not renewed it this long is
    /// taken over by another worker.
    #[arg(long, env = "CHUHE_QUEUE_LEASE_S", default_value_t = queue::DEFAULT_LEASE.as_secs())]
    lease_s: u64,
    /// Deliveries of a job before it goes to the dead-letter stream.
    #[arg(long, env = "CHUHE_QUEUE_MAX_DELIVERIES", default_value_t = queue::DEFAULT_MAX_DELIVERIES)]
    max_deliveries: u32,
}

impl QueueArgs {
    /// The queue's configuration, if `--queue` names one.
    pub fn config(&self) -> Result<Option<RedisQueueConfig>, Failure> {
        let Some(url) = &self.queue else { return Ok(None) };
        if self.lease_s == 0 || self.result_ttl_s == 0 {
            return Err(Failure::Message("--lease-s and --result-ttl-s must be at least 1".into()));
        }
        Ok(Some(RedisQueueConfig {
            url: url.clone(),
            max_open: self.max_open,
            result_ttl: Duration::from_secs(self.result_ttl_s),
            lease: Duration::from_secs(self.lease_s),
            max_deliveries: self.max_deliveries,
        }))
    }

    fn open(&self) -> Result<RedisQueue, Failure> {
        let config = self.config()?.ok_or_else(|| Failure::Message("name the queue: --queue redis://...".into()))?;
        RedisQueue::connect(config).map_err(|e| Failure::Message(e.to_string()))
    }
}

#[derive(clap::Subcommand)]
/// The commands of `chuhe jobs`.
pub enum JobsCommand {
    /// Queue audits of games; prints each job's id and whether it was queued now or
    /// was there already.
    Submit(SubmitArgs),
    /// Wait until every job of the tenant has ended (done, dead-lettered or
    /// cancelled), then print each.
    Wait(WaitArgs),
    /// The queue's figures and the tenant's jobs by state.
    Status {
        #[command(flatten)]
        queue: QueueArgs,
        /// Whose jobs.
        #[arg(long, default_value = DEFAULT_TENANT)]
        tenant: String,
    },
    /// Cancel jobs of the tenant that have not ended.
    Cancel {
        #[command(flatten)]
        queue: QueueArgs,
        /// Whose jobs.
        #[arg(long, default_value = DEFAULT_TENANT)]
        tenant: String,
        /// The jobs' ids.
        #[arg(required = true)]
        ids: Vec<String>,
    },
}

#[derive(clap::Args)]
/// The arguments of `chuhe jobs submit`.
pub struct SubmitArgs {
    #[command(flatten)]
    queue: QueueArgs,
    /// Game records to audit (PGN-style text, or Janggi .gib), one job each.
    #[arg(long, num_args = 1..)]
    audit: Vec<PathBuf>,
    /// AuditGame requests in the RPC's JSON, one job each, sent as they are.
    #[arg(long, num_args = 1..)]
    audit_request: Vec<PathBuf>,
    /// Read the records as this variant (a `.gib` file is Janggi).
    #[arg(long, value_enum, default_value = "xiangqi")]
    variant: Variant,
    /// Node budget per ply (default 50000).
    #[arg(long)]
    nodes: Option<u64>,
    /// Engine lines the played move is compared with.
    #[arg(long, default_value_t = 3)]
    multipv: u32,
    /// Plies at the start not audited (the opening book).
    #[arg(long, default_value_t = 0)]
    book: u32,
    /// Rule set whose repetition rules the searches follow (default: the variant's).
    #[arg(long, value_enum)]
    rules: Option<RuleSet>,
    /// Whose jobs these are.
    #[arg(long, default_value = DEFAULT_TENANT)]
    tenant: String,
}

#[derive(clap::Args)]
/// The arguments of `chuhe jobs wait`.
pub struct WaitArgs {
    #[command(flatten)]
    queue: QueueArgs,
    /// Whose jobs.
    #[arg(long, default_value = DEFAULT_TENANT)]
    tenant: String,
    /// Print one JSON object per job, one a line: its id, state, and its result as the
    /// RPC's JSON (an AuditGameResponse, as `chuhe audit --json` prints it) or its error.
    #[arg(long)]
    json: bool,
    /// Give up after this many seconds (0: wait as long as it takes).
    #[arg(long, default_value_t = 0)]
    timeout_s: u64,
}

#[derive(clap::Args)]
/// The arguments of `chuhe worker`.
pub struct WorkerArgs {
    #[command(flatten)]
    queue: QueueArgs,
    /// Its name in the workers' consumer group, unique per worker (default: the host's
    /// name and the process id).
    #[arg(long, env = "CHUHE_WORKER_NAME")]
    name: Option<String>,
    /// The longest a search of a job may run, whatever the job asks, in milliseconds.
    #[arg(long, env = "CHUHE_MAX_ANALYSIS_MS", default_value_t = 10_000)]
    max_analysis_ms: u64,
    /// Most moves in a job's game.
    #[arg(long, env = "CHUHE_MAX_GAME_PLIES", default_value_t = 10_000)]
    max_game_plies: usize,
    /// The transposition table of analysis jobs, in MiB (audits and assessments search
    /// a small table of their own per ply).
    #[arg(long, env = "CHUHE_HASH_MB", default_value_t = 64)]
    hash_mb: usize,
    /// Fair-play model files (one per variant) that assessment jobs use; the
    /// submitters' must be the same.
    #[arg(long = "fairplay-model", env = "CHUHE_FAIRPLAY_MODEL", value_delimiter = ',')]
    fairplay_models: Vec<PathBuf>,
    /// `text` or `json` logs on stderr.
    #[arg(long, env = "CHUHE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: chuhe::telemetry::LogFormat,
    /// Serve Prometheus `/metrics` here: this worker's counters and the queue's gauges,
    /// and `/healthz` (503 while the queue does not answer); none by default, so that
    /// several workers on one host need no ports.
    #[arg(long, env = "CHUHE_METRICS_LISTEN")]
    metrics_listen: Option<std::net::SocketAddr>,
}

/// The most jobs of a tenant `wait` and `status` look at.
const MAX_LISTED: usize = 1_000_000;

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Failure::Message(format!("cannot start the runtime: {e}")))
}

fn queue_failure(e: queue::QueueError) -> Failure {
    Failure::Message(e.to_string())
}

/// `chuhe jobs ...`.
pub fn run_jobs(command: JobsCommand) -> Result<(), Failure> {
    runtime()?.block_on(async move {
        match command {
            JobsCommand::Submit(args) => submit(args).await,
            JobsCommand::Wait(args) => wait(args).await,
            JobsCommand::Status { queue, tenant } => status(&queue, &tenant).await,
            JobsCommand::Cancel { queue, tenant, ids } => cancel(&queue, &tenant, &ids).await,
        }
    })
}

async fn submit(args: SubmitArgs) -> Result<(), Failure> {
    let limits = ContentLimits { max_game_plies: 10_000 };
    let mut requests = Vec::new();
    for path in &args.audit {
        let record = read_record(path, args.variant, limits)?;
        requests.push(proto::AuditGameRequest {
            position: record.position,
            rule_set: proto_rule_set(args.rules) as i32,
            nodes_per_ply: args.nodes.unwrap_or(0),
            multipv: args.multipv,
            book_plies: args.book,
            ..Default::default()
        });
    }
    for path in &args.audit_request {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::Message(format!("{}: {e}", path.display())))?;
        let request: proto::AuditGameRequest = serde_json::from_str(&text)
            .map_err(|e| Failure::Message(format!("{}: not an AuditGameRequest: {e}", path.display())))?;
        requests.push(request);
    }
    if requests.is_empty() {
        return Err(Failure::Message("nothing to submit: give --audit or --audit-request".into()));
    }
    let evaluation = Evaluation::default();
    let jobs = requests
        .iter()
        .map(|r| audit_submission(&args.tenant, r, limits, &evaluation).map_err(api_failure))
        .collect::<Result<Vec<_>, Failure>>()?;
    let queue = args.queue.open()?;
    for job in &jobs {
        match queue.submit(job).await.map_err(queue_failure)? {
            Submitted::Queued => out!("{} queued", job.id),
            Submitted::Existing(state) => out!("{} exists {}", job.id, state.as_str()),
        }
    }
    Ok(())
}

async fn records(queue: &RedisQueue, tenant: &str) -> Result<Vec<JobRecord>, Failure> {
    let ids = queue.list(tenant, MAX_LISTED).await.map_err(queue_failure)?;
    let mut records = Vec::with_capacity(ids.len());
    for id in &ids {
        // A job that expired between the two calls is gone: not listed.
        if let Some(record) = queue.get(tenant, id).await.map_err(queue_failure)? {
            records.push(record);
        }
    }
    Ok(records)
}

/// How often `wait` looks again.
const WAIT_POLL: Duration = Duration::from_millis(250);

async fn wait(args: WaitArgs) -> Result<(), Failure> {
    let queue = args.queue.open()?;
    let started = Instant::now();
    let records = loop {
        let records = records(&queue, &args.tenant).await?;
        if records.iter().all(|r| r.state.is_final()) {
            break records;
        }
        if args.timeout_s > 0 && started.elapsed() > Duration::from_secs(args.timeout_s) {
            let open = records.iter().filter(|r| !r.state.is_final()).count();
            return Err(Failure::Message(format!("{open} jobs not ended after {} s", args.timeout_s)));
        }
        tokio::time::sleep(WAIT_POLL).await;
    };
    for r in &records {
        if args.json {
            out!("{}", job_json(r)?);
        } else {
            out!("{} {}{}", r.id, r.state.as_str(), r.error.as_ref().map_or(String::new(), |e| format!(": {e}")));
        }
    }
    Ok(())
}

/// A job as `wait --json` prints it.
fn job_json(r: &JobRecord) -> Result<String, Failure> {
    let mut object = serde_json::Map::new();
    object.insert("id".into(), r.id.as_str().into());
    if !r.platform_id.is_empty() {
        object.insert("platform_id".into(), r.platform_id.as_str().into());
    }
    object.insert("kind".into(), r.kind.as_str().into());
    object.insert("state".into(), r.state.as_str().into());
    object.insert("deliveries".into(), r.deliveries.into());
    if let (JobState::Done, Some(result)) = (r.state, &r.result) {
        object.insert("result".into(), result_json(r.kind, result).map_err(Failure::Message)?);
    }
    if let Some(error) = &r.error {
        object.insert("error".into(), error.as_str().into());
    }
    serde_json::to_string(&object).map_err(|e| Failure::Message(e.to_string()))
}

async fn status(args: &QueueArgs, tenant: &str) -> Result<(), Failure> {
    let queue = args.open()?;
    let stats = queue.stats().await.map_err(queue_failure)?;
    out!(
        "queue: {} open ({} delivered, {} never delivered), oldest {}, {} dead-lettered",
        stats.open,
        stats.pending,
        stats.lag,
        stats.oldest_age_ms.map_or("-".to_string(), |ms| format!("{:.1} s", ms as f64 / 1000.0)),
        stats.dead_lettered
    );
    let records = records(&queue, tenant).await?;
    let states = [JobState::Queued, JobState::Running, JobState::Done, JobState::Dead, JobState::Cancelled];
    let counts: Vec<String> =
        states.iter().map(|s| format!("{} {}", records.iter().filter(|r| r.state == *s).count(), s.as_str())).collect();
    out!("tenant {tenant}: {}", counts.join(", "));
    Ok(())
}

async fn cancel(args: &QueueArgs, tenant: &str, ids: &[String]) -> Result<(), Failure> {
    let queue = args.open()?;
    for text in ids {
        let id = JobId::parse(text).ok_or_else(|| Failure::Message(format!("{text:?} is not a job id")))?;
        match queue.cancel(tenant, &id).await.map_err(queue_failure)? {
            Cancelled::Cancelled => out!("{id} cancelled"),
            Cancelled::AlreadyFinal(state) => out!("{id} {} already", state.as_str()),
            Cancelled::Unknown => out!("{id} unknown"),
        }
    }
    Ok(())
}

/// `chuhe worker`: jobs done until SIGTERM or SIGINT, which hands the job under way
/// back to the queue.
pub fn run_worker(args: WorkerArgs) -> Result<(), Failure> {
    chuhe::telemetry::init_tracing(args.log_format);
    let name = args.name.clone().unwrap_or_else(default_name);
    if !queue::valid_tenant(&name) {
        return Err(Failure::Message(format!("--name {name:?}: 1 to 64 letters, digits, . _ -")));
    }
    runtime()?.block_on(async move {
        let queue: Arc<dyn JobQueue> = Arc::new(args.queue.open()?);
        let models = Arc::new(Models::open(&args.fairplay_models).map_err(Failure::Message)?);
        let engine = Engine::new(EngineConfig {
            hash_mb: args.hash_mb,
            workers: 1,
            max_analysis: Duration::from_millis(args.max_analysis_ms),
            ..EngineConfig::default()
        });
        let settings = WorkerSettings {
            name,
            lease: Duration::from_secs(args.queue.lease_s),
            limits: ContentLimits { max_game_plies: args.max_game_plies },
            models,
        };
        let (stop, stopped) = tokio::sync::watch::channel(false);
        // The queue is looked at from the start: the gauges and /healthz.
        let (up, health) = tokio::sync::watch::channel(false);
        tokio::spawn(export_queue_metrics(queue.clone(), up, stopped.clone()));
        if let Some(addr) = args.metrics_listen {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| Failure::Message(format!("cannot listen on {addr}: {e}")))?;
            chuhe::telemetry::metrics_handle();
            let timeouts = chuhe::telemetry::MetricsTimeouts {
                first_request: Duration::from_secs(10),
                idle: Some(Duration::from_secs(300)),
            };
            let mut metrics_stop = stopped.clone();
            tokio::spawn(chuhe::telemetry::serve_metrics(listener, timeouts, Some(health), async move {
                let _ = metrics_stop.wait_for(|s| *s).await;
            }));
        }
        tokio::spawn(async move {
            super::serve::termination_signal().await;
            tracing::info!("stopping: the job under way is handed back");
            let _ = stop.send(true);
        });
        work(engine, queue, settings, stopped).await;
        Ok(())
    })
}

/// A worker's name when none is given: the host's name and the process id.
pub fn default_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    let host: String =
        host.trim().chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-')).take(40).collect();
    format!("{}-{}", if host.is_empty() { "worker" } else { &host }, std::process::id())
}
