//! The analysis engine every front end uses (the gRPC service, `chuhe analyze` and
//! `chuhe uci`): one transposition table shared by all searches, a dedicated pool of
//! search threads (never the async workers), admission that refuses at once when no
//! search thread frees up in time, and a stop flag raised when the asker goes away.
//!
//! Errors are the engine's own ([`EngineError`]); each front end says them its way
//! (RESOURCE_EXHAUSTED over gRPC, a message on the command line).

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio_stream::Stream;

use crate::game::SearchedGame;
use crate::search::nnue::Evaluation;
use crate::search::tt::TranspositionTable;
use crate::search::{Outcome, Params, Report};

pub mod lua_script;
pub mod priority;
pub mod queue;
pub mod store;

pub use priority::SearchPriority;

type Job = Box<dyn FnOnce() + Send + 'static>;

/// Why the engine did not take a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// Every search thread stayed busy for the whole queue wait: retry later.
    Busy,
    /// The pool has stopped (the process is shutting down).
    Stopped,
    /// A search thread ended without an answer (a fault of this program).
    Lost,
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            EngineError::Busy => "all search threads are busy; retry later",
            EngineError::Stopped => "search pool stopped",
            EngineError::Lost => "search thread ended without an answer",
        })
    }
}

impl std::error::Error for EngineError {}

/// How an engine is sized and bounded.
#[derive(Clone, Debug)]
pub struct EngineConfig {
    /// Size of the shared transposition table, in MiB.
    pub hash_mb: usize,
    /// Searches that run at once (each a pool thread, plus its helper threads); by
    /// default [`default_search_workers`], one per core.
    pub workers: usize,
    /// Threads per search (Lazy SMP).
    pub threads_per_search: usize,
    /// Longest time budget a request may ask for.
    pub max_analysis: Duration,
    /// Budget when a request sets no limit at all.
    pub default_analysis: Duration,
    /// How long a request may wait for a free search thread before it is refused.
    pub max_queue_wait: Duration,
    /// How search threads give way to the threads of rules calls when every core is
    /// searching (Linux: `SCHED_IDLE` or a nice value; by default a nice value of 10).
    pub search_priority: SearchPriority,
    /// The evaluation of the 9x10 variants' searches: the classical one or a net.
    pub evaluation: Evaluation,
}

/// The searches that run at once by default: one per core. Leaving a core to the rules
/// calls (one per core but one) was measured on two cores with `cargo bench --bench
/// load -- --searches` and did not bring ListLegalMoves' p99 under searches near its
/// p99 alone (ratio 2.0-3.1 with idle searches), while it halves the analysis capacity;
/// `--search-workers` sets another size.
pub fn default_search_workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            hash_mb: 64,
            workers: default_search_workers(),
            threads_per_search: 1,
            max_analysis: Duration::from_secs(10),
            default_analysis: Duration::from_millis(1000),
            max_queue_wait: Duration::from_millis(50),
            search_priority: SearchPriority::default(),
            evaluation: Evaluation::default(),
        }
    }
}

/// The least time a search admitted after a wait has before its call's deadline.
pub const MIN_SEARCH: Duration = Duration::from_millis(10);

/// Whether a search admitted at `now` after a wait still has [`MIN_SEARCH`] before
/// `until` (its call's deadline less the margin to answer in).
fn time_to_search(until: Option<Instant>, now: Instant) -> bool {
    until.is_none_or(|until| until.saturating_duration_since(now) >= MIN_SEARCH)
}

/// A call's deadline: when the call arrived and how long its client (or the server's
/// request timeout) gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// When the call arrived (before any queue).
    pub arrived: Instant,
    /// The time it has from then.
    pub timeout: Duration,
}

impl Deadline {
    /// The deadline of a call that arrives now with `timeout`.
    pub fn from_now(timeout: Duration) -> Deadline {
        Deadline { arrived: Instant::now(), timeout }
    }

    /// The last instant a search may run to: the deadline less a margin to answer in
    /// (a twentieth of the timeout, between 2 and 50 ms).
    pub fn search_until(&self) -> Instant {
        let margin = (self.timeout / 20).clamp(Duration::from_millis(2), Duration::from_millis(50));
        self.arrived + self.timeout.saturating_sub(margin)
    }
}

/// The time a search may take (see [`Engine::budget`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Budget {
    /// Its own time, counted from its start.
    pub time: Option<Duration>,
    /// Whether `time` is a move time (the request's, or the server's default), not the
    /// server's cap.
    pub movetime: bool,
    /// The instant it must end by, whenever it starts: the call's deadline less a margin.
    pub until: Option<Instant>,
}

