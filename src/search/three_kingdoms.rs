//! Search for Three Kingdoms: paranoid alpha-beta with iterative deepening.
//!
//! **Paranoid**: the kingdom to move at the root (the *root player*) maximises its
//! score, and both rivals are treated as one coalition that minimises it. Every score
//! is from the root player's view; a ply of a rival is a min node whoever the rival
//! is, so two rival plies in a row are two min plies.
//!
//! **Evaluation** (root player's view): each kingdom in play counts the material of
//! every piece it controls (its own army and any army it took over) plus small
//! placement terms (a soldier out of its own half, a horse or chariot on a rival's
//! half) plus [`GENERAL`] for its general. The score is own strength less the average
//! of the two rivals' (a defeated rival counting 0), so that defeating a rival is
//! worth half its strength plus the army taken over. The material of each original
//! army is kept move by move; a takeover only changes who counts it. The root
//! player left as the last kingdom scores [`WIN`] less the plies it took; the root
//! player defeated scores `-WIN` plus the plies. A repetition of a position since the
//! last capture or defeat (in the game or on the searched line) and the 180th quiet
//! ply score 0, a draw.
//!
//! **Nodes**: principal variation search (the first move with the full window, the
//! others with a null window, searched again when they beat it); late-move reductions
//! for the root player's quiet moves that come late and give no check, never for the
//! rivals' (a rival's quiet threat searched less deeply goes unseen; at a fixed node
//! budget, reducing rivals' moves too reached a ply deeper but lost more games); move
//! ordering by the table move, captures of generals, captures by value taken less a
//! tenth of the taker, two killer moves per ply and a history of quiet moves that cut.
//! **Quiescence** at the horizon: captures only, each side may stand pat (a min node
//! stands pat too: a rival need not capture), except a side in check, which tries
//! every move for its first plies.
//!
//! **Transposition table**: the engine's shared table, keyed by the position key (which
//! holds the pieces with their controllers, the side to move and the defeated
//! kingdoms) mixed with a Three Kingdoms salt and the root player. For a given root
//! player the paranoid value of a node is a function of the position, so scores are
//! stored with their bound (lower, upper or exact, from the window the node was
//! searched with, read the same way at min and max nodes) and trusted at non-PV nodes
//! searched no deeper, across searches too; win and loss scores are stored relative to
//! the node. The best move is packed into the entry's `eval` field (from and to point
//! indices), since the entry's move field holds a Xiangqi move; it is used only if it
//! is legal in the position.
//!
//! **Multi-PV**: the k best root moves get exact scores: each root move is searched
//! against the k-th best score so far, so the others are only shown to be worse.
//!
//! **Draw offers** ([`judge_draw_offer`]): the kingdom to move compares its paranoid
//! value with its strongest rival's, each searched as the root player to the same
//! depth.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::draw_offer::{self, DrawAnswer, Standing};
use super::tt::{Bound, TranspositionTable};
use super::types::{clamp16, from_tt, to_tt};
use crate::rules::three_kingdoms::outcome::{Game, QUIET_PLY_LIMIT};
use crate::rules::three_kingdoms::{Kind, Kingdom, Move, MoveList, Piece, Point, Position, Undo};

/// Score of a won game (the root player is the last kingdom), less the plies to it.
pub const WIN: i32 = super::MATE;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = super::MATE_BOUND;

const INF: i32 = 32_000;
const MAX_PLY: usize = 96;
/// Quiescence plies at most; in check, every move is tried in the first `QS_EVASIONS`.
const QS_PLIES: u32 = 6;
const QS_EVASIONS: u32 = 2;
const SALT: u64 = 0x7468_7265_656B_6467; // "threekdg"
const ROOT_SALT: [u64; 3] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9];

/// What a kingdom's own general is worth to it in the evaluation.
pub const GENERAL: i32 = 1_000;

