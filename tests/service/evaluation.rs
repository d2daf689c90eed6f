//! Every Analyze, AnalyzeStream and AuditGame answer names the evaluation that made it
//! (`classical` or the net's identity) with the engine's version.

use std::sync::Arc;

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::engine::EngineConfig;
use chuhe::search::nnue::random::{self, Ranges};
use chuhe::search::nnue::{Evaluation, NetVariant};
use chuhe::service::server::ServerConfig;
use tokio_stream::StreamExt;
use tonic::transport::Channel;

use crate::common;

async fn start(evaluation: Evaluation) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    let engine = EngineConfig { evaluation, ..common::server::small_engine() };
    let server = common::server::start(ServerConfig { engine, ..ServerConfig::default() }).await;
    (server.analysis().await, server)
}

fn position(variant: proto::Variant, fen: &str) -> proto::Position {
    proto::Position { variant: variant as i32, fen: fen.into(), ..Default::default() }
}

fn analyze(position: proto::Position) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: Some(position),
        limits: Some(proto::SearchLimits { nodes: 2_000, ..Default::default() }),
        ..Default::default()
    }
}

/// The evaluation each variant's answers name, and the version.
async fn named(client: &mut AnalysisServiceClient<Channel>) -> [String; 5] {
    let xiangqi = client.analyze(analyze(position(proto::Variant::Xiangqi, "startpos"))).await.unwrap().into_inner();
    assert_eq!(xiangqi.engine_version, env!("CARGO_PKG_VERSION"));
    let janggi = client.analyze(analyze(position(proto::Variant::Janggi, "startpos"))).await.unwrap().into_inner();
    let tk = position(proto::Variant::ThreeKingdoms, chuhe::rules::three_kingdoms::text::START);
    let tk = client.analyze(analyze(tk)).await.unwrap().into_inner();
    assert_eq!(tk.engine_version, env!("CARGO_PKG_VERSION"));
    let r = analyze(position(proto::Variant::Xiangqi, "startpos"));
    let stream_request = proto::AnalyzeStreamRequest { position: r.position, limits: r.limits, ..Default::default() };
    let mut stream = client.analyze_stream(stream_request).await.unwrap().into_inner();
    let mut last = None;
    while let Some(message) = stream.next().await {
        let message = message.unwrap();
        if !message.is_final {
            assert_eq!(message.evaluation, "", "only the final message names the evaluation");
        }
        last = Some(message);
    }
    let last = last.expect("a final message");
    assert!(last.is_final);
    assert_eq!(last.engine_version, env!("CARGO_PKG_VERSION"));
    let audit = proto::AuditGameRequest {
        position: Some(proto::Position {
            moves: vec!["h2e2".into(), "h9g7".into()],
            ..position(proto::Variant::Xiangqi, "startpos")
        }),
        nodes_per_ply: 1_000,
        ..Default::default()
    };
    let audit = client.audit_game(audit).await.unwrap().into_inner();
    let parameters = audit.summary.unwrap().parameters.unwrap();
    assert_eq!(parameters.engine_version, env!("CARGO_PKG_VERSION"));
    [xiangqi.evaluation, janggi.evaluation, tk.evaluation, last.evaluation, parameters.evaluation]
}

#[tokio::test]
async fn answers_name_the_classical_evaluation() {
    let (mut client, _server) = start(Evaluation::embedded(false)).await;
    assert_eq!(named(&mut client).await, ["classical"; 5].map(String::from));
}

/// By default Xiangqi and Janggi evaluate with their embedded nets, which beat the
/// classical evaluation; Three Kingdoms, which has none, classically.
#[tokio::test]
async fn by_default_xiangqi_and_janggi_use_their_nets() {
    let evaluation = Evaluation::default();
    let xiangqi = evaluation.network(NetVariant::Xiangqi).identity().to_string();
    let janggi = evaluation.network(NetVariant::Janggi).identity().to_string();
    let (mut client, _server) = start(evaluation).await;
    let classical = "classical".to_string();
    assert_eq!(named(&mut client).await, [xiangqi.clone(), janggi, classical, xiangqi.clone(), xiangqi]);
}

#[tokio::test]
async fn answers_name_the_net_of_their_variant() {
    let mut evaluation = Evaluation::embedded(true);
    let net = Arc::new(random::network(NetVariant::Xiangqi, 32, 2, 11, Ranges::TYPICAL));
    evaluation.set(net.clone());
    let janggi = evaluation.network(NetVariant::Janggi).identity().to_string();
    let (mut client, _server) = start(evaluation).await;
    let id = net.identity().to_string();
    let classical = "classical".to_string();
    assert_eq!(named(&mut client).await, [id.clone(), janggi, classical, id.clone(), id]);
}
