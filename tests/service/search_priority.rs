//! `chuhe serve` runs its search threads under `SCHED_IDLE` when it is alone in its CPU
//! cgroup, and at the nice value of `--search-nice` (5) when it shares it (Linux), unless
//! `--search-idle true|false` says otherwise: read back from `/proc` for every thread
//! named `search-<i>` of the real process. An Analyze answer says how much CPU its
//! search got.

use std::time::{Duration, Instant};

use crate::common::threads::{SCHED_IDLE, own_nice, search_threads};

/// The search threads of `chuhe serve` with `args`, once `settled` says they are as
/// expected or 10 s have passed (each sets its own priority as it starts).
async fn search_threads_of_chuhe_serve(args: &[&str], settled: impl Fn(&[(i64, i64)]) -> bool) -> Vec<(i64, i64)> {
    search_threads_of_chuhe_serve_in(None, args, settled).await
}

/// [`search_threads_of_chuhe_serve`] of a server started in the cgroup of `cgroup`.
async fn search_threads_of_chuhe_serve_in(
    cgroup: Option<&std::path::Path>,
    args: &[&str],
    settled: impl Fn(&[(i64, i64)]) -> bool,
) -> Vec<(i64, i64)> {
    let (mut child, _channel) = crate::hardening::spawn_chuhe_serve_in(cgroup, args).await;
    let started = Instant::now();
    let threads = loop {
        let threads = search_threads(child.id());
        if settled(&threads) || started.elapsed() > Duration::from_secs(10) {
            break threads;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    threads
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn chuhe_serve_runs_its_search_threads_under_sched_idle_when_asked() {
    let args = ["--hash-mb", "1", "--search-workers", "2", "--search-idle", "true"];
    let threads =
        search_threads_of_chuhe_serve(&args, |t| t.len() == 2 && t.iter().all(|&(p, _)| p == SCHED_IDLE)).await;
    assert_eq!(threads.len(), 2, "{threads:?}");
    assert!(threads.iter().all(|&(policy, _)| policy == SCHED_IDLE), "{threads:?}");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn chuhe_serve_not_idle_adds_the_nice_value_to_its_search_threads() {
    let nice = (own_nice() + 7).min(19);
    let args = ["--hash-mb", "1", "--search-workers", "1", "--search-idle", "false", "--search-nice", "7"];
    let threads = search_threads_of_chuhe_serve(&args, |t| t == [(0, nice)]).await;
    assert_eq!(threads, [(0, nice)], "policy SCHED_OTHER and nice {nice} expected");
}

/// A server started by a test shares the test's cgroup, so by default it adds a nice
/// value rather than idle its searches.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn chuhe_serve_sharing_its_cgroup_adds_a_nice_value_of_5_by_default() {
    let nice = (own_nice() + 5).min(19);
    let threads =
        search_threads_of_chuhe_serve(&["--hash-mb", "1", "--search-workers", "1"], |t| t == [(0, nice)]).await;
    assert_eq!(threads, [(0, nice)], "policy SCHED_OTHER and nice {nice} expected");
}

/// A fresh CPU cgroup (the v1 `cpu` controller's, else the unified hierarchy's), removed
/// when dropped; none where this process may not make one.
struct FreshCgroup(std::path::PathBuf);

impl FreshCgroup {
    fn new() -> Option<FreshCgroup> {
        let root = ["/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup"]
            .into_iter()
            .map(std::path::Path::new)
            .find(|dir| dir.join("cgroup.procs").exists())?;
        let dir = root.join(format!("chuhe-test-{}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => Some(FreshCgroup(dir)),
            Err(e) => {
                eprintln!("no cgroup of its own for the server ({}: {e})", dir.display());
                None
            }
        }
    }
}

impl Drop for FreshCgroup {
    fn drop(&mut self) {
        // A cgroup is removed once its processes are gone.
        for _ in 0..100 {
            if std::fs::remove_dir(&self.0).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Alone in a cgroup of its own (as in a container), the server idles its searches by
/// default. Where this process may not make a cgroup (not root, a read-only cgroup
/// file system), there is nothing to start the server in, and the test says so.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn chuhe_serve_alone_in_its_cgroup_runs_its_search_threads_under_sched_idle_by_default() {
    let Some(cgroup) = FreshCgroup::new() else { return };
    let args = ["--hash-mb", "1", "--search-workers", "2"];
    let threads = search_threads_of_chuhe_serve_in(Some(&cgroup.0), &args, |t| {
        t.len() == 2 && t.iter().all(|&(p, _)| p == SCHED_IDLE)
    })
    .await;
    assert_eq!(threads.len(), 2, "{threads:?}");
    assert!(threads.iter().all(|&(policy, _)| policy == SCHED_IDLE), "{threads:?}");
    // Told `false`, it adds its nice value there too.
    let nice = (own_nice() + 5).min(19);
    let args = ["--hash-mb", "1", "--search-workers", "1", "--search-idle", "false"];
    let threads = search_threads_of_chuhe_serve_in(Some(&cgroup.0), &args, |t| t == [(0, nice)]).await;
    assert_eq!(threads, [(0, nice)]);
}

/// What an answer says of its search's CPU holds together: a thread's CPU time never
/// exceeds its wall time (give or take the clocks' rounding); answered by its search
/// thread, the CPU time it got is given, and answered by the call for a search thread
/// late past its time (a busy host), the answer is starved.
fn assert_cpu_told(what: &str, time_ms: u32, cpu_ms: u32, starved: bool, stop_reason: i32) {
    assert!(cpu_ms <= time_ms + 2, "{what}: CPU {cpu_ms} ms in {time_ms} ms");
    assert!(cpu_ms > 0 || starved, "{what}: no CPU time and not starved");
    let timed = stop_reason == chuhe::api::proto::StopReason::Movetime as i32;
    if cpu_ms * 2 < time_ms && time_ms >= 20 && timed {
        assert!(starved, "{what}: CPU {cpu_ms} ms in {time_ms} ms is starved");
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_analyze_answer_gives_the_cpu_time_its_search_got() {
    use chuhe::api::proto;
    use tokio_stream::StreamExt;
    let server = crate::common::server::start_small().await;
    let mut analysis = server.analysis().await;
    let limits = proto::SearchLimits { movetime_ms: 300, ..Default::default() };
    for variant in [proto::Variant::Xiangqi, proto::Variant::Janggi, proto::Variant::ThreeKingdoms] {
        let position = proto::Position { variant: variant as i32, fen: "startpos".into(), ..Default::default() };
        let request =
            proto::AnalyzeRequest { position: Some(position.clone()), limits: Some(limits), ..Default::default() };
        let answer = analysis.analyze(request).await.unwrap().into_inner();
        println!(
            "Analyze of 300 ms ({variant:?}): time {} ms, CPU {} ms, {} nodes, depth {}, starved {}; load average {}",
            answer.time_ms,
            answer.cpu_ms,
            answer.nodes,
            answer.depth,
            answer.starved,
            crate::probe::load_average()
        );
        assert!(!answer.best_move.is_empty(), "{answer:?}");
        let told = (answer.time_ms, answer.cpu_ms, answer.starved, answer.stop_reason);
        assert_cpu_told(&format!("Analyze {variant:?}"), told.0, told.1, told.2, told.3);

        let request =
            proto::AnalyzeStreamRequest { position: Some(position), limits: Some(limits), ..Default::default() };
        let messages: Vec<_> = analysis.analyze_stream(request).await.unwrap().into_inner().collect().await;
        let last = messages.last().unwrap().as_ref().unwrap();
        assert!(last.is_final && !last.best_move.is_empty(), "{last:?}");
        assert_cpu_told(
            &format!("AnalyzeStream {variant:?}"),
            last.time_ms,
            last.cpu_ms,
            last.starved,
            last.stop_reason,
        );
        for progress in &messages[..messages.len() - 1] {
            let progress = progress.as_ref().unwrap();
            assert!(!progress.is_final && progress.cpu_ms == 0 && !progress.starved, "{progress:?}");
        }
    }
    server.shutdown().await;
}

/// Analyze of 300 ms from the start through a real `chuhe serve` (its defaults), quiet
/// and then beside two busy processes (`yes > /dev/null`) of the test's own cgroup, with
/// the server in that cgroup (nice 5) and in one of its own (`SCHED_IDLE`). A
/// measurement, not a check:
///
/// ```text
/// cargo test --test service analyze_beside_busy_processes -- --ignored --nocapture
/// ```
#[cfg(target_os = "linux")]
#[tokio::test]
#[ignore = "a measurement: run with `cargo test --test service analyze_beside_busy_processes -- --ignored --nocapture`"]
async fn analyze_beside_busy_processes() {
    use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
    async fn three_analyses(cgroup: Option<&std::path::Path>, what: &str) {
        let (mut child, channel) = crate::hardening::spawn_chuhe_serve_in(cgroup, &["--hash-mb", "64"]).await;
        let mut analysis = AnalysisServiceClient::new(channel);
        for _ in 0..3 {
            let position = proto::Position {
                variant: proto::Variant::Xiangqi as i32,
                fen: "startpos".into(),
                ..Default::default()
            };
            let request = proto::AnalyzeRequest {
                position: Some(position),
                limits: Some(proto::SearchLimits { movetime_ms: 300, ..Default::default() }),
                cache: proto::AnalysisCachePolicy::Fresh as i32,
                ..Default::default()
            };
            let sent = Instant::now();
            let a = analysis.analyze(request).await.unwrap().into_inner();
            println!(
                "{what}: answered in {} ms (time {} ms, CPU {} ms), {} nodes, depth {}, starved {}",
                sent.elapsed().as_millis(),
                a.time_ms,
                a.cpu_ms,
                a.nodes,
                a.depth,
                a.starved
            );
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    println!("load average: {}", crate::probe::load_average());
    let own = FreshCgroup::new();
    three_analyses(None, "quiet, nice 5").await;
    if let Some(own) = &own {
        three_analyses(Some(&own.0), "quiet, own cgroup (idle)").await;
    }
    let mut busy: Vec<_> = (0..2)
        .map(|_| std::process::Command::new("sh").args(["-c", "exec yes > /dev/null"]).spawn().expect("yes runs"))
        .collect();
    three_analyses(None, "two busy processes, nice 5").await;
    if let Some(own) = &own {
        three_analyses(Some(&own.0), "two busy processes in another cgroup, own cgroup (idle)").await;
    }
    for b in &mut busy {
        let _ = b.kill();
        let _ = b.wait();
    }
}