/// Material of a piece kind, in centipawns (the general counts as [`GENERAL`] through
/// [`strength`]).
pub const fn value(kind: Kind) -> i32 {
    match kind {
        Kind::General => 0,
        Kind::Advisor => 200,
        Kind::Elephant => 200,
        Kind::Horse => 400,
        Kind::Chariot => 900,
        Kind::Cannon => 450,
        Kind::Soldier => 100,
        Kind::FlagBearer => 300,
    }
}

/// Material and placement of `piece` on `p` (0 for a general).
fn piece_score(piece: Piece, p: Point) -> i32 {
    let away = p.kingdom() != piece.origin();
    let bonus = match piece.kind() {
        Kind::Soldier if away => 60 + 10 * (5 - p.rank() as i32),
        Kind::Horse | Kind::Chariot if away => 20,
        _ => 0,
    };
    value(piece.kind()) + bonus
}

/// Material and placement of the pieces of each original army (index by kingdom),
/// generals apart.
fn armies(pos: &Position) -> [i32; 3] {
    let mut a = [0i32; 3];
    for p in Point::all() {
        if let Some(piece) = pos.piece_at(p) {
            a[piece.origin().index()] += piece_score(piece, p);
        }
    }
    a
}

/// Each kingdom's strength from the material of the armies: the armies it controls,
/// and its general while it is in play.
fn strength_of(pos: &Position, armies: &[i32; 3]) -> [i32; 3] {
    let mut s = [0i32; 3];
    for origin in Kingdom::ALL {
        s[pos.controller(origin).index()] += armies[origin.index()];
    }
    for k in pos.kingdoms_in_play() {
        s[k.index()] += GENERAL;
    }
    s
}

/// Material plus placement of every kingdom's pieces (index by kingdom); defeated
/// kingdoms have nothing.
pub fn strength(pos: &Position) -> [i32; 3] {
    strength_of(pos, &armies(pos))
}

/// Own strength less the average of the rivals' (a defeated rival has none).
fn compare(s: &[i32; 3], root: Kingdom) -> i32 {
    let rivals: i32 = Kingdom::ALL.into_iter().filter(|&k| k != root).map(|k| s[k.index()]).sum();
    s[root.index()] - rivals / 2
}

/// Static evaluation for `root`: own strength minus the average of the two rivals'
/// (a defeated rival has none).
pub fn evaluate(pos: &Position, root: Kingdom) -> i32 {
    if pos.is_defeated(root) {
        return -WIN;
    }
    if pos.winner() == Some(root) {
        return WIN;
    }
    compare(&strength(pos), root)
}

pub use super::{Limits, StopReason};

/// What to search (one thread; `threads` is not used).
pub type Params = super::Params<Move>;
/// One line: its score from the root player's view (centipawns, or beyond
/// [`WIN_BOUND`] for a decided game) and its moves.
pub type Line = super::Line<Move, i32>;
/// Progress after a completed depth, and the final answer.
pub type Report = super::Report<Move, i32>;
/// The result of a search.
pub type Outcome = super::Outcome<Move, i32>;

struct Searcher<'a> {
    root: Kingdom,
    salt: u64,
    tt: &'a TranspositionTable,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    nodes: u64,
    seldepth: u32,
    aborted: Option<StopReason>,
    /// Material of each original army in the current position.
    armies: [i32; 3],
    /// Keys of the game's positions since its last capture or defeat, then of the
    /// searched line; the current position last.
    keys: Vec<u64>,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// Credit of quiet moves that cut, by from and to point.
    history: Vec<i32>,
    pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
}

fn pack(m: Move) -> i16 {
    (m.from().index() as u16 | (m.to().index() as u16) << 8) as i16
}

fn unpack(v: i16) -> Option<Move> {
    let v = v as u16;
    let from = Point::from_index((v & 0xff) as usize)?;
    let to = Point::from_index((v >> 8) as usize)?;
    (from != to).then(|| Move::new(from, to))
}

