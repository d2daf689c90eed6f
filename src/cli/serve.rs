//! `chuhe serve`: the gRPC API and the Prometheus metrics, until SIGTERM or SIGINT.

use std::net::SocketAddr;
use std::time::Duration;

use chuhe::engine::store::{StoreConfig, StoreKind};
use chuhe::engine::{EngineConfig, SearchPriority};
use chuhe::search::nnue::{Evaluation, NetVariant};
use chuhe::service::connections::{ConnectionLimits, bind};
use chuhe::service::server::{EXIT_CALLS_CUT, JobsConfig, Reflection, ServerConfig, runtime, serve};
use chuhe::service::tls::TlsFiles;
use chuhe::telemetry::{self, LogFormat};
use clap::Parser;

use crate::Failure;

#[derive(clap::Args)]
/// The flags of `chuhe serve`, each also read from its `CHUHE_*` variable.
pub struct ServeArgs {
    /// gRPC listen address.
    #[arg(long, env = "CHUHE_LISTEN", default_value = "127.0.0.1:50051")]
    listen: SocketAddr,
    /// Prometheus metrics listen address (`/metrics`).
    #[arg(long, env = "CHUHE_METRICS_LISTEN", default_value = "127.0.0.1:9464")]
    metrics_listen: SocketAddr,
    /// Requests handled at once; more are shed with RESOURCE_EXHAUSTED.
    #[arg(long, env = "CHUHE_MAX_CONCURRENCY", default_value_t = 256)]
    max_concurrency: usize,
    /// Places of --max-concurrency one client address may hold when no tenant is known
    /// (a call without an API key or client certificate). Unset: half of
    /// --max-concurrency; 0: no share (behind a proxy, where every call has its address).
    #[arg(long, env = "CHUHE_MAX_CONCURRENCY_PER_ADDRESS")]
    max_concurrency_per_address: Option<usize>,
    /// Streams one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS).
    /// Unset: a quarter of --max-concurrency.
    #[arg(long, env = "CHUHE_MAX_STREAMS_PER_CONNECTION")]
    max_streams_per_connection: Option<u32>,
    /// Longest a request may run, in milliseconds (a smaller grpc-timeout wins).
    #[arg(long, env = "CHUHE_REQUEST_TIMEOUT_MS", default_value_t = 30_000)]
    request_timeout_ms: u64,
    /// Longest time from a request's headers to the end of its message, in milliseconds.
    #[arg(long, env = "CHUHE_REQUEST_BODY_TIMEOUT_MS", default_value_t = 10_000)]
    request_body_timeout_ms: u64,
    /// Longest a response (or the next message of a stream) may wait for the client's
    /// flow-control window before it is given up, in milliseconds (0: for ever).
    #[arg(long, env = "CHUHE_WRITE_TIMEOUT_MS", default_value_t = 10_000)]
    write_timeout_ms: u64,
    /// Largest request or response message, in bytes.
    #[arg(long, env = "CHUHE_MAX_MESSAGE_BYTES", default_value_t = 4 * 1024 * 1024)]
    max_message_bytes: usize,
    /// Most moves a position or game record may carry.
    #[arg(long, env = "CHUHE_MAX_GAME_PLIES", default_value_t = 10_000)]
    max_game_plies: usize,
    /// Seconds the server answers NOT_SERVING after SIGTERM or SIGINT, still serving
    /// and accepting, before it stops accepting.
    #[arg(long, env = "CHUHE_DRAIN_DELAY_S", default_value_t = 5)]
    drain_delay_s: u64,
    /// Seconds in-flight requests get to finish once the server stops accepting.
    #[arg(long, env = "CHUHE_GRACE_PERIOD_S", default_value_t = 10)]
    grace_period_s: u64,
    /// Connections that may wait to be accepted (the kernel may allow fewer).
    #[arg(long, env = "CHUHE_LISTEN_BACKLOG", default_value_t = 1024)]
    listen_backlog: u32,
    /// Connections served at once; more wait in the backlog.
    #[arg(long, env = "CHUHE_MAX_CONNECTIONS", default_value_t = 4096)]
    max_connections: usize,
    /// Milliseconds from connecting to the first request before the connection is closed.
    #[arg(long, env = "CHUHE_FIRST_REQUEST_TIMEOUT_MS", default_value_t = 10_000)]
    first_request_timeout_ms: u64,
    /// Seconds a connection may go without a call before it is closed (0: never).
    #[arg(long, env = "CHUHE_IDLE_TIMEOUT_S", default_value_t = 300)]
    idle_timeout_s: u64,
    /// Seconds between HTTP/2 pings on a quiet connection (0: no pings).
    #[arg(long, env = "CHUHE_KEEPALIVE_INTERVAL_S", default_value_t = 60)]
    keepalive_interval_s: u64,
    /// Seconds an unanswered ping waits before the connection is closed.
    #[arg(long, env = "CHUHE_KEEPALIVE_TIMEOUT_S", default_value_t = 20)]
    keepalive_timeout_s: u64,
    /// Seconds after which a connection is asked to go, give or take a tenth (0: never).
    #[arg(long, env = "CHUHE_MAX_CONNECTION_AGE_S", default_value_t = 1800)]
    max_connection_age_s: u64,
    /// Seconds the calls of a connection asked to go get before it is cut.
    #[arg(long, env = "CHUHE_MAX_CONNECTION_AGE_GRACE_S", default_value_t = 30)]
    max_connection_age_grace_s: u64,
    /// TLS certificate chain (PEM); with --tls-key, the server speaks only TLS.
    #[arg(long, env = "CHUHE_TLS_CERT", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,
    /// TLS private key (PEM).
    #[arg(long, env = "CHUHE_TLS_KEY", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,
    /// CA certificates (PEM) that client certificates must chain to (mutual TLS).
    #[arg(long, env = "CHUHE_TLS_CLIENT_CA", requires = "tls_cert")]
    tls_client_ca: Option<std::path::PathBuf>,
    /// Seconds between looks at the TLS files; a changed file is loaded again.
    #[arg(long, env = "CHUHE_TLS_RELOAD_S", default_value_t = 10)]
    tls_reload_s: u64,
    /// Tenants and the SHA-256 hashes of their API keys (JSON); every call but the
    /// health checks then needs `authorization: Bearer <key>`.
    #[arg(long, env = "CHUHE_API_KEYS")]
    api_keys: Option<std::path::PathBuf>,
    /// Seconds between looks at the API keys file; a changed file is loaded again.
    #[arg(long, env = "CHUHE_API_KEYS_RELOAD_S", default_value_t = 10)]
    api_keys_reload_s: u64,
    /// A fair-play model (`chuhe fairplay calibrate`) AssessPlayer assesses with; one
    /// per variant, repeatable. A file that does not read stops the start.
    #[arg(long)]
    fairplay_model: Vec<std::path::PathBuf>,
    /// Seconds between looks at the model files; a changed file is loaded again (one
    /// that does not read leaves the model in use).
    #[arg(long, default_value_t = 10)]
    fairplay_reload_s: u64,
    /// The job queue JobService submits to and reads from (`--queue redis://...`, with
    /// its settings: docs/jobs.md); none: JobService answers FAILED_PRECONDITION.
    #[command(flatten)]
    queue: super::jobs::QueueArgs,
    /// Also do jobs of the queue: this many at once beside the calls, each on a thread
    /// of its own (0: none, the server only submits and reads).
    #[arg(long, env = "CHUHE_WORKER", default_value_t = 0, num_args = 0..=1, default_missing_value = "1")]
    worker: usize,
    /// The longest a refusal over a tenant's quota is held back, in milliseconds: as
    /// long as the call would have waited in line for its quota, so that a client
    /// retrying at once is slowed to its quota's pace (0: refuse at once).
    #[arg(long, env = "CHUHE_REFUSAL_HOLD_MS", default_value_t = 250)]
    refusal_hold_ms: u64,
    /// Server reflection (for tools such as grpcurl): `on` serves it to every caller,
    /// with or without an API key; `off` does not serve it. Unset: served, and when
    /// API keys are required, only to calls with a key.
    #[arg(long, env = "CHUHE_REFLECTION", value_enum)]
    reflection: Option<OnOff>,
    /// Transposition table size shared by all searches, in MiB.
    #[arg(long, env = "CHUHE_HASH_MB", default_value_t = 64)]
    hash_mb: usize,
    /// Threads per search (Lazy SMP).
    #[arg(long, env = "CHUHE_THREADS", default_value_t = 1)]
    threads: usize,
    /// Searches that run at once (0: one per core); more wait briefly, then are refused.
    #[arg(long, env = "CHUHE_SEARCH_WORKERS", default_value_t = 0)]
    search_workers: usize,
    /// Longest time budget an analysis request may ask for, in milliseconds.
    #[arg(long, env = "CHUHE_MAX_ANALYSIS_MS", default_value_t = 10_000)]
    max_analysis_ms: u64,
    /// Longest wait for a free search thread before RESOURCE_EXHAUSTED, in milliseconds.
    #[arg(long, env = "CHUHE_MAX_QUEUE_WAIT_MS", default_value_t = 50)]
    max_queue_wait_ms: u64,
    /// Run search threads under SCHED_IDLE (Linux): they then give way at once to the
    /// threads answering calls, and to every other thread of the same cgroup. `auto`
    /// (the default): when the server is alone in its CPU cgroup (a container, a systemd
    /// service), where other work does not starve them; `false`: add `--search-nice`
    /// instead.
    #[arg(long, env = "CHUHE_SEARCH_IDLE", value_enum, default_value_t = SearchIdle::Auto)]
    search_idle: SearchIdle,
    /// Nice value added to search threads when not under SCHED_IDLE, or when the system
    /// refuses it (Linux; 0: none).
    #[arg(long, env = "CHUHE_SEARCH_NICE", default_value_t = 5, value_parser = clap::value_parser!(i32).range(0..=19))]
    search_nice: i32,
    /// Where finished searches are kept to answer the same question again: `memory`
    /// (this process, bounded by the two flags below), `redis://HOST:PORT[/DB]` or
    /// `rediss://` (TLS; `user:password@` in the URL or the password from a file), a
    /// Redis every replica shares, or `off`.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE", default_value = "memory", value_parser = parse_cache)]
    analysis_cache: CacheChoice,
    /// Most searches the memory store keeps.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_MAX_ENTRIES", default_value_t = 100_000)]
    analysis_cache_max_entries: usize,
    /// Most memory the memory store takes, in MiB.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_MAX_MB", default_value_t = 64)]
    analysis_cache_max_mb: usize,
    /// Seconds a stored search is kept.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_TTL_S", default_value_t = 86_400)]
    analysis_cache_ttl_s: u64,
    /// Longest a store lookup or write may take, in milliseconds, before the call goes
    /// on without it (searching, or not storing).
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_TIMEOUT_MS", default_value_t = 25)]
    analysis_cache_timeout_ms: u64,
    /// A file holding the Redis password (a mounted Secret), instead of one in the URL.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_PASSWORD_FILE")]
    analysis_cache_password_file: Option<std::path::PathBuf>,
    /// Share stored searches across tenants (API keys): one tenant's question is then
    /// answered from another's search, whose depth, nodes and time it sees. Without it
    /// each tenant's searches are its own.
    #[arg(long, env = "CHUHE_ANALYSIS_CACHE_SHARED")]
    analysis_cache_shared: bool,
    /// Log format on stderr.
    #[arg(long, env = "CHUHE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
    /// The evaluation of Xiangqi and Janggi searches: `nnue` (the nets) or
    /// `classical`. Unset: each variant's default, which is its net for both
    /// (docs/engine.md).
    #[arg(long, env = "CHUHE_EVAL", value_enum)]
    eval: Option<EvalKind>,
    /// A Xiangqi net file to use instead of the embedded one.
    #[arg(long, env = "CHUHE_EVAL_FILE")]
    eval_file: Option<std::path::PathBuf>,
    /// A Janggi net file to use instead of the embedded one.
    #[arg(long, env = "CHUHE_EVAL_FILE_JANGGI")]
    eval_file_janggi: Option<std::path::PathBuf>,
}

