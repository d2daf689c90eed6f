//! Synchronous game-tree search with a stop flag and a deadline.
//!
//! Iterative deepening principal-variation search with aspiration windows; quiescence
//! over captures (all evasions when in check); move ordering by the table move, MVV-LVA,
//! killers and history; null-move pruning, late-move reductions, check extensions,
//! mate-distance scores; Lazy SMP over several threads sharing one
//! [`tt::TranspositionTable`]. Repetitions inside the search follow the game's rule set
//! ([`SearchGame::rules`]): the first return to a position on the search path is judged
//! as if the cycle went on, by the same judgement the adjudication gives a third
//! occurrence ([`crate::rules::repetition`]): a side that would lose by it (perpetual
//! check; perpetual chase under the Asian rules, perpetual attack under the tournament
//! rules; perpetual check under Janggi's tournament rules) scores a loss, any other
//! repetition a draw.
//!
//! The search is generic over the variant through [`Searchable`] (a position with its
//! moves, null move, key and incremental evaluation) and [`SearchGame`] (the history it
//! starts from); each variant gets its own monomorphized copy, so Xiangqi pays nothing
//! for Janggi's passes.

pub mod draw_offer;
pub mod eval;
pub mod janggi_eval;
pub mod see;
pub mod three_kingdoms;
pub mod tt;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::rules::board::Board;
use crate::rules::history::Game;
use crate::rules::repetition::CyclePly;
use crate::rules::types::{Color, Move, MoveList, Piece, PieceKind};
use crate::rules::{janggi, xiangqi};
use tt::{Bound, TranspositionTable};

/// What the search needs of a variant's position.
pub trait Searchable: Clone + Send + Sync {
    type Undo: Copy;
    /// The incrementally kept part of the evaluation.
    type Material: Copy + Send;
    /// The rule set whose repetition and ending rules the search follows.
    type Rules: Copy + Send + Sync + Default;
    /// Mixed into every key so that variants never share table entries.
    const SALT: u64;

    /// The side that loses a repetition cycle under `rules`, if one does: `plies` were
    /// played from `self`, which stands at both ends of the cycle.
    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color>;

    fn legal_moves(&self, list: &mut MoveList);
    fn legal_captures(&self, list: &mut MoveList);
    fn play(&mut self, m: Move) -> Self::Undo;
    fn unplay(&mut self, m: Move, undo: Self::Undo);
    /// The null move: the other side to move, nothing else changed; again to take back.
    fn toggle_turn(&mut self);
    /// May the search try a null move here?
    #[inline(always)]
    fn null_move_allowed(&self) -> bool {
        true
    }
    fn in_check(&self) -> bool;
    /// Would `m` (legal) give check?
    fn gives_check(&self, m: Move) -> bool;
    fn key(&self) -> u64;
    fn board(&self) -> &Board;
    fn turn(&self) -> Color;
    /// The piece `m` (legal) takes, if any.
    fn captured(&self, m: Move) -> Option<Piece>;
    /// Is the game over with no loser on the board (Janggi's two passes)?
    #[inline(always)]
    fn is_ended(&self) -> bool {
        false
    }
    /// Who wins a game that [`Searchable::is_ended`] under `rules` (counting, in
    /// Janggi's tournament rules); `None` is a draw.
    #[inline(always)]
    fn ended_winner(&self, _rules: Self::Rules) -> Option<Color> {
        None
    }
    fn material(&self) -> Self::Material;
    /// The material after `m`, computed before playing it.
    fn material_after(&self, material: Self::Material, m: Move) -> Self::Material;
    /// The evaluation from the side to move's view, given the current material.
    fn evaluate(&self, material: Self::Material) -> i32;
    /// Does `m` (legal) lose less than `threshold` by the exchange on its target
    /// point? Without a static exchange evaluation every move passes.
    #[inline(always)]
    fn see_ge(&self, _m: Move, _threshold: i32) -> bool {
        true
    }
}

/// A game the search can start from: its position, its history and its rules.
pub trait SearchGame: Sync {
    type Position: Searchable;
    fn position(&self) -> &Self::Position;
    /// The keys of the positions since the last capture, oldest first, ending with the
    /// current one, each with the ply that led to it (the first one's is not used).
    fn history(&self) -> Vec<(u64, CyclePly)>;
    /// The rule set the game is played under; the variant's default unless a
    /// [`UnderRules`] says otherwise.
    fn rules(&self) -> <Self::Position as Searchable>::Rules {
        Default::default()
    }
}

