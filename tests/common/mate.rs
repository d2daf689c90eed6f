//! An independent judge of mates: plain minimax over the rules' legal moves, with no
//! pruning, no evaluation and nothing shared with the search, for small positions.
#![allow(dead_code)]

use std::collections::HashMap;

use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::xiangqi::Position;
use chuhe::search::Score;

/// Memoised answers of the solver, by (key, side to move's task, moves).
#[derive(Default)]
pub struct Solver {
    wins: HashMap<(u64, u32), bool>,
}

/// Plies past twice a mate's length from which a reported mate must be exact.
pub const EXACT_AFTER: u32 = 6;

impl Solver {
    /// Can the side to move leave the opponent without a legal move (mate or
    /// stalemate, which both lose in Xiangqi) within `n` of its own moves?
    pub fn wins_within(&mut self, pos: &mut Position, n: u32) -> bool {
        if n == 0 {
            return false;
        }
        if let Some(&w) = self.wins.get(&(pos.key(), n)) {
            return w;
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let w = list.iter().any(|&m| {
            let undo = pos.play_unchecked(m);
            let w = self.lost_within(pos, n - 1);
            pos.undo(m, undo);
            w
        });
        self.wins.insert((pos.key(), n), w);
        w
    }

    /// Is the side to move lost within `n` of the opponent's moves (no legal move now,
    /// or every reply lets the opponent win within `n`)? `n` counts the opponent's
    /// moves still to come.
    pub fn lost_within(&mut self, pos: &mut Position, n: u32) -> bool {
        let mut replies = MoveList::new();
        pos.legal_moves(&mut replies);
        replies.is_empty()
            || (n > 0
                && replies.iter().all(|&r| {
                    let undo = pos.play_unchecked(r);
                    let w = self.wins_within(pos, n);
                    pos.undo(r, undo);
                    w
                }))
    }

    /// The length of the shortest forced mate of the side to move, up to `max` moves.
    pub fn shortest_win(&mut self, pos: &mut Position, max: u32) -> Option<u32> {
        (1..=max).find(|&n| self.wins_within(pos, n))
    }

    /// Checks a line a search of `depth` plies reported against the solver: its moves
    /// are legal, and a mate score holds after its first move. "Mate in n" (n > 0):
    /// after the first move the opponent is lost within n - 1 more moves of ours, never
    /// later. "Mated in n" (n < 0): after the first move the opponent wins within |n|
    /// moves, that is, the defence does not last longer. A search deep enough to see the
    /// whole mate with plies to spare (depth at least twice the moves of the mate plus
    /// [`EXACT_AFTER`]; reductions and late-move pruning can hide a shorter mate until
    /// then) must also report its exact length: a shallower one may miss a shorter mate
    /// but must never claim one that does not exist.
    pub fn check_line(&mut self, root: &Position, score: Score, pv: &[Move], depth: u32, context: &str) {
        assert_legal_line(root, pv, context);
        let Score::Mate(n) = score else { return };
        let first = pv[0];
        let mut pos = root.clone();
        pos.play_unchecked(first);
        let k = n.unsigned_abs();
        let exact = depth >= 2 * k + EXACT_AFTER;
        if n > 0 {
            assert!(
                self.lost_within(&mut pos, k - 1),
                "{context}: {first} is reported as mate in {n}, but does not force it"
            );
            assert!(
                !exact || k == 1 || !self.lost_within(&mut pos, k - 2),
                "{context}: {first} is reported as mate in {n}, but mates sooner"
            );
        } else {
            assert!(self.wins_within(&mut pos, k), "{context}: {first} is reported as mated in {k}, but is not lost");
            assert!(
                !exact || !self.wins_within(&mut pos, k - 1),
                "{context}: {first} is reported as mated in {k}, but is lost sooner"
            );
        }
    }

    /// Does `m` force mate in exactly `n` moves (counting `m`)?
    pub fn mates_in_exactly(&mut self, root: &Position, m: Move, n: u32) -> bool {
        let mut pos = root.clone();
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
        self.lost_within(&mut pos, n - 1) && (n == 1 || !self.lost_within(&mut pos, n - 2))
    }
}

/// The line is a sequence of legal moves from `root`.
pub fn assert_legal_line(root: &Position, pv: &[Move], context: &str) {
    assert!(!pv.is_empty(), "{context}: an empty line");
    let mut pos = root.clone();
    for &m in pv {
        assert!(pos.is_legal(m), "{context}: {m} of the line {pv:?} is illegal");
        pos.play_unchecked(m);
    }
}
