//! The transposition table through its public interface: what is stored is read back
//! whole, only for its own key, an entry of the same key is updated in place, the
//! victim of a full bucket is the shallowest and oldest entry, and the statistics
//! (hit rate, fill) count what they say.

use chuhe::rules::types::{Move, Square};
use chuhe::search::tt::{Bound, Entry, TranspositionTable};

/// The number of buckets (four slots each) of a table.
fn buckets(tt: &TranspositionTable) -> u64 {
    (tt.size_bytes() / 16 / 4) as u64
}

/// A key that falls in bucket `b` (the bucket is the key's high bits), told apart from
/// the other keys of the bucket by `j` (low bits).
fn key_in(tt: &TranspositionTable, b: u64, j: u64) -> u64 {
    let n = buckets(tt);
    assert!(n.is_power_of_two() && b < n && j < 1 << 20);
    (b << (64 - n.trailing_zeros())) | j
}

fn mv(from: usize, to: usize) -> Move {
    Move::new(Square::from_index(from).unwrap(), Square::from_index(to).unwrap())
}

fn entry(mv: Option<Move>, score: i16, eval: i16, depth: u8, bound: Bound) -> Entry {
    Entry { mv, score, eval, depth, bound }
}

fn store(tt: &TranspositionTable, key: u64, e: Entry) {
    tt.store(key, e.mv, e.score, e.eval, e.depth, e.bound);
}

#[test]
fn the_size_is_a_power_of_two_within_the_request() {
    for mb in [1usize, 2, 3, 5, 8] {
        let tt = TranspositionTable::new(mb);
        let size = tt.size_bytes();
        assert!(size.is_power_of_two(), "{mb} MB: {size}");
        // The largest power of two within the request: all of it when it is one.
        assert!(size <= mb << 20 && size * 2 > mb << 20, "{mb} MB: {size}");
        if mb.is_power_of_two() {
            assert_eq!(size, mb << 20, "{mb} MB");
        }
    }
    // Zero is one mebibyte's table, the smallest.
    assert_eq!(TranspositionTable::new(0).size_bytes(), TranspositionTable::new(1).size_bytes());
}

#[test]
fn every_field_is_read_back_as_stored() {
    let tt = TranspositionTable::new(1);
    let moves = [None, Some(mv(0, 1)), Some(mv(89, 0)), Some(mv(0, 89)), Some(mv(44, 53)), Some(mv(88, 79))];
    let scores = [0i16, 1, -1, 29_999, -29_999, i16::MAX, i16::MIN, 1234, -1234];
    let mut n = 0u64;
    for &m in &moves {
        for &score in &scores {
            for depth in [0u8, 1, 7, 63, 64, 128, 255] {
                for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                    n += 1;
                    let key = key_in(&tt, n % buckets(&tt), n);
                    let eval = score.wrapping_mul(3).wrapping_add(depth as i16);
                    let e = entry(m, score, eval, depth, bound);
                    store(&tt, key, e);
                    assert_eq!(tt.probe(key), Some(e), "key {key:#x}");
                }
            }
        }
    }
}

#[test]
fn a_probe_finds_only_its_own_key() {
    let tt = TranspositionTable::new(1);
    let e = entry(Some(mv(1, 2)), 5, 6, 7, Bound::Exact);
    for b in [1, 77, 1000, buckets(&tt) - 1] {
        assert_eq!(tt.probe(key_in(&tt, b, 1)), None);
        store(&tt, key_in(&tt, b, 1), e);
        assert_eq!(tt.probe(key_in(&tt, b, 1)), Some(e));
        // Same bucket, another key; another bucket, the same low bits.
        for other in [key_in(&tt, b, 2), key_in(&tt, b, 3), key_in(&tt, (b + 1) % buckets(&tt), 1)] {
            assert_eq!(tt.probe(other), None, "bucket {b}: {other:#x}");
        }
    }
    // Keys that differ in one bit anywhere.
    let key = 0x9E37_79B9_7F4A_7C15u64;
    store(&tt, key, e);
    for bit in 0..64 {
        assert_eq!(tt.probe(key ^ (1 << bit)), None, "bit {bit}");
    }
    assert_eq!(tt.probe(key), Some(e));
}

