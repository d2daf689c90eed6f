//! `chuhe serve` runs its search threads at the nice value of `--search-nice` (5) by
//! default (Linux), and under `SCHED_IDLE` with `--search-idle true`: read back from
//! `/proc` for every thread named `search-<i>` of the real process. An Analyze answer
//! says how much CPU its search got.

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

#[cfg(target_os = "linux")]
#[tokio::test]
async fn chuhe_serve_adds_a_nice_value_of_5_by_default() {
    let nice = (own_nice() + 5).min(19);
    let threads =
        search_threads_of_chuhe_serve(&["--hash-mb", "1", "--search-workers", "1"], |t| t == [(0, nice)]).await;
    assert_eq!(threads, [(0, nice)], "policy SCHED_OTHER and nice {nice} expected");
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn an_analyze_answer_gives_the_cpu_time_its_search_got() {
    use chuhe::api::proto;
    let server = crate::common::server::start_small().await;
    let mut analysis = server.analysis().await;
    let position =
        proto::Position { variant: proto::Variant::Xiangqi as i32, fen: "startpos".into(), ..Default::default() };
    let limits = proto::SearchLimits { movetime_ms: 300, ..Default::default() };
    let request = proto::AnalyzeRequest { position: Some(position), limits: Some(limits), ..Default::default() };
    let answer = analysis.analyze(request).await.unwrap().into_inner();
    println!(
        "Analyze of 300 ms: time {} ms, CPU {} ms, {} nodes, depth {}, starved {}; load average {}",
        answer.time_ms,
        answer.cpu_ms,
        answer.nodes,
        answer.depth,
        answer.starved,
        crate::probe::load_average()
    );
    assert!(!answer.best_move.is_empty(), "{answer:?}");
    // A thread's CPU time never exceeds its wall time (give or take the clocks' rounding).
    assert!(answer.cpu_ms <= answer.time_ms + 2, "{answer:?}");
    // Answered by its search thread, the CPU time it got is given; answered by the call
    // for a search thread late past its time (a busy host), the answer is starved.
    assert!(answer.cpu_ms > 0 || answer.starved, "{answer:?}");
    assert_eq!(answer.starved, answer.cpu_ms * 2 < answer.time_ms, "starved is below half: {answer:?}");
    server.shutdown().await;
}
