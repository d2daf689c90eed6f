//! The search's accumulators: one per ply of the path, each brought up to date only
//! when its position is evaluated (from the nearest one up to date, move by move, or
//! from scratch where that touches fewer rows).

use std::sync::Arc;

use super::accumulator::Accumulator;
use super::features::Change;
use super::net::Network;
use super::output::pieces_besides_generals;
use crate::rules::board::Board;
use crate::rules::types::Color;

/// The accumulators of the search path and the changes between them.
pub struct AccumulatorStack {
    net: Arc<Network>,
    entries: Vec<Accumulator>,
    /// `changes[i]`: the move from the position of entry `i - 1` to that of entry `i`.
    changes: Vec<Change>,
    /// Is entry `i` up to date with its position? Entry 0 always is.
    current: Vec<bool>,
    top: usize,
}

impl AccumulatorStack {
    /// A stack whose root is `board`.
    pub fn new(net: Arc<Network>, board: &Board) -> AccumulatorStack {
        let root = Accumulator::refresh(&net, board);
        AccumulatorStack { net, entries: vec![root], changes: vec![Change::NONE], current: vec![true], top: 0 }
    }

    /// The net it evaluates with.
    pub fn net(&self) -> &Arc<Network> {
        &self.net
    }

    /// A move `change` was played: the next ply's accumulators, not yet computed.
    #[inline]
    pub fn push(&mut self, change: Change) {
        self.top += 1;
        if self.top == self.entries.len() {
            self.entries.push(self.entries[0].clone());
            self.changes.push(change);
            self.current.push(false);
        } else {
            self.changes[self.top] = change;
            self.current[self.top] = false;
        }
    }

    /// The last move was taken back.
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.top > 0, "pop below the root");
        self.top -= 1;
    }

    /// The evaluation of `board` (the position at the top), `turn` to move.
    #[inline]
    pub fn evaluate(&mut self, board: &Board, turn: Color) -> i32 {
        self.bring_up_to_date(board);
        self.net.evaluate(&self.entries[self.top], turn, pieces_besides_generals(board))
    }

    /// The top's accumulators, brought up to date with `board`.
    pub fn top(&mut self, board: &Board) -> &Accumulator {
        self.bring_up_to_date(board);
        &self.entries[self.top]
    }

    fn bring_up_to_date(&mut self, board: &Board) {
        if self.current[self.top] {
            return;
        }
        let mut base = self.top;
        let mut rows = 0;
        while !self.current[base] {
            rows += self.changes[base].rows();
            base -= 1;
        }
        // A refresh touches one row per piece; the changes as many as they move.
        if rows > board.occupied().count_ones() as usize {
            self.entries[self.top].refresh_from(&self.net, board);
            self.current[self.top] = true;
            return;
        }
        for i in base + 1..=self.top {
            let (done, rest) = self.entries.split_at_mut(i);
            rest[0].update_from(&self.net, &done[i - 1], &self.changes[i]);
            self.current[i] = true;
        }
    }
}
