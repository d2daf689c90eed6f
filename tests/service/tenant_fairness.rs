//! Fairness between tenants: one tenant flooding the server far beyond its quota is
//! refused at once (RESOURCE_EXHAUSTED with `google.rpc.QuotaFailure` and `RetryInfo`,
//! before its request is read) while another tenant calling at a normal pace is served
//! every time, and the metrics count both per tenant. The real server on an ephemeral
//! port of 127.0.0.1, real gRPC clients, two API keys.
//!
//! The latency the paced tenant sees, alone and beside the flood, depends on the
//! machine and its load: it is a measurement, ignored by default:
//!
//! ```text
//! cargo test --test service tenant_fairness -- --ignored --nocapture
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chuhe::api::proto::rules_service_client::RulesServiceClient;
use chuhe::service::server::ServerConfig;
use tokio::time::MissedTickBehavior;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

use crate::api_keys::{keys_file, sha256_hex};
use crate::common::server::{Running, small_engine, start};
use crate::common::{list_request, with_key};
use crate::hardening::{metrics, sample};
use crate::probe::load_average;

/// What the flooding tenant got.
#[derive(Default)]
struct FloodCounts {
    served: AtomicU64,
    refused: AtomicU64,
}

/// Checks that `status` refuses `tenant` over one of its call quotas, with when to try
/// again (at most `longest`); panics otherwise.
fn assert_refused_over_quota(status: &tonic::Status, tenant: &str, longest: Duration) {
    assert_eq!(status.code(), Code::ResourceExhausted, "{status:?}");
    let details = status.get_error_details();
    let failure = details.quota_failure().unwrap_or_else(|| panic!("no QuotaFailure: {status:?}"));
    assert_eq!(failure.violations.len(), 1, "{failure:?}");
    assert_eq!(failure.violations[0].subject, format!("tenant:{tenant}"));
    let quota = &failure.violations[0].description;
    assert!(quota.starts_with("calls_per_second") || quota.starts_with("max_concurrent_calls"), "{quota}");
    let retry = details.retry_info().and_then(|r| r.retry_delay).expect("a RetryInfo delay");
    assert!(retry > Duration::ZERO && retry <= longest, "{retry:?}");
}

/// `loops` loops over `channels` calling ListLegalMoves as `tenant` (key `key`) until
/// `stop`, at most `per_second` calls a second in all (none: as fast as they can).
fn flood(
    channels: &[Channel],
    loops: usize,
    per_second: Option<f64>,
    tenant: &'static str,
    key: &'static str,
    stop: Arc<AtomicBool>,
    counts: Arc<FloodCounts>,
) -> Vec<tokio::task::JoinHandle<()>> {
    (0..loops)
        .map(|i| {
            let mut client = RulesServiceClient::new(channels[i % channels.len()].clone());
            let (stop, counts) = (stop.clone(), counts.clone());
            tokio::spawn(async move {
                let mut pace = per_second.map(|rate| {
                    let mut pace = tokio::time::interval(Duration::from_secs_f64(loops as f64 / rate));
                    pace.set_missed_tick_behavior(MissedTickBehavior::Delay);
                    pace
                });
                while !stop.load(Ordering::Relaxed) {
                    if let Some(pace) = &mut pace {
                        pace.tick().await;
                    }
                    match client.list_legal_moves(with_key(list_request("startpos"), key)).await {
                        Ok(_) => counts.served.fetch_add(1, Ordering::Relaxed),
                        Err(status) => {
                            // A call's token comes back within a second at the rates of these tests.
                            assert_refused_over_quota(&status, tenant, Duration::from_secs(1));
                            counts.refused.fetch_add(1, Ordering::Relaxed)
                        }
                    };
                }
            })
        })
        .collect()
}

