//! API keys: calls without a valid `authorization: Bearer` key are UNAUTHENTICATED,
//! health checks are always answered, and each tenant is held to its quotas. The real
//! server on an ephemeral port of 127.0.0.1, called with the generated tonic client.

use std::path::PathBuf;
use std::time::Duration;

use chuhe::api::proto::{
    self, analysis_service_client::AnalysisServiceClient, rules_service_client::RulesServiceClient,
};
use chuhe::service::server::ServerConfig;
use tonic::Code;
use tonic::transport::Channel;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
use tonic_types::StatusExt;

use crate::common;
use common::server::{small_engine, start};
use common::with_key;

pub(crate) fn sha256_hex(key: &str) -> String {
    ring::digest::digest(&ring::digest::SHA256, key.as_bytes()).as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

pub(crate) fn keys_file(name: &str, text: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("chuhe-api-keys-{name}-{}.json", std::process::id()));
    std::fs::write(&path, text).unwrap();
    path
}

fn start_list() -> proto::ListLegalMovesRequest {
    common::list_request("startpos")
}

/// The quota of a RESOURCE_EXHAUSTED status, as its `google.rpc.QuotaFailure` names it
/// (the tenant, and the quota in the description), and the delay of its
/// `google.rpc.RetryInfo`.
pub(crate) fn over_quota(status: &tonic::Status, tenant: &str, quota: &str) -> Duration {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let details = status.get_error_details();
    let failure = details.quota_failure().expect("a QuotaFailure detail");
    assert_eq!(failure.violations.len(), 1, "{failure:?}");
    assert_eq!(failure.violations[0].subject, format!("tenant:{tenant}"));
    assert!(failure.violations[0].description.starts_with(quota), "{failure:?}");
    details.retry_info().expect("a RetryInfo detail").retry_delay.expect("a delay")
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
    let retry = over_quota(&over, "slow", "calls_per_second");
    assert!(retry > Duration::ZERO && retry <= Duration::from_secs(2), "{retry:?}");

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
    let refused = refused.expect("a second call at once was served");
    over_quota(&refused, "one-at-a-time", "max_concurrent_calls");
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

fn stream_request(movetime_ms: u32) -> proto::AnalyzeStreamRequest {
    proto::AnalyzeStreamRequest {
        position: start_list().position,
        limits: Some(proto::SearchLimits { movetime_ms, ..Default::default() }),
        ..Default::default()
    }
}

fn analyze_request(movetime_ms: u32) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: start_list().position,
        limits: Some(proto::SearchLimits { movetime_ms, ..Default::default() }),
        ..Default::default()
    }
}

