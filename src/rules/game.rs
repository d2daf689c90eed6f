//! The game record of every variant ([`Game`]): a start position plus the moves
//! played, what repetition, move-limit and ending rules judge. Each ply keeps the key
//! after it, the side that played it, whether it gave check and what it took; the
//! record knows where the last irreversible ply (a capture, or a Three Kingdoms
//! defeat) left the repetition horizon.
//!
//! A game may carry rules of its start beyond its position's ([`HandicapRules`]): a
//! Xiangqi handicap (extra opening moves, protected pieces); Janggi and Three Kingdoms
//! have none ([`NoHandicap`]). What only a two-player 9x10 record answers (the checks
//! of a colour, the mover of a ply yet to come, the points no move has touched) is in
//! its own `impl` block.
//!
//! The two 9x10 variants' positions are recorded as one
//! ([`crate::rules::board_position::Position`]); Three Kingdoms' as its own.
//!
//! The variants name their records [`crate::rules::xiangqi::Game`],
//! [`crate::rules::janggi::Game`] and [`crate::rules::three_kingdoms::Game`].

use std::fmt::{self, Debug};

use super::illegal::{IllegalMove, IllegalReason};
use super::repetition::CyclePly;
use super::types::{Color, Move, Square};
use super::{BoardPosition, GamePosition};

/// The most sides a variant has (Three Kingdoms' three kingdoms).
pub const MAX_SIDES: usize = 3;

/// What a game record needs of its variant's position beyond [`GamePosition`].
pub trait RecordedPosition: GamePosition<Undo: Copy + Debug + Eq> + Debug {
    /// A piece, as a ply records what it took.
    type Piece: Copy + Eq + Debug + Send + Sync;
    /// The rules a game may carry beyond its position's ([`NoHandicap`] where the
    /// variant has none).
    type Handicap: HandicapRules<Self>;

    /// The piece taken by the move that handed back `undo`.
    fn captured_by(undo: &Self::Undo) -> Option<Self::Piece>;
    /// Does the move that handed back `undo` end every repetition (a capture; in Three
    /// Kingdoms also a defeat)? No position before it can stand again.
    fn is_irreversible(undo: &Self::Undo) -> bool {
        Self::captured_by(undo).is_some()
    }
    /// The side's index, below [`MAX_SIDES`].
    fn side_index(side: Self::Side) -> usize;
    /// The move number, as records count them (from 1, growing after the last side's
    /// move).
    fn fullmove_number(&self) -> u32;
    /// Gives the move back to the side that has just moved, for a handicap's extra
    /// move; `false`, and nothing changes, where it is refused (always, by default).
    fn skip_turn(&mut self) -> bool {
        false
    }
    /// Takes back [`RecordedPosition::skip_turn`].
    fn undo_skip_turn(&mut self) {}
}

/// Rules a game carries beyond its position's, from its start: a handicap.
pub trait HandicapRules<P: GamePosition>: Clone + Debug + Default + Send + Sync {
    /// Is this a normal game (no rule beyond the position's)?
    fn is_none(&self) -> bool;
    /// After ply `index` (0-based), does the same side move again?
    fn keeps_turn(&self, index: usize) -> bool;
    /// The first of these rules that `m`, legal on the board, breaks as the next move
    /// of `game`.
    fn forbids(&self, game: &Game<P>, m: P::Move) -> Option<IllegalReason>
    where
        P: RecordedPosition;
}

/// No rule beyond the position's: the variant has no handicaps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoHandicap;

impl<P: GamePosition> HandicapRules<P> for NoHandicap {
    fn is_none(&self) -> bool {
        true
    }
    fn keeps_turn(&self, _: usize) -> bool {
        false
    }
    fn forbids(&self, _: &Game<P>, _: P::Move) -> Option<IllegalReason>
    where
        P: RecordedPosition,
    {
        None
    }
}

/// Why a record of any variant cannot be judged; `M` is the variant's move type (the
/// 9x10 [`Move`] unless named). Moves and events are named by their index in the
/// record's lists, from 0 (as the API's field paths `position.moves[i]` and
/// `events[i]` are); the text counts moves from 1, as players do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AdjudicationError<M = Move> {
    /// The move at `index` is illegal where it was played.
    IllegalMove {
        /// The move's index in the record, from 0.
        index: usize,
        /// The move.
        mv: M,
        /// The first rule it breaks.
        reason: IllegalReason,
    },
    /// The event at `index` cannot be as given: it follows a ply past the record's end,
    /// or claims what the position does not allow.
    BadEvent {
        /// The event's index, from 0.
        index: usize,
        /// What is wrong with it, in words.
        detail: String,
    },
}