/// A game searched under a rule set of the caller's choice.
pub struct UnderRules<'g, G: SearchGame> {
    pub game: &'g G,
    pub rules: <G::Position as Searchable>::Rules,
}

impl<G: SearchGame> SearchGame for UnderRules<'_, G> {
    type Position = G::Position;
    fn position(&self) -> &G::Position {
        self.game.position()
    }
    fn history(&self) -> Vec<(u64, CyclePly)> {
        self.game.history()
    }
    fn rules(&self) -> <G::Position as Searchable>::Rules {
        self.rules
    }
}

/// [`SearchGame::history`] of a record from its last capture: the keys of the positions
/// from there on, and the plies after the first of them (the first position's own ply
/// is never judged: a capture, or the start, ends every cycle).
fn history_since(keys: impl Iterator<Item = u64>, plies: impl Iterator<Item = CyclePly>) -> Vec<(u64, CyclePly)> {
    let first = CyclePly::new(Move::PASS, false);
    keys.zip(std::iter::once(first).chain(plies)).collect()
}

/// The [`Searchable`] methods a 9x10 position answers with its own methods: the same
/// names, except `play` and `unplay` (`play_unchecked` and `undo`).
macro_rules! same_named_methods {
    ($pos:ty) => {
        #[inline(always)]
        fn legal_moves(&self, list: &mut MoveList) {
            <$pos>::legal_moves(self, list)
        }
        #[inline(always)]
        fn legal_captures(&self, list: &mut MoveList) {
            <$pos>::legal_captures(self, list)
        }
        #[inline(always)]
        fn play(&mut self, m: Move) -> Self::Undo {
            self.play_unchecked(m)
        }
        #[inline(always)]
        fn unplay(&mut self, m: Move, undo: Self::Undo) {
            self.undo(m, undo)
        }
        #[inline(always)]
        fn toggle_turn(&mut self) {
            <$pos>::toggle_turn(self)
        }
        #[inline(always)]
        fn in_check(&self) -> bool {
            <$pos>::in_check(self)
        }
        #[inline(always)]
        fn gives_check(&self, m: Move) -> bool {
            <$pos>::gives_check(self, m)
        }
        #[inline(always)]
        fn key(&self) -> u64 {
            <$pos>::key(self)
        }
        #[inline(always)]
        fn board(&self) -> &Board {
            <$pos>::board(self)
        }
        #[inline(always)]
        fn turn(&self) -> Color {
            <$pos>::turn(self)
        }
    };
}

/// [`SearchGame`] for a 9x10 game record: its current position, and its history since
/// the last capture.
macro_rules! record_search_game {
    ($game:ty, $pos:ty) => {
        impl SearchGame for $game {
            type Position = $pos;
            fn position(&self) -> &$pos {
                <$game>::position(self)
            }
            fn history(&self) -> Vec<(u64, CyclePly)> {
                let h = self.capture_horizon();
                let keys = (h..=self.plies().len()).map(|i| self.key_before(i));
                history_since(keys, self.plies()[h..].iter().map(|p| p.cycle()))
            }
        }
    };
}

impl Searchable for xiangqi::Position {
    type Undo = xiangqi::Undo;
    type Material = eval::Material;
    type Rules = xiangqi::adjudicate::RuleSet;
    const SALT: u64 = 0x5849_414E_4751_4931;

    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color> {
        xiangqi::adjudicate::judge_cycle(|| self.clone(), self.turn(), plies, 0, rules).loser()
    }

    same_named_methods!(xiangqi::Position);
    #[inline(always)]
    fn captured(&self, m: Move) -> Option<Piece> {
        xiangqi::Position::board(self).piece_at(m.to())
    }
    #[inline(always)]
    fn material(&self) -> eval::Material {
        eval::Material::of(self)
    }
    #[inline(always)]
    fn material_after(&self, material: eval::Material, m: Move) -> eval::Material {
        material.after(self, m.from(), m.to())
    }
    #[inline(always)]
    fn evaluate(&self, material: eval::Material) -> i32 {
        eval::evaluate_with(self, material)
    }
    #[inline]
    fn see_ge(&self, m: Move, threshold: i32) -> bool {
        see::see_ge(xiangqi::Position::board(self), m, threshold)
    }
}

