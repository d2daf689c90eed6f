//! `chuhe serve` runs its search threads under `SCHED_IDLE` by default (Linux), and at
//! the nice value of `--search-nice` with `--search-idle false`: read back from
//! `/proc` for every thread named `search-<i>` of the real process.

use std::time::{Duration, Instant};

use crate::hardening::spawn_chuhe_serve;

/// `SCHED_IDLE` in `/proc/<pid>/task/<tid>/stat`.
const SCHED_IDLE: i64 = 5;

/// The scheduling policy and nice value of each search thread of process `pid`.
fn search_threads(pid: u32) -> Vec<(i64, i64)> {
    let mut seen = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task")).expect("the process's threads") {
        let Ok(stat) = std::fs::read_to_string(task.unwrap().path().join("stat")) else { continue };
        // "tid (name) state ...": the fields after the name count from 3.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else { continue };
        if !stat[open + 1..close].starts_with("search-") {
            continue;
        }
        let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
        let field = |n: usize| fields[n - 3].parse::<i64>().expect("a number");
        seen.push((field(41), field(19)));
    }
    seen
}

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
    // SAFETY: a plain system call about this process.
    let here = unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) } as i64;
    let nice = (here + 7).min(19);
    let args = ["--hash-mb", "1", "--search-workers", "1", "--search-idle", "false", "--search-nice", "7"];
    let threads = search_threads_of_chuhe_serve(&args, |t| t == [(0, nice)]).await;
    assert_eq!(threads, [(0, nice)], "policy SCHED_OTHER and nice {nice} expected");
}