async fn channels(server: &Running, n: usize) -> Vec<Channel> {
    let mut channels = Vec::with_capacity(n);
    for _ in 0..n {
        channels.push(server.channel().await);
    }
    channels
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flooding_tenant_is_refused_and_a_paced_one_always_served() {
    metrics(); // the recorder, before the first call
    let file = keys_file(
        "fairness",
        &format!(
            r#"[{{"tenant": "fair-flood", "key_sha256": "{}", "calls_per_second": 20, "max_concurrent_calls": 2}},
                {{"tenant": "fair-paced", "key_sha256": "{}", "calls_per_second": 1000, "max_concurrent_calls": 4}},
                {{"tenant": "fair-trickle", "key_sha256": "{}", "calls_per_second": 0.01}}]"#,
            sha256_hex("key-flood"),
            sha256_hex("key-paced"),
            sha256_hex("key-trickle"),
        ),
    );
    // Few calls at once for the whole server: the flood's refused calls must not take
    // the places of the other tenant's calls.
    let config =
        ServerConfig { api_keys: Some(file.clone()), max_concurrency: 8, engine: small_engine(), ..Default::default() };
    let server = start(config).await;

    let stop = Arc::new(AtomicBool::new(false));
    let counts = Arc::new(FloodCounts::default());
    let flooding = Instant::now();
    let loops = flood(&channels(&server, 4).await, 48, None, "fair-flood", "key-flood", stop.clone(), counts.clone());
    // The paced tenant starts once the flood is refused.
    let waiting = Instant::now();
    while counts.refused.load(Ordering::Relaxed) < 50 {
        assert!(waiting.elapsed() < Duration::from_secs(60), "the flood was never refused");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut paced = server.rules().await;
    let mut pace = tokio::time::interval(Duration::from_millis(10));
    const PACED_CALLS: usize = 150;
    for i in 0..PACED_CALLS {
        pace.tick().await;
        match paced.list_legal_moves(with_key(list_request("startpos"), "key-paced")).await {
            Ok(listed) => assert_eq!(listed.into_inner().moves.len(), 44),
            Err(status) => panic!("paced call {i} beside the flood: {status:?}"),
        }
    }
    stop.store(true, Ordering::Relaxed);
    for l in loops {
        l.await.expect("every flood call served or refused over its tenant's quota");
    }
    let seconds = flooding.elapsed().as_secs_f64();
    let (served, refused) = (counts.served.load(Ordering::Relaxed), counts.refused.load(Ordering::Relaxed));
    // 20 a second and a second's burst, whatever the flood asked.
    assert!(served as f64 <= 20.0 * seconds + 20.0 + 1.0, "{served} flood calls served in {seconds:.1} s");
    assert!(refused > 4 * served, "the flood was not far over its quota: {served} served, {refused} refused");
    // Each refusal was held back for its place in line (most of the 48 stand far back
    // in it: up to the default 250 ms), so the flood ran at a few hundred calls a
    // second, not the tens of thousands a client retrying at once gets from refusals
    // answered at once. A bound that a slow machine can only make easier to meet.
    assert!((refused as f64) < 1_000.0 * seconds, "{refused} refusals in {seconds:.1} s: were they held back?");

    // The quota is checked before the request is read: a request that would be
    // INVALID_ARGUMENT is refused over quota once the tenant's one call is spent.
    let mut trickle = server.rules().await;
    assert!(trickle.list_legal_moves(with_key(list_request("startpos"), "key-trickle")).await.is_ok());
    let bad = trickle.list_legal_moves(with_key(list_request("not a position"), "key-trickle")).await.unwrap_err();
    assert_refused_over_quota(&bad, "fair-trickle", Duration::from_secs(100));

    // Counted per tenant.
    let text = metrics();
    let count = |name: &str, tenant: &str| sample(&text, name, &[&format!("tenant=\"{tenant}\"")]);
    assert_eq!(count("chuhe_tenant_calls_total", "fair-flood"), served as f64);
    assert_eq!(count("chuhe_tenant_refusals_total", "fair-flood"), refused as f64);
    assert_eq!(count("chuhe_tenant_calls_total", "fair-paced"), PACED_CALLS as f64);
    assert_eq!(count("chuhe_tenant_refusals_total", "fair-paced"), 0.0);
    assert_eq!(count("chuhe_tenant_refusals_total", "fair-trickle"), 1.0);
    // The flood's refusals were held back (the server's default), each a while in line.
    let held = count("chuhe_tenant_refusals_held_total", "fair-flood");
    assert!(held > 0.0 && held <= refused as f64, "{held} held of {refused}");
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

/// A refusal over the rate is held back as long as the call would have waited in line
/// for its quota, at most the server's longest hold and half the client's deadline, and
/// its time to try again counts from the answer. Lower bounds only: a loaded machine
/// may answer later, never sooner.
#[tokio::test(flavor = "multi_thread")]
async fn a_refusal_is_held_back_as_long_as_the_quota_would_have_queued_it() {
    let file = keys_file(
        "fairness-hold",
        // One call every 4 s, and a burst of one.
        &format!(r#"[{{"tenant": "slow", "key_sha256": "{}", "calls_per_second": 0.25}}]"#, sha256_hex("key-slow")),
    );
    let longest = Duration::from_millis(1_500);
    let config = ServerConfig {
        api_keys: Some(file.clone()),
        longest_refusal_hold: longest,
        engine: small_engine(),
        ..Default::default()
    };
    let server = start(config).await;
    let mut client = server.rules().await;
    let first = Instant::now();
    client.list_legal_moves(with_key(list_request("startpos"), "key-slow")).await.expect("the burst's one call");

    // In line for about 4 s: held for the server's longest hold.
    let sent = Instant::now();
    let status = client.list_legal_moves(with_key(list_request("startpos"), "key-slow")).await.unwrap_err();
    let held = sent.elapsed();
    assert_refused_over_quota(&status, "slow", Duration::from_secs(4));
    assert!(held >= longest, "answered after {held:?}");
    // The next token comes 4 s after the first call; the answer says what is left then.
    let retry = status.get_error_details().retry_info().and_then(|r| r.retry_delay).unwrap();
    assert!(retry <= Duration::from_secs(4).saturating_sub(longest), "{retry:?}");
    assert!(first.elapsed() + retry >= Duration::from_millis(3_900), "{retry:?} after {:?}", first.elapsed());

    // A client with a 1.6 s deadline is answered after half of it, with the refusal.
    let mut request = with_key(list_request("startpos"), "key-slow");
    request.set_timeout(Duration::from_millis(1_600));
    let sent = Instant::now();
    let status = client.list_legal_moves(request).await.unwrap_err();
    assert_refused_over_quota(&status, "slow", Duration::from_secs(4));
    assert!(sent.elapsed() >= Duration::from_millis(800), "answered after {:?}", sent.elapsed());
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

/// p50 and p99 of `per_loop` ListLegalMoves in each of `loops` loops, one every
/// `every`, as tenant B.
async fn paced_latencies(channel: &Channel, loops: usize, per_loop: usize, every: Duration) -> (Duration, Duration) {
    let tasks: Vec<_> = (0..loops)
        .map(|_| {
            let mut client = RulesServiceClient::new(channel.clone());
            tokio::spawn(async move {
                let mut pace = tokio::time::interval(every);
                let mut times = Vec::with_capacity(per_loop);
                for _ in 0..per_loop {
                    pace.tick().await;
                    let sent = Instant::now();
                    client.list_legal_moves(with_key(list_request("startpos"), "key-b")).await.expect("B is served");
                    times.push(sent.elapsed());
                }
                times
            })
        })
        .collect();
    p50_p99(tasks).await
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "a measurement: run with `cargo test --test service tenant_fairness -- --ignored --nocapture`"]
async fn paced_tenant_latency_alone_and_beside_a_flood() {
    let file = keys_file(
        "fairness-latency",
        &format!(
            r#"[{{"tenant": "a", "key_sha256": "{}", "calls_per_second": 50, "max_concurrent_calls": 2}},
                {{"tenant": "b", "key_sha256": "{}", "calls_per_second": 1000, "max_concurrent_calls": 8}}]"#,
            sha256_hex("key-a"),
            sha256_hex("key-b"),
        ),
    );
    let server =
        start(ServerConfig { api_keys: Some(file.clone()), engine: small_engine(), ..Default::default() }).await;
    let b = server.channel().await;
    // B: 4 loops of one call every 10 ms (400 calls a second).
    let (loops, per_loop, every) = (4, 500, Duration::from_millis(10));
    paced_latencies(&b, loops, 100, every).await; // warm-up
    println!("load average before: {}", load_average());
    // The flood's client runs on a thread of its own, so that it takes at most one
    // core; the server and B share the test's runtime.
    for (round, rate) in [(1, Some(2_000.0)), (1, None), (2, Some(2_000.0)), (2, None)] {
        let (alone_p50, alone_p99) = paced_latencies(&b, loops, per_loop, every).await;
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Arc::new(FloodCounts::default());
        let addr = server.addr;
        let flooder = {
            let (stop, counts) = (stop.clone(), counts.clone());
            std::thread::spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
                runtime.block_on(async move {
                    let mut channels = Vec::new();
                    for _ in 0..4 {
                        let endpoint = Channel::from_shared(format!("http://{addr}")).unwrap();
                        channels.push(endpoint.connect().await.expect("connect"));
                    }
                    for l in flood(&channels, 64, rate, "a", "key-a", stop, counts) {
                        l.await.unwrap();
                    }
                })
            })
        };
        while counts.refused.load(Ordering::Relaxed) < 100 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let started = Instant::now();
        let before = counts.refused.load(Ordering::Relaxed) + counts.served.load(Ordering::Relaxed);
        let (flood_p50, flood_p99) = paced_latencies(&b, loops, per_loop, every).await;
        let seconds = started.elapsed().as_secs_f64();
        let calls = counts.refused.load(Ordering::Relaxed) + counts.served.load(Ordering::Relaxed) - before;
        stop.store(true, Ordering::Relaxed);
        flooder.join().unwrap();
        let flood = rate.map_or("unpaced".to_string(), |r| format!("{r:.0}/s"));
        println!(
            "round {round}, A's flood {flood} ({:.0} calls/s, {} served, {} refused in all): \
             B alone p50 {alone_p50:.2?} p99 {alone_p99:.2?}; beside the flood p50 {flood_p50:.2?} p99 {flood_p99:.2?}; \
             p99 ratio {:.2}; load average {}",
            calls as f64 / seconds,
            counts.served.load(Ordering::Relaxed),
            counts.refused.load(Ordering::Relaxed),
            flood_p99.as_secs_f64() / alone_p99.as_secs_f64(),
            load_average()
        );
    }
    server.shutdown().await;
    std::fs::remove_file(file).unwrap();
}

/// The p50 and p99 of the times the `loops` measured.
async fn p50_p99(loops: Vec<tokio::task::JoinHandle<Vec<Duration>>>) -> (Duration, Duration) {
    let mut times = Vec::new();
    for l in loops {
        times.extend(l.await.expect("every call answered"));
    }
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    (at(0.5), at(0.99))
}