record_search_game!(Game, xiangqi::Position);

impl Searchable for janggi::Position {
    type Undo = janggi::Undo;
    type Material = janggi_eval::Material;
    type Rules = janggi::adjudicate::RuleSet;
    const SALT: u64 = 0x4A41_4E47_4749_3031;

    fn cycle_loser(&self, rules: Self::Rules, plies: &[CyclePly]) -> Option<Color> {
        janggi::adjudicate::cycle_loser(self.turn(), plies, rules)
    }

    same_named_methods!(janggi::Position);
    /// Not after a pass: a null move there would stand for a second pass, which ends
    /// the game.
    #[inline(always)]
    fn null_move_allowed(&self) -> bool {
        self.consecutive_passes() == 0
    }
    #[inline(always)]
    fn captured(&self, m: Move) -> Option<Piece> {
        if m.is_pass() { None } else { janggi::Position::board(self).piece_at(m.to()) }
    }
    #[inline(always)]
    fn is_ended(&self) -> bool {
        self.consecutive_passes() >= 2
    }
    /// Two passes draw under the casual rules and go to counting under the tournament
    /// rules (the half point for Han rules out a tie).
    fn ended_winner(&self, rules: Self::Rules) -> Option<Color> {
        match rules {
            janggi::adjudicate::RuleSet::CasualV1 => None,
            janggi::adjudicate::RuleSet::TournamentV1 => {
                let [red, black] = janggi::adjudicate::count_points(self);
                Some(if red > black { Color::Red } else { Color::Black })
            }
        }
    }
    #[inline(always)]
    fn material(&self) -> janggi_eval::Material {
        janggi_eval::Material::of(self)
    }
    #[inline(always)]
    fn material_after(&self, material: janggi_eval::Material, m: Move) -> janggi_eval::Material {
        material.after(self, m)
    }
    #[inline(always)]
    fn evaluate(&self, material: janggi_eval::Material) -> i32 {
        janggi_eval::evaluate_with(self, material)
    }
}

record_search_game!(janggi::Game, janggi::Position);

/// Score of being mated at the root; mate in `n` plies scores `MATE - n`.
pub const MATE: i32 = 30_000;
/// Scores beyond this (in absolute value) are mates.
pub const MATE_BOUND: i32 = MATE - 1_000;
/// A game won by a rule rather than by mate (the opponent's forbidden repetition, a
/// count), below the mate range.
const RULED_WIN: i32 = 20_000;
const INFINITY: i32 = 31_000;
pub const MAX_PLY: usize = 120;
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

/// A score for the outside world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns from the side to move's view.
    Centipawns(i32),
    /// Mate in this many moves (positive: the side to move mates; negative: is mated).
    Mate(i32),
}

impl Score {
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
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
}

#[derive(Clone, Debug)]
pub struct Params {
    pub limits: Limits,
    /// Lines to report (multi-PV), at least 1.
    pub multipv: usize,
    pub threads: usize,
    /// Search only these root moves (empty: all).
    pub search_moves: Vec<Move>,
    /// Never play these root moves.
    pub exclude_moves: Vec<Move>,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            limits: Limits::default(),
            multipv: 1,
            threads: 1,
            search_moves: Vec::new(),
            exclude_moves: Vec::new(),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub score: Score,
    pub pv: Vec<Move>,
}

/// Progress after a completed depth, and the final answer.
#[derive(Clone, Debug)]
pub struct Report {
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub lines: Vec<Line>,
    pub hashfull: u32,
}

/// Why a search stopped (this search's and the Three Kingdoms search's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Depth,
    Nodes,
    Time,
    /// The stop flag (cancellation, `stop`, a deadline outside the search).
    Stopped,
    NoLegalMoves,
    /// The side to move has one legal move and no depth was asked for (Three Kingdoms).
    SingleMove,
    /// The game's end (a mate, or Three Kingdoms' last kingdom) proven at the depth
    /// searched.
    MateFound,
}