impl<M: fmt::Display> fmt::Display for AdjudicationError<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AdjudicationError::IllegalMove { index, mv, reason } => {
                write!(f, "move {} ({mv}) is illegal: {}", index + 1, reason.describe())
            }
            AdjudicationError::BadEvent { index, detail } => write!(f, "event {index}: {detail}"),
        }
    }
}

impl<M: fmt::Debug + fmt::Display> std::error::Error for AdjudicationError<M> {}

/// One ply of a game of the variant whose position is `P`.
pub struct Ply<P: RecordedPosition> {
    /// The move played.
    pub mv: P::Move,
    /// Key of the position after the move (and, in Three Kingdoms, the defeats it
    /// brought).
    pub key_after: u64,
    /// The move left the next side to move in check.
    pub gave_check: bool,
    /// The piece the move took.
    pub captured: Option<P::Piece>,
    /// The side that played the move.
    pub mover: P::Side,
    /// A handicap's extra move: the same side moved again after it.
    pub kept_turn: bool,
    /// Checking plies of each side (by [`RecordedPosition::side_index`]) from the start
    /// of the record up to and including this one.
    pub checks_so_far: [u32; MAX_SIDES],
    /// What taking the move back needs.
    pub undo: P::Undo,
}

// By hand: a derive would ask the position itself to be `Copy`, `Eq`, ...
impl<P: RecordedPosition> Clone for Ply<P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: RecordedPosition> Copy for Ply<P> {}

impl<P: RecordedPosition> PartialEq for Ply<P> {
    fn eq(&self, other: &Self) -> bool {
        self.mv == other.mv
            && self.key_after == other.key_after
            && self.gave_check == other.gave_check
            && self.captured == other.captured
            && self.mover == other.mover
            && self.kept_turn == other.kept_turn
            && self.checks_so_far == other.checks_so_far
            && self.undo == other.undo
    }
}

impl<P: RecordedPosition> Eq for Ply<P> {}

impl<P: RecordedPosition> Debug for Ply<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ply")
            .field("mv", &self.mv)
            .field("key_after", &self.key_after)
            .field("gave_check", &self.gave_check)
            .field("captured", &self.captured)
            .field("mover", &self.mover)
            .field("kept_turn", &self.kept_turn)
            .field("checks_so_far", &self.checks_so_far)
            .field("undo", &self.undo)
            .finish()
    }
}

impl<P: BoardPosition + RecordedPosition> Ply<P> {
    /// The ply as a repetition cycle's judgement sees it.
    pub fn cycle(&self) -> CyclePly {
        CyclePly { mv: self.mv, gave_check: self.gave_check, kept_turn: self.kept_turn }
    }
}

/// A game of any variant: start position, moves, the current position, and the rules
/// of a handicap start.
#[derive(Clone, Debug)]
pub struct Game<P: RecordedPosition> {
    start: P,
    position: P,
    plies: Vec<Ply<P>>,
    /// Number of plies up to and including the last irreversible one (0 if none).
    capture_horizon: usize,
    handicap: P::Handicap,
}

impl<P: RecordedPosition> Game<P> {
    /// A game from `start`, no move played, with no handicap.
    pub fn new(start: P) -> Self {
        Self::with_handicap(start, P::Handicap::default())
    }

    /// A game played under the rules of a handicap.
    pub fn with_handicap(start: P, handicap: P::Handicap) -> Self {
        Game { position: start.clone(), start, plies: Vec::new(), capture_horizon: 0, handicap }
    }

    /// The handicap's rules (none unless the game was started with one).
    pub fn handicap(&self) -> &P::Handicap {
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
    pub fn plies(&self) -> &[Ply<P>] {
        &self.plies
    }

    /// `None` when `m` is legal as the next move (on the board and under the handicap),
    /// otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: P::Move) -> Option<IllegalReason> {
        self.position.explain_illegal(m).or_else(|| self.handicap_violation(m))
    }

