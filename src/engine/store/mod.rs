//! The evaluation store: finished searches kept under a key of everything their answer
//! depends on ([`StoreKey`]), so that the same question is searched once and answered
//! to every client and every replica. One trait ([`Backend`]) with two stores: the
//! server's own memory ([`MemoryStore`], bounded, least recently used out first) and a
//! Redis shared by the replicas ([`RedisStore`]).
//!
//! The store never makes a call wrong or failed, and a call pays at most one lookup's
//! timeout for it: [`AnalysisStore`] bounds each lookup by a short timeout, writes to a
//! remote store in the background (a bounded queue: a write beyond it is dropped and
//! counted), skips a store that failed several times in a row for a while (its
//! [`breaker`]), ignores an entry that is too long, does not decode or was searched by
//! another engine or evaluation, counts every failure in the metrics and logs it now
//! and then, and a failed lookup is a miss (the caller searches).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub mod breaker;
mod entry;
mod key;
mod memory;
mod redis;

pub use entry::{ENGINE_VERSION, FORMAT, StoredLimits, StoredLine, StoredScore, StoredSearch};
pub use key::{KEY_PREFIX, StoreKey};
pub use memory::MemoryStore;
pub use redis::RedisStore;

/// Why a store did not answer or did not keep an entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// It did not answer within the timeout.
    Timeout,
    /// It could not be reached, or failed the command.
    Unreachable(String),
    /// It had no room for the entry.
    Full,
    /// It refused the credentials (a wrong or missing password or user).
    Auth(String),
    /// The value stored is longer than the bound (its length): not fetched.
    Oversized(u64),
    /// It cannot be set up as configured (a bad URL).
    Config(String),
}

impl StoreError {
    /// The metrics label of the error.
    fn label(&self) -> &'static str {
        match self {
            StoreError::Timeout => "timeout",
            StoreError::Unreachable(_) => "unreachable",
            StoreError::Full => "full",
            StoreError::Auth(_) => "auth",
            StoreError::Oversized(_) => "oversized",
            StoreError::Config(_) => "config",
        }
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::Timeout => f.write_str("timed out"),
            StoreError::Unreachable(e) => write!(f, "unreachable: {e}"),
            StoreError::Full => f.write_str("full"),
            StoreError::Auth(e) => write!(f, "refused the credentials: {e}"),
            StoreError::Oversized(len) => write!(f, "a stored value of {len} bytes, above {MAX_VALUE_BYTES}"),
            StoreError::Config(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for StoreError {}

/// What a store's operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// The longest value a lookup reads (256 KiB, four times an entry of 64 lines of the
/// longest principal variations): a longer one is not fetched nor decoded.
pub const MAX_VALUE_BYTES: usize = 256 << 10;

/// A place to keep entries: bytes under a key, for a time to live.
pub trait Backend: Send + Sync + 'static {
    /// Its name in the metrics (`memory`, `redis`).
    fn name(&self) -> &'static str;
    /// Whether it lies outside the process, so that a write may wait on a network:
    /// such writes are made in the background.
    fn remote(&self) -> bool;
    /// The value under `key`, if any; one longer than `max_bytes` is not fetched
    /// ([`StoreError::Oversized`]).
    fn get<'a>(&'a self, key: &'a str, max_bytes: usize) -> StoreFuture<'a, Option<Vec<u8>>>;
    /// Keeps `value` under `key` for `ttl`, replacing what was there.
    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()>;
}

/// Which store a server uses.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreKind {
    /// None: every call searches.
    Off,
    /// The server's own memory, bounded by both.
    Memory {
        /// Most entries kept.
        max_entries: usize,
        /// Most bytes kept (keys, values and bookkeeping).
        max_bytes: usize,
    },
    /// A Redis shared by the replicas.
    Redis {
        /// `redis://HOST:PORT[/DB]` or `rediss://` (TLS), with `user:password@` if any.
        url: String,
        /// A password instead of the URL's (read from a file by `chuhe serve`).
        password: Option<String>,
    },
}

impl fmt::Debug for StoreKind {
    /// Never shows a password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreKind::Off => f.write_str("Off"),
            StoreKind::Memory { max_entries, max_bytes } => {
                write!(f, "Memory {{ max_entries: {max_entries}, max_bytes: {max_bytes} }}")
            }
            StoreKind::Redis { url, .. } => write!(f, "Redis {{ {} }}", redacted(url)),
        }
    }
}