#[derive(Clone, Debug)]
pub struct Outcome {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub report: Report,
    pub stop_reason: StopReason,
}

struct Shared<'a> {
    tt: &'a TranspositionTable,
    stop: &'a AtomicBool,
    /// Set by the main thread when it is done, to release the helpers.
    done: AtomicBool,
    nodes: AtomicU64,
    deadline: Option<Instant>,
    node_limit: u64,
}

/// Searches the current position of `game` (its history counts for repetitions).
/// Blocks until a limit, the stop flag or the deadline ends it; `on_depth` sees each
/// completed depth of the main thread.
pub fn search<G: SearchGame>(
    game: &G,
    params: &Params,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    let start = Instant::now();
    tt.new_search();
    let movetime_deadline = params.limits.movetime.map(|t| start + t);
    let deadline = match (deadline, movetime_deadline) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // An exact node limit needs one thread counting every node.
    let threads = if params.limits.nodes.is_some() { 1 } else { params.threads.max(1) };
    let shared = Shared {
        tt,
        stop,
        done: AtomicBool::new(false),
        nodes: AtomicU64::new(0),
        deadline,
        node_limit: params.limits.nodes.unwrap_or(u64::MAX),
    };
    let mut outcome = None;
    std::thread::scope(|scope| {
        for id in 1..threads {
            let shared = &shared;
            scope.spawn(move || {
                let mut worker = Worker::new(game, params, shared, id);
                worker.iterate(start, &mut |_| {});
            });
        }
        let mut worker = Worker::new(game, params, &shared, 0);
        outcome = Some(worker.iterate(start, on_depth));
        shared.done.store(true, Ordering::Relaxed);
    });
    let mut outcome = outcome.expect("the main worker always answers");
    outcome.report.nodes = shared.nodes.load(Ordering::Relaxed);
    outcome.report.elapsed = start.elapsed();
    outcome
}

struct Worker<'a, P: Searchable> {
    pos: P,
    /// Material and placement of `pos`, kept move by move.
    material: P::Material,
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
}

impl<'a, P: Searchable> Worker<'a, P> {
    fn new<G: SearchGame<Position = P>>(game: &G, params: &'a Params, shared: &'a Shared<'a>, id: usize) -> Self {
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
        Worker {
            material: pos.material(),
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
        }
    }

