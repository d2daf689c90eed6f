//! A game as a start position plus the moves played: what repetition and move-limit
//! rules judge. Each ply keeps the key after it, whether it gave check and what it took.

use super::types::{Color, Move, Piece};
use super::xiangqi::{IllegalMove, Position, Undo};

/// One ply of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    pub mv: Move,
    /// Key of the position after the move.
    pub key_after: u64,
    /// The move left the opponent in check.
    pub gave_check: bool,
    pub captured: Option<Piece>,
    /// Checking plies of Red and of Black (by [`Color::index`]) from the start of the
    /// record up to and including this one.
    pub checks_so_far: [u32; 2],
    undo: Undo,
}

/// A Xiangqi game: start position, moves, and the current position.
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

    /// Plays a legal move, or leaves the game unchanged and says why not.
    pub fn play(&mut self, m: Move) -> Result<&Ply, IllegalMove> {
        if !self.position.is_legal(m) {
            return Err(IllegalMove(m));
        }
        Ok(self.play_unchecked(m))
    }

    /// Plays a move known to be legal.
    pub fn play_unchecked(&mut self, m: Move) -> &Ply {
        let mover = self.position.turn();
        let undo = self.position.play_unchecked(m);
        let gave_check = self.position.in_check();
        let mut checks_so_far = self.plies.last().map_or([0; 2], |p| p.checks_so_far);
        if gave_check {
            checks_so_far[mover.index()] += 1;
        }
        let ply =
            Ply { mv: m, key_after: self.position.key(), gave_check, captured: undo.captured, checks_so_far, undo };
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

    /// Keys of the positions since the last capture, oldest first, ending with the
    /// current one (the start position counts when no capture has happened since).
    pub fn keys_since_capture(&self) -> impl Iterator<Item = u64> + '_ {
        (self.capture_horizon..=self.plies.len()).map(|i| self.key_before(i))
    }

    /// Index (in `key_before` terms) of the first position since the last capture.
    pub fn capture_horizon(&self) -> usize {
        self.capture_horizon
    }

    /// The position after the first `i` plies (0 is the start position), rebuilt from
    /// whichever end of the record is nearer.
    pub fn position_at(&self, i: usize) -> Position {
        let n = self.plies.len();
        assert!(i <= n, "position after ply {i} of a {n}-ply record");
        if i <= n - i {
            let mut pos = self.start.clone();
            for ply in &self.plies[..i] {
                pos.play_unchecked(ply.mv);
            }
            pos
        } else {
            let mut pos = self.position.clone();
            for ply in self.plies[i..].iter().rev() {
                pos.undo(ply.mv, ply.undo);
            }
            pos
        }
    }

    /// How many checks `color` gave in plies `from + 1 ..= to` (1-based plies).
    pub fn checks_between(&self, color: Color, from: usize, to: usize) -> u32 {
        let at = |i: usize| if i == 0 { 0 } else { self.plies[i - 1].checks_so_far[color.index()] };
        at(to) - at(from)
    }

    /// The side that played ply `i` (1-based).
    pub fn mover_of_ply(&self, i: usize) -> Color {
        let start = self.start.turn();
        if i % 2 == 1 { start } else { start.other() }
    }

    /// How many times the current position (with the same side to move) has stood on
    /// the board since the last capture, itself included.
    pub fn occurrences_of_current(&self) -> usize {
        let key = self.position.key();
        self.keys_since_capture().filter(|&k| k == key).count()
    }
}