#[test]
fn a_key_stored_again_is_updated_in_place() {
    let tt = TranspositionTable::new(1);
    let b = 5;
    let keys: Vec<u64> = (1..=4).map(|j| key_in(&tt, b, j)).collect();
    for (i, &k) in keys.iter().enumerate() {
        store(&tt, k, entry(Some(mv(i, i + 9)), i as i16, 0, 4, Bound::Lower));
    }
    // The first key again, deeper and with another score: its slot, not another's.
    let again = entry(Some(mv(30, 39)), -77, 3, 9, Bound::Exact);
    store(&tt, keys[0], again);
    assert_eq!(tt.probe(keys[0]), Some(again));
    for (i, &k) in keys.iter().enumerate().skip(1) {
        assert_eq!(tt.probe(k), Some(entry(Some(mv(i, i + 9)), i as i16, 0, 4, Bound::Lower)), "key {i}");
    }
    // An entry without a move keeps the move known for its key.
    store(&tt, keys[1], entry(None, 11, 12, 13, Bound::Upper));
    assert_eq!(tt.probe(keys[1]), Some(entry(Some(mv(1, 10)), 11, 12, 13, Bound::Upper)));
    // A new key in an empty bucket starts without one.
    store(&tt, key_in(&tt, b + 1, 1), entry(None, 1, 2, 3, Bound::Exact));
    assert_eq!(tt.probe(key_in(&tt, b + 1, 1)).unwrap().mv, None);
}

/// Which of `keys` are still in the table.
fn present(tt: &TranspositionTable, keys: &[u64]) -> Vec<bool> {
    keys.iter().map(|&k| tt.probe(k).is_some()).collect()
}

#[test]
fn a_full_bucket_gives_up_its_shallowest_entry() {
    for b in [3u64, 200] {
        let tt = TranspositionTable::new(1);
        let keys: Vec<u64> = (1..=5).map(|j| key_in(&tt, b, j)).collect();
        for (k, depth) in keys.iter().zip([5u8, 9, 1, 7]) {
            store(&tt, *k, entry(None, 0, 0, depth, Bound::Exact));
        }
        store(&tt, keys[4], entry(None, 0, 0, 2, Bound::Exact));
        assert_eq!(present(&tt, &keys), [true, true, false, true, true], "bucket {b}");
        // Again: now the new entry (depth 2) is the shallowest.
        let sixth = key_in(&tt, b, 6);
        store(&tt, sixth, entry(None, 0, 0, 3, Bound::Exact));
        assert_eq!(present(&tt, &keys), [true, true, false, true, false], "bucket {b}");
        assert!(tt.probe(sixth).is_some());
    }
}

#[test]
fn entries_of_older_searches_go_first() {
    let tt = TranspositionTable::new(1);
    let b = 9;
    let k: Vec<u64> = (1..=5).map(|j| key_in(&tt, b, j)).collect();
    // An entry two searches old, one a search old, two of this search, all as deep.
    store(&tt, k[0], entry(None, 0, 0, 10, Bound::Exact));
    tt.new_search();
    store(&tt, k[1], entry(None, 0, 0, 10, Bound::Exact));
    tt.new_search();
    store(&tt, k[2], entry(None, 0, 0, 10, Bound::Exact));
    store(&tt, k[3], entry(None, 0, 0, 10, Bound::Exact));
    store(&tt, k[4], entry(None, 0, 0, 10, Bound::Exact));
    assert_eq!(present(&tt, &k), [false, true, true, true, true]);
    store(&tt, key_in(&tt, b, 6), entry(None, 0, 0, 10, Bound::Exact));
    assert_eq!(present(&tt, &k), [false, false, true, true, true]);

    // Age outweighs some depth: an entry a search old and 5 plies deeper goes before
    // one of this search.
    let tt = TranspositionTable::new(1);
    let k: Vec<u64> = (1..=5).map(|j| key_in(&tt, b, j)).collect();
    store(&tt, k[0], entry(None, 0, 0, 15, Bound::Exact));
    tt.new_search();
    for &key in &k[1..4] {
        store(&tt, key, entry(None, 0, 0, 10, Bound::Exact));
    }
    store(&tt, k[4], entry(None, 0, 0, 10, Bound::Exact));
    assert_eq!(present(&tt, &k), [false, true, true, true, true]);
}

#[test]
fn generations_wrap_without_losing_the_order() {
    // Over 64 searches the generation counter wraps; the ages stay right across it.
    let tt = TranspositionTable::new(1);
    for _ in 0..62 {
        tt.new_search();
    }
    let b = 11;
    let k: Vec<u64> = (1..=5).map(|j| key_in(&tt, b, j)).collect();
    store(&tt, k[0], entry(None, 0, 0, 10, Bound::Exact)); // generation 62
    tt.new_search();
    store(&tt, k[1], entry(None, 0, 0, 10, Bound::Exact)); // 63
    tt.new_search();
    store(&tt, k[2], entry(None, 0, 0, 10, Bound::Exact)); // 0
    tt.new_search();
    store(&tt, k[3], entry(None, 0, 0, 10, Bound::Exact)); // 1
    store(&tt, k[4], entry(None, 0, 0, 10, Bound::Exact));
    assert_eq!(present(&tt, &k), [false, true, true, true, true]);
    store(&tt, key_in(&tt, b, 6), entry(None, 0, 0, 10, Bound::Exact));
    assert_eq!(present(&tt, &k), [false, false, true, true, true]);
}

