//! The transposition table shared by every thread of every request.
//!
//! Each slot is two `AtomicU64`: `key ^ data` and `data`. A reader accepts an entry only
//! when `stored_key ^ data == key`, so a slot torn by two writers racing is read as a
//! miss instead of as wrong data (the lock-free scheme of well-known chess engines).
//! Slots are grouped in buckets of four, one cache line each (so a probe costs one
//! memory access, which the search starts early with [`TranspositionTable::prefetch`]);
//! a write replaces the entry of the same key, or the one that is shallowest and oldest. Each search raises the generation so entries
//! of finished searches age out first. Callers mix the variant into the key.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::rules::types::Move;

const BUCKET: usize = 4;

/// How a stored score bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The stored score is the true one (a principal-variation node).
    Exact,
    /// The true score is at least the stored one (a beta cut-off).
    Lower,
    /// The true score is at most the stored one (no move reached alpha).
    Upper,
}

/// What a probe finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The best move found, if any.
    pub mv: Option<Move>,
    /// The score, relative to the node for mates.
    pub score: i16,
    /// The static evaluation (or a variant's own data).
    pub eval: i16,
    /// The depth searched.
    pub depth: u8,
    /// How the score bounds the true score.
    pub bound: Bound,
}

struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

/// The slots one key may use, aligned to a cache line: a bucket that straddled two
/// lines would cost a probe two memory accesses.
#[repr(C, align(64))]
struct Bucket([Slot; BUCKET]);

impl Bucket {
    fn empty() -> Bucket {
        Bucket(std::array::from_fn(|_| Slot { check: AtomicU64::new(0), data: AtomicU64::new(0) }))
    }
}

/// The size of a huge page of memory (x86-64 and most 64-bit Linux systems).
const HUGE_PAGE: usize = 2 * 1024 * 1024;

/// The table's buckets, in memory the system is asked to back with huge pages where
/// the table spans at least one (Linux, `MADV_HUGEPAGE`): a probe lands on a random
/// bucket, and with 4 KiB pages nearly every probe of a large table also misses the
/// processor's page cache (TLB). The table starts on a huge page boundary inside a
/// slightly larger allocation; the skipped part (under one huge page) is zeroed like
/// the rest but never read.
struct Buckets {
    storage: Vec<Bucket>,
    start: usize,
}

impl Buckets {
    /// `len` empty buckets.
    fn new(len: usize) -> Buckets {
        let bytes = len * std::mem::size_of::<Bucket>();
        if bytes < HUGE_PAGE {
            return Buckets { storage: (0..len).map(|_| Bucket::empty()).collect(), start: 0 };
        }
        let per_page = HUGE_PAGE / std::mem::size_of::<Bucket>();
        let mut storage: Vec<Bucket> = Vec::with_capacity(len + per_page);
        let at = storage.as_ptr() as usize;
        let start = (at.next_multiple_of(HUGE_PAGE) - at) / std::mem::size_of::<Bucket>();
        advise_huge_pages(at + start * std::mem::size_of::<Bucket>(), bytes / HUGE_PAGE * HUGE_PAGE);
        // Written only now, so that the pages the system maps are the huge ones asked for.
        storage.resize_with(start + len, Bucket::empty);
        Buckets { storage, start }
    }
}

impl std::ops::Deref for Buckets {
    type Target = [Bucket];

    #[inline(always)]
    fn deref(&self) -> &[Bucket] {
        &self.storage[self.start..]
    }
}