impl Budget {
    /// The time of a search that starts now, and whether it is a move time (else the
    /// server's cap or the call's deadline bounds it).
    pub fn from_now(&self) -> (Option<Duration>, bool) {
        let Some(until) = self.until else { return (self.time, self.movetime) };
        let left = until.saturating_duration_since(Instant::now());
        match self.time {
            Some(t) if t <= left => (Some(t), self.movetime),
            _ => (Some(left), false),
        }
    }
}

/// The search pool with its shared table (see the module documentation).
pub struct Engine {
    /// What the engine was started with.
    pub config: EngineConfig,
    /// The table every search shares.
    pub tt: Arc<TranspositionTable>,
    /// Where finished searches are kept for the same question again (none: every call
    /// searches); the API reads and writes it, the engine only holds it.
    pub store: Option<store::AnalysisStore>,
    permits: Arc<Semaphore>,
    jobs: Mutex<mpsc::Sender<Job>>,
}

/// A search thread held for one search; it frees up when dropped.
pub struct Permit {
    _held: OwnedSemaphorePermit,
}

/// Raises a search's stop flag when dropped: a request whose future is dropped (the
/// client cancelled, or the deadline layer gave up) stops its search at once.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A search started with [`Engine::start`]: its stop flag, and the end to wait for.
pub struct Running {
    stop: Arc<AtomicBool>,
    done: mpsc::Receiver<()>,
}

impl Running {
    /// Asks the search to stop (it answers with what it has).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Blocks until the search's work has returned.
    pub fn wait(self) {
        let _ = self.done.recv();
    }
}

impl Engine {
    /// Starts the pool's threads and allocates the table; no store.
    pub fn new(config: EngineConfig) -> Arc<Engine> {
        Engine::with_store(config, None)
    }

    /// [`Engine::new`] with an evaluation store.
    pub fn with_store(config: EngineConfig, store: Option<store::AnalysisStore>) -> Arc<Engine> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let workers = config.workers.max(1);
        let priority = config.search_priority;
        for i in 0..workers {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new().name(format!("search-{i}")).spawn(move || {
                priority::apply(priority);
                loop {
                    let job = match rx.lock() {
                        Ok(guard) => guard.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                }
            });
            if spawned.is_err() {
                tracing::error!("cannot start search thread {i}");
            }
        }
        Arc::new(Engine {
            tt: Arc::new(TranspositionTable::new(config.hash_mb)),
            permits: Arc::new(Semaphore::new(workers)),
            jobs: Mutex::new(tx),
            store,
            config,
        })
    }

    /// Waits (briefly) for a free search thread; [`EngineError::Busy`] when none frees
    /// up within the queue wait, or in time to leave a search [`MIN_SEARCH`] before
    /// `until` (the call's deadline, see [`Budget::until`]).
    pub async fn admit(&self, until: Option<Instant>) -> Result<Permit, EngineError> {
        if let Ok(p) = self.permits.clone().try_acquire_owned() {
            return Ok(Permit { _held: p });
        }
        let mut wait = self.config.max_queue_wait;
        if let Some(until) = until {
            wait = wait.min(until.saturating_duration_since(Instant::now()).saturating_sub(MIN_SEARCH));
        }
        match tokio::time::timeout(wait, self.permits.clone().acquire_owned()).await {
            // A busy runtime may wake the waiter after its window: a search then would
            // have no time and its answer would come after the call's deadline.
            Ok(Ok(p)) if time_to_search(until, Instant::now()) => Ok(Permit { _held: p }),
            _ => {
                metrics::counter!("chuhe_search_rejected_total").increment(1);
                Err(EngineError::Busy)
            }
        }
    }

    /// A free search thread now, or [`EngineError::Busy`] (for front ends without an
    /// async runtime, which run one search at a time).
    pub fn try_admit(&self) -> Result<Permit, EngineError> {
        self.permits.clone().try_acquire_owned().map(|p| Permit { _held: p }).map_err(|_| EngineError::Busy)
    }

    fn submit(&self, job: Job) -> Result<(), EngineError> {
        let sender = self.jobs.lock().map_err(|_| EngineError::Stopped)?;
        sender.send(job).map_err(|_| EngineError::Stopped)
    }

