//! Processor time, for bounds on work that a loaded machine must not break: a thread
//! waiting for a core gains no processor time, so a bound on it holds at any load, while
//! work that runs on past its budget still shows.

use std::time::Duration;

/// The processor time the calling thread has used.
pub fn thread_time() -> Duration {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the struct it is given.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) };
    assert_eq!(ok, 0, "the thread's processor time is readable");
    Duration::new(now.tv_sec as u64, now.tv_nsec as u32)
}

/// The processor time process `pid` has used so far (user and system, from
/// `/proc/<pid>/stat`, in clock ticks of 10 ms).
pub fn process_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("the process runs");
    // "pid (name) state ...": the fields after the name count from 3; utime is 14, stime 15.
    let close = stat.rfind(')').expect("a process name");
    let fields: Vec<&str> = stat[close + 2..].split(' ').collect();
    let ticks = |n: usize| fields[n - 3].parse::<u64>().expect("a number");
    // SAFETY: a plain query of a system constant.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Duration::from_millis((ticks(14) + ticks(15)) * 1000 / per_second)
}
