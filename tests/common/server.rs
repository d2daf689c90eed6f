//! The real server on an ephemeral port, for integration tests.
//!
//! The servers of one test binary share the process's metrics recorder: a test that
//! counts what its own calls add to a series starts its server with [`start_alone`],
//! which waits until no other server of the binary runs and keeps others from starting
//! until it is dropped.

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::Duration;

use chuhe::api::proto::{
    analysis_service_client::AnalysisServiceClient, notation_service_client::NotationServiceClient,
    rules_service_client::RulesServiceClient,
};
use chuhe::engine::EngineConfig;
use chuhe::service::server::{Served, ServerConfig, serve};
use tokio::net::TcpListener;
use tokio::sync::{Notify, oneshot};
use tonic::transport::Channel;

/// The servers running in this process: how many share it, and whether one runs alone.
/// Sharing is preferred, so that a test that runs two servers at once never waits for a
/// test that waits to run alone.
struct Gate {
    state: Mutex<(usize, bool)>,
    changed: Notify,
}

static GATE: Gate = Gate { state: Mutex::new((0, false)), changed: Notify::const_new() };

/// A server's hold on the gate: shared or alone, given back when dropped.
struct Pass {
    alone: bool,
}

impl Gate {
    async fn enter(&'static self, alone: bool) -> Pass {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut state = self.state.lock().unwrap();
                let (shared, solo) = &mut *state;
                if !*solo && (!alone || *shared == 0) {
                    if alone {
                        *solo = true;
                    } else {
                        *shared += 1;
                    }
                    return Pass { alone };
                }
            }
            changed.await;
        }
    }
}

impl Drop for Pass {
    fn drop(&mut self) {
        let mut state = GATE.state.lock().unwrap_or_else(|e| e.into_inner());
        if self.alone {
            state.1 = false;
        } else {
            state.0 -= 1;
        }
        drop(state);
        GATE.changed.notify_waiters();
    }
}

/// A server running in the test's runtime; dropping it (or `shutdown`) stops it.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<Served>>,
    _pass: Pass,
}

/// Starts the server with `config` on 127.0.0.1 and an ephemeral port.
pub async fn start(config: ServerConfig) -> Running {
    let pass = GATE.enter(false).await;
    launch(config, pass).await
}

/// Starts the server with `config` once no other server of this process runs, and keeps
/// others from starting while it runs: the process-wide metrics then count only its calls.
pub async fn start_alone(config: ServerConfig) -> Running {
    // The server's counters are made when it starts: the recorder must be there first.
    chuhe::telemetry::metrics_handle();
    let pass = GATE.enter(true).await;
    launch(config, pass).await
}

async fn launch(config: ServerConfig, pass: Pass) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        serve(config, listener, async move {
            let _ = rx.await;
        })
        .await
        .expect("server runs")
    });
    Running { addr, stop: Some(tx), handle: Some(handle), _pass: pass }
}

/// A server with a small engine (see [`small_engine`]).
pub async fn start_small() -> Running {
    start(ServerConfig { engine: small_engine(), ..ServerConfig::default() }).await
}

/// An 8 MB table and two search threads, and a search waits up to 10 s for a free
/// thread: a search answered late (past its time) keeps its thread until it stops, and
/// on a loaded machine its thread, at a lower priority than the server's, may not run
/// for a while. Tests of refusals set their own wait.
pub fn small_engine() -> EngineConfig {
    EngineConfig { hash_mb: 8, workers: 2, max_queue_wait: Duration::from_secs(10), ..EngineConfig::default() }
}

impl Running {
    pub async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.expect("connect")
    }

    pub async fn rules(&self) -> RulesServiceClient<Channel> {
        RulesServiceClient::new(self.channel().await)
    }

    pub async fn analysis(&self) -> AnalysisServiceClient<Channel> {
        AnalysisServiceClient::new(self.channel().await)
    }

    pub async fn notations(&self) -> NotationServiceClient<Channel> {
        NotationServiceClient::new(self.channel().await)
    }

    /// Stops the server and waits until it has let go of its port.
    pub async fn shutdown(mut self) {
        self.signal_shutdown();
        self.stopped().await;
    }

    /// Gives the server its shutdown signal (as SIGTERM does), without waiting.
    pub fn signal_shutdown(&mut self) {
        let _ = self.stop.take().map(|s| s.send(()));
    }

    /// Waits (at most 20 s) until the server has stopped, and says how.
    pub async fn stopped(mut self) -> Served {
        let h = self.handle.take().expect("the server runs");
        tokio::time::timeout(Duration::from_secs(20), h).await.expect("server stops").unwrap()
    }
}

/// The calls of gRPC method `method` (e.g. `"Analyze"`) that the middleware of servers
/// started by [`start_alone`] has counted as started (the process's metrics).
pub fn calls_started(method: &str) -> f64 {
    chuhe::telemetry::metrics_handle();
    let label = format!("grpc_method=\"{method}\"");
    chuhe::telemetry::render_metrics()
        .lines()
        .filter(|l| l.starts_with("grpc_server_started_total") && l.contains(&label))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// Waits until more than `before` calls of `method` have started: a call the test sent
/// is then in the server's hands. Meaningful for a server started by [`start_alone`],
/// whose calls are the only ones counted while it runs.
pub async fn until_started(method: &str, before: f64) {
    let waiting = std::time::Instant::now();
    while calls_started(method) <= before {
        assert!(waiting.elapsed() < Duration::from_secs(30), "no {method} call reached the server");
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}
