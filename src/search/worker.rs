//! One search thread: iterative deepening with aspiration windows over its own copy of
//! the position, its histories and its principal variations.

mod alphabeta;
mod movepick;
mod ordering;

use std::sync::atomic::Ordering;
use std::time::Instant;

use super::nnue::AccumulatorStack;
use super::time::Pacer;
use super::tt::Entry;
use super::types::{INFINITY, MATE, MATE_BOUND, MAX_PLY, RULED_WIN, clamp16, from_tt, internal, to_tt};
use super::{Line, Outcome, Params, Report, Score, SearchGame, Searchable, Shared, StopReason};
use crate::rules::repetition::CyclePly;
use crate::rules::types::{FixedList, Move, MoveList};

/// A net's evaluation is kept within this bound, well below the scores of games won
/// by a rule or by mate.
const NNUE_BOUND: i32 = RULED_WIN / 2;
/// Plies past twice a mate's length after which the search stops on it.
const MATE_MARGIN: u32 = 4;
/// Futility pruning of quiet moves: at most this reduced depth, with this margin.
const FUTILITY_DEPTH: i32 = 6;
const FUTILITY_BASE: i32 = 150;
const FUTILITY_MARGIN: i32 = 120;
/// Reverse futility: at most this depth, with this margin per ply.
const RFP_DEPTH: i32 = 7;
const RFP_MARGIN: i32 = 110;
/// Null-move cutoffs from this depth on are verified by a search without one.
const NULL_VERIFY_DEPTH: i32 = 12;
/// Captures losing more than this per ply by the exchange are pruned up to this depth.
const SEE_PRUNE_DEPTH: i32 = 6;
const SEE_CAPTURE_MARGIN: i32 = 120;
/// Quiet moves losing more than this times the square of their reduced depth by the
/// exchange on their target are pruned up to the same depth.
const SEE_QUIET_MARGIN: i32 = 15;
/// Quiet moves with a history below minus this per ply are pruned near the horizon.
const HISTORY_PRUNE_DEPTH: i32 = 3;
const HISTORY_PRUNE_MARGIN: i32 = 2000;
/// Singular extensions from this depth on.
const SINGULAR_DEPTH: i32 = 8;
const SINGULAR_ENABLED: bool = false;
/// Quiescence: delta and exchange pruning of captures.
const QS_PRUNING: bool = true;
const QS_DELTA: i32 = 200;
/// Late-move reductions: `LMR_BASE + ln(depth) ln(count) / LMR_DIVISOR`, less one per
/// this much history.
const LMR_BASE: f64 = 0.75;
const LMR_DIVISOR: f64 = 2.25;
const LMR_HISTORY_DIVISOR: i32 = 8192;
/// History values stay within this bound.
const HISTORY_MAX: i32 = 16_384;
/// Continuation-history slots: a piece and its target point, and one for none.
const CONT_SLOTS: usize = 14 * 90 + 1;
const CONT_NONE: usize = 14 * 90;

