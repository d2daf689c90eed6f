//! The scheduling of a process's search threads, read from `/proc` (Linux).

/// `SCHED_IDLE` in `/proc/<pid>/task/<tid>/stat`.
pub const SCHED_IDLE: i64 = 5;

/// The scheduling policy and nice value of each thread of process `pid` whose name starts
/// with `search-`.
pub fn search_threads(pid: u32) -> Vec<(i64, i64)> {
    let mut seen = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else { return seen };
    for task in tasks.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else { continue };
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

/// The nice value of the calling process.
pub fn own_nice() -> i64 {
    // SAFETY: a plain system call about this process.
    unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) as i64 }
}