/// A Redis URL without its user and password.
fn redacted(url: &str) -> String {
    match (url.split_once("://"), url.rfind('@')) {
        (Some((scheme, _)), Some(at)) => format!("{scheme}://***@{}", &url[at + 1..]),
        _ => url.to_owned(),
    }
}

/// How a server's store is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreConfig {
    /// Which store.
    pub kind: StoreKind,
    /// How long an entry is kept.
    pub ttl: Duration,
    /// The longest a lookup or a write may take before the call goes on without it.
    pub timeout: Duration,
    /// Whether tenants share stored searches (by default each tenant's are its own).
    pub shared_across_tenants: bool,
}

impl StoreConfig {
    /// No store.
    pub fn off() -> StoreConfig {
        StoreConfig { kind: StoreKind::Off, ..StoreConfig::default() }
    }
}

impl Default for StoreConfig {
    /// The server's memory, 100,000 entries or 64 MiB, entries kept a day, 25 ms per
    /// operation, each tenant's searches its own.
    fn default() -> StoreConfig {
        StoreConfig {
            kind: StoreKind::Memory { max_entries: 100_000, max_bytes: 64 << 20 },
            ttl: Duration::from_secs(86_400),
            timeout: Duration::from_millis(25),
            shared_across_tenants: false,
        }
    }
}

/// What a lookup found.
#[derive(Clone, Debug, PartialEq)]
pub enum Lookup {
    /// An entry that answers the question.
    Hit(StoredSearch),
    /// None that does: the caller searches; `stored_depth` is the depth of an entry that
    /// was there but not deep enough.
    Miss {
        /// The depth of the entry found too shallow, if any.
        stored_depth: Option<u32>,
    },
}

/// The minimum time between two log lines about a failing store.
const COMPLAINT_INTERVAL: Duration = Duration::from_secs(30);

/// Logs a store's failures at most once per [`COMPLAINT_INTERVAL`], saying how many
/// went unlogged in between.
struct Complaints {
    last: Mutex<Option<Instant>>,
    unlogged: AtomicU64,
}

impl Complaints {
    fn note(&self, store: &str, op: &str, e: &StoreError) {
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        if last.is_some_and(|t| t.elapsed() < COMPLAINT_INTERVAL) {
            self.unlogged.fetch_add(1, Ordering::Relaxed);
            return;
        }
        *last = Some(Instant::now());
        drop(last);
        let unlogged = self.unlogged.swap(0, Ordering::Relaxed);
        tracing::warn!(store, op, error = %e, unlogged, "analysis store failed; searching without it");
    }
}

/// The writes waiting for a remote store: a write beyond them is dropped and counted.
pub const WRITE_QUEUE: usize = 256;

/// A search to write: its key, its entry's bytes and depth, and whether a deeper entry
/// already stored is kept (a search that did not look first).
struct Write {
    key: StoreKey,
    bytes: Vec<u8>,
    depth: u32,
    unless_deeper: bool,
}

/// What the lookups and the background writer share.
struct Shared {
    backend: Box<dyn Backend>,
    ttl: Duration,
    timeout: Duration,
    complaints: Complaints,
    breaker: breaker::Breaker,
    /// An authentication failure was logged and nothing has answered since.
    auth_reported: AtomicBool,
}

/// A store as the engine uses it: each operation bounded, counted and never an error
/// for the caller (see the module documentation).
pub struct AnalysisStore {
    shared: Arc<Shared>,
    /// The background writer's queue (a remote store); none: written on the call.
    writes: Option<tokio::sync::mpsc::Sender<Write>>,
}

impl AnalysisStore {
    /// The store `config` names, or `None` when it is off. Connects to a Redis lazily:
    /// call within a Tokio runtime.
    pub fn open(config: &StoreConfig) -> Result<Option<AnalysisStore>, StoreError> {
        let backend: Box<dyn Backend> = match &config.kind {
            StoreKind::Off => return Ok(None),
            StoreKind::Memory { max_entries, max_bytes } => Box::new(MemoryStore::new(*max_entries, *max_bytes)),
            StoreKind::Redis { url, password } => {
                Box::new(RedisStore::connect(url, password.as_deref(), config.timeout)?)
            }
        };
        describe_metrics();
        Ok(Some(AnalysisStore::with_backend(backend, config.ttl, config.timeout)))
    }