/// Moves the best-scored remaining move to position `i` and returns it.
fn pick(list: &mut MoveList, scores: &mut [i32], i: usize) -> Move {
    let mut best = i;
    for j in i + 1..list.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    list.swap(i, best);
    scores.swap(i, best);
    list.as_slice()[i]
}

impl<'a> Searcher<'a> {
    /// A search of `game`'s position for `root`.
    fn new(
        game: &Game,
        root: Kingdom,
        node_limit: Option<u64>,
        tt: &'a TranspositionTable,
        stop: &'a AtomicBool,
        deadline: Option<Instant>,
    ) -> Searcher<'a> {
        Searcher {
            root,
            salt: SALT ^ ROOT_SALT[root.index()],
            tt,
            stop,
            deadline,
            node_limit,
            nodes: 0,
            seldepth: 0,
            aborted: None,
            armies: armies(game.position()),
            keys: game_keys(game),
            killers: [[None; 2]; MAX_PLY],
            history: vec![0; Point::COUNT * Point::COUNT],
            pv: Box::new([[Move::default(); MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
        }
    }

    /// Counts a node; false when a limit, the stop flag or the deadline ends the search.
    fn visit(&mut self) -> bool {
        if self.aborted.is_some() {
            return false;
        }
        if self.node_limit.is_some_and(|n| self.nodes >= n) {
            self.aborted = Some(StopReason::Nodes);
            return false;
        }
        self.nodes += 1;
        if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = Some(StopReason::Stopped);
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.aborted = Some(StopReason::Time);
            }
        }
        self.aborted.is_none()
    }

    fn key(&self, pos: &Position) -> u64 {
        pos.key() ^ self.salt
    }

    fn evaluate(&self, pos: &Position) -> i32 {
        compare(&strength_of(pos, &self.armies), self.root)
    }

    fn play(&mut self, pos: &mut Position, m: Move) -> (Undo, [i32; 3]) {
        let saved = self.armies;
        if let Some(piece) = pos.piece_at(m.from()) {
            self.armies[piece.origin().index()] += piece_score(piece, m.to()) - piece_score(piece, m.from());
        }
        if let Some(taken) = pos.piece_at(m.to()) {
            self.armies[taken.origin().index()] -= piece_score(taken, m.to());
        }
        let undo = pos.play_unchecked(m);
        self.keys.push(pos.key());
        (undo, saved)
    }

    fn unplay(&mut self, pos: &mut Position, m: Move, (undo, saved): (Undo, [i32; 3])) {
        pos.undo(m, undo);
        self.keys.pop();
        self.armies = saved;
    }

    /// The score of a decided game for the root player, at `ply`.
    fn terminal(&self, pos: &Position, ply: usize) -> Option<i32> {
        if pos.is_defeated(self.root) {
            return Some(-WIN + ply as i32);
        }
        if pos.winner() == Some(self.root) {
            return Some(WIN - ply as i32);
        }
        None
    }

    /// Is the current position drawn: the 180th quiet ply, or a repetition of a
    /// position since the last capture or defeat?
    fn is_draw(&self, pos: &Position) -> bool {
        if pos.quiet_plies() >= QUIET_PLY_LIMIT {
            return true;
        }
        let n = self.keys.len() - 1;
        let back = (pos.quiet_plies() as usize).min(n);
        self.keys[n - back..n].contains(&self.keys[n])
    }

    /// Scores `list` for ordering: the table move, captures of generals, captures by
    /// value taken less a tenth of the taker, killers, then the history.
    fn order(&self, pos: &Position, list: &MoveList, scores: &mut [i32], first: Option<Move>, ply: usize) {
        for (i, &m) in list.iter().enumerate() {
            scores[i] = if Some(m) == first {
                1 << 28
            } else if let Some(c) = pos.piece_at(m.to()) {
                if c.kind() == Kind::General {
                    1 << 27
                } else {
                    (1 << 24) + value(c.kind()) * 10 - pos.piece_at(m.from()).map_or(0, |p| value(p.kind()))
                }
            } else if self.killers[ply][0] == Some(m) {
                (1 << 23) + 1
            } else if self.killers[ply][1] == Some(m) {
                1 << 23
            } else {
                self.history[m.from().index() * Point::COUNT + m.to().index()]
            };
        }
    }

