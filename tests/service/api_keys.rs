//! API keys: calls without a valid `authorization: Bearer` key are UNAUTHENTICATED,
//! health checks are always answered, and each tenant is held to its quotas. The real
//! server on an ephemeral port of 127.0.0.1, called with the generated tonic client.

use std::path::PathBuf;
use std::time::Duration;

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::service::server::ServerConfig;
use tonic::Code;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

use crate::common;
use common::server::{small_engine, start};

fn sha256_hex(key: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, key.as_bytes()).as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

fn keys_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("chuhe-api-keys-{name}-{}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn start_list() -> proto::ListLegalMovesRequest {
    proto::ListLegalMovesRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            fen: "startpos".into(),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn with_key<T>(message: T, key: &str) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.metadata_mut().insert("authorization", format!("Bearer {key}").parse().unwrap());
    request
}

#[tokio::test]
async fn calls_need_a_valid_key_but_health_checks_do_not() {
    let file =
        keys_file("valid", &format!(r#"[{{"tenant": "acme", "key_sha256": "{}"}}]"#, sha256_hex("acme-secret-key")));
    let server =
        start(ServerConfig { api_keys: Some(file.clone()), engine: small_engine(), ..Default::default() }).await;
    let mut rules = server.rules().await;
    let none = rules.list_legal_moves(start_list()).await.unwrap_err();
    assert_eq!(none.code(), Code::Unauthenticated, "{none:?}");
    let wrong = rules.list_legal_moves(with_key(start_list(), "acme-secret-kez")).await.unwrap_err();
    assert_eq!(wrong.code(), Code::Unauthenticated, "{wrong:?}");
    let basic = {
        let mut request = tonic::Request::new(start_list());
        request.metadata_mut().insert("authorization", "Basic YWNtZTpzZWNyZXQ=".parse().unwrap());
        rules.list_legal_moves(request).await.unwrap_err()
    };
    assert_eq!(basic.code(), Code::Unauthenticated, "{basic:?}");
    let listed = rules.list_legal_moves(with_key(start_list(), "acme-secret-key")).await.unwrap();
    assert_eq!(listed.into_inner().moves.len(), 44);
    let mut health = HealthClient::new(server.channel().await);
    assert!(health.check(HealthCheckRequest::default()).await.is_ok(), "health needs no key");
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

#[tokio::test]
async fn tenants_are_held_to_their_quotas() {
    let file = keys_file(
        "quotas",
        &format!(
            r#"[{{"tenant": "one-at-a-time", "key_sha256": "{}", "max_concurrent_calls": 1}},
                {{"tenant": "slow", "key_sha256": "{}", "calls_per_second": 0.5}}]"#,
            sha256_hex("key-one"),
            sha256_hex("key-slow"),
        ),
    );
    let server =
        start(ServerConfig { api_keys: Some(file.clone()), engine: small_engine(), ..Default::default() }).await;

    let mut rules = server.rules().await;
    assert!(rules.list_legal_moves(with_key(start_list(), "key-slow")).await.is_ok());
    let over = rules.list_legal_moves(with_key(start_list(), "key-slow")).await.unwrap_err();
    assert_eq!(over.code(), Code::ResourceExhausted, "{over:?}");

    let hint = || proto::HintRequest { position: start_list().position, movetime_ms: 500, ..Default::default() };
    let mut first = AnalysisServiceClient::new(server.channel().await);
    let running = tokio::spawn(async move { first.hint(with_key(hint(), "key-one")).await });
    let mut second = AnalysisServiceClient::new(server.channel().await);
    let mut refused = None;
    for _ in 0..40 {
        match second.hint(with_key(hint(), "key-one")).await {
            Err(status) if status.code() == Code::ResourceExhausted => {
                refused = Some(status);
                break;
            }
            // The first call had not started yet; try again while it runs.
            _ => tokio::time::sleep(Duration::from_millis(10)).await,
        }
    }
    assert!(refused.is_some(), "a second call at once was served");
    assert!(running.await.unwrap().is_ok(), "the first call is served");
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

#[tokio::test]
async fn an_unreadable_keys_file_stops_the_server_from_starting() {
    let file = keys_file("bad", r#"[{"tenant": "acme", "key_sha256": "not hex"}]"#);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = ServerConfig { api_keys: Some(file.clone()), ..Default::default() };
    let err = chuhe::service::server::serve(config, listener, std::future::pending()).await.expect_err("served");
    assert!(err.to_string().contains("64 hex digits"), "{err}");
    std::fs::remove_file(file).unwrap();
}
