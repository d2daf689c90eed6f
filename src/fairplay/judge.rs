//! One played move against the engine's lines: the evidence an audit gives of a ply,
//! and the formulas that turn it into losses and classes.
//!
//! The ply is searched in the position before it at a fixed budget with `multipv`
//! lines; the played move is scored from its line, or by a second search with the same
//! budget restricted to it when it is not among the lines. Scores are from the mover's
//! view; a mate in n moves counts as [`MATE_CP`] - n centipawns (being mated: its
//! negative). From the best and the played score:
//!
//! - centipawn loss: best - played, at least 0, at most [`CP_LOSS_CAP`];
//! - win probability: `wp(cp) = 1 / (1 + exp(-k * cp))`, k = [`WP_SCALE`] (the
//!   logistic Lichess fits to chess games, used unchanged: a Xiangqi soldier is about
//!   100 centipawns as a pawn is), and the loss `max(0, wp(best) - wp(played))`;
//! - the class by centipawn loss ([`MoveClass`]);
//! - forced: one legal move, or the second line is a mate against the mover while the
//!   first is not (only one move is not shown lost);
//! - decided: the best score is beyond [`DECIDED_CP`] either way (a mate included);
//! - near best: the lines within [`NEAR_BEST_CP`] of the best (the best included).
//!
//! Determinism: the search runs on one thread with the caller's table, which
//! [`judge`] empties first; with a node budget the evidence is a function of the game
//! up to the ply, the rule set and the parameters only.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::engine::Engine;
use crate::game::BoardGame;
use crate::rules::types::{Color, Move, MoveList};
use crate::search::tt::TranspositionTable;
use crate::search::{Line, Params, Score};

/// Largest centipawn loss reported.
pub const CP_LOSS_CAP: i32 = 1000;
/// A mate in n moves counts as `MATE_CP - n` centipawns.
pub const MATE_CP: i32 = 10_000;
/// Lines within this many centipawns of the best count as near the best.
pub const NEAR_BEST_CP: i32 = 20;
/// A best score beyond this (either way) marks a ply decided.
pub const DECIDED_CP: i32 = 1000;
/// The k of the win probability `1 / (1 + exp(-k * cp))`.
pub const WP_SCALE: f64 = 0.003_682_08;

/// How good a played move is, by its centipawn loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveClass {
    /// The engine's first line, or no loss.
    Best,
    /// Loses 1 to 20 centipawns.
    Excellent,
    /// Loses 21 to 50.
    Good,
    /// Loses 51 to 100.
    Inaccuracy,
    /// Loses 101 to 300.
    Mistake,
    /// Loses more than 300.
    Blunder,
}

/// The class of a move by its centipawn loss (`first`: the engine's first line).
pub fn classify(first: bool, cp_loss: u32) -> MoveClass {
    use MoveClass as C;
    match cp_loss {
        _ if first => C::Best,
        0 => C::Best,
        1..=20 => C::Excellent,
        21..=50 => C::Good,
        51..=100 => C::Inaccuracy,
        101..=300 => C::Mistake,
        _ => C::Blunder,
    }
}

/// A score in centipawns, a mate in n moves as `MATE_CP - n` (being mated: negative);
/// scores won or lost by a rule rather than a mate stay below the mates.
pub fn centipawns(s: Score) -> i32 {
    match s {
        Score::Centipawns(c) => c.clamp(-(MATE_CP - 1000), MATE_CP - 1000),
        Score::Mate(n) if n > 0 => MATE_CP - n,
        Score::Mate(n) => -(MATE_CP + n),
    }
}

/// Win probability (0 to 1) of a score in centipawns.
pub fn win_probability(cp: i32) -> f64 {
    1.0 / (1.0 + (-WP_SCALE * f64::from(cp)).exp())
}

/// Lichess's accuracy of a move (0 to 100) from its win probability loss (0 to 1).
pub fn move_accuracy(wp_loss: f64) -> f64 {
    (103.1668 * (-0.04354 * wp_loss * 100.0).exp() - 3.1669).clamp(0.0, 100.0)
}

/// The centipawn loss of a move scored `played` where the best scores `best`.
pub fn cp_loss(best_cp: i32, played_cp: i32) -> u32 {
    (best_cp - played_cp).clamp(0, CP_LOSS_CAP) as u32
}

/// The win probability loss of a move scored `played` where the best scores `best`.
pub fn wp_loss(best_cp: i32, played_cp: i32) -> f64 {
    (win_probability(best_cp) - win_probability(played_cp)).max(0.0)
}

/// What the searches found of one ply.
#[derive(Clone, Debug)]
pub struct PlyEvidence {
    /// Index of the move in the game (0-based).
    pub index: usize,
    /// The side that played it.
    pub mover: Color,
    /// The move played.
    pub played: Move,
    /// The engine's choice.
    pub best: Move,
    /// The engine's score of its choice.
    pub best_score: Score,
    /// The score of the played move.
    pub played_score: Score,
    /// Rank of the played move among the lines (1 is the best); `None` when it is not
    /// among them.
    pub played_rank: Option<usize>,
    /// The engine's lines, best first.
    pub lines: Vec<Line>,
    /// Legal moves in the position.
    pub legal_moves: usize,
    /// Depth completed by the search of the lines.
    pub depth: u32,
    /// Nodes of both searches.
    pub nodes: u64,
}

impl PlyEvidence {
    /// The best score in centipawns.
    pub fn best_cp(&self) -> i32 {
        centipawns(self.best_score)
    }