    /// Starts `work` on a search thread without waiting for it: the caller stops it and
    /// waits for it through the returned [`Running`].
    pub fn start(
        self: &Arc<Self>,
        permit: Permit,
        work: impl FnOnce(&Engine, &AtomicBool) + Send + 'static,
    ) -> Result<Running, EngineError> {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, done) = mpsc::channel();
        let (engine, flag) = (self.clone(), stop.clone());
        let job: Job = Box::new(move || {
            work(&engine, &flag);
            // The thread is free before the waiter hears of the end, so that a search
            // started right after `wait` is admitted.
            drop(permit);
            let _ = tx.send(());
        });
        self.submit(job)?;
        Ok(Running { stop, done })
    }

    /// Admits a search (waiting at most until `until` allows, see [`Engine::admit`]),
    /// runs `work` on a search thread and waits for its answer. The stop flag `work` is
    /// given is raised when the returned future is dropped (the client cancelled, or
    /// the deadline layer gave up).
    pub async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        until: Option<Instant>,
        work: impl FnOnce(&Engine, &AtomicBool) -> T + Send + 'static,
    ) -> Result<T, EngineError> {
        let permit = self.admit(until).await?;
        let stop = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(stop.clone());
        let (tx, rx) = oneshot::channel();
        let engine = self.clone();
        self.submit(Box::new(move || {
            let answer = work(&engine, &stop);
            // The thread is free before the caller hears the answer, so that the
            // caller's next search is admitted however late this thread runs again
            // (search threads run at a lower priority than the server's).
            drop(permit);
            let _ = tx.send(answer);
        }))?;
        rx.await.map_err(|_| EngineError::Lost)
    }

    /// Admits a search (as [`Engine::run`] does) and runs `work` on a search thread;
    /// each message `work` sends goes out on the returned stream. Dropping the stream
    /// (the client went away) raises the stop flag `work` is given, and so does a send
    /// that finds the stream closed.
    pub async fn stream<T: Send + 'static>(
        self: &Arc<Self>,
        until: Option<Instant>,
        work: impl FnOnce(&Engine, &AtomicBool, &mut dyn FnMut(T)) + Send + 'static,
    ) -> Result<SearchStream<T>, EngineError> {
        let permit = self.admit(until).await?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = tokio::sync::mpsc::channel::<T>(16);
        let engine = self.clone();
        let flag = stop.clone();
        self.submit(Box::new(move || {
            let mut send = |message: T| {
                if tx.blocking_send(message).is_err() {
                    flag.store(true, Ordering::Relaxed);
                }
            };
            work(&engine, &flag, &mut send);
            // Free before the stream ends, as in `run`.
            drop(permit);
            drop(tx);
        }))?;
        let inner = tokio_stream::wrappers::ReceiverStream::new(rx);
        Ok(Box::pin(StreamWithGuard { inner, _guard: CancelOnDrop(stop) }))
    }

    /// The time budget of a request: its own movetime (capped by the server), the
    /// server's cap when it sets another limit, the default when it sets none; and never
    /// past the call's deadline, counted from the call's arrival (less a margin to
    /// answer in), so that time spent waiting for a search thread is spent.
    pub fn budget(&self, requested_ms: u32, has_other_limit: bool, deadline: Option<Deadline>) -> Budget {
        let (time, movetime) = if requested_ms > 0 {
            let asked = Duration::from_millis(requested_ms as u64);
            (asked.min(self.config.max_analysis), asked <= self.config.max_analysis)
        } else if has_other_limit {
            (self.config.max_analysis, false)
        } else {
            (self.config.default_analysis, true)
        };
        Budget { time: Some(time), movetime, until: deadline.map(|d| d.search_until()) }
    }

    /// Searches a game of any variant on the calling thread, with the shared table (a
    /// 9x10 game under its rule set; none named: the variant's own judgement of
    /// cycles), counting the search in the metrics.
    pub fn search<G: SearchedGame>(
        &self,
        game: &G,
        params: &Params<G::Move>,
        budget: Option<Duration>,
        stop: &AtomicBool,
        on_depth: &mut dyn FnMut(&Report<G::Move, G::Score>),
    ) -> Outcome<G::Move, G::Score> {
        self.search_with(&self.tt, game, params, budget, stop, on_depth)
    }

    /// [`Engine::search`] with a table of the caller's instead of the shared one: a
    /// search that must not depend on what other requests left in the shared table (an
    /// audit's, see [`crate::api::audit`]), nor disturb it.
    pub fn search_with<G: SearchedGame>(
        &self,
        tt: &TranspositionTable,
        game: &G,
        params: &Params<G::Move>,
        budget: Option<Duration>,
        stop: &AtomicBool,
        on_depth: &mut dyn FnMut(&Report<G::Move, G::Score>),
    ) -> Outcome<G::Move, G::Score> {
        let started = Instant::now();
        metrics::counter!("chuhe_searches_started_total").increment(1);
        let outcome = game.search(params, tt, stop, deadline(budget), on_depth);
        self.count_finished(outcome.report.nodes, started, budget);
        outcome
    }

    fn count_finished(&self, nodes: u64, started: Instant, budget: Option<Duration>) {
        let elapsed = started.elapsed();
        metrics::counter!("chuhe_searches_finished_total").increment(1);
        metrics::counter!("chuhe_search_nodes_total").increment(nodes);
        metrics::histogram!("chuhe_search_seconds").record(elapsed.as_secs_f64());
        metrics::gauge!("chuhe_tt_hit_rate").set(self.tt.hit_rate());
        metrics::gauge!("chuhe_tt_fill_ratio").set(self.tt.hashfull() as f64 / 1000.0);
        if let Some(b) = budget
            && elapsed > b + Duration::from_millis(50)
        {
            metrics::counter!("chuhe_search_deadline_overruns_total").increment(1);
        }
    }
}