    fn iterate(&mut self, start: Instant, on_depth: &mut dyn FnMut(&Report)) -> Outcome {
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
        let first_depth = 1 + (self.id % 2) as u32;
        for depth in first_depth..=max_depth {
            let mut lines: Vec<(i32, Vec<Move>)> = Vec::new();
            self.root_skip.clear();
            for index in 0..multipv {
                let previous = best.get(index).map(|l| internal(l.score));
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
                // A depth cut short keeps the lines it finished (the best line first).
                if completed == 0 && !lines.is_empty() {
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
            if let (Some(movetime), Some(_)) = (self.params.limits.movetime, self.shared.deadline) {
                // Another depth costs several times this one: do not start what cannot end.
                if start.elapsed() * 2 > movetime {
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

    fn flush_nodes(&mut self) {
        self.shared.nodes.fetch_add(self.nodes - self.flushed, Ordering::Relaxed);
        self.flushed = self.nodes;
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

    /// `in_check`: the side to move is in check (the caller knows it from the move).
    fn negamax(
        &mut self,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        allow_null: bool,
        in_check: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        if in_check {
            depth += 1;
        }
        if depth <= 0 {
            return self.quiescence(alpha, beta, ply, in_check);
        }
        if !self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply > 0 {
            if self.pos.is_ended() {
                return self.ended_score(ply);
            }
            if let Some(v) = self.repetition(ply) {
                return v;
            }
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        let pv_node = beta - alpha > 1;
        let excluded = self.excluded[ply];
        let key = self.pos.key() ^ P::SALT;
        // A search that leaves a move out is not the position's search: no table.
        let entry = if excluded.is_some() { None } else { self.shared.tt.probe(key) };
        let tt_move = entry.and_then(|e| e.mv);
        if let Some(e) = entry
            && !pv_node
            && ply > 0
            && e.depth as i32 >= depth
        {
            let s = from_tt(e.score as i32, ply);
            match e.bound {
                Bound::Exact => return s,
                Bound::Lower if s >= beta => return s,
                Bound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let static_eval = if in_check {
            -INFINITY
        } else if excluded.is_some() {
            self.eval_stack[ply]
        } else {
            entry.map_or_else(|| self.evaluate(), |e| e.eval as i32)
        };
        // The table's score, where its bound allows, is a better guess than the
        // static evaluation.
        let mut eval = static_eval;
        if let Some(e) = entry
            && !in_check
        {
            let s = from_tt(e.score as i32, ply);
            if s.abs() < MATE_BOUND
                && match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s > eval,
                    Bound::Upper => s < eval,
                }
            {
                eval = s;
            }
        }
        self.eval_stack[ply] = static_eval;
        let improving = !in_check && ply >= 2 && static_eval > self.eval_stack[ply - 2];
        self.killers[ply + 1] = [None; 2];
        if !pv_node && !in_check && ply > 0 && excluded.is_none() {
            // Reverse futility: far above beta near the horizon.
            if depth <= RFP_DEPTH
                && eval - RFP_MARGIN * (depth - improving as i32) >= beta
                && beta.abs() < MATE_BOUND
                && eval.abs() < MATE_BOUND
            {
                return eval;
            }
            // Null move: give the turn away; if still above beta, cut.
            if allow_null
                && depth >= 3
                && eval >= beta
                && static_eval >= beta
                && self.has_big_pieces()
                && self.pos.null_move_allowed()
            {
                let r = 3 + depth / 3 + ((eval - beta) / 200).min(3);
                self.pos.toggle_turn();
                self.push(Move::PASS, false, true);
                self.cont_stack[ply] = CONT_NONE;
                // The opponent cannot be in check: we were to move in a legal position.
                let score = -self.negamax(depth - 1 - r, -beta, -beta + 1, ply + 1, false, false);
                self.pop();
                self.pos.toggle_turn();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    let score = if score > MATE_BOUND { beta } else { score };
                    if depth < NULL_VERIFY_DEPTH {
                        return score;
                    }
                    // Deep down, make sure it is no zugzwang: the same search without
                    // a null move.
                    let v = self.negamax(depth - 1 - r, beta - 1, beta, ply, false, false);
                    if self.stopped {
                        return 0;
                    }
                    if v >= beta {
                        return score;
                    }
                }
            }
        }
        // Internal iterative reduction: with no move from the table, search less deep.
        if depth >= 4 && tt_move.is_none() && excluded.is_none() {
            depth -= 1;
        }

        let mut list = MoveList::new();
        self.pos.legal_moves(&mut list);
        if ply == 0 {
            let (roots, skip) = (&self.root_moves, &self.root_skip);
            let kept: Vec<Move> = list.iter().copied().filter(|m| roots.contains(m) && !skip.contains(m)).collect();
            list.clear();
            kept.into_iter().for_each(|m| list.push(m));
            if list.is_empty() {
                return -INFINITY;
            }
        } else if list.is_empty() {
            // Checkmate or stalemate: both lose.
            return -MATE + ply as i32;
        }
        let mut scores = [0i32; MoveList::CAPACITY];
        self.order(&list, &mut scores, tt_move, ply);
        let counter = self.counter_move(ply);

        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut move_count = 0usize;
        let mut skip_quiets = false;
        let n = list.len();
        for i in 0..n {
            let m = pick(&mut list, &mut scores, i);
            if Some(m) == excluded {
                continue;
            }
            let capture = self.pos.captured(m).is_some();
            let slot = self.slot_of(m);
            let quiet_history = if capture { 0 } else { self.quiet_history(m, slot, ply) };
            let killer_or_counter = !capture && (self.is_killer(ply, m) || counter == Some(m));
            let lmr_depth = (depth - 1 - reduction(depth, move_count + 1)).max(0);
            // A capture that loses material by the exchange (ordered after the quiets).
            let bad_capture = capture && scores[i] < 0;
            if ply > 0 && !in_check && best > -MATE_BOUND {
                if capture {
                    if bad_capture
                        && depth <= SEE_PRUNE_DEPTH
                        && !self.pos.see_ge(m, -SEE_CAPTURE_MARGIN * depth)
                        && !self.pos.gives_check(m)
                    {
                        continue;
                    }
                } else if !m.is_pass() {
                    // (A pass may end the game: it is never pruned.)
                    if !skip_quiets && move_count + 1 > lmp_limit(depth, improving) {
                        skip_quiets = true;
                    }
                    if skip_quiets {
                        continue;
                    }
                    let futile =
                        lmr_depth <= FUTILITY_DEPTH && eval + FUTILITY_BASE + FUTILITY_MARGIN * lmr_depth <= alpha;
                    let unpromising = lmr_depth <= HISTORY_PRUNE_DEPTH && quiet_history < -HISTORY_PRUNE_MARGIN * depth;
                    if (futile || unpromising) && !self.pos.gives_check(m) {
                        continue;
                    }
                }
            }

            // Singular extension: is the table move far better than every other?
            let mut extension = 0;
            if ply > 0
                && depth >= SINGULAR_DEPTH
                && Some(m) == tt_move
                && excluded.is_none()
                && let Some(e) = entry
                && e.bound != Bound::Upper
                && e.depth as i32 >= depth - 3
                && (e.score as i32).abs() < MATE_BOUND
                && SINGULAR_ENABLED
            {
                let tt_score = from_tt(e.score as i32, ply);
                let singular_beta = tt_score - 2 * depth;
                self.excluded[ply] = Some(m);
                let v = self.negamax((depth - 1) / 2, singular_beta - 1, singular_beta, ply, false, false);
                self.excluded[ply] = None;
                if self.stopped {
                    return 0;
                }
                if v < singular_beta {
                    extension = 1;
                } else if singular_beta >= beta {
                    // Multi-cut: more than one move beats beta.
                    return singular_beta;
                }
            }

            let saved = self.material;
            self.material = self.pos.material_after(saved, m);
            let undo = self.pos.play(m);
            let gives_check = self.pos.in_check();
            self.push(m, gives_check, capture);
            self.cont_stack[ply] = slot;
            move_count += 1;
            let new_depth = depth - 1 + extension;
            let mut score;
            if move_count == 1 {
                score = -self.negamax(new_depth, -beta, -alpha, ply + 1, true, gives_check);
            } else {
                let mut r = 0;
                if depth >= 3 && move_count > 1 + pv_node as usize && (!capture || bad_capture) {
                    r = reduction(depth, move_count);
                    r -= pv_node as i32;
                    r += !improving as i32;
                    r -= killer_or_counter as i32;
                    r -= gives_check as i32;
                    if !capture {
                        r -= quiet_history / LMR_HISTORY_DIVISOR;
                    }
                    r = r.clamp(0, (new_depth - 1).max(0));
                }
                score = -self.negamax(new_depth - r, -alpha - 1, -alpha, ply + 1, true, gives_check);
                if score > alpha && r > 0 {
                    score = -self.negamax(new_depth, -alpha - 1, -alpha, ply + 1, true, gives_check);
                }
                if score > alpha && score < beta {
                    score = -self.negamax(new_depth, -beta, -alpha, ply + 1, true, gives_check);
                }
            }
            self.pop();
            self.pos.unplay(m, undo);
            self.material = saved;
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.pv[ply][ply] = m;
                    let child_len = self.pv_len[ply + 1].max(ply + 1);
                    for k in ply + 1..child_len {
                        self.pv[ply][k] = self.pv[ply + 1][k];
                    }
                    self.pv_len[ply] = child_len;
                    if alpha >= beta {
                        self.reward(ply, depth, m, capture, &quiets_tried, &captures_tried);
                        break;
                    }
                }
            }
            if capture {
                captures_tried.push(m);
            } else {
                quiets_tried.push(m);
            }
        }
        if move_count == 0 && excluded.is_some() {
            return alpha;
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if excluded.is_none() && (ply > 0 || self.root_skip.is_empty()) {
            self.shared.tt.store(
                key,
                best_move,
                to_tt(best, ply) as i16,
                clamp16(static_eval),
                depth.max(0) as u8,
                bound,
            );
        }
        best
    }

    fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize, in_check: bool) -> i32 {
        if !self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 1 {
            return self.evaluate();
        }
        if self.pos.is_ended() {
            return self.ended_score(ply);
        }
        let pv_node = beta - alpha > 1;
        let key = self.pos.key() ^ P::SALT;
        let entry = self.shared.tt.probe(key);
        if let Some(e) = entry
            && !pv_node
        {
            let s = from_tt(e.score as i32, ply);
            match e.bound {
                Bound::Exact => return s,
                Bound::Lower if s >= beta => return s,
                Bound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let tt_move = entry.and_then(|e| e.mv);
        let mut best = -INFINITY;
        let mut stand = -INFINITY;
        let mut list = MoveList::new();
        if in_check {
            self.pos.legal_moves(&mut list);
            if list.is_empty() {
                return -MATE + ply as i32;
            }
        } else {
            stand = entry.map_or_else(|| self.evaluate(), |e| e.eval as i32);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
            self.pos.legal_captures(&mut list);
        }
        let mut scores = [0i32; MoveList::CAPACITY];
        self.order(&list, &mut scores, tt_move, ply);
        for i in 0..list.len() {
            let m = pick(&mut list, &mut scores, i);
            if !in_check && QS_PRUNING {
                let victim = self.pos.captured(m).map_or(0, |p| see::SEE_VALUE[p.kind().index()]);
                // Delta pruning: even the victim and a margin cannot lift alpha.
                if stand + victim + QS_DELTA <= alpha {
                    continue;
                }
                // A capture that loses material by the exchange.
                if scores[i] < 0 {
                    continue;
                }
            }
            let saved = self.material;
            self.material = self.pos.material_after(saved, m);
            let undo = self.pos.play(m);
            let gives_check = self.pos.in_check();
            let score = -self.quiescence(-beta, -alpha, ply + 1, gives_check);
            self.pos.unplay(m, undo);
            self.material = saved;
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    #[inline]
    fn evaluate(&self) -> i32 {
        self.pos.evaluate(self.material)
    }

    fn has_big_pieces(&self) -> bool {
        let b = self.pos.board();
        let us = self.pos.turn();
        (b.pieces(us, PieceKind::Chariot) | b.pieces(us, PieceKind::Horse) | b.pieces(us, PieceKind::Cannon)) != 0
    }

    fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers[ply].contains(&Some(m))
    }

    /// The continuation-history slot of `m` (not yet played): its piece and target.
    #[inline]
    fn slot_of(&self, m: Move) -> usize {
        if m.is_pass() {
            return CONT_NONE;
        }
        self.pos.board().piece_at(m.from()).map_or(CONT_NONE, |p| p.index() * 90 + m.to().index())
    }

    /// The slot of the move played `back` plies before the position at `ply`.
    #[inline]
    fn slot_back(&self, ply: usize, back: usize) -> usize {
        if ply >= back { self.cont_stack[ply - back] } else { CONT_NONE }
    }

    #[inline]
    fn counter_move(&self, ply: usize) -> Option<Move> {
        self.counters[self.slot_back(ply, 1)]
    }

    /// The history of a quiet move: its own, and after the last two moves.
    #[inline]
    fn quiet_history(&self, m: Move, slot: usize, ply: usize) -> i32 {
        let us = self.pos.turn().index();
        self.history[us][m.from().index()][m.to().index()]
            + self.cont[self.slot_back(ply, 1) * CONT_SLOTS + slot] as i32
            + self.cont[self.slot_back(ply, 2) * CONT_SLOTS + slot] as i32
    }

    /// After a cutoff by `m`: reward it, and charge the moves of its kind tried before.
    fn reward(&mut self, ply: usize, depth: i32, m: Move, capture: bool, quiets: &MoveList, captures: &MoveList) {
        let bonus = history_bonus(depth);
        if !capture {
            if self.killers[ply][0] != Some(m) {
                self.killers[ply][1] = self.killers[ply][0];
                self.killers[ply][0] = Some(m);
            }
            let prev = self.slot_back(ply, 1);
            if prev != CONT_NONE {
                self.counters[prev] = Some(m);
            }
            self.update_quiet(ply, m, bonus);
            for &q in quiets.iter() {
                self.update_quiet(ply, q, -bonus);
            }
        } else {
            self.update_capture(m, bonus);
        }
        for &c in captures.iter() {
            self.update_capture(c, -bonus);
        }
    }

    fn update_quiet(&mut self, ply: usize, m: Move, bonus: i32) {
        let us = self.pos.turn().index();
        let slot = self.slot_of(m);
        gravity(&mut self.history[us][m.from().index()][m.to().index()], bonus);
        for back in 1..=2 {
            let prev = self.slot_back(ply, back);
            if prev != CONT_NONE && slot != CONT_NONE {
                let e = &mut self.cont[prev * CONT_SLOTS + slot];
                let mut v = *e as i32;
                gravity(&mut v, bonus);
                *e = v as i16;
            }
        }
    }

    fn update_capture(&mut self, m: Move, bonus: i32) {
        let b = self.pos.board();
        if let (Some(p), Some(v)) = (b.piece_at(m.from()), b.piece_at(m.to())) {
            gravity(&mut self.capture_history[p.index()][m.to().index()][v.kind().index()], bonus);
        }
    }

    fn order(&self, list: &MoveList, scores: &mut [i32], tt_move: Option<Move>, ply: usize) {
        let b = self.pos.board();
        let counter = self.counter_move(ply);
        for (i, &m) in list.iter().enumerate() {
            scores[i] = if Some(m) == tt_move {
                1 << 28
            } else if let Some(victim) = self.pos.captured(m) {
                let attacker = b.piece_at(m.from());
                let history =
                    attacker.map_or(0, |a| self.capture_history[a.index()][m.to().index()][victim.kind().index()]);
                let value = VALUE[victim.kind().index()] * 16 + history / 32;
                if attacker.is_some_and(|a| VALUE[a.kind().index()] <= VALUE[victim.kind().index()])
                    || self.pos.see_ge(m, 0)
                {
                    (1 << 24) + value
                } else {
                    -(1 << 24) + value
                }
            } else if self.killers[ply][0] == Some(m) {
                (1 << 23) + 2
            } else if self.killers[ply][1] == Some(m) {
                (1 << 23) + 1
            } else if counter == Some(m) {
                1 << 23
            } else {
                self.quiet_history(m, self.slot_of(m), ply)
            };
        }
    }
}

/// The history bonus of a cutoff at `depth`.
#[inline]
fn history_bonus(depth: i32) -> i32 {
    (8 * depth * depth + 200 * depth - 150).min(2000)
}

/// Moves a history entry towards the limit by `bonus`, less the closer it already is.
#[inline]
fn gravity(entry: &mut i32, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_MAX, HISTORY_MAX);
    *entry += bonus - *entry * bonus.abs() / HISTORY_MAX;
}

/// Quiet moves searched at `depth` before the rest are pruned.
#[inline]
fn lmp_limit(depth: i32, improving: bool) -> usize {
    let d = depth.max(0) as usize;
    (3 + d * d) / (2 - improving as usize)
}

/// The late-move reduction at `depth` for the `count`-th move: grows with the
/// logarithms of both.
#[inline]
fn reduction(depth: i32, count: usize) -> i32 {
    static TABLE: std::sync::OnceLock<[[u8; 64]; 64]> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let mut t = [[0u8; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (c, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (c as f64).ln() / LMR_DIVISOR) as u8;
            }
        }
        t
    });
    table[(depth.max(0) as usize).min(63)][count.min(63)] as i32
}

/// Ordering values (MVV-LVA).
const VALUE: [i32; 7] = [10_000, 200, 200, 400, 900, 450, 150];

/// Moves the best-scored remaining move to position `i` and returns it.
#[inline]
fn pick(list: &mut MoveList, scores: &mut [i32], i: usize) -> Move {
    let n = list.len();
    let mut best = i;
    for j in i + 1..n {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    list.swap(i, best);
    scores.swap(i, best);
    list.as_slice()[i]
}

fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

fn clamp16(v: i32) -> i16 {
    v.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

fn internal(s: Score) -> i32 {
    match s {
        Score::Centipawns(c) => c,
        Score::Mate(n) if n > 0 => MATE - 2 * n + 1,
        Score::Mate(n) => -MATE - 2 * n,
    }
}

#[cfg(test)]
mod score_tests;
