//! The evaluation store: finished searches kept under a key of everything their answer
//! depends on ([`StoreKey`]), so that the same question is searched once and answered
//! to every client and every replica. One trait ([`Backend`]) with two stores: the
//! server's own memory ([`MemoryStore`], bounded, least recently used out first) and a
//! Redis shared by the replicas ([`RedisStore`]).
//!
//! The store never makes a call slower, wrong or failed: [`AnalysisStore`] bounds each
//! lookup and write by a short timeout, ignores an entry that does not decode or was
//! searched by another engine or evaluation, counts every failure in the metrics and
//! logs it now and then, and a failed lookup is a miss (the caller searches).

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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
            StoreError::Config(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for StoreError {}

/// What a store's operation returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// A place to keep entries: bytes under a key, for a time to live.
pub trait Backend: Send + Sync {
    /// Its name in the metrics (`memory`, `redis`).
    fn name(&self) -> &'static str;
    /// The value under `key`, if any.
    fn get<'a>(&'a self, key: &'a str) -> StoreFuture<'a, Option<Vec<u8>>>;
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
}

impl StoreConfig {
    /// No store.
    pub fn off() -> StoreConfig {
        StoreConfig { kind: StoreKind::Off, ..StoreConfig::default() }
    }
}

impl Default for StoreConfig {
    /// The server's memory, 100,000 entries or 64 MiB, entries kept a day, 25 ms per
    /// operation.
    fn default() -> StoreConfig {
        StoreConfig {
            kind: StoreKind::Memory { max_entries: 100_000, max_bytes: 64 << 20 },
            ttl: Duration::from_secs(86_400),
            timeout: Duration::from_millis(25),
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

/// A store as the engine uses it: each operation bounded, counted and never an error
/// for the caller (see the module documentation).
pub struct AnalysisStore {
    backend: Box<dyn Backend>,
    ttl: Duration,
    timeout: Duration,
    complaints: Complaints,
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

    /// A store over `backend`.
    pub fn with_backend(backend: Box<dyn Backend>, ttl: Duration, timeout: Duration) -> AnalysisStore {
        let complaints = Complaints { last: Mutex::new(None), unlogged: AtomicU64::new(0) };
        AnalysisStore { backend, ttl, timeout, complaints }
    }

    /// Its name in the metrics.
    pub fn name(&self) -> &'static str {
        self.backend.name()
    }

    fn failed(&self, op: &'static str, e: &StoreError) {
        metrics::counter!("chuhe_analysis_cache_errors_total", "store" => self.name(), "op" => op, "kind" => e.label())
            .increment(1);
        self.complaints.note(self.name(), op, e);
    }

    /// The entry under `key` if it is ours and `deep_enough` accepts it; a miss
    /// otherwise, and whenever the store fails or is slow.
    pub async fn lookup(&self, key: &StoreKey, deep_enough: impl FnOnce(&StoredSearch) -> bool) -> Lookup {
        let started = Instant::now();
        let got = tokio::time::timeout(self.timeout, self.backend.get(key.as_str())).await;
        metrics::histogram!("chuhe_analysis_cache_lookup_seconds", "store" => self.name())
            .record(started.elapsed().as_secs_f64());
        let (result, lookup) = match got.unwrap_or(Err(StoreError::Timeout)) {
            Err(e) => {
                self.failed("lookup", &e);
                ("error", Lookup::Miss { stored_depth: None })
            }
            Ok(None) => ("miss", Lookup::Miss { stored_depth: None }),
            Ok(Some(bytes)) => match StoredSearch::decode(&bytes, key.as_str(), key.evaluation()) {
                None => ("ignored", Lookup::Miss { stored_depth: None }),
                Some(entry) if deep_enough(&entry) => ("hit", Lookup::Hit(entry)),
                Some(entry) => ("shallow", Lookup::Miss { stored_depth: Some(entry.depth) }),
            },
        };
        metrics::counter!("chuhe_analysis_cache_lookups_total", "store" => self.name(), "result" => result)
            .increment(1);
        lookup
    }

    /// Keeps `entry` under `key` for the store's time to live; a failure is counted and
    /// logged, never returned.
    pub async fn save(&self, key: &StoreKey, entry: &StoredSearch) {
        let put = self.backend.put(key.as_str(), entry.encode(), self.ttl);
        match tokio::time::timeout(self.timeout, put).await.unwrap_or(Err(StoreError::Timeout)) {
            Ok(()) => {
                metrics::counter!("chuhe_analysis_cache_writes_total", "store" => self.name()).increment(1);
            }
            Err(e) => self.failed("write", &e),
        }
    }
}

fn describe_metrics() {
    metrics::describe_counter!(
        "chuhe_analysis_cache_lookups_total",
        "analysis store lookups, by store and result (hit, miss, shallow, ignored, error)"
    );
    metrics::describe_counter!("chuhe_analysis_cache_writes_total", "searches written to the analysis store");
    metrics::describe_counter!(
        "chuhe_analysis_cache_errors_total",
        "analysis store failures, by store, operation (lookup, write) and kind (timeout, unreachable, full)"
    );
    metrics::describe_histogram!("chuhe_analysis_cache_lookup_seconds", "time of an analysis store lookup");
    metrics::describe_counter!("chuhe_analysis_cache_evictions_total", "entries evicted from the memory store");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_redis_url_is_shown_without_its_password() {
        let kind = StoreKind::Redis { url: "rediss://chuhe:s3cret@redis:6379/2".into(), password: None };
        let shown = format!("{kind:?}");
        assert!(!shown.contains("s3cret") && shown.contains("redis:6379/2"), "{shown}");
    }
}