    /// A store over `backend`; a remote one gets its background writer, so call within
    /// a Tokio runtime.
    pub fn with_backend(backend: Box<dyn Backend>, ttl: Duration, timeout: Duration) -> AnalysisStore {
        let complaints = Complaints { last: Mutex::new(None), unlogged: AtomicU64::new(0) };
        let remote = backend.remote();
        let shared = Arc::new(Shared {
            backend,
            ttl,
            timeout,
            complaints,
            breaker: breaker::Breaker::default(),
            auth_reported: AtomicBool::new(false),
        });
        let writes = remote.then(|| {
            let (tx, mut rx) = tokio::sync::mpsc::channel::<Write>(WRITE_QUEUE);
            let shared = shared.clone();
            // Ends when the store is dropped and its queue drained.
            tokio::spawn(async move {
                while let Some(write) = rx.recv().await {
                    shared.write(write).await;
                }
            });
            tx
        });
        AnalysisStore { shared, writes }
    }

    /// Its name in the metrics.
    pub fn name(&self) -> &'static str {
        self.shared.backend.name()
    }

    /// The entry under `key` if it is ours and `deep_enough` accepts it; a miss
    /// otherwise, and whenever the store fails, is slow or is skipped by its breaker.
    pub async fn lookup(&self, key: &StoreKey, deep_enough: impl FnOnce(&StoredSearch) -> bool) -> Lookup {
        let s = &self.shared;
        let (result, lookup) = match s.get(key).await {
            Got::Skipped => ("skipped", Lookup::Miss { stored_depth: None }),
            Got::Failed => ("error", Lookup::Miss { stored_depth: None }),
            Got::Oversized => ("oversized", Lookup::Miss { stored_depth: None }),
            Got::Nothing => ("miss", Lookup::Miss { stored_depth: None }),
            Got::Entry(None) => ("ignored", Lookup::Miss { stored_depth: None }),
            Got::Entry(Some(entry)) if deep_enough(&entry) => ("hit", Lookup::Hit(entry)),
            Got::Entry(Some(entry)) => ("shallow", Lookup::Miss { stored_depth: Some(entry.depth) }),
        };
        metrics::counter!("chuhe_analysis_cache_lookups_total", "store" => self.name(), "result" => result)
            .increment(1);
        lookup
    }

    /// Keeps `entry` under `key` for the store's time to live; with `unless_deeper`
    /// (the caller did not look first), not over a deeper entry stored there. A remote
    /// store is written in the background: this returns at once, and a write the queue
    /// has no room for is dropped and counted. A failure is counted and logged, never
    /// returned.
    pub async fn save(&self, key: &StoreKey, entry: &StoredSearch, unless_deeper: bool) {
        let write = Write { key: key.clone(), bytes: entry.encode(), depth: entry.depth, unless_deeper };
        match &self.writes {
            None => self.shared.write(write).await,
            Some(queue) => {
                if queue.try_send(write).is_err() {
                    self.shared.dropped("queue_full");
                }
            }
        }
    }
}

/// What a bounded read of the store found.
enum Got {
    /// The breaker skipped the store.
    Skipped,
    /// The store failed or did not answer in time.
    Failed,
    /// A value above [`MAX_VALUE_BYTES`], not fetched.
    Oversized,
    /// No value.
    Nothing,
    /// A value: the entry, if it decodes and is ours.
    Entry(Option<StoredSearch>),
}

