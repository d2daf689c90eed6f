//! How search threads give way to the threads that answer rules calls (Linux): under the
//! idle scheduling policy (`SCHED_IDLE`), a search runs only on a core no thread of
//! normal priority wants, and a woken rules thread takes that core at once; where that
//! policy is refused, or not asked for, a nice value is added instead. Elsewhere thread
//! priorities are left alone.

/// How the search threads are scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchPriority {
    /// Run the search threads under `SCHED_IDLE` (Linux).
    pub idle: bool,
    /// The nice value added to the search threads when `idle` is off or refused (0: none).
    pub nice: i32,
}

impl SearchPriority {
    /// What `chuhe serve` uses by default where it shares its CPU cgroup (alone in it,
    /// it idles its searches: see [`alone_in_cpu_cgroup`]): a nice value of 5. With two
    /// busy processes on a two-core host, a search of 300 ms under `SCHED_IDLE` or at
    /// nice 10 answered after 306-2,570 ms with about 1,000 nodes (it hardly ran and
    /// could not even look at its clock); at nice 5 or 0 it answered after 300-324 ms
    /// with 21,000-54,000. Within the process, nice 5 still gives a thread answering
    /// rules calls three times a search thread's weight.
    pub const SERVER: SearchPriority = SearchPriority { idle: false, nice: 5 };

    /// The priority the process was started with, unchanged: what a search alone in its
    /// process uses (`chuhe uci`, `chuhe analyze`). There no rules call waits for a
    /// core, and a lowered priority would only lose CPU to other processes, such as the
    /// opposing engine of a match.
    pub const UNCHANGED: SearchPriority = SearchPriority { idle: false, nice: 0 };
}

/// A nice value of 10, not idle: searches beside the rules calls of the same process
/// give way to them, but do not stop whenever another process wants a core.
impl Default for SearchPriority {
    fn default() -> Self {
        SearchPriority { idle: false, nice: 10 }
    }
}

/// What the calling thread got from [`apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Applied {
    /// `SCHED_IDLE`.
    Idle,
    /// A nice value added (the thread's nice value is now the one given).
    Nice(i32),
    /// Nothing changed.
    Unchanged,
}

/// Gives the calling thread the priority asked for (threads it starts later inherit it).
#[cfg(target_os = "linux")]
pub fn apply(priority: SearchPriority) -> Applied {
    if priority.idle {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: a plain system call about the calling thread (0), with a parameter it
        // only reads.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } == 0 {
            return Applied::Idle;
        }
        tracing::warn!(
            "search threads cannot run under SCHED_IDLE ({}); a nice value is added instead",
            std::io::Error::last_os_error()
        );
    }
    if priority.nice == 0 {
        return Applied::Unchanged;
    }
    // SAFETY: plain system calls on the calling thread; no memory is shared with them.
    unsafe {
        let tid = libc::gettid() as libc::id_t;
        *libc::__errno_location() = 0;
        let current = libc::getpriority(libc::PRIO_PROCESS, tid);
        let nice = (current + priority.nice).clamp(-20, 19);
        if libc::setpriority(libc::PRIO_PROCESS, tid, nice) != 0 {
            tracing::warn!("search threads keep their priority: setpriority failed");
            return Applied::Unchanged;
        }
        Applied::Nice(nice)
    }
}

/// Thread priorities are left alone outside Linux.
#[cfg(not(target_os = "linux"))]
pub fn apply(_priority: SearchPriority) -> Applied {
    Applied::Unchanged
}

/// Whether this process is the only one in its CPU cgroup (Linux; none where that
/// cannot be read). `SCHED_IDLE` yields only to threads of the same cgroup: in a cgroup
/// of its own (a container, a systemd service) an idle search thread gives way to the
/// process's own call threads at once and still gets its cgroup's fair share beside
/// other work; in a cgroup shared with a busy process, it hardly runs.
#[cfg(target_os = "linux")]
pub fn alone_in_cpu_cgroup() -> Option<bool> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    alone_in_cgroup(&cgroups, std::path::Path::new("/sys/fs/cgroup"), std::process::id())
}

/// No cgroups outside Linux.
#[cfg(not(target_os = "linux"))]
pub fn alone_in_cpu_cgroup() -> Option<bool> {
    None
}

/// Whether process `pid`, whose `/proc/<pid>/cgroup` reads `cgroups`, is the only
/// process of its CPU cgroup under the cgroup file system mounted at `root`: the cgroup
/// of the v1 `cpu` controller where there is one, else the unified (v2) one.
pub fn alone_in_cgroup(cgroups: &str, root: &std::path::Path, pid: u32) -> Option<bool> {
    let entries: Vec<(&str, &str)> = cgroups
        .lines()
        .filter_map(|line| {
            let mut fields = line.splitn(3, ':');
            let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
            Some((controllers, path.trim_start_matches('/')))
        })
        .collect();
    let dirs: Vec<std::path::PathBuf> = match entries.iter().find(|(c, _)| c.split(',').any(|c| c == "cpu")) {
        Some((controllers, path)) => [*controllers, "cpu"].iter().map(|mount| root.join(mount).join(path)).collect(),
        None => entries.iter().filter(|(c, _)| c.is_empty()).map(|(_, path)| root.join(path)).collect(),
    };
    let procs = dirs.iter().find_map(|dir| std::fs::read_to_string(dir.join("cgroup.procs")).ok())?;
    let pids: Vec<u32> = procs.lines().filter_map(|l| l.trim().parse().ok()).collect();
    Some(!pids.is_empty() && pids.iter().all(|&p| p == pid))
}

