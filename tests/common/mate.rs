//! An independent judge of mates: plain minimax over the rules' legal moves, with no
//! pruning, no evaluation and nothing shared with the search, for small positions of
//! either 9x10 game.
#![allow(dead_code)]

use std::collections::HashMap;
use std::marker::PhantomData;

use chuhe::rules::Status;
use chuhe::rules::board_position::{BoardRules, Position};
use chuhe::rules::janggi::Janggi;
use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::xiangqi::Xiangqi;
use chuhe::search::Score;

/// What the solver remembers a position by: its key, and in Janggi the passes just
/// played too (after one pass, another ends the game).
pub trait Remembered {
    /// The key of the position's answers.
    fn memo_key(&self) -> u64;
}

impl Remembered for Position<Xiangqi> {
    fn memo_key(&self) -> u64 {
        self.key()
    }
}

impl Remembered for Position<Janggi> {
    fn memo_key(&self) -> u64 {
        self.key() ^ u64::from(self.consecutive_passes()).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// Memoised answers of the solver, by (position, the side to move's moves), for one game
/// (Xiangqi unless inferred otherwise).
pub struct Solver<R = Xiangqi> {
    wins: HashMap<(u64, u32), bool>,
    game: PhantomData<R>,
}

impl<R> Default for Solver<R> {
    fn default() -> Self {
        Solver { wins: HashMap::new(), game: PhantomData }
    }
}

/// Plies past twice a mate's length from which a reported mate must be exact.
pub const EXACT_AFTER: u32 = 6;

impl<R: BoardRules> Solver<R>
where
    Position<R>: Remembered,
{
    /// Can the side to move leave the opponent without a legal move (mate or
    /// stalemate, which both lose in Xiangqi) within `n` of its own moves?
    pub fn wins_within(&mut self, pos: &mut Position<R>, n: u32) -> bool {
        if n == 0 {
            return false;
        }
        if let Some(&w) = self.wins.get(&(pos.memo_key(), n)) {
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
        self.wins.insert((pos.memo_key(), n), w);
        w
    }

    /// Is the side to move lost within `n` of the opponent's moves (no legal move now,
    /// or every reply lets the opponent win within `n`)? `n` counts the opponent's
    /// moves still to come.
    pub fn lost_within(&mut self, pos: &mut Position<R>, n: u32) -> bool {
        let mut replies = MoveList::new();
        pos.legal_moves(&mut replies);
        if replies.is_empty() {
            // In Xiangqi a stalemate loses too; a Janggi game ended by two passes has
            // no legal move and no loser.
            return pos.status() != Status::Ended;
        }
        n > 0
            && replies.iter().all(|&r| {
                let undo = pos.play_unchecked(r);
                let w = self.wins_within(pos, n);
                pos.undo(r, undo);
                w
            })
    }

    /// The length of the shortest forced mate of the side to move, up to `max` moves.
    pub fn shortest_win(&mut self, pos: &mut Position<R>, max: u32) -> Option<u32> {
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
    pub fn check_line(&mut self, root: &Position<R>, score: Score, pv: &[Move], depth: u32, context: &str) {
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
    pub fn mates_in_exactly(&mut self, root: &Position<R>, m: Move, n: u32) -> bool {
        let mut pos = root.clone();
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
        self.lost_within(&mut pos, n - 1) && (n == 1 || !self.lost_within(&mut pos, n - 2))
    }
}

/// The line is a sequence of legal moves from `root`.
pub fn assert_legal_line<R: BoardRules>(root: &Position<R>, pv: &[Move], context: &str) {
    assert!(!pv.is_empty(), "{context}: an empty line");
    let mut pos = root.clone();
    for &m in pv {
        assert!(pos.is_legal(m), "{context}: {m} of the line {pv:?} is illegal");
        pos.play_unchecked(m);
    }
}
