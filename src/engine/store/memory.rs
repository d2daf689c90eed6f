//! The store in the server's own memory: bounded in entries and in bytes, the least
//! recently used entry evicted first, each entry kept at most its time to live.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{Backend, StoreError, StoreFuture};

/// What an entry costs beyond its key and value (map slots, order index, allocation).
const ENTRY_OVERHEAD: usize = 96;

/// The in-process store (see the module documentation).
pub struct MemoryStore {
    max_entries: usize,
    max_bytes: usize,
    inner: Mutex<Lru>,
}

#[derive(Default)]
struct Lru {
    slots: HashMap<String, Slot>,
    /// Keys by last use, oldest first.
    order: BTreeMap<u64, String>,
    tick: u64,
    bytes: usize,
}

struct Slot {
    value: Vec<u8>,
    expires: Instant,
    used: u64,
}

fn cost(key: &str, value: &[u8]) -> usize {
    key.len() + value.len() + ENTRY_OVERHEAD
}

impl Lru {
    fn remove(&mut self, key: &str) {
        if let Some(slot) = self.slots.remove(key) {
            self.order.remove(&slot.used);
            self.bytes -= cost(key, &slot.value);
        }
    }

    fn evict_oldest(&mut self) -> bool {
        let Some((_, key)) = self.order.pop_first() else { return false };
        if let Some(slot) = self.slots.remove(&key) {
            self.bytes -= cost(&key, &slot.value);
        }
        metrics::counter!("chuhe_analysis_cache_evictions_total").increment(1);
        true
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }
}

impl MemoryStore {
    /// A store of at most `max_entries` entries and `max_bytes` bytes (keys, values and
    /// their bookkeeping).
    pub fn new(max_entries: usize, max_bytes: usize) -> MemoryStore {
        MemoryStore { max_entries: max_entries.max(1), max_bytes, inner: Mutex::new(Lru::default()) }
    }

    /// Entries held now.
    pub fn len(&self) -> usize {
        self.lock().slots.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held now, as the bound counts them.
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Lru> {
        // The map is left whole by every operation, so a panic elsewhere cannot spoil it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The value under `key`, if present and not expired (it becomes the most recently
    /// used).
    pub fn get_now(&self, key: &str) -> Option<Vec<u8>> {
        let mut lru = self.lock();
        let now = Instant::now();
        let expired = lru.slots.get(key).map(|s| s.expires <= now)?;
        if expired {
            lru.remove(key);
            return None;
        }
        let tick = lru.next_tick();
        let slot = lru.slots.get_mut(key)?;
        let previous = std::mem::replace(&mut slot.used, tick);
        let value = slot.value.clone();
        lru.order.remove(&previous);
        lru.order.insert(tick, key.to_owned());
        Some(value)
    }

    /// Stores `value` under `key` for `ttl`, evicting the least recently used entries
    /// until both bounds hold; a value larger than the whole store is refused.
    pub fn put_now(&self, key: &str, value: Vec<u8>, ttl: Duration) -> Result<(), StoreError> {
        let size = cost(key, &value);
        if size > self.max_bytes {
            return Err(StoreError::Full);
        }
        let mut lru = self.lock();
        lru.remove(key);
        while lru.slots.len() >= self.max_entries || lru.bytes + size > self.max_bytes {
            if !lru.evict_oldest() {
                break;
            }
        }
        let used = lru.next_tick();
        lru.order.insert(used, key.to_owned());
        lru.bytes += size;
        lru.slots.insert(key.to_owned(), Slot { value, expires: Instant::now() + ttl, used });
        Ok(())
    }
}

impl Backend for MemoryStore {
    fn name(&self) -> &'static str {
        "memory"
    }

    fn remote(&self) -> bool {
        false
    }

    fn get<'a>(&'a self, key: &'a str, _max_bytes: usize) -> StoreFuture<'a, Option<Vec<u8>>> {
        // Holds only what this process wrote, each entry within the bound.
        Box::pin(std::future::ready(Ok(self.get_now(key))))
    }

    fn put<'a>(&'a self, key: &'a str, value: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        Box::pin(std::future::ready(self.put_now(key, value, ttl)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOUR: Duration = Duration::from_secs(3600);

    #[test]
    fn the_entry_bound_evicts_the_least_recently_used() {
        let store = MemoryStore::new(2, 1 << 20);
        store.put_now("a", b"1".to_vec(), HOUR).unwrap();
        store.put_now("b", b"2".to_vec(), HOUR).unwrap();
        assert_eq!(store.get_now("a").as_deref(), Some(&b"1"[..]));
        store.put_now("c", b"3".to_vec(), HOUR).unwrap();
        assert_eq!(store.len(), 2);
        assert_eq!(store.get_now("b"), None, "b was used least recently");
        assert!(store.get_now("a").is_some() && store.get_now("c").is_some());
    }

    #[test]
    fn the_byte_bound_holds_and_evicts_in_order() {
        let value = vec![7u8; 1000];
        let one = cost("k00", &value);
        let store = MemoryStore::new(1000, one * 3);
        for i in 0..10 {
            store.put_now(&format!("k{i:02}"), value.clone(), HOUR).unwrap();
            assert!(store.bytes() <= one * 3);
        }
        assert_eq!(store.len(), 3);
        assert!((7..10).all(|i| store.get_now(&format!("k{i:02}")).is_some()));
        assert!((0..7).all(|i| store.get_now(&format!("k{i:02}")).is_none()));
        assert!(matches!(store.put_now("huge", vec![0; one * 4], HOUR), Err(StoreError::Full)));
    }

    #[test]
    fn replacing_an_entry_keeps_the_count_and_bytes_right() {
        let store = MemoryStore::new(10, 1 << 20);
        store.put_now("a", vec![1; 100], HOUR).unwrap();
        store.put_now("a", vec![2; 10], HOUR).unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(store.bytes(), cost("a", &[0; 10]));
        assert_eq!(store.get_now("a"), Some(vec![2; 10]));
    }

    #[test]
    fn an_expired_entry_is_gone() {
        let store = MemoryStore::new(10, 1 << 20);
        store.put_now("a", b"1".to_vec(), Duration::ZERO).unwrap();
        assert_eq!(store.get_now("a"), None);
        assert!(store.is_empty());
        assert_eq!(store.bytes(), 0);
    }
}