/// The calling thread's scheduling as [`apply`] would name it (Linux): `SCHED_IDLE`,
/// otherwise its nice value.
#[cfg(target_os = "linux")]
pub fn current() -> Applied {
    // SAFETY: plain system calls about the calling thread.
    unsafe {
        if libc::sched_getscheduler(0) == libc::SCHED_IDLE {
            return Applied::Idle;
        }
        Applied::Nice(libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t))
    }
}

/// The CPU time the calling thread has had so far (Linux; none elsewhere): set beside
/// a search's wall time, it tells a search that had its core from one that waited for it.
#[cfg(target_os = "linux")]
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: a plain system call that writes the timespec it is given.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) } != 0 {
        return None;
    }
    Some(std::time::Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
}

/// No thread CPU time outside Linux.
#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_time() -> Option<std::time::Duration> {
    None
}

#[cfg(test)]
mod cgroup_tests {
    use super::alone_in_cgroup;

    /// A cgroup file system under a fresh directory, with `procs` in `dir`'s cgroup.procs.
    fn tree(name: &str, dir: &str, procs: &str) -> std::path::PathBuf {
        let root = std::env::temp_dir().join(format!("chuhe-cgroups-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join(dir)).unwrap();
        std::fs::write(root.join(dir).join("cgroup.procs"), procs).unwrap();
        root
    }

    #[test]
    fn the_v1_cpu_controllers_cgroup_is_read_where_there_is_one() {
        let cgroups = "4:memory:/pod\n2:cpu,cpuacct:/kubepods/pod7\n0::/other\n";
        let root = tree("v1", "cpu,cpuacct/kubepods/pod7", "41\n");
        assert_eq!(alone_in_cgroup(cgroups, &root, 41), Some(true));
        assert_eq!(alone_in_cgroup(cgroups, &root, 42), Some(false));
        let shared = tree("v1-shared", "cpu/kubepods/pod7", "41\n99\n");
        assert_eq!(alone_in_cgroup(cgroups, &shared, 41), Some(false));
    }

    #[test]
    fn the_unified_cgroup_is_read_without_a_cpu_controller() {
        let cgroups = "0::/system.slice/chuhe.service\n";
        let root = tree("v2", "system.slice/chuhe.service", "7\n");
        assert_eq!(alone_in_cgroup(cgroups, &root, 7), Some(true));
        let root = tree("v2-shared", "system.slice/chuhe.service", "7\n8\n");
        assert_eq!(alone_in_cgroup(cgroups, &root, 7), Some(false));
    }

    #[test]
    fn an_unreadable_cgroup_is_not_known() {
        let root = tree("none", "elsewhere", "1\n");
        assert_eq!(alone_in_cgroup("0::/missing\n", &root, 1), None);
        assert_eq!(alone_in_cgroup("garbage", &root, 1), None);
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    #[test]
    fn a_thread_asked_to_idle_runs_under_sched_idle_and_its_children_too() {
        let seen = std::thread::spawn(|| {
            let applied = apply(SearchPriority { idle: true, nice: 10 });
            let child = std::thread::spawn(current).join().unwrap();
            (applied, current(), child)
        })
        .join()
        .unwrap();
        assert_eq!(seen, (Applied::Idle, Applied::Idle, Applied::Idle));
        // The calling thread is untouched.
        assert_ne!(current(), Applied::Idle);
    }

    #[test]
    fn a_thread_not_asked_to_idle_gets_the_nice_value_added() {
        let here = match current() {
            Applied::Nice(n) => n,
            other => panic!("the test thread runs under {other:?}"),
        };
        let seen = std::thread::spawn(|| (apply(SearchPriority { idle: false, nice: 5 }), current())).join().unwrap();
        let expected = Applied::Nice((here + 5).min(19));
        assert_eq!(seen, (expected, expected));
    }

    #[test]
    fn a_busy_thread_counts_its_cpu_time_and_a_sleeping_one_does_not() {
        let before = thread_cpu_time().unwrap();
        let spin = std::time::Instant::now();
        while spin.elapsed() < std::time::Duration::from_millis(30) {
            std::hint::black_box(0u64);
        }
        let busy = thread_cpu_time().unwrap() - before;
        std::thread::sleep(std::time::Duration::from_millis(30));
        let slept = thread_cpu_time().unwrap() - before - busy;
        assert!(busy > std::time::Duration::ZERO, "{busy:?}");
        assert!(slept < std::time::Duration::from_millis(10), "{slept:?}");
    }
}