/// What evaluates the positions searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EvalKind {
    /// The hand-written evaluation.
    Classical,
    /// The nets (NNUE).
    Nnue,
}

/// The evaluation the flags ask for; a net file that cannot be loaded is an error
/// naming it.
fn evaluation(args: &ServeArgs) -> Result<Evaluation, Failure> {
    let mut evaluation = Evaluation::default();
    if let Some(kind) = args.eval {
        evaluation.use_nnue = Some(kind == EvalKind::Nnue);
    }
    for (variant, file) in [(NetVariant::Xiangqi, &args.eval_file), (NetVariant::Janggi, &args.eval_file_janggi)] {
        if let Some(path) = file {
            evaluation.load(variant, path).map_err(|e| Failure::Message(format!("cannot start: {e}")))?;
        }
    }
    Ok(evaluation)
}

/// A switch of the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OnOff {
    /// Switched on.
    On,
    /// Switched off.
    Off,
}

/// Whether search threads run under `SCHED_IDLE` (`--search-idle`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SearchIdle {
    /// When the server is alone in its CPU cgroup.
    Auto,
    /// Always.
    #[value(name = "true")]
    Yes,
    /// Never: a nice value instead.
    #[value(name = "false")]
    No,
}

impl SearchIdle {
    /// Whether the search threads of this process run under `SCHED_IDLE`, and why.
    fn decide(self) -> (bool, &'static str) {
        match self {
            SearchIdle::Yes => (true, "asked for"),
            SearchIdle::No => (false, "not asked for"),
            SearchIdle::Auto => match chuhe::engine::priority::alone_in_cpu_cgroup() {
                Some(true) => (true, "the server is alone in its CPU cgroup"),
                Some(false) => (false, "other processes share the server's CPU cgroup"),
                None => (false, "the server's CPU cgroup cannot be read"),
            },
        }
    }
}