    /// The played move's score in centipawns.
    pub fn played_cp(&self) -> i32 {
        centipawns(self.played_score)
    }

    /// Best less played, at least 0, at most [`CP_LOSS_CAP`].
    pub fn cp_loss(&self) -> u32 {
        cp_loss(self.best_cp(), self.played_cp())
    }

    /// The win probability loss.
    pub fn wp_loss(&self) -> f64 {
        wp_loss(self.best_cp(), self.played_cp())
    }

    /// The played move is the engine's first line (or its choice).
    pub fn first(&self) -> bool {
        self.played_rank == Some(1) || self.best == self.played
    }

    /// The class of the played move.
    pub fn class(&self) -> MoveClass {
        classify(self.first(), self.cp_loss())
    }

    /// One legal move, or only one not shown lost by a mate.
    pub fn forced(&self) -> bool {
        let mated = |s: Score| matches!(s, Score::Mate(n) if n <= 0);
        let only_one_survives = self.lines.len() >= 2 && !mated(self.lines[0].score) && mated(self.lines[1].score);
        self.legal_moves == 1 || only_one_survives
    }

    /// The best score is beyond [`DECIDED_CP`] either way.
    pub fn decided(&self) -> bool {
        self.best_cp().abs() > DECIDED_CP
    }

    /// Lines within [`NEAR_BEST_CP`] of the best, the best included (at least 1).
    pub fn near_best(&self) -> usize {
        let best = self.best_cp();
        self.lines.iter().filter(|l| best - centipawns(l.score) <= NEAR_BEST_CP).count().max(1)
    }
}

/// What one judgement searches with.
pub struct Judgement<'a> {
    /// The engine whose searches (and counters) are used.
    pub engine: &'a Engine,
    /// The table of this thread, emptied before each ply.
    pub tt: &'a TranspositionTable,
    /// Budget, lines, evaluation (one thread).
    pub params: &'a Params,
    /// The safety cap of each search.
    pub budget: Option<Duration>,
    /// Raised to stop.
    pub stop: &'a AtomicBool,
}

/// Judges the move `played`, the `index`th of the game, in `game` (the position before
/// it). `None` when the stop flag cut a search short.
pub fn judge(j: &Judgement, game: &BoardGame, index: usize, played: Move) -> Option<PlyEvidence> {
    j.tt.clear();
    let mut legal = MoveList::new();
    game.legal_moves(&mut legal);
    let main = j.engine.search_with(j.tt, game, j.params, j.budget, j.stop, &mut |_| {});
    if j.stop.load(Ordering::Relaxed) {
        return None;
    }
    let lines = main.report.lines;
    let best = main.best.unwrap_or(played);
    let rank = lines.iter().position(|l| l.pv.first() == Some(&played)).map(|i| i + 1);
    let mut nodes = main.report.nodes;
    let played_score = match rank {
        Some(r) => lines.get(r - 1).map(|l| l.score),
        None => {
            let only = Params { multipv: 1, search_moves: vec![played], ..j.params.clone() };
            let alone = j.engine.search_with(j.tt, game, &only, j.budget, j.stop, &mut |_| {});
            if j.stop.load(Ordering::Relaxed) {
                return None;
            }
            nodes += alone.report.nodes;
            alone.report.lines.first().filter(|l| l.pv.first() == Some(&played)).map(|l| l.score)
        }
    };
    // Without a line for either (a move the search does not list), the move is taken to
    // cost nothing.
    let best_score = lines.first().map(|l| l.score).or(played_score).unwrap_or(Score::Centipawns(0));
    Some(PlyEvidence {
        index,
        mover: game.turn(),
        played,
        best,
        best_score,
        played_score: played_score.unwrap_or(best_score),
        played_rank: rank,
        lines,
        legal_moves: legal.len(),
        depth: main.report.depth,
        nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mates_rank_above_every_centipawn_score() {
        assert_eq!(centipawns(Score::Mate(3)), 9_997);
        assert_eq!(centipawns(Score::Mate(-2)), -9_998);
        assert_eq!(centipawns(Score::Mate(0)), -MATE_CP);
        assert_eq!(centipawns(Score::Centipawns(19_990)), 9_000);
        assert!(centipawns(Score::Mate(40)) > centipawns(Score::Centipawns(30_000)));
    }

    #[test]
    fn win_probability_and_accuracy_follow_their_formulas() {
        assert!((win_probability(0) - 0.5).abs() < 1e-12);
        assert!((win_probability(300) + win_probability(-300) - 1.0).abs() < 1e-12);
        assert!((move_accuracy(0.0) - 99.9999).abs() < 1e-3);
        assert_eq!(move_accuracy(1.0), 0.0);
        assert!(move_accuracy(0.1) < move_accuracy(0.05));
    }

    #[test]
    fn classes_follow_the_thresholds() {
        use MoveClass as C;
        let got: Vec<C> = [0, 1, 20, 21, 50, 51, 100, 101, 300, 301, 1000].map(|l| classify(false, l)).to_vec();
        let want = [
            C::Best,
            C::Excellent,
            C::Excellent,
            C::Good,
            C::Good,
            C::Inaccuracy,
            C::Inaccuracy,
            C::Mistake,
            C::Mistake,
            C::Blunder,
            C::Blunder,
        ];
        assert_eq!(got, want);
        assert_eq!(classify(true, 40), C::Best);
    }
}
