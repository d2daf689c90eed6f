//! Move ordering and the histories that feed it, and the reduction and pruning
//! schedules.

use super::movepick::sort_key;
use super::*;

impl<P: Searchable> Worker<'_, P> {
    pub(super) fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers[ply].contains(&Some(m))
    }

    /// The continuation-history slot of `m` (not yet played): its piece and target.
    #[inline]
    pub(super) fn slot_of(&self, m: Move) -> usize {
        if P::PASSES && m.is_pass() {
            return CONT_NONE;
        }
        self.pos.board().piece_at(m.from()).map_or(CONT_NONE, |p| p.index() * 90 + m.to().index())
    }

    /// The slot of the move played `back` plies before the position at `ply`.
    #[inline]
    pub(super) fn slot_back(&self, ply: usize, back: usize) -> usize {
        if ply >= back { self.cont_stack[ply - back] } else { CONT_NONE }
    }

    #[inline]
    pub(super) fn counter_move(&self, ply: usize) -> Option<Move> {
        self.counters[self.slot_back(ply, 1)]
    }

    /// The history of a quiet move: its own, and after the last two moves.
    #[inline]
    pub(super) fn quiet_history(&self, m: Move, slot: usize, ply: usize) -> i32 {
        QuietHistory::at(self, ply).of(m, slot)
    }

    /// Appends the sort keys of the quiet moves `moves` to `keys`, which holds the
    /// moves before them: each by its history as [`Worker::quiet_history`] gives it, the
    /// tables looked up once for all.
    #[inline]
    pub(super) fn score_quiets<const N: usize>(&self, moves: &[Move], keys: &mut FixedList<i32, N>, ply: usize) {
        let history = QuietHistory::at(self, ply);
        let first = keys.len();
        keys.extend(moves.iter().zip(first..).map(|(&m, place)| sort_key(history.of(m, self.slot_of(m)), place)));
    }

    /// After a cutoff by `m`: reward it, and charge the moves of its kind tried before.
    pub(super) fn reward(
        &mut self,
        ply: usize,
        depth: i32,
        m: Move,
        capture: bool,
        quiets: &MoveList,
        captures: &MoveList,
    ) {
        let bonus = history_bonus(depth);
        if !capture {
            if self.killers[ply][0] != Some(m) {
                self.killers[ply][1] = self.killers[ply][0];
                self.killers[ply][0] = Some(m);
            }
            let prev = self.slot_back(ply, 1);
            if prev != CONT_NONE {
                self.counters[prev] = Some(m);
            }
            self.update_quiet(ply, m, bonus);
            for &q in quiets.iter() {
                self.update_quiet(ply, q, -bonus);
            }
        } else {
            self.update_capture(m, bonus);
        }
        for &c in captures.iter() {
            self.update_capture(c, -bonus);
        }
    }

    pub(super) fn update_quiet(&mut self, ply: usize, m: Move, bonus: i32) {
        let us = self.pos.turn().index();
        let slot = self.slot_of(m);
        gravity(&mut self.history[us][m.from().index()][m.to().index()], bonus);
        for back in 1..=2 {
            let prev = self.slot_back(ply, back);
            if prev != CONT_NONE && slot != CONT_NONE {
                let e = &mut self.cont[prev * CONT_SLOTS + slot];
                let mut v = *e as i32;
                gravity(&mut v, bonus);
                *e = v as i16;
            }
        }
    }

    pub(super) fn update_capture(&mut self, m: Move, bonus: i32) {
        let b = self.pos.board();
        if let (Some(p), Some(v)) = (b.piece_at(m.from()), b.piece_at(m.to())) {
            gravity(&mut self.capture_history[p.index()][m.to().index()][v.kind().index()], bonus);
        }
    }
}

/// The tables a quiet move's history is read from at one node: the side to move's own,
/// and the continuation rows after the last two moves.
struct QuietHistory<'a> {
    own: &'a [[i32; 90]; 90],
    after_one: &'a [i16],
    after_two: &'a [i16],
}

impl<'a> QuietHistory<'a> {
    #[inline(always)]
    fn at<P: Searchable>(worker: &'a Worker<'_, P>, ply: usize) -> Self {
        let row = |back| &worker.cont[worker.slot_back(ply, back) * CONT_SLOTS..][..CONT_SLOTS];
        QuietHistory { own: &worker.history[worker.pos.turn().index()], after_one: row(1), after_two: row(2) }
    }

    /// The history of the quiet move `m`, `slot` its continuation slot.
    #[inline(always)]
    fn of(&self, m: Move, slot: usize) -> i32 {
        self.own[m.from().index()][m.to().index()] + self.after_one[slot] as i32 + self.after_two[slot] as i32
    }
}

/// The history bonus of a cutoff at `depth`.
#[inline]
pub(super) fn history_bonus(depth: i32) -> i32 {
    (8 * depth * depth + 200 * depth - 150).min(2000)
}

/// Moves a history entry towards the limit by `bonus`, less the closer it already is.
#[inline]
pub(super) fn gravity(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// Quiet moves searched at `depth` before the rest are pruned.
#[inline]
pub(super) fn lmp_limit(depth: i32, improving: bool) -> usize {
    let d = depth.max(0) as usize;
    (3 + d * d) / (2 - improving as usize)
}

/// The late-move reduction at `depth` for the `count`-th move: grows with the
/// logarithms of both.
#[inline]
pub(super) fn reduction(depth: i32, count: usize) -> i32 {
    static TABLE: std::sync::OnceLock<[[u8; 64]; 64]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0u8; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (c, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (c as f64).ln() / LMR_DIVISOR) as u8;
            }
        }
        t
    });
    table[(depth.max(0) as usize).min(63)][count.min(63)] as i32
}
