//! The evaluation store through the real servers: two servers on one real Redis, the
//! answers the store gives and refuses, a Redis that stops and returns, a spoiled entry,
//! and the memory store's bound.

use std::time::Duration;

use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::engine::store::{KEY_PREFIX, StoreConfig, StoreKind};
use chuhe::service::server::ServerConfig;
use tonic::transport::Channel;

use crate::common;
use common::redis_server::Redis;
use common::replay::assert_analysis;

/// A server whose store is `kind`, with generous timeouts: a loaded machine must not
/// turn a lookup into a miss here (the timeouts' own effect is a bench's matter).
async fn server(kind: StoreKind) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    let analysis_cache =
        StoreConfig { kind, ttl: Duration::from_secs(3600), timeout: Duration::from_secs(5), ..StoreConfig::default() };
    let config = ServerConfig { engine: common::server::small_engine(), analysis_cache, ..ServerConfig::default() };
    let server = common::server::start(config).await;
    (server.analysis().await, server)
}

fn on_redis(redis: &Redis) -> StoreKind {
    StoreKind::Redis { url: redis.url(0), password: None }
}

fn opening(moves: &[&str]) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: "startpos".into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    }
}

fn to_depth(position: proto::Position, depth: u32, multipv: u32) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: Some(position),
        limits: Some(proto::SearchLimits { depth, ..Default::default() }),
        multipv,
        ..Default::default()
    }
}

async fn analyze(client: &mut AnalysisServiceClient<Channel>, r: proto::AnalyzeRequest) -> proto::AnalyzeResponse {
    client.analyze(r).await.expect("Analyze answers OK").into_inner()
}

/// The keys the servers wrote.
async fn stored_keys(redis: &Redis) -> Vec<String> {
    let mut c = redis.client().await;
    let mut keys: Vec<String> =
        redis::cmd("KEYS").arg(format!("{KEY_PREFIX}*")).query_async(&mut c).await.expect("KEYS");
    keys.sort();
    keys
}

/// The entries the servers wrote, as JSON (`null` for one that is not JSON).
async fn stored(redis: &Redis) -> Vec<serde_json::Value> {
    let mut c = redis.client().await;
    let mut entries = Vec::new();
    for key in stored_keys(redis).await {
        let bytes: Option<Vec<u8>> = redis::cmd("GET").arg(&key).query_async(&mut c).await.expect("GET");
        entries.push(bytes.and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default());
    }
    entries
}

