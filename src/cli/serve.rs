//! `chuhe serve`: the gRPC API and the Prometheus metrics, until SIGTERM or SIGINT.

use std::net::SocketAddr;
use std::time::Duration;

use chuhe::engine::EngineConfig;
use chuhe::service::server::{ServerConfig, serve};
use chuhe::telemetry::{self, LogFormat};
use clap::Parser;

use crate::Failure;

#[derive(clap::Args)]
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
    /// Longest a request may run, in milliseconds (a smaller grpc-timeout wins).
    #[arg(long, env = "CHUHE_REQUEST_TIMEOUT_MS", default_value_t = 30_000)]
    request_timeout_ms: u64,
    /// Largest request or response message, in bytes.
    #[arg(long, env = "CHUHE_MAX_MESSAGE_BYTES", default_value_t = 4 * 1024 * 1024)]
    max_message_bytes: usize,
    /// Most moves a position or game record may carry.
    #[arg(long, env = "CHUHE_MAX_GAME_PLIES", default_value_t = 10_000)]
    max_game_plies: usize,
    /// Seconds in-flight requests get to finish after SIGTERM or SIGINT.
    #[arg(long, env = "CHUHE_GRACE_PERIOD_S", default_value_t = 10)]
    grace_period_s: u64,
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
    /// Log format on stderr.
    #[arg(long, env = "CHUHE_LOG_FORMAT", value_enum, default_value = "text")]
    log_format: LogFormat,
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

pub fn run_server(args: ServeArgs) -> Result<(), Failure> {
    telemetry::init_tracing(args.log_format);
    let config = ServerConfig {
        max_concurrency: args.max_concurrency,
        request_timeout: Duration::from_millis(args.request_timeout_ms),
        max_message_bytes: args.max_message_bytes,
        max_game_plies: args.max_game_plies,
        grace_period: Duration::from_secs(args.grace_period_s),
        engine: EngineConfig {
            hash_mb: args.hash_mb,
            threads_per_search: args.threads.max(1),
            workers: if args.search_workers == 0 { EngineConfig::default().workers } else { args.search_workers },
            max_analysis: Duration::from_millis(args.max_analysis_ms),
            max_queue_wait: Duration::from_millis(args.max_queue_wait_ms),
            ..EngineConfig::default()
        },
    };
    let runtime =
        tokio::runtime::Runtime::new().map_err(|e| Failure::Message(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async move {
        let grpc = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.listen)))?;
        let metrics = tokio::net::TcpListener::bind(args.metrics_listen)
            .await
            .map_err(|e| Failure::Message(format!("cannot listen on {}: {e}", args.metrics_listen)))?;
        telemetry::metrics_handle();
        let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
        let mut metrics_stop = stop_rx.clone();
        tokio::spawn(telemetry::serve_metrics(metrics, async move {
            let _ = metrics_stop.wait_for(|s| *s).await;
        }));
        tracing::info!(grpc = %args.listen, metrics = %args.metrics_listen, "serving");
        let shutdown = async move {
            termination_signal().await;
            let _ = stop_tx.send(true);
        };
        drop(stop_rx);
        serve(config, grpc, shutdown).await.map_err(|e| Failure::Message(format!("server error: {e}")))
    })
}

/// SIGTERM (Kubernetes) or SIGINT (Ctrl-C).
async fn termination_signal() {
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
