//! A game record of a two-player 9x10 variant ([`Game`]): a start position plus the
//! moves played, what repetition and move-limit rules judge. Each ply keeps the key
//! after it, whether it gave check and what it took. A Xiangqi game may carry the rules
//! of a handicap (extra opening moves, protected pieces); a Janggi game has none.
//!
//! The variants name their records [`crate::rules::xiangqi::Game`] and
//! [`crate::rules::janggi::Game`]; Three Kingdoms, with three players and defeats, has
//! its own ([`crate::rules::three_kingdoms::outcome::Game`]).

use std::fmt::Debug;

use super::BoardPosition;
use super::illegal::IllegalReason;
use super::repetition::CyclePly;
use super::types::{Color, IllegalMove, Move, MoveList, Piece, Square};
use super::xiangqi::handicap::Handicap;
use super::{janggi, xiangqi};

/// What a game record needs of its variant's position beyond [`BoardPosition`].
pub trait RecordedPosition: BoardPosition<Undo: Copy + Debug + Eq> + Debug {
    /// The piece taken by the move that handed back `undo`.
    fn captured_by(undo: &Self::Undo) -> Option<Piece>;
    /// The move number, as records count them (from 1, growing after Black's move).
    fn fullmove_number(&self) -> u32;
    /// Gives the move back to the side that has just moved, for a handicap's extra
    /// move; `false`, and nothing changes, where it is refused.
    fn skip_turn(&mut self) -> bool;
    /// Takes back [`RecordedPosition::skip_turn`].
    fn undo_skip_turn(&mut self);
}

impl RecordedPosition for xiangqi::Position {
    fn captured_by(undo: &xiangqi::Undo) -> Option<Piece> {
        undo.captured
    }
    fn fullmove_number(&self) -> u32 {
        xiangqi::Position::fullmove_number(self)
    }
    fn skip_turn(&mut self) -> bool {
        xiangqi::Position::skip_turn(self)
    }
    fn undo_skip_turn(&mut self) {
        xiangqi::Position::undo_skip_turn(self)
    }
}

/// Janggi has no handicap starts: a side never moves twice in a row (it passes).
impl RecordedPosition for janggi::Position {
    fn captured_by(undo: &janggi::Undo) -> Option<Piece> {
        undo.captured
    }
    fn fullmove_number(&self) -> u32 {
        janggi::Position::fullmove_number(self)
    }
    /// Always refused.
    fn skip_turn(&mut self) -> bool {
        false
    }
    /// Never called: [`RecordedPosition::skip_turn`] is always refused.
    fn undo_skip_turn(&mut self) {}
}

/// One ply of a game; `U` is the position's undo information.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply<U> {
    /// The move played.
    pub mv: Move,
    /// Key of the position after the move.
    pub key_after: u64,
    /// The move left the opponent in check.
    pub gave_check: bool,
    /// The piece the move took.
    pub captured: Option<Piece>,
    /// The side that played the move.
    pub mover: Color,
    /// A handicap's extra move: the same side moved again after it.
    pub kept_turn: bool,
    /// Checking plies of Red and of Black (by [`Color::index`]) from the start of the
    /// record up to and including this one.
    pub checks_so_far: [u32; 2],
    undo: U,
}

impl<U> Ply<U> {
    /// The ply as a repetition cycle's judgement sees it.
    pub fn cycle(&self) -> CyclePly {
        CyclePly { mv: self.mv, gave_check: self.gave_check, kept_turn: self.kept_turn }
    }
}

/// A game of a two-player 9x10 variant: start position, moves, and the current
/// position.
#[derive(Clone, Debug)]
pub struct Game<P: RecordedPosition> {
    start: P,
    position: P,
    plies: Vec<Ply<P::Undo>>,
    /// Number of plies up to and including the last capture (0 if none).
    capture_horizon: usize,
    handicap: Handicap,
}

impl Game<xiangqi::Position> {
    /// A Xiangqi game played under the rules of a handicap.
    pub fn with_handicap(start: xiangqi::Position, handicap: Handicap) -> Self {
        Game { position: start.clone(), start, plies: Vec::new(), capture_horizon: 0, handicap }
    }
}

