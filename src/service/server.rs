//! The server: RulesService and NotationService behind the admission/metrics layer,
//! health, reflection, graceful shutdown.

use std::future::Future;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio_stream::StreamExt;
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;

use super::analysis::Analysis;
use super::connection::Connection;
use super::middleware::GrpcLayer;
use super::notation::Notations;
use super::rules::RulesServer;
use crate::api::convert::ContentLimits;
use crate::api::proto::{
    self, analysis_service_server::AnalysisServiceServer, notation_service_server::NotationServiceServer,
};
use crate::engine::{Engine, EngineConfig};

/// Everything an operator can set.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    pub max_concurrency: usize,
    pub request_timeout: Duration,
    pub max_message_bytes: usize,
    pub max_game_plies: usize,
    pub grace_period: Duration,
    pub engine: EngineConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            max_concurrency: 256,
            request_timeout: Duration::from_secs(30),
            max_message_bytes: 4 * 1024 * 1024,
            max_game_plies: 10_000,
            grace_period: Duration::from_secs(10),
            engine: EngineConfig::default(),
        }
    }
}

/// Serves on a bound listener until `shutdown` resolves; then reports NOT_SERVING, stops
/// accepting, and lets in-flight requests finish within the grace period.
pub async fn serve(
    config: ServerConfig,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let limits = ContentLimits { max_game_plies: config.max_game_plies };
    let rules = RulesServer::new(limits, config.max_message_bytes);
    let notations = NotationServiceServer::new(Notations { limits })
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);

    let analysis = AnalysisServiceServer::new(Analysis { engine: Engine::new(config.engine.clone()), limits })
        .max_decoding_message_size(config.max_message_bytes)
        .max_encoding_message_size(config.max_message_bytes);

    let (health, health_service) = tonic_health::server::health_reporter();
    health.set_serving::<RulesServer>().await;
    health.set_serving::<AnalysisServiceServer<Analysis>>().await;
    health.set_serving::<NotationServiceServer<Notations>>().await;
    health.set_service_status("", tonic_health::ServingStatus::Serving).await;

    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(proto::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
            // google.rpc error details, so that tools can decode BadRequest.
            .register_encoded_file_descriptor_set(tonic_types::pb::FILE_DESCRIPTOR_SET)
    };
    // v1 for current tools (grpcurl), v1alpha for older clients.
    let (reflection_v1, reflection_v1alpha) = (reflection().build_v1()?, reflection().build_v1alpha()?);

    let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
    let reporter = health.clone();
    let signal = async move {
        shutdown.await;
        tracing::info!("shutting down: NOT_SERVING, draining in-flight requests");
        reporter.set_not_serving::<RulesServer>().await;
        reporter.set_not_serving::<AnalysisServiceServer<Analysis>>().await;
        reporter.set_not_serving::<NotationServiceServer<Notations>>().await;
        reporter.set_service_status("", tonic_health::ServingStatus::NotServing).await;
        let _ = stopping_tx.send(());
    };

    let server = Server::builder()
        .layer(GrpcLayer::new(config.max_concurrency, config.request_timeout))
        .add_service(health_service)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(rules)
        .add_service(analysis)
        .add_service(notations)
        // Without TCP_NODELAY a response written in two pieces waits for the client's
        // delayed acknowledgement (about 40 ms).
        .serve_with_incoming_shutdown(
            TcpIncoming::from(listener).with_nodelay(Some(true)).map(|stream| stream.map(Connection::from)),
            signal,
        );

    let grace = config.grace_period;
    tokio::select! {
        result = server => Ok(result?),
        _ = async move {
            if stopping_rx.await.is_ok() {
                tokio::time::sleep(grace).await;
            } else {
                std::future::pending::<()>().await;
            }
        } => {
            tracing::warn!("grace period of {grace:?} over; dropping remaining requests");
            Ok(())
        }
    }
}