/// The store `--analysis-cache` names.
#[derive(Clone, Debug)]
enum CacheChoice {
    Off,
    Memory,
    Redis(String),
}

fn parse_cache(text: &str) -> Result<CacheChoice, String> {
    match text {
        "off" => Ok(CacheChoice::Off),
        "memory" => Ok(CacheChoice::Memory),
        url if url.starts_with("redis://") || url.starts_with("rediss://") => Ok(CacheChoice::Redis(url.to_owned())),
        _ => Err("off, memory, redis://HOST:PORT[/DB] or rediss://HOST:PORT[/DB]".into()),
    }
}

impl ServeArgs {
    /// The store the flags name; the password file is read here.
    fn analysis_cache(&self) -> Result<StoreConfig, Failure> {
        let kind = match &self.analysis_cache {
            CacheChoice::Off => StoreKind::Off,
            CacheChoice::Memory => StoreKind::Memory {
                max_entries: self.analysis_cache_max_entries,
                max_bytes: self.analysis_cache_max_mb.saturating_mul(1 << 20),
            },
            CacheChoice::Redis(url) => {
                let password = match &self.analysis_cache_password_file {
                    None => None,
                    Some(path) => Some(
                        std::fs::read_to_string(path)
                            .map_err(|e| Failure::Message(format!("cannot read {}: {e}", path.display())))?
                            .trim_end_matches(['\r', '\n'])
                            .to_owned(),
                    ),
                };
                StoreKind::Redis { url: url.clone(), password }
            }
        };
        Ok(StoreConfig {
            kind,
            ttl: Duration::from_secs(self.analysis_cache_ttl_s.max(1)),
            timeout: Duration::from_millis(self.analysis_cache_timeout_ms.max(1)),
            shared_across_tenants: self.analysis_cache_shared,
        })
    }
}

