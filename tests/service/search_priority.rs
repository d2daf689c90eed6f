//! `chuhe serve` runs its search threads under `SCHED_IDLE` by default (Linux), and at
//! the nice value of `--search-nice` with `--search-idle false`: read back from
//! `/proc` for every thread named `search-<i>` of the real process.

use std::time::{Duration, Instant};

use crate::common::threads::{SCHED_IDLE, own_nice, search_threads};
use crate::hardening::spawn_chuhe_serve;

/// The search threads of `chuhe serve` with `args`, once `settled` says they are as
/// expected or 10 s have passed (each sets its own priority as it starts).
async fn search_threads_of_chuhe_serve(args: &[&str], settled: impl Fn(&[(i64, i64)]) -> bool) -> Vec<(i64, i64)> {
    let (mut child, _channel) = spawn_chuhe_serve(args).await;
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
async fn chuhe_serve_runs_its_search_threads_under_sched_idle() {
    let args = ["--hash-mb", "1", "--search-workers", "2"];
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