    fn handicap_violation(&self, m: P::Move) -> Option<IllegalReason> {
        if self.handicap.is_none() {
            return None;
        }
        self.handicap.forbids(self, m)
    }

    /// Is `m` legal as the next move?
    pub fn is_legal(&self, m: P::Move) -> bool {
        self.position.is_legal(m) && self.handicap_violation(m).is_none()
    }

    /// Appends every legal next move to `list` (the position's, less what the handicap
    /// forbids).
    pub fn legal_moves(&self, list: &mut P::Moves)
    where
        P::Moves: Extend<P::Move>,
    {
        if self.handicap.is_none() {
            return self.position.legal_moves(list);
        }
        let mut all = P::Moves::default();
        self.position.legal_moves(&mut all);
        list.extend(all.as_ref().iter().copied().filter(|&m| self.handicap_violation(m).is_none()));
    }

    /// Plays a legal move, or leaves the game unchanged and says why not.
    pub fn play(&mut self, m: P::Move) -> Result<&Ply<P>, IllegalMove<P::Move>> {
        if !self.is_legal(m) {
            return Err(IllegalMove(m));
        }
        Ok(self.play_unchecked(m))
    }

    /// Plays a move known to be legal. During a handicap's extra moves the same side
    /// moves again.
    pub fn play_unchecked(&mut self, m: P::Move) -> &Ply<P> {
        let mover = self.position.turn();
        let undo = self.position.play_unchecked(m);
        let gave_check = self.position.in_check();
        let kept_turn = self.handicap.keeps_turn(self.plies.len()) && self.position.skip_turn();
        let mut checks_so_far = self.plies.last().map_or([0; MAX_SIDES], |p| p.checks_so_far);
        if gave_check {
            checks_so_far[P::side_index(mover)] += 1;
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
        if P::is_irreversible(&undo) {
            self.capture_horizon = self.plies.len();
        }
        &self.plies[self.plies.len() - 1]
    }

    /// Plays the moves of a record one by one, each checked first: the first illegal
    /// one is the error, named by its index from 0. `after_ply` sees the game after
    /// each move and may stop the replay with its own error.
    pub fn play_record(
        &mut self,
        moves: &[P::Move],
        mut after_ply: impl FnMut(&Self) -> Result<(), AdjudicationError<P::Move>>,
    ) -> Result<(), AdjudicationError<P::Move>> {
        for (index, &mv) in moves.iter().enumerate() {
            if let Some(reason) = self.explain_illegal(mv) {
                return Err(AdjudicationError::IllegalMove { index, mv, reason });
            }
            self.play_unchecked(mv);
            after_ply(self)?;
        }
        Ok(())
    }

    /// Takes back the last move, if any.
    pub fn undo(&mut self) -> Option<P::Move> {
        let ply = self.plies.pop()?;
        if P::is_irreversible(&ply.undo) {
            self.capture_horizon = self.plies.iter().rposition(|p| P::is_irreversible(&p.undo)).map_or(0, |i| i + 1);
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

    /// Keys of the positions since the last irreversible ply, oldest first, ending with
    /// the current one (the start position counts when there was none).
    pub fn keys_since_capture(&self) -> impl Iterator<Item = u64> + '_ {
        (self.capture_horizon..=self.plies.len()).map(|i| self.key_before(i))
    }

    /// Index (in `key_before` terms) of the first position since the last irreversible
    /// ply (a capture, or a Three Kingdoms defeat).
    pub fn capture_horizon(&self) -> usize {
        self.capture_horizon
    }

    /// The plies (in `key_before` terms, oldest first) after which the current position
    /// (with the same side to move) stood, itself included. Only positions since the
    /// last irreversible ply can match, so no more are searched.
    pub fn occurrences_of_current(&self) -> Vec<usize> {
        let key = self.position.key();
        (self.capture_horizon..=self.plies.len()).filter(|&i| self.key_before(i) == key).collect()
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
}

/// What only a two-player 9x10 record answers.
impl<P: BoardPosition + RecordedPosition> Game<P> {
    /// Has no move of the game so far started from or ended on `sq`?
    pub fn untouched(&self, sq: Square) -> bool {
        self.plies.iter().all(|p| p.mv.from() != sq && p.mv.to() != sq)
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
}
