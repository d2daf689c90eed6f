//! The analysis engine behind AnalysisService: one shared transposition table, a
//! dedicated pool of search threads (never the async workers), and admission that
//! refuses at once with RESOURCE_EXHAUSTED when no search thread frees up in time.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore, oneshot};
use tokio_stream::Stream;
use tonic::Status;

use crate::search::tt::TranspositionTable;

type Job = Box<dyn FnOnce() + Send + 'static>;

#[derive(Clone, Debug)]
pub struct EngineConfig {
    pub hash_mb: usize,
    /// Searches that run at once (each a pool thread, plus its helper threads).
    pub workers: usize,
    /// Threads per search (Lazy SMP).
    pub threads_per_search: usize,
    /// Longest time budget a request may ask for.
    pub max_analysis: Duration,
    /// Budget when a request sets no limit at all.
    pub default_analysis: Duration,
    /// How long a request may wait for a free search thread before it is refused.
    pub max_queue_wait: Duration,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            hash_mb: 64,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            threads_per_search: 1,
            max_analysis: Duration::from_secs(10),
            default_analysis: Duration::from_millis(1000),
            max_queue_wait: Duration::from_millis(50),
        }
    }
}

pub struct Engine {
    pub config: EngineConfig,
    pub tt: Arc<TranspositionTable>,
    permits: Arc<Semaphore>,
    jobs: Mutex<mpsc::Sender<Job>>,
}

/// Raises a search's stop flag when dropped: a request whose future is dropped (the
/// client cancelled, or the deadline layer gave up) stops its search at once.
pub struct CancelOnDrop(pub Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

impl Engine {
    pub fn new(config: EngineConfig) -> Arc<Engine> {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let workers = config.workers.max(1);
        for i in 0..workers {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new().name(format!("search-{i}")).spawn(move || {
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
            config,
        })
    }

    /// Waits (briefly) for a free search thread; RESOURCE_EXHAUSTED when none frees up
    /// within the queue wait.
    pub async fn admit(&self) -> Result<OwnedSemaphorePermit, Status> {
        if let Ok(p) = self.permits.clone().try_acquire_owned() {
            return Ok(p);
        }
        match tokio::time::timeout(self.config.max_queue_wait, self.permits.clone().acquire_owned()).await {
            Ok(Ok(p)) => Ok(p),
            _ => {
                metrics::counter!("chuhe_search_rejected_total").increment(1);
                Err(Status::resource_exhausted("all search threads are busy; retry later"))
            }
        }
    }

    /// Runs `work` on a search thread; the permit is released when it finishes.
    pub fn spawn(&self, permit: OwnedSemaphorePermit, work: impl FnOnce() + Send + 'static) -> Result<(), Status> {
        let job: Job = Box::new(move || {
            work();
            drop(permit);
        });
        let sender = self.jobs.lock().map_err(|_| Status::internal("search pool poisoned"))?;
        sender.send(job).map_err(|_| Status::unavailable("search pool stopped"))
    }

    /// Admits a search, runs `work` on a search thread and waits for its answer. The
    /// stop flag `work` is given is raised when the returned future is dropped (the
    /// client cancelled, or the deadline layer gave up).
    pub async fn run<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Engine, &AtomicBool) -> T + Send + 'static,
    ) -> Result<T, Status> {
        let permit = self.admit().await?;
        let stop = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(stop.clone());
        let (tx, rx) = oneshot::channel();
        let engine = self.clone();
        self.spawn(permit, move || {
            let _ = tx.send(work(&engine, &stop));
        })?;
        rx.await.map_err(|_| Status::internal("search thread ended without an answer"))
    }

    /// Admits a search and runs `work` on a search thread; each message `work` sends
    /// goes out on the returned stream. Dropping the stream (the client went away)
    /// raises the stop flag `work` is given, and so does a send that finds the stream
    /// closed.
    pub async fn stream<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Engine, &AtomicBool, &mut dyn FnMut(T)) + Send + 'static,
    ) -> Result<GuardedStream<T>, Status> {
        let permit = self.admit().await?;
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = tokio::sync::mpsc::channel::<Result<T, Status>>(16);
        let engine = self.clone();
        let flag = stop.clone();
        self.spawn(permit, move || {
            let mut send = |message: T| {
                if tx.blocking_send(Ok(message)).is_err() {
                    flag.store(true, Ordering::Relaxed);
                }
            };
            work(&engine, &flag, &mut send);
        })?;
        let inner = tokio_stream::wrappers::ReceiverStream::new(rx);
        Ok(Box::pin(StreamWithGuard { inner, _guard: CancelOnDrop(stop) }))
    }

    /// The time budget of a request: its own (capped), the default when it sets no
    /// limit, and never past the client's deadline (less a margin to answer in).
    pub fn budget(
        &self,
        requested_ms: u32,
        has_other_limit: bool,
        client_timeout: Option<Duration>,
    ) -> Option<Duration> {
        let mut budget = if requested_ms > 0 {
            Some(Duration::from_millis(requested_ms as u64).min(self.config.max_analysis))
        } else if has_other_limit {
            Some(self.config.max_analysis)
        } else {
            Some(self.config.default_analysis)
        };
        if let Some(t) = client_timeout {
            let margin = (t / 20).clamp(Duration::from_millis(2), Duration::from_millis(50));
            let cap = t.saturating_sub(margin);
            budget = Some(budget.map_or(cap, |b| b.min(cap)));
        }
        budget
    }
}

/// The messages of a streamed search; dropping the stream stops the search.
pub type GuardedStream<T> = Pin<Box<dyn Stream<Item = Result<T, Status>> + Send>>;

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
