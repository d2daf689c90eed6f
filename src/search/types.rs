//! The search's limits, parameters, lines, reports and scores.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::nnue::Network;
use super::time::{Budget, Clock};
use crate::rules::types::Move;

/// Score of being mated at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A game won by a rule rather than by mate (the opponent's forbidden repetition, a
/// count), below the mate range.
pub(super) const RULED_WIN: i32 = 20_000;
pub(super) const INFINITY: i32 = 31_000;
/// The deepest ply a search reaches.
pub const MAX_PLY: usize = 120;

/// A score for the outside world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's view.
    Centipawns(i32),
    /// Mate in this many moves (positive: the side to move mates; negative: is mated).
    Mate(i32),
}

impl Score {
    /// The score a search's internal value stands for.
    pub fn from_internal(v: i32) -> Score {
        if v > MATE_BOUND {
            Score::Mate((MATE - v + 1) / 2)
        } else if v < -MATE_BOUND {
            Score::Mate(-((MATE + v) / 2))
        } else {
            Score::Centipawns(v)
        }
    }
}

/// What may end a search early. Unset limits do not apply; the caller's stop flag and
/// deadline always do.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    /// Stop after completing this depth.
    pub depth: Option<u32>,
    /// Stop after this many nodes (one thread then searches, to count them exactly).
    pub nodes: Option<u64>,
    /// Stop after this long.
    pub movetime: Option<Duration>,
    /// A game clock: the search spends what [`Clock::budget`] gives, more or less as
    /// the position needs (see [`super::time`]).
    pub clock: Option<Clock>,
}

impl Limits {
    /// When a search started at `start` must stop: the earliest of the caller's
    /// `deadline`, the movetime and, on a clock, the part of the move's budget that
    /// `clock_part` picks (the hard one for a search that paces its depths, the soft
    /// one for a search that does not).
    pub fn deadline(
        &self,
        start: Instant,
        deadline: Option<Instant>,
        clock_part: fn(Budget) -> Duration,
    ) -> Option<Instant> {
        let movetime = self.movetime.map(|t| start + t);
        let clock = self.clock.map(|c| start + clock_part(c.budget()));
        [deadline, movetime, clock].into_iter().flatten().min()
    }
}

/// What to search: the limits, the lines to report and the root moves to consider.
///
/// Generic over the variant's move: `Params` is the 9x10 variants', and
/// [`three_kingdoms::Params`](super::three_kingdoms::Params) Three Kingdoms'.
#[derive(Clone, Debug)]
pub struct Params<M = Move> {
    /// What may end the search.
    pub limits: Limits,
    /// Lines to report (multi-PV); 0 and 1 are one line.
    pub multipv: usize,
    /// Search threads sharing the table (the Three Kingdoms search uses one).
    pub threads: usize,
    /// Search only these root moves (empty: all).
    pub search_moves: Vec<M>,
    /// Never play these root moves.
    pub exclude_moves: Vec<M>,
    /// The net that evaluates the positions searched; `None`, or a net of another
    /// variant: the classical evaluation. (The 9x10 variants only; Three Kingdoms has
    /// its own evaluation.)
    pub nnue: Option<Arc<Network>>,
}

impl<M> Default for Params<M> {
    fn default() -> Self {
        Params {
            limits: Limits::default(),
            multipv: 1,
            threads: 1,
            search_moves: Vec::new(),
            exclude_moves: Vec::new(),
            nnue: None,
        }
    }
}

/// One line of the search: its score and its moves from the root. The 9x10 variants
/// score a [`Score`] from the side to move's view; Three Kingdoms an `i32` from the
/// root player's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line<M = Move, S = Score> {
    /// The line's value.
    pub score: S,
    /// The moves, from the root.
    pub pv: Vec<M>,
}

/// Progress after a completed depth, and the final answer.
#[derive(Clone, Debug)]
pub struct Report<M = Move, S = Score> {
    /// The last completed depth.
    pub depth: u32,
    /// The deepest ply reached (quiescence included).
    pub seldepth: u32,
    /// Nodes searched by every thread.
    pub nodes: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Lines, best first (none without a root move).
    pub lines: Vec<Line<M, S>>,
    /// The table's fill, in permille.
    pub hashfull: u32,
}

/// Why a search stopped (this search's and the Three Kingdoms search's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The depth asked for was completed.
    Depth,
    /// The node budget ran out.
    Nodes,
    /// The move time or the deadline ran out.
    Time,
    /// The stop flag (cancellation, `stop`, a deadline outside the search).
    Stopped,
    /// There was no legal move to search.
    NoLegalMoves,
    /// The side to move has one legal move and no depth was asked for (Three Kingdoms).
    SingleMove,
    /// The game's end (a mate, or Three Kingdoms' last kingdom) proven at the depth
    /// searched.
    MateFound,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Outcome<M = Move, S = Score> {
    /// The move to play; `None` without a root move.
    pub best: Option<M>,
    /// The reply the best line expects.
    pub ponder: Option<M>,
    /// The last report.
    pub report: Report<M, S>,
    /// What ended the search.
    pub stop_reason: StopReason,
}

impl<M, S: Copy> Outcome<M, S> {
    /// The score of the best line; `None` without a root move.
    pub fn score(&self) -> Option<S> {
        self.report.lines.first().map(|l| l.score)
    }
}

/// A mate (or won game) score relative to the node, as the table stores it, from one
/// relative to the root (`ply` plies above).
pub(super) fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A mate score relative to the root from one stored relative to the node.
pub(super) fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

pub(super) fn clamp16(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

pub(super) fn internal(s: Score) -> i32 {
    match s {
        Score::Centipawns(c) => c,
        Score::Mate(n) if n > 0 => MATE - 2 * n + 1,
        Score::Mate(n) => -MATE - 2 * n,
    }
}