    fn remember_quiet(&mut self, ply: usize, m: Move, depth: i32) {
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let h = &mut self.history[m.from().index() * Point::COUNT + m.to().index()];
        *h = (*h + depth * depth).min(1 << 20);
    }

    fn copy_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = len;
    }

    /// The paranoid value of the current position (not the root) in `(alpha, beta)`,
    /// fail-soft.
    fn node(&mut self, pos: &mut Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if self.is_draw(pos) {
            return 0;
        }
        if depth <= 0 || ply + 1 >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        if !self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        let pv_node = beta - alpha > 1;
        let key = self.key(pos);
        let entry = self.tt.probe(key);
        if let Some(e) = entry
            && !pv_node
            && e.depth as i32 >= depth
        {
            let s = from_tt(i32::from(e.score), ply);
            match e.bound {
                Bound::Exact => return s,
                Bound::Lower if s >= beta => return s,
                Bound::Upper if s <= alpha => return s,
                _ => {}
            }
        }
        let in_check = pos.in_check();
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut scores = [0i32; MoveList::CAPACITY];
        self.order(pos, &list, &mut scores, entry.and_then(|e| unpack(e.eval)), ply);
        let maximizing = pos.side_to_move() == self.root;
        let (alpha0, beta0) = (alpha, beta);
        let mut best = if maximizing { -INF } else { INF };
        let mut best_move = None;
        for i in 0..list.len() {
            let m = pick(&mut list, &mut scores, i);
            let quiet = pos.piece_at(m.to()).is_none();
            let killer = self.killers[ply].contains(&Some(m));
            let undo = self.play(pos, m);
            let v = if i == 0 {
                self.node(pos, depth - 1, alpha, beta, ply + 1)
            } else {
                // Only the root player's moves (see the module documentation).
                let late = maximizing && depth >= 3 && i >= 3 && quiet && !killer && !in_check && !pos.in_check();
                let r = if late { 1 + i32::from(depth >= 6 && i >= 8) } else { 0 };
                let (a, b) = if maximizing { (alpha, alpha + 1) } else { (beta - 1, beta) };
                let improves = |v: i32| if maximizing { v > alpha } else { v < beta };
                let mut v = self.node(pos, depth - 1 - r, a, b, ply + 1);
                if r > 0 && improves(v) {
                    v = self.node(pos, depth - 1, a, b, ply + 1);
                }
                if pv_node && alpha < v && v < beta {
                    v = self.node(pos, depth - 1, alpha, beta, ply + 1);
                }
                v
            };
            self.unplay(pos, m, undo);
            if self.aborted.is_some() {
                return 0;
            }
            if best_move.is_none() || (maximizing && v > best) || (!maximizing && v < best) {
                best = v;
                best_move = Some(m);
                self.copy_pv(ply, m);
            }
            if maximizing {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                if quiet {
                    self.remember_quiet(ply, m, depth);
                }
                break;
            }
        }
        let bound = if best <= alpha0 {
            Bound::Upper
        } else if best >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        let packed = best_move.map_or(0, pack);
        self.tt.store(key, None, clamp16(to_tt(best, ply)), packed, depth.clamp(0, 255) as u8, bound);
        best
    }

    fn quiesce(&mut self, pos: &mut Position, mut alpha: i32, mut beta: i32, ply: usize, qply: u32) -> i32 {
        self.pv_len[ply] = ply;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if !self.visit() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply as u32);
        let stand = self.evaluate(pos);
        if qply >= QS_PLIES || ply + 1 >= MAX_PLY {
            return stand;
        }
        let maximizing = pos.side_to_move() == self.root;
        let mut list = MoveList::new();
        let mut best;
        if qply < QS_EVASIONS && pos.in_check() {
            pos.legal_moves(&mut list);
            best = if maximizing { -INF } else { INF };
        } else {
            if maximizing {
                if stand >= beta {
                    return stand;
                }
                alpha = alpha.max(stand);
            } else {
                if stand <= alpha {
                    return stand;
                }
                beta = beta.min(stand);
            }
            best = stand;
            pos.legal_captures(&mut list);
        }
        let mut scores = [0i32; MoveList::CAPACITY];
        self.order(pos, &list, &mut scores, None, ply);
        for i in 0..list.len() {
            let m = pick(&mut list, &mut scores, i);
            let undo = self.play(pos, m);
            let v = self.quiesce(pos, alpha, beta, ply + 1, qply + 1);
            self.unplay(pos, m, undo);
            if self.aborted.is_some() {
                return 0;
            }
            if maximizing {
                best = best.max(v);
                alpha = alpha.max(v);
            } else {
                best = best.min(v);
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        best
    }

    /// One iteration at the root: the `k` best of `roots` (in this order) with exact
    /// scores, best first, each searched against the k-th best so far. Stops early when
    /// the search is aborted, with the lines found so far.
    fn root(&mut self, pos: &mut Position, roots: &[Move], depth: i32, k: usize) -> Vec<Line> {
        let mut found: Vec<Line> = Vec::with_capacity(k + 1);
        for &m in roots {
            let alpha = if found.len() >= k { found[k - 1].score } else { -INF };
            let undo = self.play(pos, m);
            let mut v = self.node(pos, depth - 1, alpha, if alpha == -INF { INF } else { alpha + 1 }, 1);
            if alpha != -INF && v > alpha && self.aborted.is_none() {
                v = self.node(pos, depth - 1, alpha, INF, 1);
            }
            self.unplay(pos, m, undo);
            if self.aborted.is_some() {
                break;
            }
            if v > alpha {
                let mut pv = vec![m];
                pv.extend_from_slice(&self.pv[1][1..self.pv_len[1].max(1)]);
                let at = found.iter().position(|l| l.score < v).unwrap_or(found.len());
                found.insert(at, Line { score: v, pv });
                found.truncate(k);
            }
        }
        found
    }
}