/// Asks the system to back `bytes` of memory from `at` (aligned to a huge page, inside
/// an allocation not yet written) with huge pages. Only advice: where the system has
/// none to give, the table works the same on small pages.
fn advise_huge_pages(at: usize, bytes: usize) {
    #[cfg(target_os = "linux")]
    // SAFETY: madvise reads and writes no memory; MADV_HUGEPAGE only changes how the
    // pages of this range, which the allocation owns, will be mapped.
    unsafe {
        libc::madvise(at as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (at, bytes);
}

/// A table of searched positions shared by the search threads: buckets of entries
/// replaced by depth and age, read and written without locks (each entry checked
/// against its key).
pub struct TranspositionTable {
    buckets: Buckets,
    generation: AtomicU8,
    probes: AtomicU64,
    hits: AtomicU64,
}

// data layout: move 16 | score 16 | eval 16 | depth 8 | bound 2 | generation 6
fn pack(mv: Option<Move>, score: i16, eval: i16, depth: u8, bound: Bound, generation: u8) -> u64 {
    let m = mv.map_or(0u64, |m| encode_move(m) as u64);
    let b = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    m | (score as u16 as u64) << 16
        | (eval as u16 as u64) << 32
        | (depth as u64) << 48
        | b << 56
        | ((generation & 63) as u64) << 58
}

fn encode_move(m: Move) -> u16 {
    // 0 means "no move"; a real move is stored with its top bit set.
    (m.from().index() as u16 | (m.to().index() as u16) << 7) | 0x8000
}

fn decode_move(v: u16) -> Option<Move> {
    if v & 0x8000 == 0 {
        return None;
    }
    let from = crate::rules::types::Square::from_index((v & 0x7f) as usize)?;
    let to = crate::rules::types::Square::from_index(((v >> 7) & 0x7f) as usize)?;
    Some(Move::new(from, to))
}

impl TranspositionTable {
    /// A table of the largest power of two of bytes within `mb` mebibytes (at least
    /// one mebibyte): `mb` itself when it is a power of two.
    pub fn new(mb: usize) -> TranspositionTable {
        let want = mb.max(1) * 1024 * 1024 / 16;
        // The largest power of two not above `want` (it was halved even when `want` was
        // one, giving half the table asked for).
        let slots = if want.is_power_of_two() { want } else { want.next_power_of_two() / 2 };
        let buckets = (slots / BUCKET).max(1);
        let table = TranspositionTable {
            buckets: Buckets::new(buckets),
            generation: AtomicU8::new(0),
            probes: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        };
        table.touch_pages();
        table
    }

    /// Writes one slot of every memory page, so that the system hands the table its
    /// pages now. Zeroed memory is mapped lazily, page by page on first write: left so,
    /// the first searches after a start or a resize pay for it (a 64 MiB table cost the
    /// first search of a process a quarter of a second of system time), and their node
    /// count, which paces their clock checks, no longer tells their time.
    fn touch_pages(&self) {
        const BUCKETS_PER_PAGE: usize = 4096 / std::mem::size_of::<Bucket>();
        for bucket in self.buckets.iter().step_by(BUCKETS_PER_PAGE) {
            bucket.0[0].data.store(0, Ordering::Relaxed);
        }
    }

    /// The table's size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Every slot, bucket by bucket.
    fn slots(&self) -> impl Iterator<Item = &Slot> {
        self.buckets.iter().flat_map(|b| &b.0)
    }

    /// Starts a new search generation (older entries are replaced first).
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    fn generation(&self) -> u8 {
        self.generation.load(Ordering::Relaxed) & 63
    }

    /// The bucket of `key`.
    #[inline]
    fn bucket(&self, key: u64) -> &Bucket {
        let index = ((key as u128 * self.buckets.len() as u128) >> 64) as usize;
        &self.buckets[index]
    }

    /// Asks the processor to bring the bucket of `key` into its cache, without waiting
    /// for it: called as soon as a key is known (a move played), the probe that follows
    /// a little later finds the line there instead of stalling on memory.
    #[inline(always)]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            let line: *const Bucket = self.bucket(key);
            // SAFETY: a prefetch is a hint: it reads nothing and cannot fault, and SSE,
            // which it needs, is part of every x86-64 processor.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// The entry stored for `key`, if any; counted in the hit rate.
    #[inline]
    pub fn probe(&self, key: u64) -> Option<Entry> {
        let entry = self.peek(key);
        self.count_probes(1, entry.is_some() as u64);
        entry
    }

    /// Adds probes made by [`TranspositionTable::peek`] to the hit rate: `probes` of them,
    /// `hits` of which found their key. A search thread counts its own and adds them now
    /// and then, so that no probe writes to memory every thread shares.
    pub fn count_probes(&self, probes: u64, hits: u64) {
        self.probes.fetch_add(probes, Ordering::Relaxed);
        self.hits.fetch_add(hits, Ordering::Relaxed);
    }

    /// The entry stored for `key`, if any, not counted in the hit rate (see
    /// [`TranspositionTable::count_probes`]).
    #[inline]
    pub fn peek(&self, key: u64) -> Option<Entry> {
        for slot in &self.bucket(key).0 {
            let data = slot.data.load(Ordering::Relaxed);
            if data != 0 && slot.check.load(Ordering::Relaxed) ^ data == key {
                let bound = match (data >> 56) & 3 {
                    1 => Bound::Exact,
                    2 => Bound::Lower,
                    _ => Bound::Upper,
                };
                return Some(Entry {
                    mv: decode_move(data as u16),
                    score: (data >> 16) as u16 as i16,
                    eval: (data >> 32) as u16 as i16,
                    depth: (data >> 48) as u8,
                    bound,
                });
            }
        }
        None
    }

    /// Stores what a search found for `key`, replacing the least valuable entry of its
    /// bucket.
    #[inline]
    pub fn store(&self, key: u64, mv: Option<Move>, score: i16, eval: i16, depth: u8, bound: Bound) {
        let generation = self.generation();
        let bucket = &self.bucket(key).0;
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, slot) in bucket.iter().enumerate() {
            let data = slot.data.load(Ordering::Relaxed);
            if data == 0 || slot.check.load(Ordering::Relaxed) ^ data == key {
                // Keep a known best move when the new entry has none.
                let mv = mv.or_else(|| if data == 0 { None } else { decode_move(data as u16) });
                let new = pack(mv, score, eval, depth, bound, generation);
                slot.check.store(key ^ new, Ordering::Relaxed);
                slot.data.store(new, Ordering::Relaxed);
                return;
            }
            let age = (generation.wrapping_sub((data >> 58) as u8 & 63) & 63) as i32;
            let value = ((data >> 48) as u8) as i32 - 8 * age;
            if value < worst {
                worst = value;
                victim = i;
            }
        }
        let new = pack(mv, score, eval, depth, bound, generation);
        bucket[victim].check.store(key ^ new, Ordering::Relaxed);
        bucket[victim].data.store(new, Ordering::Relaxed);
    }

    /// Share of probes that found their key since the table was made.
    pub fn hit_rate(&self) -> f64 {
        let probes = self.probes.load(Ordering::Relaxed);
        if probes == 0 { 0.0 } else { self.hits.load(Ordering::Relaxed) as f64 / probes as f64 }
    }

    /// Fill in per mille, sampled over the first thousand slots, counting this
    /// generation's entries.
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation();
        let n = (self.buckets.len() * BUCKET).min(1000);
        let used = self
            .slots()
            .take(n)
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && ((d >> 58) as u8 & 63) == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }

    /// Empties the table.
    pub fn clear(&self) {
        for s in self.slots() {
            s.check.store(0, Ordering::Relaxed);
            s.data.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every page of a new table is resident (`mincore`), not left to be mapped by the
    /// first searches.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_new_table_has_its_pages() {
        // Above the largest size the allocator serves from memory it has used before.
        let tt = TranspositionTable::new(64);
        let page = 4096;
        let start = tt.buckets.as_ptr() as usize;
        let end = start + tt.size_bytes();
        // mincore wants a page-aligned start; the pages around the table's ends may be
        // shared with other allocations, so only the pages wholly inside are asked.
        let first = start.div_ceil(page) * page;
        let pages = (end - first) / page;
        let mut resident = vec![0u8; pages];
        let asked = unsafe { libc::mincore(first as *mut libc::c_void, pages * page, resident.as_mut_ptr()) };
        assert_eq!(asked, 0, "mincore failed");
        let missing = resident.iter().filter(|&&r| r & 1 == 0).count();
        assert_eq!(missing, 0, "{missing} of {pages} pages of a new table are not resident");
    }

    /// A table of a huge page or more starts on a huge page, within its allocation, and
    /// has the size asked; a smaller one is left where the allocator puts it.
    #[test]
    fn a_large_table_starts_on_a_huge_page() {
        // (3 MiB asked: the largest power of two within, 2 MiB.)
        for (mb, bytes) in [(2, 2 << 20), (3, 2 << 20), (16, 16 << 20)] {
            let tt = TranspositionTable::new(mb);
            let start = tt.buckets.as_ptr() as usize;
            assert_eq!(start % HUGE_PAGE, 0, "{mb} MiB");
            assert_eq!(tt.size_bytes(), bytes, "{mb} MiB");
            assert_eq!(tt.buckets.storage.len() - tt.buckets.start, tt.buckets.len());
            assert!(tt.buckets.start < HUGE_PAGE / std::mem::size_of::<Bucket>());
            // Every bucket is empty and can be used.
            tt.store(u64::MAX, None, 1, 2, 3, Bound::Exact);
            assert_eq!(tt.probe(u64::MAX).map(|e| e.score), Some(1));
        }
        let small = TranspositionTable::new(1);
        assert_eq!(small.buckets.start, 0);
        assert_eq!(small.size_bytes(), 1 << 20);
    }

    #[test]
    fn each_bucket_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
        for mb in [1, 3, 16] {
            let tt = TranspositionTable::new(mb);
            assert_eq!(tt.buckets.as_ptr() as usize % 64, 0, "{mb} MiB");
            // A prefetch is only a hint: any key, the table unchanged.
            tt.prefetch(u64::MAX);
            assert!(tt.peek(u64::MAX).is_none());
        }
    }

    #[test]
    fn store_then_probe_round_trips() {
        let tt = TranspositionTable::new(1);
        let m = Move::parse_iccs("h2e2");
        tt.store(0xDEAD_BEEF_1234_5678, m, -1234, 56, 7, Bound::Lower);
        let e = tt.probe(0xDEAD_BEEF_1234_5678).unwrap();
        assert_eq!((e.mv, e.score, e.eval, e.depth, e.bound), (m, -1234, 56, 7, Bound::Lower));
        assert!(tt.probe(0xDEAD_BEEF_1234_5679).is_none());
    }
}