/// The messages of a streamed search; dropping the stream stops the search.
pub type SearchStream<T> = Pin<Box<dyn Stream<Item = T> + Send>>;

/// A stream that stops its search when dropped.
struct StreamWithGuard<S> {
    inner: S,
    _guard: CancelOnDrop,
}

impl<S: Stream + Unpin> Stream for StreamWithGuard<S> {
    type Item = S::Item;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<Option<S::Item>> {
        Pin::new(&mut self.inner).poll_next(cx)
    }
}

/// Deadline of a search that starts now with this budget.
pub fn deadline(budget: Option<Duration>) -> Option<Instant> {
    budget.map(|b| Instant::now() + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_admitted_late_after_a_wait_is_refused() {
        let now = Instant::now();
        assert!(time_to_search(None, now));
        assert!(time_to_search(Some(now + MIN_SEARCH), now));
        assert!(!time_to_search(Some(now + MIN_SEARCH - Duration::from_millis(1)), now));
        assert!(!time_to_search(Some(now), now + Duration::from_millis(5)), "past its deadline");
    }

    fn one_thread() -> Arc<Engine> {
        Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() })
    }

    /// The scheduling a search of an engine with `priority` runs under.
    #[cfg(target_os = "linux")]
    fn search_thread_priority(priority: SearchPriority) -> priority::Applied {
        let engine =
            Engine::new(EngineConfig { hash_mb: 1, workers: 1, search_priority: priority, ..EngineConfig::default() });
        let permit = engine.try_admit().unwrap();
        let (tx, rx) = mpsc::channel();
        let running = engine.start(permit, move |_, _| tx.send(priority::current()).unwrap()).unwrap();
        running.wait();
        rx.recv().unwrap()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn search_threads_asked_to_idle_run_under_sched_idle() {
        let idle = SearchPriority { idle: true, ..SearchPriority::SERVER };
        assert_eq!(search_thread_priority(idle), priority::Applied::Idle);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn search_threads_not_idle_run_at_a_lower_priority() {
        let here = match priority::current() {
            priority::Applied::Nice(n) => n,
            other => panic!("the test thread runs under {other:?}"),
        };
        let seen = search_thread_priority(SearchPriority { idle: false, nice: 5 });
        assert_eq!(seen, priority::Applied::Nice((here + 5).min(19)));
    }

    #[test]
    fn a_search_waited_for_has_freed_its_thread() {
        let engine = one_thread();
        for _ in 0..200 {
            let permit = engine.try_admit().expect("the only thread is free after wait");
            let running = engine.start(permit, |_, _| {}).expect("the pool runs");
            running.wait();
        }
    }

    /// A caller that heard an answer (or the end of a stream) finds the thread free at
    /// once, without waiting in the queue, however late the search thread runs again.
    #[tokio::test]
    async fn an_answered_search_has_freed_its_thread() {
        use tokio_stream::StreamExt;
        let engine = one_thread();
        for _ in 0..1000 {
            assert_eq!(engine.run(None, |_, _| 7).await, Ok(7));
            drop(engine.try_admit().expect("the only thread is free once the answer came"));
            let mut stream = engine.stream(None, |_, _, send| send(1)).await.expect("admitted");
            while stream.next().await.is_some() {}
            drop(engine.try_admit().expect("the only thread is free once the stream ended"));
        }
    }

    #[test]
    fn stop_reaches_the_running_work() {
        let engine = one_thread();
        let permit = engine.try_admit().unwrap();
        let (tx, rx) = mpsc::channel();
        let running = engine
            .start(permit, move |_, stop| {
                let _ = tx.send(());
                while !stop.load(Ordering::Relaxed) {
                    std::thread::yield_now();
                }
            })
            .unwrap();
        rx.recv().unwrap();
        // The thread is taken while the work runs.
        assert_eq!(engine.try_admit().err(), Some(EngineError::Busy));
        running.stop();
        running.wait();
        assert!(engine.try_admit().is_ok());
    }
}