#[test]
fn hit_rate_counts_probes_that_found_their_key() {
    let tt = TranspositionTable::new(1);
    assert_eq!(tt.hit_rate(), 0.0);
    let key = key_in(&tt, 4, 4);
    store(&tt, key, entry(None, 1, 1, 1, Bound::Exact));
    assert!(tt.probe(key).is_some());
    assert_eq!(tt.hit_rate(), 1.0);
    assert!(tt.probe(key + 1).is_none());
    assert_eq!(tt.hit_rate(), 0.5);
    assert!(tt.probe(key + 2).is_none() && tt.probe(key + 3).is_none());
    assert_eq!(tt.hit_rate(), 0.25);
}

#[test]
fn a_peek_counts_only_when_its_probes_are_added() {
    let tt = TranspositionTable::new(1);
    let key = key_in(&tt, 7, 1);
    let e = entry(Some(mv(0, 9)), 5, 6, 3, Bound::Lower);
    store(&tt, key, e);
    assert_eq!(tt.peek(key), Some(e));
    assert_eq!(tt.peek(key + 1), None);
    assert_eq!(tt.hit_rate(), 0.0, "peeks are not counted by themselves");
    tt.count_probes(4, 1);
    assert_eq!(tt.hit_rate(), 0.25);
    assert!(tt.probe(key).is_some());
    assert_eq!(tt.hit_rate(), 0.4, "2 hits in 5 probes");
}

#[test]
fn a_search_adds_its_probes_to_the_hit_rate() {
    use std::sync::atomic::AtomicBool;

    use chuhe::rules::xiangqi::Game;
    use chuhe::search::{Limits, Params, search};

    let tt = TranspositionTable::new(1);
    let game = Game::new(chuhe::notation::fen::xiangqi("startpos").unwrap());
    let params = Params { limits: Limits { depth: Some(7), ..Limits::default() }, ..Params::default() };
    search(&game, &params, &tt, &AtomicBool::new(false), None, &mut |_| {});
    // Iterative deepening finds the earlier depths' entries again.
    let rate = tt.hit_rate();
    assert!(rate > 0.0 && rate < 1.0, "{rate}");
}

#[test]
fn hashfull_counts_this_search_entries_among_the_first_thousand_slots() {
    let tt = TranspositionTable::new(1);
    assert_eq!(tt.hashfull(), 0);
    // The first 125 buckets are the first 500 slots.
    for b in 0..125 {
        for j in 1..=4 {
            store(&tt, key_in(&tt, b, j), entry(None, 0, 0, 1, Bound::Exact));
        }
    }
    assert_eq!(tt.hashfull(), 500);
    // Entries beyond the first thousand slots are not sampled.
    for j in 1..=4 {
        store(&tt, key_in(&tt, 400, j), entry(None, 0, 0, 1, Bound::Exact));
    }
    assert_eq!(tt.hashfull(), 500);
    for b in 125..250 {
        store(&tt, key_in(&tt, b, 1), entry(None, 0, 0, 1, Bound::Exact));
    }
    assert_eq!(tt.hashfull(), 625);
    // A new search counts only its own entries.
    tt.new_search();
    assert_eq!(tt.hashfull(), 0);
    store(&tt, key_in(&tt, 0, 1), entry(None, 0, 0, 1, Bound::Exact));
    assert_eq!(tt.hashfull(), 1);
    // The old entries are still there to be read.
    assert!(tt.probe(key_in(&tt, 100, 3)).is_some());
}

#[test]
fn clear_empties_the_table() {
    let tt = TranspositionTable::new(1);
    let keys: Vec<u64> = (0..50).map(|b| key_in(&tt, b, 1)).collect();
    for &k in &keys {
        store(&tt, k, entry(Some(mv(3, 4)), 1, 1, 1, Bound::Exact));
    }
    assert_eq!(tt.hashfull(), 50);
    tt.clear();
    assert_eq!(tt.hashfull(), 0);
    assert!(keys.iter().all(|&k| tt.probe(k).is_none()));
}
