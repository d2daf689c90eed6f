//! Metrics (Prometheus text at `/metrics`) and tracing set-up.

use std::sync::OnceLock;

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

/// Serves `GET /metrics` on a bound listener until `shutdown` resolves.
pub async fn serve_metrics(
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = axum::Router::new().route("/metrics", axum::routing::get(|| async { render_metrics() }));
    axum::serve(listener, app).with_graceful_shutdown(shutdown).await
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