/// Waits until the stored entries satisfy `done`: a server writes to Redis in the
/// background, after its answer. Gives up after a minute.
async fn until_stored(redis: &Redis, what: &str, done: impl Fn(&[serde_json::Value]) -> bool) {
    let started = std::time::Instant::now();
    while !done(&stored(redis).await) {
        assert!(started.elapsed() < Duration::from_secs(60), "gave up waiting until stored: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether one of `entries` is a search of `multipv` lines to `depth`.
fn has(entries: &[serde_json::Value], depth: u32, multipv: u32) -> bool {
    entries.iter().any(|e| e["depth"] == depth && e["multipv"] == multipv)
}

/// The value of the counter `name` with every label of `labels` (0 when absent).
fn counter(name: &str, labels: &[&str]) -> f64 {
    chuhe::telemetry::render_metrics()
        .lines()
        .filter(|l| l.starts_with(&format!("{name}{{")) && labels.iter().all(|want| l.contains(want)))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

#[tokio::test]
async fn a_second_server_answers_the_first_ones_search_from_redis() {
    let redis = Redis::start();
    let (mut first, _a) = server(on_redis(&redis)).await;
    let (mut second, _b) = server(on_redis(&redis)).await;
    let position = opening(&["h2e2", "h9g7"]);

    let searched = analyze(&mut first, to_depth(position.clone(), 6, 2)).await;
    assert!(!searched.from_cache);
    assert_eq!(searched.depth, 6);
    assert_analysis(&position, &searched.lines, &searched.best_move, &searched.ponder_move, "searched");
    until_stored(&redis, "the search", |e| e.len() == 1 && has(e, 6, 2)).await;

    let served = analyze(&mut second, to_depth(position.clone(), 6, 2)).await;
    assert!(served.from_cache, "{served:?}");
    assert_eq!(served.best_move, searched.best_move);
    assert_eq!(served.lines, searched.lines);
    assert_eq!((served.depth, served.seldepth, served.nodes), (searched.depth, searched.seldepth, searched.nodes));
    assert_eq!(served.stop_reason, searched.stop_reason);

    // A shallower question is answered by the deeper search, saying how deep it was.
    let shallower = analyze(&mut second, to_depth(position.clone(), 3, 2)).await;
    assert!(shallower.from_cache);
    assert_eq!(shallower.depth, 6);

    // Hint and AnalyzeStream (one line) are served once one line is stored. A hint of
    // 200 ms is served by a search that took as long: one line searched deeper and
    // deeper until a depth took 200 ms. A depth search is never starved, so it is
    // stored whatever the machine's load (a busy machine gets there at a lower depth).
    let mut one_line = analyze(&mut first, to_depth(position.clone(), 8, 1)).await;
    for depth in 9..=40 {
        if one_line.time_ms >= 200 {
            break;
        }
        one_line = analyze(&mut first, to_depth(position.clone(), depth, 1)).await;
    }
    assert!(!one_line.from_cache && !one_line.starved && one_line.time_ms >= 200, "{one_line:?}");
    until_stored(&redis, "the one-line search", |e| has(e, one_line.depth, 1)).await;
    // A search to the depth it reached (whatever the machine's load let it reach).
    let mut stream = second
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(position.clone()),
            limits: Some(proto::SearchLimits { depth: one_line.depth, ..Default::default() }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let last = stream.message().await.unwrap().expect("a final message");
    assert!(last.is_final && last.from_cache, "{last:?}");
    assert_eq!((last.best_move.as_str(), last.depth), (one_line.best_move.as_str(), one_line.depth));
    assert!(stream.message().await.unwrap().is_none(), "the stored answer is the whole stream");
    // A hint of the same thinking time.
    let hint = second
        .hint(proto::HintRequest { position: Some(position.clone()), movetime_ms: 200, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert!(hint.from_cache);
    assert_eq!(hint.r#move.unwrap().iccs, one_line.best_move);
}

#[tokio::test]
async fn another_rule_set_history_depth_or_number_of_lines_is_searched() {
    let redis = Redis::start();
    let (mut first, _a) = server(on_redis(&redis)).await;
    let (mut second, _b) = server(on_redis(&redis)).await;
    let moves = ["h2e2", "h9g7", "b2d2"];
    let stored = analyze(&mut first, to_depth(opening(&moves), 5, 1)).await;
    assert!(!stored.from_cache);
    until_stored(&redis, "the search", |e| has(e, 5, 1)).await;

    let asian = proto::AnalyzeRequest { rule_set: proto::RuleSet::AsianV1 as i32, ..to_depth(opening(&moves), 5, 1) };
    let other_history = to_depth(opening(&["b2d2", "h9g7", "h2e2"]), 5, 1);
    let more_lines = to_depth(opening(&moves), 5, 2);
    let deeper = to_depth(opening(&moves), 6, 1);
    let fresh =
        proto::AnalyzeRequest { cache: proto::AnalysisCachePolicy::Fresh as i32, ..to_depth(opening(&moves), 5, 1) };
    let restricted = proto::AnalyzeRequest { exclude_moves: vec!["a0a1".into()], ..to_depth(opening(&moves), 5, 1) };
    for (what, request) in [
        ("another rule set", asian),
        ("another history to the same position", other_history),
        ("more lines", more_lines),
        ("a deeper search", deeper),
        ("a fresh search", fresh),
        ("a search with moves left out", restricted),
    ] {
        let answer = analyze(&mut second, request).await;
        assert!(!answer.from_cache, "{what} is searched: {answer:?}");
    }
    // The same question is still served.
    assert!(analyze(&mut second, to_depth(opening(&moves), 5, 1)).await.from_cache);

    let bad = proto::AnalyzeRequest { cache: 99, ..to_depth(opening(&moves), 5, 1) };
    let status = second.analyze(bad).await.expect_err("an unknown policy is refused");
    assert_eq!(status.code(), tonic::Code::InvalidArgument);
    assert!(status.message().contains("cache"), "{status:?}");
}

#[tokio::test]
async fn every_call_answers_while_redis_is_down_and_serving_resumes_when_it_returns() {
    // The recorder is there before the servers count anything.
    chuhe::telemetry::metrics_handle();
    let mut redis = Redis::start();
    let (mut first, _a) = server(on_redis(&redis)).await;
    let (mut second, _b) = server(on_redis(&redis)).await;
    let position = opening(&["b2e2", "h9g7"]);
    analyze(&mut first, to_depth(position.clone(), 4, 1)).await;
    until_stored(&redis, "the search", |e| has(e, 4, 1)).await;
    assert!(analyze(&mut second, to_depth(position.clone(), 4, 1)).await.from_cache);

    redis.stop();
    for (i, moves) in [["b2e2", "b9c7"], ["h2e2", "b9c7"], ["c3c4", "h9g7"], ["b2e2", "h9g7"]].iter().enumerate() {
        let answer = analyze(&mut second, to_depth(opening(moves), 4, 1)).await;
        assert!(!answer.from_cache, "call {i} searched");
        assert_eq!(answer.depth, 4);
        assert_analysis(&opening(moves), &answer.lines, &answer.best_move, &answer.ponder_move, "Redis down");
    }
    let metrics = chuhe::telemetry::render_metrics();
    assert!(
        metrics.lines().any(|l| l.starts_with("chuhe_analysis_cache_errors_total{")
            && l.contains("store=\"redis\"")
            && l.contains("op=\"lookup\"")),
        "the failed lookups are counted"
    );

    // Redis returns empty: each server reconnects by itself once its breaker lets a
    // call probe the store (a few seconds).
    redis.resume();
    let started = std::time::Instant::now();
    loop {
        let position = opening(&["h2e2", "h9g7"]);
        analyze(&mut first, to_depth(position.clone(), 3, 1)).await;
        if analyze(&mut second, to_depth(position, 3, 1)).await.from_cache {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "serving from the store resumed once Redis was back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_spoiled_entry_is_ignored_and_replaced() {
    let redis = Redis::start();
    let (mut client, _server) = server(on_redis(&redis)).await;
    let position = opening(&["h2e2"]);
    let searched = analyze(&mut client, to_depth(position.clone(), 5, 1)).await;
    until_stored(&redis, "the search", |e| has(e, 5, 1)).await;
    let keys = stored_keys(&redis).await;
    assert_eq!(keys.len(), 1);
    let mut c = redis.client().await;
    let good: Vec<u8> = redis::cmd("GET").arg(&keys[0]).query_async(&mut c).await.unwrap();
    for spoiled in [b"\x00\x01 not an entry".to_vec(), good[..good.len() / 2].to_vec()] {
        let () = redis::cmd("SET").arg(&keys[0]).arg(spoiled).query_async(&mut c).await.unwrap();
        let answer = analyze(&mut client, to_depth(position.clone(), 5, 1)).await;
        assert!(!answer.from_cache, "a spoiled entry is not served");
        assert_eq!(answer.depth, searched.depth);
        assert_analysis(&position, &answer.lines, &answer.best_move, &answer.ponder_move, "after a spoiled entry");
        // The search that ignored it writes a good entry in its place.
        until_stored(&redis, "a good entry again", |e| has(e, 5, 1)).await;
    }
    assert!(analyze(&mut client, to_depth(position, 5, 1)).await.from_cache);
    // An entry of another engine version is ignored too.
    let text = String::from_utf8(good).unwrap();
    let version = format!("\"engine_version\":\"{}\"", env!("CARGO_PKG_VERSION"));
    assert!(text.contains(&version), "{text}");
    let () = redis::cmd("SET")
        .arg(&keys[0])
        .arg(text.replace(&version, "\"engine_version\":\"0.0.0-other\""))
        .query_async(&mut c)
        .await
        .unwrap();
    assert!(!analyze(&mut client, to_depth(opening(&["h2e2"]), 5, 1)).await.from_cache);
}

#[tokio::test]
async fn the_memory_store_keeps_its_bound_and_evicts_the_least_recently_used() {
    let (mut client, _server) = server(StoreKind::Memory { max_entries: 2, max_bytes: 1 << 20 }).await;
    let [a, b, c] = [opening(&["h2e2"]), opening(&["b2e2"]), opening(&["c3c4"])];
    for p in [&a, &b] {
        assert!(!analyze(&mut client, to_depth(p.clone(), 3, 1)).await.from_cache);
    }
    assert!(analyze(&mut client, to_depth(a.clone(), 3, 1)).await.from_cache, "a is kept and used last");
    assert!(!analyze(&mut client, to_depth(c.clone(), 3, 1)).await.from_cache);
    assert!(!analyze(&mut client, to_depth(b.clone(), 3, 1)).await.from_cache, "b was evicted for c");
    assert!(analyze(&mut client, to_depth(b, 3, 1)).await.from_cache);
}

#[tokio::test]
async fn an_audit_never_reads_the_store() {
    let moves = ["h2e2", "h9g7", "h0g2", "i9h9"];
    let audit = |multipv| proto::AuditGameRequest {
        position: Some(opening(&moves)),
        nodes_per_ply: 3000,
        multipv,
        ..Default::default()
    };
    let (mut off, _off) = server(StoreKind::Off).await;
    let alone = off.audit_game(audit(2)).await.unwrap().into_inner();
    let (mut stored, _on) = server(StoreKind::Memory { max_entries: 100, max_bytes: 1 << 20 }).await;
    // Deeper searches of every audited position, with the audit's number of lines, are
    // stored first: an audit that read them would answer otherwise.
    for ply in 0..moves.len() {
        assert!(!analyze(&mut stored, to_depth(opening(&moves[..ply]), 6, 2)).await.from_cache);
    }
    let beside_the_store = stored.audit_game(audit(2)).await.unwrap().into_inner();
    assert_eq!(beside_the_store, alone);
}

/// A server on `redis` whose lookups and writes give up after `timeout`.
async fn server_on(
    redis: &Redis,
    password: Option<&str>,
    timeout: Duration,
) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    let kind = StoreKind::Redis { url: redis.url(0), password: password.map(str::to_owned) };
    let analysis_cache = StoreConfig { kind, ttl: Duration::from_secs(3600), timeout, ..StoreConfig::default() };
    let config = ServerConfig { engine: common::server::small_engine(), analysis_cache, ..ServerConfig::default() };
    let server = common::server::start(config).await;
    (server.analysis().await, server)
}

#[tokio::test]
async fn a_paused_redis_is_skipped_after_a_few_failures_and_used_again_once_it_answers() {
    chuhe::telemetry::metrics_handle();
    let redis = Redis::start();
    let (mut client, _server) = server_on(&redis, None, Duration::from_millis(300)).await;
    let kept = opening(&["h2e2", "b9c7"]);
    analyze(&mut client, to_depth(kept.clone(), 4, 1)).await;
    until_stored(&redis, "the search", |e| has(e, 4, 1)).await;

    redis.pause();
    let skipped = counter("chuhe_analysis_cache_lookups_total", &["store=\"redis\"", "result=\"skipped\""]);
    let positions = [["b2e2", "b9c7"], ["c3c4", "h9g7"], ["b2d2", "h9g7"], ["g3g4", "b9c7"], ["h2d2", "h9g7"]];
    let paused = std::time::Instant::now();
    for moves in positions.iter().cycle().take(12) {
        let answer = analyze(&mut client, to_depth(opening(moves), 2, 1)).await;
        assert!(!answer.from_cache && answer.depth == 2, "answered without the store: {answer:?}");
    }
    // The failures that open the breaker reach Redis, and a probe each time the breaker
    // has been open its while (a slow machine may take that long); the others do not.
    use chuhe::engine::store::breaker::{FAILURES_TO_OPEN, OPEN_FOR};
    let probes = (paused.elapsed().as_secs_f64() / OPEN_FOR.as_secs_f64()).ceil();
    let skipped = counter("chuhe_analysis_cache_lookups_total", &["store=\"redis\"", "result=\"skipped\""]) - skipped;
    let reached = 12.0 - skipped;
    assert!(reached <= f64::from(FAILURES_TO_OPEN) + probes, "{reached} lookups waited on a paused Redis");
    assert!(counter("chuhe_analysis_cache_breaker_trips_total", &["store=\"redis\""]) >= 1.0);

    // Once Redis answers, a probe closes the breaker and the stored search is served.
    redis.unpause();
    let started = std::time::Instant::now();
    while !analyze(&mut client, to_depth(kept.clone(), 4, 1)).await.from_cache {
        assert!(started.elapsed() < Duration::from_secs(60), "the store was used again once Redis answered");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn a_wrong_password_is_counted_as_auth() {
    chuhe::telemetry::metrics_handle();
    let redis = Redis::start();
    let mut c = redis.client().await;
    let () = redis::cmd("CONFIG").arg("SET").arg("requirepass").arg("right").query_async(&mut c).await.unwrap();
    let (mut client, _server) = server_on(&redis, Some("wrong"), Duration::from_secs(5)).await;
    let before = counter("chuhe_analysis_cache_errors_total", &["store=\"redis\"", "kind=\"auth\""]);
    let position = opening(&["h2e2", "h9g7", "h0g2"]);
    let answer = analyze(&mut client, to_depth(position.clone(), 3, 1)).await;
    assert!(!answer.from_cache);
    assert_analysis(&position, &answer.lines, &answer.best_move, &answer.ponder_move, "beside a wrong password");
    assert!(counter("chuhe_analysis_cache_errors_total", &["store=\"redis\"", "kind=\"auth\""]) > before);
}

#[tokio::test]
async fn a_stored_value_above_the_bound_is_not_fetched_and_is_replaced() {
    chuhe::telemetry::metrics_handle();
    let redis = Redis::start();
    let (mut client, _server) = server(on_redis(&redis)).await;
    let position = opening(&["c3c4", "c6c5"]);
    analyze(&mut client, to_depth(position.clone(), 4, 1)).await;
    until_stored(&redis, "the search", |e| has(e, 4, 1)).await;
    let key = stored_keys(&redis).await.remove(0);
    let mut c = redis.client().await;
    let huge = vec![b'{'; chuhe::engine::store::MAX_VALUE_BYTES + 1];
    let () = redis::cmd("SET").arg(&key).arg(huge).query_async(&mut c).await.unwrap();
    let oversized = counter("chuhe_analysis_cache_lookups_total", &["store=\"redis\"", "result=\"oversized\""]);
    let answer = analyze(&mut client, to_depth(position.clone(), 4, 1)).await;
    assert!(!answer.from_cache);
    assert_eq!(
        counter("chuhe_analysis_cache_lookups_total", &["store=\"redis\"", "result=\"oversized\""]) - oversized,
        1.0
    );
    // The search's write replaces it.
    until_stored(&redis, "a good entry in its place", |e| has(e, 4, 1)).await;
    assert!(analyze(&mut client, to_depth(position, 4, 1)).await.from_cache);
}

#[tokio::test]
async fn fresh_searches_keep_a_deeper_stored_search_unless_as_deep() {
    chuhe::telemetry::metrics_handle();
    let redis = Redis::start();
    let (mut client, _server) = server(on_redis(&redis)).await;
    let position = opening(&["g3g4", "g6g5"]);
    analyze(&mut client, to_depth(position.clone(), 6, 1)).await;
    until_stored(&redis, "the deep search", |e| has(e, 6, 1)).await;
    let fresh = |depth| proto::AnalyzeRequest {
        cache: proto::AnalysisCachePolicy::Fresh as i32,
        ..to_depth(position.clone(), depth, 1)
    };
    let kept =
        || counter("chuhe_analysis_cache_writes_dropped_total", &["store=\"redis\"", "reason=\"deeper_stored\""]);
    let before = kept();
    for _ in 0..5 {
        assert!(!analyze(&mut client, fresh(2)).await.from_cache);
    }
    let started = std::time::Instant::now();
    while kept() - before < 5.0 {
        assert!(started.elapsed() < Duration::from_secs(60), "the shallow writes were handled");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let entries = stored(&redis).await;
    assert!(entries.len() == 1 && has(&entries, 6, 1), "{entries:?}");
    assert_eq!(analyze(&mut client, to_depth(position.clone(), 6, 1)).await.depth, 6);
    // A fresh search at least as deep replaces it.
    assert!(!analyze(&mut client, fresh(7)).await.from_cache);
    until_stored(&redis, "the deeper fresh search", |e| e.len() == 1 && has(e, 7, 1)).await;
}

/// A server on `redis` asking for the keys of tenants `acme` and `globex`, their stored
/// searches shared or not.
async fn two_tenants(
    redis: &Redis,
    name: &str,
    shared: bool,
) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    use crate::api_keys::{keys_file, sha256_hex};
    let keys = keys_file(
        name,
        &format!(
            r#"[{{"tenant": "acme", "key_sha256": "{}"}}, {{"tenant": "globex", "key_sha256": "{}"}}]"#,
            sha256_hex("acme-key"),
            sha256_hex("globex-key")
        ),
    );
    let analysis_cache = StoreConfig {
        kind: on_redis(redis),
        timeout: Duration::from_secs(5),
        shared_across_tenants: shared,
        ..StoreConfig::default()
    };
    let config = ServerConfig {
        engine: common::server::small_engine(),
        analysis_cache,
        api_keys: Some(keys),
        ..ServerConfig::default()
    };
    let server = common::server::start(config).await;
    (server.analysis().await, server)
}

#[tokio::test]
async fn a_tenants_stored_searches_are_its_own_unless_shared() {
    use common::with_key;
    let position = opening(&["h0g2", "h9g7"]);
    let ask = async |client: &mut AnalysisServiceClient<Channel>, key: &str| {
        client.analyze(with_key(to_depth(position.clone(), 5, 1), key)).await.expect("Analyze answers").into_inner()
    };
    let redis = Redis::start();
    let (mut client, _server) = two_tenants(&redis, "store-apart", false).await;
    assert!(!ask(&mut client, "acme-key").await.from_cache);
    until_stored(&redis, "acme's search", |e| has(e, 5, 1)).await;
    let theirs = ask(&mut client, "globex-key").await;
    assert!(!theirs.from_cache, "another tenant's search is not shown: {theirs:?}");
    until_stored(&redis, "globex's search beside acme's", |e| e.len() == 2).await;
    assert!(ask(&mut client, "acme-key").await.from_cache && ask(&mut client, "globex-key").await.from_cache);

    // Shared: one tenant's question is answered by another's search.
    let redis = Redis::start();
    let (mut client, _server) = two_tenants(&redis, "store-shared", true).await;
    let searched = ask(&mut client, "acme-key").await;
    until_stored(&redis, "acme's search", |e| has(e, 5, 1)).await;
    let served = ask(&mut client, "globex-key").await;
    assert!(served.from_cache && served.nodes == searched.nodes, "{served:?}");
}
