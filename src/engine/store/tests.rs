//! The store's logic over a backend that answers, hangs or refuses, as the test says.

use super::*;
use crate::game::{BoardGame, Variant};

/// What the remote backend of these tests does with each operation.
#[derive(Clone, Copy, PartialEq)]
enum Behaviour {
    /// Answers as a store would.
    Answer,
    /// Never answers.
    Hang,
    /// Refuses at once.
    Refuse,
}

/// A remote backend over a memory store, behaving as told, counting the
/// operations that reached it.
struct Remote {
    inner: MemoryStore,
    behaviour: Arc<Mutex<Behaviour>>,
    calls: Arc<AtomicU64>,
}

impl Remote {
    fn op<'a, T: Send + 'a>(&'a self, answer: Result<T, StoreError>) -> StoreFuture<'a, T> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        let behaviour = *self.behaviour.lock().unwrap();
        Box::pin(async move {
            match behaviour {
                Behaviour::Answer => answer,
                Behaviour::Hang => std::future::pending().await,
                Behaviour::Refuse => Err(StoreError::Unreachable("refused".into())),
            }
        })
    }
}

impl Backend for Remote {
    fn name(&self) -> &'static str {
        "remote"
    }
    fn remote(&self) -> bool {
        true
    }
    fn get<'a>(&'a self, key: &'a str, _max_bytes: usize) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.op(Ok(self.inner.get_now(key)))
    }
    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        let answer = self.inner.put_now(key, value, ttl);
        self.op(answer)
    }
}

/// A store over a [`Remote`] with a timeout of `timeout`; the handles that steer it.
fn remote(timeout: Duration) -> (AnalysisStore, Arc<Mutex<Behaviour>>, Arc<AtomicU64>) {
    let behaviour = Arc::new(Mutex::new(Behaviour::Answer));
    let calls = Arc::new(AtomicU64::new(0));
    let backend = Remote { inner: MemoryStore::new(100, 1 << 20), behaviour: behaviour.clone(), calls: calls.clone() };
    (AnalysisStore::with_backend(Box::new(backend), Duration::from_secs(60), timeout), behaviour, calls)
}

fn entry(key: &StoreKey, depth: u32) -> StoredSearch {
    StoredSearch::one_line(key, depth, vec!["h2e2".into()])
}

fn key(moves: &[&str]) -> StoreKey {
    let mut game = BoardGame::startpos(Variant::Xiangqi);
    game.play_iccs(moves.iter().copied()).unwrap();
    StoreKey::of(&game, 1, "classical", None)
}

/// Waits until `done` holds (written in the background), or gives up after a minute.
async fn until(what: &str, mut done: impl AsyncFnMut() -> bool) {
    let started = Instant::now();
    while !done().await {
        assert!(started.elapsed() < Duration::from_secs(60), "gave up waiting: {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test]
async fn a_write_to_a_store_that_hangs_returns_at_once_and_a_full_queue_drops() {
    // A timeout of an hour: a write on the call's path would hold it that long.
    let (store, behaviour, calls) = remote(Duration::from_secs(3600));
    *behaviour.lock().unwrap() = Behaviour::Hang;
    let k = key(&["h2e2"]);
    let saves = async {
        for _ in 0..WRITE_QUEUE + 10 {
            store.save(&k, &entry(&k, 5), false).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(30), saves).await.expect("every save returns at once");
    // The writer holds one write (waiting on the store); the queue the next ones.
    until("the writer took a write", async || calls.load(Ordering::SeqCst) == 1).await;
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn after_failures_in_a_row_the_store_is_skipped_then_probed() {
    let (store, behaviour, calls) = remote(Duration::from_secs(3600));
    let k = key(&["b2e2"]);
    store.save(&k, &entry(&k, 6), false).await;
    until("the entry is written", async || matches!(store.lookup(&k, |_| true).await, Lookup::Hit(_))).await;
    *behaviour.lock().unwrap() = Behaviour::Refuse;
    let before = calls.load(Ordering::SeqCst);
    for _ in 0..breaker::FAILURES_TO_OPEN + 20 {
        assert_eq!(store.lookup(&k, |_| true).await, Lookup::Miss { stored_depth: None });
        store.save(&k, &entry(&k, 6), false).await;
    }
    // Only the failures that opened the breaker reached the store (a write may have
    // been one of them).
    tokio::time::sleep(Duration::from_millis(50)).await;
    let reached = calls.load(Ordering::SeqCst) - before;
    assert!(reached <= u64::from(breaker::FAILURES_TO_OPEN), "{reached} operations reached a failing store");
    // Once it answers again, the probe after the breaker's time closes it.
    *behaviour.lock().unwrap() = Behaviour::Answer;
    until("the store is used again", async || matches!(store.lookup(&k, |_| true).await, Lookup::Hit(_))).await;
}

#[tokio::test]
async fn a_write_without_a_lookup_keeps_a_deeper_entry() {
    let (store, _behaviour, _calls) = remote(Duration::from_secs(3600));
    let k = key(&["c3c4"]);
    let depth = async || match store.lookup(&k, |_| true).await {
        Lookup::Hit(e) => e.depth,
        Lookup::Miss { .. } => 0,
    };
    store.save(&k, &entry(&k, 9), false).await;
    until("depth 9 stored", async || depth().await == 9).await;
    for _ in 0..5 {
        store.save(&k, &entry(&k, 2), true).await;
    }
    // One writer takes the queue in order: once a later write is there, the shallow
    // ones were handled.
    let marker = key(&["c3c4", "c6c5"]);
    store.save(&marker, &entry(&marker, 1), false).await;
    until("the marker stored", async || matches!(store.lookup(&marker, |_| true).await, Lookup::Hit(_))).await;
    assert_eq!(depth().await, 9, "the deeper entry is kept");
    // A search at least as deep replaces it.
    store.save(&k, &entry(&k, 11), true).await;
    until("depth 11 stored", async || depth().await == 11).await;
    // A write that looked first replaces what is there.
    store.save(&k, &entry(&k, 3), false).await;
    until("depth 3 stored", async || depth().await == 3).await;
}

#[test]
fn a_redis_url_is_shown_without_its_password() {
    let kind = StoreKind::Redis { url: "rediss://chuhe:s3cret@redis:6379/2".into(), password: None };
    let shown = format!("{kind:?}");
    assert!(!shown.contains("s3cret") && shown.contains("redis:6379/2"), "{shown}");
}
