//! The real server on an ephemeral port, for integration tests.

use std::net::SocketAddr;
use std::time::Duration;

use chuhe::api::proto::{
    analysis_service_client::AnalysisServiceClient, notation_service_client::NotationServiceClient,
    rules_service_client::RulesServiceClient,
};
use chuhe::engine::EngineConfig;
use chuhe::service::server::{Served, ServerConfig, serve};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::transport::Channel;

/// A server running in the test's runtime; dropping it (or `shutdown`) stops it.
pub struct Running {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: Option<tokio::task::JoinHandle<Served>>,
}

/// Starts the server with `config` on 127.0.0.1 and an ephemeral port.
pub async fn start(config: ServerConfig) -> Running {
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
    Running { addr, stop: Some(tx), handle: Some(handle) }
}

/// A server with a small engine (8 MB table, two search threads).
pub async fn start_small() -> Running {
    start(ServerConfig { engine: small_engine(), ..ServerConfig::default() }).await
}

pub fn small_engine() -> EngineConfig {
    EngineConfig { hash_mb: 8, workers: 2, ..EngineConfig::default() }
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