impl<P: RecordedPosition> Game<P> {
    /// A game from `start`, with no handicap.
    pub fn new(start: P) -> Self {
        Game { position: start.clone(), start, plies: Vec::new(), capture_horizon: 0, handicap: Handicap::default() }
    }

    /// The handicap's rules (none unless the game was started with one).
    pub fn handicap(&self) -> &Handicap {
        &self.handicap
    }

    /// The start position.
    pub fn start(&self) -> &P {
        &self.start
    }

    /// The position after the last ply.
    pub fn position(&self) -> &P {
        &self.position
    }

    /// The plies played, in order.
    pub fn plies(&self) -> &[Ply<P::Undo>] {
        &self.plies
    }

    /// `None` when `m` is legal as the next move (on the board and under the handicap),
    /// otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        self.position.explain_illegal(m).or_else(|| self.handicap_violation(m))
    }

    fn handicap_violation(&self, m: Move) -> Option<IllegalReason> {
        if self.handicap.is_none() {
            return None;
        }
        self.handicap.violation(&self.position, m, self.plies.len(), |sq| self.untouched(sq))
    }

    /// Is `m` legal as the next move?
    pub fn is_legal(&self, m: Move) -> bool {
        self.position.is_legal(m) && self.handicap_violation(m).is_none()
    }

    /// Appends every legal next move to `list` (the position's, less what the handicap
    /// forbids).
    pub fn legal_moves(&self, list: &mut MoveList) {
        if self.handicap.is_none() {
            return self.position.legal_moves(list);
        }
        let mut all = MoveList::new();
        self.position.legal_moves(&mut all);
        for &m in &all {
            if self.handicap_violation(m).is_none() {
                list.push(m);
            }
        }
    }

    /// Has no move of the game so far started from or ended on `sq`?
    pub fn untouched(&self, sq: Square) -> bool {
        self.plies.iter().all(|p| p.mv.from() != sq && p.mv.to() != sq)
    }

    /// Plays a legal move, or leaves the game unchanged and says why not.
    pub fn play(&mut self, m: Move) -> Result<&Ply<P::Undo>, IllegalMove> {
        if !self.is_legal(m) {
            return Err(IllegalMove(m));
        }
        Ok(self.play_unchecked(m))
    }

    /// Plays a move known to be legal. During a handicap's extra moves the same side
    /// moves again.
    pub fn play_unchecked(&mut self, m: Move) -> &Ply<P::Undo> {
        let mover = self.position.turn();
        let undo = self.position.play_unchecked(m);
        let gave_check = self.position.in_check();
        let kept_turn = self.handicap.keeps_turn(self.plies.len()) && self.position.skip_turn();
        let mut checks_so_far = self.plies.last().map_or([0; 2], |p| p.checks_so_far);
        if gave_check {
            checks_so_far[mover.index()] += 1;
        }
        let ply = Ply {
            mv: m,
            key_after: self.position.key(),
            gave_check,
            captured: P::captured_by(&undo),
            mover,
            kept_turn,
            checks_so_far,
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
        if ply.kept_turn {
            self.position.undo_skip_turn();
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
    pub fn position_at(&self, i: usize) -> P {
        let n = self.plies.len();
        assert!(i <= n, "position after ply {i} of a {n}-ply record");
        if i <= n - i {
            let mut pos = self.start.clone();
            for ply in &self.plies[..i] {
                pos.play_unchecked(ply.mv);
                if ply.kept_turn {
                    pos.skip_turn();
                }
            }
            pos
        } else {
            let mut pos = self.position.clone();
            for ply in self.plies[i..].iter().rev() {
                if ply.kept_turn {
                    pos.undo_skip_turn();
                }
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

    /// The side that played ply `i` (1-based); past the plies played, the side that
    /// would play it if the turns alternate from now on.
    pub fn mover_of_ply(&self, i: usize) -> Color {
        match i.checked_sub(1).and_then(|k| self.plies.get(k)) {
            Some(p) => p.mover,
            None => {
                let next = self.position.turn();
                if (i.saturating_sub(self.plies.len())) % 2 == 1 { next } else { next.other() }
            }
        }
    }

    /// How many times the current position (with the same side to move) has stood on
    /// the board since the last capture, itself included.
    pub fn occurrences_of_current(&self) -> usize {
        let key = self.position.key();
        self.keys_since_capture().filter(|&k| k == key).count()
    }
}
