//! Metrics (Prometheus text at `/metrics`) and tracing set-up.

use std::sync::OnceLock;
use std::time::Duration;

use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;

/// Latency buckets of `grpc_server_handling_seconds`, in seconds (50 µs to 10 s).
const LATENCY_BUCKETS: &[f64] =
    &[0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// Installs the process-wide Prometheus recorder once and returns its handle.
pub fn metrics_handle() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .map(|b| b.build_recorder())
                .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
            let handle = recorder.handle();
            // Another recorder may already be installed (tests in one process): the handle
            // of ours still renders what is recorded through it when it is the global one.
            let _ = metrics::set_global_recorder(recorder);
            process_collector().describe();
            start_upkeep(handle.clone());
            export_counters();
            handle
        })
        .clone()
}

/// How often recorded histogram samples are folded into their buckets, scraped or not
/// (unscraped, they would pile up in memory).
const UPKEEP_INTERVAL: std::time::Duration = std::time::Duration::from_secs(5);

fn start_upkeep(handle: PrometheusHandle) {
    let started = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || {
        loop {
            std::thread::sleep(UPKEEP_INTERVAL);
            handle.run_upkeep();
        }
    });
    if let Err(e) = started {
        tracing::warn!("no metrics upkeep thread ({e}): histogram samples are folded at scrapes only");
    }
}

/// Counters without labels that are exported from the start, at zero, so that a rate
/// or an alert over them has a series before the first event.
const COUNTERS: &[(&str, &str)] = &[
    ("chuhe_search_deadline_overruns_total", "searches that ran past their time budget by over 50 ms"),
    ("chuhe_requests_shed_total", "calls refused at the concurrency limit (RESOURCE_EXHAUSTED)"),
    ("chuhe_requests_timed_out_total", "calls ended at their deadline (DEADLINE_EXCEEDED)"),
    ("chuhe_connections_closed_total", "connections closed, by reason"),
];

fn export_counters() {
    for (name, help) in COUNTERS {
        metrics::describe_counter!(*name, *help);
    }
    metrics::counter!("chuhe_search_deadline_overruns_total").increment(0);
    metrics::describe_gauge!("chuhe_connections_open", "connections open");
    metrics::gauge!("chuhe_connections_open").increment(0.0);
}

fn process_collector() -> &'static metrics_process::Collector {
    static COLLECTOR: OnceLock<metrics_process::Collector> = OnceLock::new();
    COLLECTOR.get_or_init(metrics_process::Collector::default)
}

/// Renders the current metrics in the Prometheus text format.
pub fn render_metrics() -> String {
    let handle = metrics_handle();
    process_collector().collect();
    handle.run_upkeep();
    handle.render()
}

/// The time a metrics connection has for its first request, and may then stay without
/// one: the gRPC port's first-request and idle timeouts, so that idle or half-sent
/// connections are not held for ever.
#[derive(Clone, Copy, Debug)]
pub struct MetricsTimeouts {
    /// From connecting to the end of the first request's headers.
    pub first_request: Duration,
    /// From the start of the last request (None: for ever once a request came).
    pub idle: Option<Duration>,
}

/// Serves `GET /metrics` on a bound listener until `shutdown` resolves, each connection
/// under `timeouts`; with `health`, `GET /healthz` too: 200 while it holds true, 503
/// while false (a worker whose queue does not answer).
pub async fn serve_metrics(
    listener: TcpListener,
    timeouts: MetricsTimeouts,
    health: Option<tokio::sync::watch::Receiver<bool>>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let mut app = axum::Router::new().route("/metrics", axum::routing::get(|| async { render_metrics() }));
    if let Some(health) = health {
        app = app.route(
            "/healthz",
            axum::routing::get(move || {
                let up = *health.borrow();
                async move {
                    match up {
                        true => (http::StatusCode::OK, "ok\n"),
                        false => (http::StatusCode::SERVICE_UNAVAILABLE, "the job queue does not answer\n"),
                    }
                }
            }),
        );
    }
    let mut shutdown = std::pin::pin!(shutdown);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of descriptors, say: wait a little rather than spin.
                    tracing::debug!("metrics accept: {e}");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
        };
        connections.spawn(serve_metrics_connection(stream, app.clone(), timeouts));
    }
    connections.shutdown().await;
    Ok(())
}

/// One metrics connection, closed when it has had no request within the first-request
/// timeout, or none for the idle timeout since its last.
async fn serve_metrics_connection(stream: tokio::net::TcpStream, app: axum::Router, timeouts: MetricsTimeouts) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let opened = tokio::time::Instant::now();
    // Milliseconds from `opened` to the start of the last request, plus one; 0: none yet.
    let last_request = std::sync::Arc::new(AtomicU64::new(0));
    let seen = last_request.clone();
    let service = tower::service_fn(move |req: http::Request<hyper::body::Incoming>| {
        let ms = u64::try_from(opened.elapsed().as_millis()).unwrap_or(u64::MAX - 1);
        seen.store(ms + 1, Ordering::Relaxed);
        tower::ServiceExt::oneshot(app.clone(), req)
    });
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(timeouts.first_request);
    let connection = http1
        .serve_connection(hyper_util::rt::TokioIo::new(stream), hyper_util::service::TowerToHyperService::new(service));
    let mut connection = std::pin::pin!(connection);
    loop {
        let last = last_request.load(Ordering::Relaxed);
        let close_at = match (last, timeouts.idle) {
            (0, _) => opened + timeouts.first_request,
            (last, Some(idle)) => opened + Duration::from_millis(last - 1) + idle,
            (_, None) => opened + Duration::from_secs(30 * 365 * 24 * 3600),
        };
        tokio::select! {
            _ = &mut connection => return,
            _ = tokio::time::sleep_until(close_at) => {
                if last_request.load(Ordering::Relaxed) == last {
                    // Nothing asked since: dropped (a request under way answers in microseconds).
                    return;
                }
            }
        }
    }
}

/// Log output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// Sets up tracing: `RUST_LOG`-style filter (default `info`), text or JSON lines on
/// stderr. Safe to call more than once (later calls do nothing).
pub fn init_tracing(format: LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    // Colour codes only for a terminal, not for log collectors.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_ansi(ansi).with_writer(std::io::stderr);
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().flatten_event(true).with_current_span(true).try_init(),
    };
}