impl Shared {
    fn name(&self) -> &'static str {
        self.backend.name()
    }

    /// A read of `key`, bounded by the timeout, through the breaker.
    async fn get(&self, key: &StoreKey) -> Got {
        if !self.breaker.admit(Instant::now()) {
            return Got::Skipped;
        }
        let started = Instant::now();
        let got = tokio::time::timeout(self.timeout, self.backend.get(key.as_str(), MAX_VALUE_BYTES)).await;
        metrics::histogram!("chuhe_analysis_cache_lookup_seconds", "store" => self.name())
            .record(started.elapsed().as_secs_f64());
        match got.unwrap_or(Err(StoreError::Timeout)) {
            Err(StoreError::Oversized(len)) => {
                // Counted as the lookup's result; the store itself answered.
                self.answered();
                self.complaints.note(self.name(), "lookup", &StoreError::Oversized(len));
                Got::Oversized
            }
            Err(e) => {
                self.failed("lookup", &e);
                Got::Failed
            }
            Ok(None) => {
                self.answered();
                Got::Nothing
            }
            Ok(Some(bytes)) => {
                self.answered();
                Got::Entry(StoredSearch::decode(&bytes, key.as_str(), key.evaluation()))
            }
        }
    }

    /// Writes `w` (bounded by the timeout, through the breaker).
    async fn write(&self, w: Write) {
        if w.unless_deeper {
            match self.get(&w.key).await {
                Got::Skipped | Got::Failed => return self.dropped("unreachable"),
                Got::Entry(Some(stored)) if stored.depth > w.depth => return self.dropped("deeper_stored"),
                _ => {}
            }
        } else if !self.breaker.admit(Instant::now()) {
            return self.dropped("unreachable");
        }
        let put = self.backend.put(w.key.as_str(), w.bytes, self.ttl);
        match tokio::time::timeout(self.timeout, put).await.unwrap_or(Err(StoreError::Timeout)) {
            Ok(()) => {
                self.answered();
                metrics::counter!("chuhe_analysis_cache_writes_total", "store" => self.name()).increment(1);
            }
            Err(e) => self.failed("write", &e),
        }
    }

    fn dropped(&self, reason: &'static str) {
        metrics::counter!("chuhe_analysis_cache_writes_dropped_total", "store" => self.name(), "reason" => reason)
            .increment(1);
    }

    /// The store answered: the breaker closes.
    fn answered(&self) {
        if self.breaker.succeeded() == breaker::Change::Closed {
            metrics::gauge!("chuhe_analysis_cache_breaker_open", "store" => self.name()).set(0.0);
            tracing::info!(store = self.name(), "analysis store answers again");
        }
        self.auth_reported.store(false, Ordering::Relaxed);
    }

    fn failed(&self, op: &'static str, e: &StoreError) {
        metrics::counter!("chuhe_analysis_cache_errors_total", "store" => self.name(), "op" => op, "kind" => e.label())
            .increment(1);
        if self.breaker.failed(Instant::now()) == breaker::Change::Opened {
            metrics::gauge!("chuhe_analysis_cache_breaker_open", "store" => self.name()).set(1.0);
            metrics::counter!("chuhe_analysis_cache_breaker_trips_total", "store" => self.name()).increment(1);
        }
        match e {
            // Said once, plainly: no retry will mend a wrong password.
            StoreError::Auth(_) if !self.auth_reported.swap(true, Ordering::Relaxed) => {
                tracing::error!(store = self.name(), error = %e, "analysis store refused the credentials: check its password; searching without it");
            }
            StoreError::Auth(_) => {}
            _ => self.complaints.note(self.name(), op, e),
        }
    }
}

fn describe_metrics() {
    metrics::describe_counter!(
        "chuhe_analysis_cache_lookups_total",
        "analysis store lookups, by store and result (hit, miss, shallow, ignored, oversized, error, skipped)"
    );
    metrics::describe_counter!("chuhe_analysis_cache_writes_total", "searches written to the analysis store");
    metrics::describe_counter!(
        "chuhe_analysis_cache_writes_dropped_total",
        "searches not written, by store and reason (queue_full, unreachable, deeper_stored)"
    );
    metrics::describe_counter!(
        "chuhe_analysis_cache_errors_total",
        "analysis store failures, by store, operation (lookup, write) and kind (timeout, unreachable, auth, full)"
    );
    metrics::describe_gauge!(
        "chuhe_analysis_cache_breaker_open",
        "1 while the store is skipped after failures in a row"
    );
    metrics::describe_counter!("chuhe_analysis_cache_breaker_trips_total", "times the store's breaker opened");
    metrics::describe_histogram!("chuhe_analysis_cache_lookup_seconds", "time of an analysis store lookup");
    metrics::describe_counter!("chuhe_analysis_cache_evictions_total", "entries evicted from the memory store");
}

#[cfg(test)]
mod tests;