pub(super) struct Worker<'a, P: Searchable> {
    pos: P,
    /// Material and placement of `pos`, kept move by move.
    material: P::Material,
    /// The net's accumulators along the path, when a net evaluates.
    nnue: Option<AccumulatorStack>,
    rules: P::Rules,
    /// Keys of the positions on the game and search path, oldest first.
    keys: Vec<u64>,
    /// For each entry of `keys`: the ply that led to it, and was it a capture (or a null
    /// move, which also ends repetition scans)?
    plies: Vec<CyclePly>,
    irreversible: Vec<bool>,
    shared: &'a Shared<'a>,
    params: &'a Params,
    id: usize,
    nodes: u64,
    flushed: u64,
    /// Table probes and hits not yet added to the table's hit rate.
    probes: u64,
    hits: u64,
    stopped: bool,
    seldepth: usize,
    killers: [[Option<Move>; 2]; MAX_PLY + 2],
    /// Quiet moves by side, origin and target.
    history: Box<[[[i32; 90]; 90]; 2]>,
    /// Captures by moving piece, target and victim kind.
    capture_history: Box<[[[i32; 7]; 90]; 14]>,
    /// Quiet moves after a move: `[previous slot * CONT_SLOTS + slot]`.
    cont: Box<[i16]>,
    /// The quiet move that refuted a move last, by that move's slot.
    counters: Box<[Option<Move>]>,
    /// Static evaluation at each ply of the path (`-INFINITY` in check).
    eval_stack: [i32; MAX_PLY + 2],
    /// The slot of the move played at each ply of the path.
    cont_stack: [usize; MAX_PLY + 2],
    /// The move a singular-extension search leaves out at each ply.
    excluded: [Option<Move>; MAX_PLY + 2],
    pv: Box<[[Move; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    root_moves: Vec<Move>,
    /// Root moves already reported on earlier multi-PV lines of this depth.
    root_skip: Vec<Move>,
    /// The best root line of the line being searched at this depth so far, with its
    /// score: a root move searched to the end at this depth that beat every move
    /// before it. A search stopped mid-depth plays it.
    root_partial: Option<(i32, Vec<Move>)>,
}

impl<'a, P: Searchable> Worker<'a, P> {
    pub(super) fn new<G: SearchGame<Position = P>>(
        game: &G,
        params: &'a Params,
        shared: &'a Shared<'a>,
        id: usize,
    ) -> Self {
        let history = game.history();
        let mut keys = Vec::with_capacity(history.len() + MAX_PLY + 2);
        let mut plies = Vec::with_capacity(keys.capacity());
        let mut irreversible = Vec::with_capacity(keys.capacity());
        for (i, &(key, ply)) in history.iter().enumerate() {
            keys.push(key ^ P::SALT);
            plies.push(ply);
            irreversible.push(i == 0);
        }
        let pos = game.position().clone();
        let mut all = MoveList::new();
        pos.legal_moves(&mut all);
        let root_moves = all
            .iter()
            .copied()
            .filter(|m| params.search_moves.is_empty() || params.search_moves.contains(m))
            .filter(|m| !params.exclude_moves.contains(m))
            .collect();
        let nnue = params
            .nnue
            .as_ref()
            .filter(|net| net.variant() == P::NET_VARIANT)
            .map(|net| AccumulatorStack::new(net.clone(), pos.board()));
        Worker {
            material: pos.material(),
            nnue,
            pos,
            rules: game.rules(),
            keys,
            plies,
            irreversible,
            shared,
            params,
            id,
            nodes: 0,
            flushed: 0,
            probes: 0,
            hits: 0,
            stopped: false,
            seldepth: 0,
            killers: [[None; 2]; MAX_PLY + 2],
            history: Box::new([[[0; 90]; 90]; 2]),
            capture_history: Box::new([[[0; 7]; 90]; 14]),
            cont: vec![0; CONT_SLOTS * CONT_SLOTS].into_boxed_slice(),
            counters: vec![None; CONT_SLOTS].into_boxed_slice(),
            eval_stack: [0; MAX_PLY + 2],
            cont_stack: [CONT_NONE; MAX_PLY + 2],
            excluded: [None; MAX_PLY + 2],
            pv: Box::new([[Move::PASS; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            root_moves,
            root_skip: Vec::new(),
            root_partial: None,
        }
    }

    pub(super) fn iterate(&mut self, start: Instant, on_depth: &mut dyn FnMut(&Report)) -> Outcome {
        let max_depth = self.params.limits.depth.unwrap_or(MAX_PLY as u32 - 8).clamp(1, MAX_PLY as u32 - 8);
        let multipv = self.params.multipv.clamp(1, self.root_moves.len().max(1));
        let mut best: Vec<Line> = Vec::new();
        let mut completed = 0;
        let mut reason = StopReason::Depth;
        if self.root_moves.is_empty() {
            let mut all = MoveList::new();
            self.pos.legal_moves(&mut all);
            let score = if self.pos.is_ended() {
                self.ended_score(0)
            } else if all.is_empty() {
                -MATE
            } else {
                0
            };
            let report = self.report(0, start, vec![Line { score: Score::from_internal(score), pv: vec![] }]);
            return Outcome { best: None, ponder: None, report, stop_reason: StopReason::NoLegalMoves };
        }
        let mut pacer = self.params.limits.clock.map(|c| Pacer::new(c.budget()));
        let first_depth = 1 + (self.id % 2) as u32;
        for depth in first_depth..=max_depth {
            let mut lines: Vec<(i32, Vec<Move>)> = Vec::new();
            self.root_skip.clear();
            for index in 0..multipv {
                let previous = best.get(index).map(|l| internal(l.score));
                self.root_partial = None;
                let score = self.aspiration(depth as i32, previous);
                if self.stopped {
                    break;
                }
                let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
                if let Some(&m) = pv.first() {
                    self.root_skip.push(m);
                }
                lines.push((score, pv));
            }
            self.flush_nodes();
            if self.stopped {
                if multipv == 1
                    && let Some((score, pv)) = self.root_partial.take()
                {
                    // A root move searched to the end at the deeper depth, and better than
                    // the moves before it (the last depth's best comes first), is the
                    // better guess than the last depth's best.
                    best = vec![Line { score: Score::from_internal(score), pv }];
                } else if completed == 0 && !lines.is_empty() {
                    // A depth cut short keeps the lines it finished (the best line first).
                    best = lines.into_iter().map(|(s, pv)| Line { score: Score::from_internal(s), pv }).collect();
                }
                reason = self.stop_reason();
                break;
            }
            lines.sort_by_key(|l| std::cmp::Reverse(l.0));
            best = lines.into_iter().map(|(s, pv)| Line { score: Score::from_internal(s), pv }).collect();
            completed = depth;
            if self.id == 0 {
                on_depth(&self.report(completed, start, best.clone()));
            }
            if self.id != 0 && self.shared.done.load(Ordering::Relaxed) {
                break;
            }
            // A mate found is the shortest once the depth has gone well past it: reductions
            // and late-move pruning can hide a shorter one for a few plies.
            let mate_proven = best
                .first()
                .is_some_and(|l| matches!(l.score, Score::Mate(n) if n > 0 && 2 * n as u32 + MATE_MARGIN <= depth));
            if mate_proven && multipv == 1 {
                reason = StopReason::MateFound;
                break;
            }
            if let Some(pacer) = &mut pacer {
                let score = best.first().map_or(0, |l| internal(l.score));
                // One legal move needs no thought on a clock.
                if self.root_moves.len() == 1
                    || !pacer.another_depth(best.first().and_then(|l| l.pv.first().copied()), score, start.elapsed())
                {
                    reason = StopReason::Time;
                    break;
                }
            }
        }
        let report = self.report(completed, start, best.clone());
        let pv = best.first().map(|l| l.pv.clone()).unwrap_or_default();
        let best_move = pv.first().copied().or_else(|| self.root_moves.first().copied());
        Outcome { best: best_move, ponder: pv.get(1).copied(), report, stop_reason: reason }
    }

    fn stop_reason(&self) -> StopReason {
        if self.nodes_total() >= self.shared.node_limit {
            StopReason::Nodes
        } else if self.shared.deadline.is_some_and(|d| Instant::now() >= d) {
            StopReason::Time
        } else {
            StopReason::Stopped
        }
    }

    fn report(&self, depth: u32, start: Instant, lines: Vec<Line>) -> Report {
        Report {
            depth,
            seldepth: self.seldepth as u32,
            nodes: self.shared.nodes.load(Ordering::Relaxed),
            elapsed: start.elapsed(),
            lines,
            hashfull: self.shared.tt.hashfull(),
        }
    }

    fn aspiration(&mut self, depth: i32, previous: Option<i32>) -> i32 {
        let mut delta = 40;
        let (mut alpha, mut beta) = match previous {
            Some(p) if depth >= 5 && p.abs() < MATE_BOUND => (p - delta, p + delta),
            _ => (-INFINITY, INFINITY),
        };
        loop {
            let in_check = self.pos.in_check();
            let score = self.negamax(depth, alpha, beta, 0, true, in_check);
            if self.stopped {
                return score;
            }
            if score <= alpha {
                alpha = (alpha - delta).max(-INFINITY);
            } else if score >= beta {
                beta = (beta + delta).min(INFINITY);
            } else {
                return score;
            }
            delta *= 2;
            if delta > 1000 {
                alpha = -INFINITY;
                beta = INFINITY;
            }
        }
    }

    fn nodes_total(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + (self.nodes - self.flushed)
    }

    /// Publishes the nodes counted since the last flush, and the table probes.
    fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
        self.shared.tt.count_probes(self.probes, self.hits);
        (self.probes, self.hits) = (0, 0);
    }

    /// The table's entry for `key`, counted for the hit rate at the next flush.
    #[inline]
    fn probe(&mut self, key: u64) -> Option<Entry> {
        let entry = self.shared.tt.peek(key);
        self.probes += 1;
        self.hits += entry.is_some() as u64;
        entry
    }

    /// Counts a node; false when the search must stop.
    #[inline]
    fn visit(&mut self) -> bool {
        if self.stopped {
            return false;
        }
        if self.shared.node_limit != u64::MAX && self.nodes_total() >= self.shared.node_limit {
            self.stopped = true;
            return false;
        }
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            self.flush_nodes();
            if self.shared.stop.load(Ordering::Relaxed)
                || (self.id != 0 && self.shared.done.load(Ordering::Relaxed))
                || self.shared.deadline.is_some_and(|d| Instant::now() >= d)
            {
                self.stopped = true;
                return false;
            }
        }
        true
    }

    /// Plays `m` (legal) with the evaluation's incremental parts: the material and
    /// undo to give [`Worker::unmake`].
    #[inline(always)]
    fn make(&mut self, m: Move) -> (P::Material, P::Undo) {
        let saved = self.material;
        self.material = self.pos.material_after(saved, m);
        if let Some(stack) = &mut self.nnue {
            stack.push(self.pos.net_change(m));
        }
        (saved, self.pos.play_unchecked(m))
    }

    /// Takes back `m`, played by [`Worker::make`].
    #[inline(always)]
    fn unmake(&mut self, m: Move, (saved, undo): (P::Material, P::Undo)) {
        self.pos.undo(m, undo);
        self.material = saved;
        if let Some(stack) = &mut self.nnue {
            stack.pop();
        }
    }

    fn push(&mut self, m: Move, gave_check: bool, irreversible: bool) {
        self.keys.push(self.pos.key() ^ P::SALT);
        self.plies.push(CyclePly::new(m, gave_check));
        self.irreversible.push(irreversible);
    }

    fn pop(&mut self) {
        self.keys.pop();
        self.plies.pop();
        self.irreversible.pop();
    }

    /// The score of a game that ended with no loser on the board, by the rules.
    fn ended_score(&self, ply: usize) -> i32 {
        let win = RULED_WIN - ply as i32;
        match self.pos.ended_winner(self.rules) {
            None => 0,
            Some(winner) if winner == self.pos.turn() => win,
            Some(_) => -win,
        }
    }

    /// Has the current position stood before since the last irreversible move? Then
    /// the score of the cycle under the rules: a loss for the side the rules blame, a
    /// win for its opponent, otherwise a draw.
    fn repetition(&self, ply: usize) -> Option<i32> {
        let n = self.keys.len() - 1;
        let key = self.keys[n];
        let mut j = n;
        while j >= 2 {
            if self.irreversible[j] || self.irreversible[j - 1] {
                return None;
            }
            j -= 2;
            if self.keys[j] == key {
                // The position at j is the current one: the cycle's plies j+1..=n were
                // played from it.
                let win = RULED_WIN - ply as i32;
                return Some(match self.pos.cycle_loser(self.rules, &self.plies[j + 1..=n]) {
                    None => 0,
                    Some(loser) if loser == self.pos.turn() => -win,
                    Some(_) => win,
                });
            }
        }
        None
    }
}