/// The keys of the positions of `game` since its last capture or defeat, oldest first,
/// the current one last.
fn game_keys(game: &Game) -> Vec<u64> {
    let n = game.plies().len();
    let from = n.saturating_sub(game.position().quiet_plies() as usize);
    (from..=n).map(|i| game.key_before(i)).collect()
}

/// Searches the current position of `game` for its side to move by iterative
/// deepening until a limit, the stop flag or the deadline; the game's positions since
/// its last capture or defeat count for repetitions. `on_depth` sees each completed
/// depth. A record that has ended (won, or drawn by repetition or the quiet-ply limit)
/// has no move to search, as it lists none.
pub fn search(
    game: &Game,
    params: &Params,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    let started = Instant::now();
    tt.new_search();
    let deadline = match (deadline, params.limits.movetime.map(|t| started + t)) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let pos = game.position();
    let mut all = MoveList::new();
    if game.ending().is_none() {
        pos.legal_moves(&mut all);
    }
    let roots: Vec<Move> = all
        .iter()
        .copied()
        .filter(|m| params.search_moves.is_empty() || params.search_moves.contains(m))
        .filter(|m| !params.exclude_moves.contains(m))
        .collect();
    let mut s = Searcher::new(game, pos.side_to_move(), params.limits.nodes, tt, stop, deadline);
    let report = |s: &Searcher, depth: u32, lines: Vec<Line>| Report {
        depth,
        seldepth: s.seldepth.max(depth),
        nodes: s.nodes,
        elapsed: started.elapsed(),
        lines,
        hashfull: tt.hashfull(),
    };
    if roots.is_empty() {
        return Outcome {
            best: None,
            ponder: None,
            report: report(&s, 0, Vec::new()),
            stop_reason: StopReason::NoLegalMoves,
        };
    }
    let mut work = pos.clone();
    let mut ordered = {
        let mut list = MoveList::new();
        roots.iter().for_each(|&m| list.push(m));
        let mut scores = [0i32; MoveList::CAPACITY];
        s.order(pos, &list, &mut scores, None, 0);
        (0..list.len()).map(|i| pick(&mut list, &mut scores, i)).collect::<Vec<Move>>()
    };
    let k = params.multipv.clamp(1, roots.len());
    let max_depth = params.limits.depth.unwrap_or(MAX_PLY as u32).clamp(1, (MAX_PLY - 8) as u32);
    let mut lines = vec![Line { score: s.evaluate(pos), pv: vec![ordered[0]] }];
    let mut completed = 0;
    let mut stop_reason = StopReason::Depth;
    for depth in 1..=max_depth {
        let found = s.root(&mut work, &ordered, depth as i32, k);
        if let Some(reason) = s.aborted {
            // The first root move (the last best) was searched fully at this depth:
            // the best line found so far is the better informed.
            if !found.is_empty() && (completed == 0 || k == 1) {
                lines = found;
            }
            stop_reason = reason;
            break;
        }
        lines = found;
        completed = depth;
        let firsts: Vec<Move> = lines.iter().map(|l| l.pv[0]).collect();
        ordered.retain(|m| !firsts.contains(m));
        ordered.splice(0..0, firsts);
        on_depth(&report(&s, completed, lines.clone()));
        let top = lines[0].score;
        if k == 1 && top > WIN_BOUND && WIN - top <= depth as i32 {
            stop_reason = StopReason::MateFound;
            break;
        }
        if all.len() == 1 && params.limits.depth.is_none() {
            stop_reason = StopReason::SingleMove;
            break;
        }
    }
    let best = lines.first().map(|l| l.pv[0]);
    let ponder = lines.first().and_then(|l| l.pv.get(1).copied());
    Outcome { best, ponder, report: report(&s, completed, lines), stop_reason }
}