#[tokio::test]
async fn tenants_are_held_to_their_searches_at_once_and_search_time() {
    let file = keys_file(
        "search-quotas",
        &format!(
            r#"[{{"tenant": "one-search", "key_sha256": "{}", "max_concurrent_searches": 1}},
                {{"tenant": "short", "key_sha256": "{}", "search_ms_per_minute": 300}}]"#,
            sha256_hex("key-search"),
            sha256_hex("key-short"),
        ),
    );
    // Refusals answered at once (none held back), so a refusal's retry is the whole wait.
    let config = ServerConfig {
        api_keys: Some(file.clone()),
        engine: small_engine(),
        longest_refusal_hold: Duration::ZERO,
        ..Default::default()
    };
    let server = start(config).await;
    let mut analysis = AnalysisServiceClient::new(server.channel().await);

    // A search runs (its first message is a finished depth): a second one is refused,
    // rules calls of the same tenant are not.
    let mut running =
        analysis.analyze_stream(with_key(stream_request(5_000), "key-search")).await.expect("admitted").into_inner();
    running.message().await.expect("a message").expect("a depth");
    let refused = analysis.analyze(with_key(analyze_request(100), "key-search")).await.unwrap_err();
    let retry = over_quota(&refused, "one-search", "max_concurrent_searches");
    assert!(retry > Duration::ZERO, "{retry:?}");
    let mut rules = server.rules().await;
    assert!(rules.list_legal_moves(with_key(start_list(), "key-search")).await.is_ok());
    // The stream ends (dropped): the tenant may search again.
    drop(running);
    let mut answered = false;
    for _ in 0..1000 {
        match analysis.analyze(with_key(analyze_request(50), "key-search")).await {
            Ok(_) => {
                answered = true;
                break;
            }
            // The dropped stream's search has not let go of its permit yet.
            Err(status) => {
                over_quota(&status, "one-search", "max_concurrent_searches");
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }
    }
    assert!(answered, "the tenant's search was never let go of");

    // 300 ms of search a minute: 200 ms searches use it up (the time of a search is
    // charged when it ends), and the tenant is then asked to wait.
    let mut refused = None;
    for _ in 0..4 {
        match analysis.analyze(with_key(analyze_request(200), "key-short")).await {
            Ok(_) => continue,
            Err(status) => {
                refused = Some(status);
                break;
            }
        }
    }
    let refused = refused.expect("searches past the tenant's search time were served");
    let retry = over_quota(&refused, "short", "search_ms_per_minute");
    // At 5 ms a second, even 1 ms over takes 0.2 s to win back (with a refusal held
    // back, the time held would be taken off: the retry would then depend on the clock).
    assert!(retry >= Duration::from_millis(199), "{retry:?}");
    assert!(rules.list_legal_moves(with_key(start_list(), "key-short")).await.is_ok(), "rules calls are not searches");
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

/// Whether a reflection call (ListServices) without a key answers, or its code.
async fn list_services(channel: tonic::transport::Channel) -> Result<usize, Code> {
    use tonic_reflection::pb::v1::ServerReflectionRequest;
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::server_reflection_request::MessageRequest;
    use tonic_reflection::pb::v1::server_reflection_response::MessageResponse;
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut client = ServerReflectionClient::new(channel);
    let mut answers =
        client.server_reflection_info(tokio_stream::iter([request])).await.map_err(|s| s.code())?.into_inner();
    match answers.message().await.map_err(|s| s.code())? {
        Some(answer) => match answer.message_response {
            Some(MessageResponse::ListServicesResponse(list)) => Ok(list.service.len()),
            other => panic!("{other:?}"),
        },
        None => panic!("no answer"),
    }
}

#[tokio::test]
async fn reflection_is_open_or_closed_by_flag() {
    use chuhe::service::server::Reflection;
    let file = keys_file("reflection", &format!(r#"[{{"tenant": "acme", "key_sha256": "{}"}}]"#, sha256_hex("k")));
    let config = |reflection| ServerConfig {
        api_keys: Some(file.clone()),
        reflection,
        engine: small_engine(),
        ..Default::default()
    };
    // With keys required, reflection is closed to calls without one by default...
    let server = start(config(Reflection::Keyed)).await;
    assert_eq!(list_services(server.channel().await).await, Err(Code::Unauthenticated));
    server.shutdown().await;
    // ...open to every caller when the flag opens it...
    let server = start(config(Reflection::Open)).await;
    let services = list_services(server.channel().await).await.expect("reflection without a key");
    assert!(services >= 3, "{services} services");
    let mut rules = server.rules().await;
    let refused = rules.list_legal_moves(start_list()).await.unwrap_err();
    assert_eq!(refused.code(), Code::Unauthenticated, "only reflection is opened");
    server.shutdown().await;
    // Without keys, it is served to everyone unless switched off.
    let server = start(ServerConfig { engine: small_engine(), ..Default::default() }).await;
    assert!(list_services(server.channel().await).await.is_ok());
    server.shutdown().await;
    let off = ServerConfig { reflection: Reflection::Off, engine: small_engine(), ..Default::default() };
    let server = start(off).await;
    assert_eq!(list_services(server.channel().await).await, Err(Code::Unimplemented));
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

/// The code of a ListLegalMoves with `key`.
async fn code(rules: &mut RulesServiceClient<Channel>, key: &str) -> Code {
    match rules.list_legal_moves(with_key(start_list(), key)).await {
        Ok(_) => Code::Ok,
        Err(status) => status.code(),
    }
}

#[tokio::test]
async fn a_changed_keys_file_is_loaded_again_and_a_broken_one_ignored() {
    crate::hardening::metrics(); // the recorder, before the first reload
    let entry = |tenant: &str, key: &str| format!(r#"{{"tenant": "{tenant}", "key_sha256": "{}"}}"#, sha256_hex(key));
    let file = keys_file("reload", &format!("[{}]", entry("before", "key-before")));
    let config = ServerConfig {
        api_keys: Some(file.clone()),
        api_keys_reload_interval: Duration::from_millis(20),
        engine: small_engine(),
        ..Default::default()
    };
    let server = start(config).await;
    let mut rules = server.rules().await;
    assert_eq!(code(&mut rules, "key-before").await, Code::Ok);
    assert_eq!(code(&mut rules, "key-after").await, Code::Unauthenticated);

    // The key is replaced: the new one is valid once the file is read again, the old
    // one refused from then on.
    std::fs::write(&file, format!("[{}]", entry("after", "key-after"))).unwrap();
    let mut reloaded = false;
    for _ in 0..500 {
        if code(&mut rules, "key-after").await == Code::Ok {
            reloaded = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(reloaded, "the new key was never accepted");
    assert_eq!(code(&mut rules, "key-before").await, Code::Unauthenticated);

    // A broken file is logged and counted, and the keys in use stay.
    let errors = || {
        crate::hardening::sample(&crate::hardening::metrics(), "chuhe_api_keys_reloads_total", &["result=\"error\""])
    };
    let before = errors();
    std::fs::write(&file, r#"[{"tenant": "after", "key_sha256": "#).unwrap();
    let mut noticed = false;
    for _ in 0..500 {
        if errors() > before {
            noticed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(noticed, "the broken file was never read");
    assert_eq!(code(&mut rules, "key-after").await, Code::Ok);
    assert_eq!(code(&mut rules, "key-before").await, Code::Unauthenticated);
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}
