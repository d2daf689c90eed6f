//! A Janggi game: a start position plus the moves played (passes included), with what
//! repetition, bikjang and move-limit rules judge. The Xiangqi [`crate::rules::history`]
//! game carries handicaps and chase data Janggi does not have; the two share the
//! outcome types of [`crate::rules::outcome`] and the search's view of a history
//! (keys since the last capture and the checks that led to them).

use super::{IllegalReason, Position, Undo};
use crate::rules::repetition::CyclePly;
use crate::rules::types::{Color, IllegalMove, Move, MoveList, Piece};

/// One ply of a Janggi game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Move,
    /// Key of the position after the move.
    pub key_after: u64,
    /// The move left the opponent in check.
    pub gave_check: bool,
    pub captured: Option<Piece>,
    /// The side that played the move.
    pub mover: Color,
    undo: Undo,
}

impl Ply {
    /// The ply as a repetition cycle's judgement sees it.
    pub fn cycle(&self) -> CyclePly {
        CyclePly::new(self.mv, self.gave_check)
    }
}

/// A Janggi game: start position, moves, and the current position.
#[derive(Clone, Debug)]
pub struct Game {
    start: Position,
    position: Position,
    plies: Vec<Ply>,
    /// Number of plies up to and including the last capture (0 if none).
    capture_horizon: usize,
}

impl Game {
    pub fn new(start: Position) -> Game {
        Game { position: start.clone(), start, plies: Vec::new(), capture_horizon: 0 }
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn plies(&self) -> &[Ply] {
        &self.plies
    }

    /// `None` when `m` is legal as the next move, otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        self.position.explain_illegal(m)
    }

    pub fn is_legal(&self, m: Move) -> bool {
        self.position.is_legal(m)
    }

    pub fn legal_moves(&self, list: &mut MoveList) {
        self.position.legal_moves(list)
    }

    /// Plays a legal move, or leaves the game unchanged.
    pub fn play(&mut self, m: Move) -> Result<&Ply, IllegalMove> {
        if !self.is_legal(m) {
            return Err(IllegalMove(m));
        }
        Ok(self.play_unchecked(m))
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) -> &Ply {
        let mover = self.position.turn();
        let undo = self.position.play_unchecked(m);
        let ply = Ply {
            mv: m,
            key_after: self.position.key(),
            gave_check: self.position.in_check(),
            captured: undo.captured,
            mover,
            undo,
        };
        self.plies.push(ply);
        if ply.captured.is_some() {
            self.capture_horizon = self.plies.len();
        }
        &self.plies[self.plies.len() - 1]
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<Move> {
        let ply = self.plies.pop()?;
        if ply.captured.is_some() {
            self.capture_horizon = self.plies.iter().rposition(|p| p.captured.is_some()).map_or(0, |i| i + 1);
        }
        self.position.undo(ply.mv, ply.undo);
        Some(ply.mv)
    }

    /// Key of the position before ply `i` (0 is the start position).
    pub fn key_before(&self, i: usize) -> u64 {
        if i == 0 { self.start.key() } else { self.plies[i - 1].key_after }
    }

    /// Index (in `key_before` terms) of the first position since the last capture.
    pub fn capture_horizon(&self) -> usize {
        self.capture_horizon
    }

    /// The position after the first `i` plies (0 is the start position).
    pub fn position_at(&self, i: usize) -> Position {
        let mut pos = self.position.clone();
        for ply in self.plies[i..].iter().rev() {
            pos.undo(ply.mv, ply.undo);
        }
        pos
    }
}