impl Default for ServeArgs {
    fn default() -> Self {
        ServeArgs::parse_from(["serve"])
    }
}

#[derive(Parser)]
struct ServeOnly {
    #[command(flatten)]
    args: ServeArgs,
}

impl ServeArgs {
    fn parse_from<I: IntoIterator<Item = &'static str>>(args: I) -> ServeArgs {
        ServeOnly::parse_from(args).args
    }
}

/// Runs the server until SIGTERM or SIGINT; exits with status 3 when calls were cut.
pub fn run_server(args: ServeArgs) -> Result<(), Failure> {
    telemetry::init_tracing(args.log_format);
    let analysis_cache = args.analysis_cache()?;
    let evaluation = evaluation(&args)?;
    tracing::info!(
        xiangqi = %evaluation.name(NetVariant::Xiangqi),
        janggi = %evaluation.name(NetVariant::Janggi),
        "evaluation"
    );
    let (search_idle, why) = args.search_idle.decide();
    tracing::info!(idle = search_idle, nice = if search_idle { 0 } else { args.search_nice }, why, "search threads");
    let config = ServerConfig {
        max_concurrency: args.max_concurrency,
        address_share: match args.max_concurrency_per_address {
            None => Some((args.max_concurrency / 2).max(1)),
            Some(0) => None,
            Some(share) => Some(share),
        },
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        request_body_timeout: Duration::from_millis(args.request_body_timeout_ms),
        max_message_bytes: args.max_message_bytes,
        max_game_plies: args.max_game_plies,
        drain_delay: Duration::from_secs(args.drain_delay_s),
        grace_period: Duration::from_secs(args.grace_period_s),
        connections: ConnectionLimits {
            first_request_timeout: Duration::from_millis(args.first_request_timeout_ms),
            idle_timeout: seconds_or_never(args.idle_timeout_s),
            keepalive_interval: seconds_or_never(args.keepalive_interval_s),
            keepalive_timeout: Duration::from_secs(args.keepalive_timeout_s),
            max_connection_age: seconds_or_never(args.max_connection_age_s),
            max_connection_age_grace: Duration::from_secs(args.max_connection_age_grace_s),
            max_connections: args.max_connections,
            max_concurrent_streams: args
                .max_streams_per_connection
                .unwrap_or_else(|| u32::try_from(args.max_concurrency / 4).unwrap_or(u32::MAX))
                .max(1),
            write_timeout: (args.write_timeout_ms > 0).then(|| Duration::from_millis(args.write_timeout_ms)),
        },
        tls: match (args.tls_cert, args.tls_key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert, key, client_ca: args.tls_client_ca }),
            _ => None,
        },
        tls_reload_interval: Duration::from_secs(args.tls_reload_s.max(1)),
        api_keys: args.api_keys,
        api_keys_reload_interval: Duration::from_secs(args.api_keys_reload_s.max(1)),
        longest_refusal_hold: Duration::from_millis(args.refusal_hold_ms),
        reflection: match args.reflection {
            None => Reflection::Keyed,
            Some(OnOff::On) => Reflection::Open,
            Some(OnOff::Off) => Reflection::Off,
        },
        engine: EngineConfig {
            hash_mb: args.hash_mb,
            threads_per_search: args.threads.max(1),
            workers: if args.search_workers == 0 { EngineConfig::default().workers } else { args.search_workers },
            max_analysis: Duration::from_millis(args.max_analysis_ms),
            max_queue_wait: Duration::from_millis(args.max_queue_wait_ms),
            search_priority: SearchPriority { idle: search_idle, nice: args.search_nice },
            evaluation,
            ..EngineConfig::default()
        },
        analysis_cache,
        fairplay_models: args.fairplay_model.clone(),
        fairplay_reload_interval: Duration::from_secs(args.fairplay_reload_s.max(1)),
        jobs: match args.queue.config()? {
            Some(queue) => Some(JobsConfig { queue, workers: args.worker, worker_name: super::jobs::default_name() }),
            None if args.worker > 0 => {
                return Err(Failure::Message("--worker needs a queue: --queue redis://...".into()));
            }
            None => None,
        },
    };
    let runtime = runtime(None).map_err(|e| Failure::Message(format!("cannot start the runtime: {e}")))?;
    let served = runtime.block_on(async move {
        let grpc = bind(args.listen, args.listen_backlog)
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.listen)))?;
        let metrics = tokio::net::TcpListener::bind(args.metrics_listen)
            .await
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.metrics_listen)))?;
        telemetry::metrics_handle();
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut metrics_stop = stop_rx.clone();
        let timeouts = telemetry::MetricsTimeouts {
            first_request: config.connections.first_request_timeout,
            idle: config.connections.idle_timeout,
        };
        tokio::spawn(telemetry::serve_metrics(metrics, timeouts, None, async move {
            let _ = metrics_stop.wait_for(|s| *s).await;
        }));
        tracing::info!(grpc = %args.listen, metrics = %args.metrics_listen, "serving");
        let shutdown = async move {
            termination_signal().await;
            let _ = stop_tx.send(true);
        };
        drop(stop_rx);
        serve(config, grpc, shutdown).await.map_err(|e| Failure::Message(format!("server error: {e}")))
    })?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    if served.calls_cut > 0 || served.connections_cut > 0 {
        tracing::error!(
            calls = served.calls_cut,
            connections = served.connections_cut,
            "stopped with calls cut off at the end of the grace period"
        );
        std::process::exit(i32::from(EXIT_CALLS_CUT));
    }
    Ok(())
}

fn seconds_or_never(s: u64) -> Option<Duration> {
    (s > 0).then(|| Duration::from_secs(s))
}

/// SIGTERM (Kubernetes) or SIGINT (Ctrl-C).
pub async fn termination_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = term.recv() => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            }
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