/// The answer to a draw offer, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawVerdict {
    pub answer: DrawAnswer,
    /// The kingdom to move's score less its strongest rival's, in centipawns, or beyond
    /// [`WIN_BOUND`] when the game is decided (a win for the kingdom to move, or a loss
    /// when it or a rival is shown to lose or win).
    pub score: i32,
    /// The depth the scores were compared at.
    pub depth: u32,
}

/// The paranoid value of `game`'s position for `root` (to move or not) at depths 0,
/// `step`, `2 * step`, ... up to `max_depth`, until a limit, the stop flag or the
/// deadline: the values of the depths completed.
fn values_by_depth(
    game: &Game,
    root: Kingdom,
    step: u32,
    limits: Limits,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Vec<(u32, i32)> {
    let mut s = Searcher::new(game, root, limits.nodes, tt, stop, deadline);
    let mut pos = game.position().clone();
    let max_depth = limits.depth.unwrap_or(MAX_PLY as u32).min((MAX_PLY - 8) as u32);
    let mut out = Vec::new();
    for depth in (0..=max_depth).step_by(step as usize) {
        let v = s.node(&mut pos, depth as i32, -INF, INF, 0);
        if s.aborted.is_some() {
            break;
        }
        out.push((depth, v));
        if v.abs() > WIN_BOUND {
            break;
        }
    }
    out
}

/// Answers a draw offer for the kingdom to move in `game`. In Three Kingdoms a draw
/// needs every kingdom in play to agree; this is one kingdom's answer.
///
/// Each kingdom in play is searched in turn (the kingdom to move first) with an equal
/// share of the time and the nodes, each as the root player of a paranoid search, to
/// depths that are multiples of the number of kingdoms in play (so that each of them
/// has moved as often). At the deepest depth all completed, the kingdom to move
/// compares its value with its strongest rival's: both carry the same pessimism of
/// the paranoid search, which cancels out. A game shown won for the kingdom to move
/// declines; one shown lost for it, or won for a rival, accepts. Otherwise it accepts
/// when more than [`draw_offer::LEVEL_MARGIN`] below, declines when more than that above, and when
/// level accepts only if no general is attacked and it has no capture to make.
pub fn judge_draw_offer(
    game: &Game,
    limits: Limits,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> DrawVerdict {
    tt.new_search();
    let pos = game.position();
    let me = pos.side_to_move();
    let kingdoms: Vec<Kingdom> = std::iter::once(me).chain(pos.kingdoms_in_play().filter(|&k| k != me)).collect();
    let n = kingdoms.len() as u32;
    let mut values = Vec::new();
    for (i, &k) in kingdoms.iter().enumerate() {
        // Each search gets an equal share of the time left and of the nodes.
        let now = Instant::now();
        let until = deadline.map(|d| now + d.saturating_duration_since(now) / (n - i as u32));
        let limits = Limits { nodes: limits.nodes.map(|x| x / u64::from(n)), ..limits };
        values.push(values_by_depth(game, k, n.max(1), limits, tt, stop, until));
    }
    // Depth 0 (quiescence) completes unless the search was stopped at once.
    let depth = values.iter().map(|v| v.last().map_or(0, |&(d, _)| d)).min().unwrap_or(0);
    let at = |v: &Vec<(u32, i32)>| v.iter().find(|&&(d, _)| d == depth).map_or(0, |&(_, x)| x);
    let mine = values.first().map_or(0, at);
    let rival = values.iter().skip(1).map(at).max().unwrap_or(-WIN);
    let (standing, score) = if mine > WIN_BOUND {
        (Standing::Won, mine)
    } else if mine < -WIN_BOUND {
        (Standing::Lost, mine)
    } else if rival > WIN_BOUND {
        (Standing::Lost, -rival)
    } else {
        let score = (mine - rival).clamp(-WIN_BOUND, WIN_BOUND);
        (Standing::Margin(score), score)
    };
    let quiet = || {
        let mut captures = MoveList::new();
        pos.legal_captures(&mut captures);
        pos.kingdoms_in_play().all(|k| pos.attackers_of_general(k).is_empty()) && captures.is_empty()
    };
    let answer = draw_offer::answer(standing, quiet);
    DrawVerdict { answer, score, depth }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips() {
        let m = Move::parse("Rh3-Gi5").unwrap();
        assert_eq!(unpack(pack(m)), Some(m));
    }

    #[test]
    fn win_scores_are_stored_relative_to_the_node() {
        assert_eq!(from_tt(to_tt(WIN - 7, 3), 5), WIN - 9);
        assert_eq!(from_tt(to_tt(-WIN + 7, 3), 1), -WIN + 5);
        assert_eq!(from_tt(to_tt(-120, 3), 9), -120);
    }

    #[test]
    fn kept_material_matches_a_fresh_count() {
        let mut game = Game::new(Position::startpos(true));
        let tt = TranspositionTable::new(1);
        let stop = AtomicBool::new(false);
        let mut s = Searcher::new(&game, Kingdom::Shu, None, &tt, &stop, None);
        let mut pos = game.position().clone();
        // A few plies preferring captures, checking the kept material after each.
        for _ in 0..200 {
            let mut list = MoveList::new();
            pos.legal_captures(&mut list);
            if list.is_empty() {
                pos.legal_moves(&mut list);
            }
            let Some(&m) = list.as_slice().get(pos.move_number() as usize % list.len().max(1)) else { break };
            s.play(&mut pos, m);
            assert_eq!(s.armies, armies(&pos), "after {m}");
            assert_eq!(strength_of(&pos, &s.armies), strength(&pos));
            game.play(m).unwrap();
        }
    }
}
