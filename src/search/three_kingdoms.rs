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
//! half) plus [`GENERAL`] for its general; the score is own minus the average of the
//! two rivals (`own - (rival1 + rival2) / 2`, a defeated rival counting 0), so that
//! defeating a rival is worth half its strength plus the army taken over. The root
//! player left as the last kingdom scores [`WIN`] less the plies it took; the root
//! player defeated scores `-WIN` plus the plies.
//!
//! **Quiescence**: at the horizon, captures only, each side may stand pat (a min node
//! stands pat too: a rival need not capture).
//!
//! **Transposition table**: the engine's shared table, keyed by the position key mixed
//! with a Three Kingdoms salt and the root player (the same position under another
//! root player is another entry). Only the best move is kept, for move ordering: the
//! paranoid score of a node depends on who the root player is and on the window, so no
//! score is stored or trusted across searches. The move is packed into the entry's
//! `eval` field (from and to point indices), since the entry's move field holds a
//! Xiangqi move; a stored move is used only if it is legal in the position.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::tt::{Bound, TranspositionTable};
use crate::rules::three_kingdoms::{Kind, Kingdom, Move, MoveList, Point, Position};

/// Score of a won game (the root player is the last kingdom), less the plies to it.
pub const WIN: i32 = 30_000;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = WIN - 1_000;

const INF: i32 = 32_000;
const MAX_PLY: usize = 96;
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

/// Material plus placement of every kingdom's pieces (index by kingdom); defeated
/// kingdoms have nothing.
pub fn strength(pos: &Position) -> [i32; 3] {
    let mut s = [0i32; 3];
    for p in Point::all() {
        let Some(piece) = pos.piece_at(p) else { continue };
        let owner = pos.controller_of(piece);
        let kind = piece.kind();
        let away = p.kingdom() != piece.origin();
        let bonus = match kind {
            Kind::Soldier if away => 60 + 10 * (5 - p.rank() as i32),
            Kind::Horse | Kind::Chariot if away => 20,
            _ => 0,
        };
        let general = if kind == Kind::General { GENERAL } else { 0 };
        s[owner.index()] += value(kind) + bonus + general;
    }
    s
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
    let s = strength(pos);
    let rivals: i32 = Kingdom::ALL.into_iter().filter(|&k| k != root).map(|k| s[k.index()]).sum();
    s[root.index()] - rivals / 2
}

/// Limits of a search; `None` is no limit of that kind.
#[derive(Clone, Copy, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    Depth,
    Nodes,
    Time,
    Stopped,
    NoLegalMoves,
    /// A win or a loss was proven at the depth searched.
    Decided,
}

/// The result of a search.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub best: Option<Move>,
    /// Principal variation from the root (empty without legal moves).
    pub pv: Vec<Move>,
    /// Root player's view, centipawns or beyond [`WIN_BOUND`] for a decided game.
    pub score: i32,
    pub depth: u32,
    pub seldepth: u32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub stop_reason: StopReason,
}

struct Searcher<'a> {
    root: Kingdom,
    tt: &'a TranspositionTable,
    stop: &'a AtomicBool,
    deadline: Option<Instant>,
    node_limit: Option<u64>,
    nodes: u64,
    seldepth: u32,
    aborted: Option<StopReason>,
    pv: [[Move; MAX_PLY]; MAX_PLY],
    pv_len: [usize; MAX_PLY],
}

fn tt_key(pos: &Position, root: Kingdom) -> u64 {
    pos.key() ^ SALT ^ ROOT_SALT[root.index()]
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

impl Searcher<'_> {
    fn check_limits(&mut self) -> bool {
        if self.aborted.is_some() {
            return true;
        }
        if self.nodes & 1023 == 0 {
            if self.stop.load(Ordering::Relaxed) {
                self.aborted = Some(StopReason::Stopped);
            } else if self.deadline.is_some_and(|d| Instant::now() >= d) {
                self.aborted = Some(StopReason::Time);
            }
        }
        if self.node_limit.is_some_and(|n| self.nodes >= n) {
            self.aborted = Some(StopReason::Nodes);
        }
        self.aborted.is_some()
    }

    /// Orders `list`: the table move, then captures of generals, then captures by
    /// value taken less a tenth of the mover, then quiet moves.
    fn order(&self, pos: &Position, list: &MoveList, first: Option<Move>) -> Vec<Move> {
        let mut scored: Vec<(i32, Move)> = list
            .iter()
            .map(|&m| {
                let s = if Some(m) == first {
                    1_000_000
                } else {
                    match pos.piece_at(m.to()) {
                        Some(c) if c.kind() == Kind::General => 500_000,
                        Some(c) => {
                            10_000 + value(c.kind()) * 10 - pos.piece_at(m.from()).map_or(0, |p| value(p.kind()))
                        }
                        None => 0,
                    }
                };
                (s, m)
            })
            .collect();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        scored.into_iter().map(|(_, m)| m).collect()
    }

    fn terminal(&self, pos: &Position, ply: usize) -> Option<i32> {
        if pos.is_defeated(self.root) {
            return Some(-WIN + ply as i32);
        }
        if pos.winner() == Some(self.root) {
            return Some(WIN - ply as i32);
        }
        None
    }

    fn search(&mut self, pos: &mut Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if depth <= 0 || ply + 1 >= MAX_PLY {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        self.nodes += 1;
        if self.check_limits() {
            return 0;
        }
        let maximizing = pos.side_to_move() == self.root;
        let key = tt_key(pos, self.root);
        let first = self.tt.probe(key).and_then(|e| unpack(e.eval));
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let moves = self.order(pos, &list, first.filter(|&m| list.contains(m)));
        let mut best = if maximizing { -INF } else { INF };
        let mut best_move = None;
        for m in moves {
            let undo = pos.play_unchecked(m);
            let v = self.search(pos, depth - 1, alpha, beta, ply + 1);
            pos.undo(m, undo);
            if self.aborted.is_some() {
                return 0;
            }
            let better = if maximizing { v > best } else { v < best };
            if better {
                best = v;
                best_move = Some(m);
                self.pv[ply][ply] = m;
                for i in ply + 1..self.pv_len[ply + 1] {
                    self.pv[ply][i] = self.pv[ply + 1][i];
                }
                self.pv_len[ply] = self.pv_len[ply + 1].max(ply + 1);
            }
            if maximizing {
                alpha = alpha.max(v);
            } else {
                beta = beta.min(v);
            }
            if alpha >= beta {
                break;
            }
        }
        if let Some(m) = best_move {
            self.tt.store(key, None, 0, pack(m), depth.clamp(0, 255) as u8, Bound::Upper);
        }
        best
    }

    fn quiesce(&mut self, pos: &mut Position, mut alpha: i32, mut beta: i32, ply: usize, qply: u32) -> i32 {
        self.pv_len[ply] = ply;
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply as u32);
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if self.check_limits() {
            return 0;
        }
        let stand = evaluate(pos, self.root);
        let maximizing = pos.side_to_move() == self.root;
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
        if qply >= 6 || ply + 1 >= MAX_PLY {
            return stand;
        }
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        let mut captures = MoveList::new();
        for &m in list.iter() {
            if pos.piece_at(m.to()).is_some() {
                captures.push(m);
            }
        }
        let mut best = stand;
        for m in self.order(pos, &captures, None) {
            let undo = pos.play_unchecked(m);
            let v = self.quiesce(pos, alpha, beta, ply + 1, qply + 1);
            pos.undo(m, undo);
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
}

/// Searches `pos` for its side to move by iterative deepening until a limit, the stop
/// flag or the deadline. Moves of `search_moves` (if any) are the only root moves, and
/// those of `exclude_moves` are never played.
pub fn search(
    pos: &Position,
    limits: Limits,
    search_moves: &[Move],
    exclude_moves: &[Move],
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Outcome {
    let started = Instant::now();
    let root = pos.side_to_move();
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let roots: Vec<Move> = list
        .iter()
        .copied()
        .filter(|m| (search_moves.is_empty() || search_moves.contains(m)) && !exclude_moves.contains(m))
        .collect();
    let mut out = Outcome {
        best: None,
        pv: Vec::new(),
        score: evaluate(pos, root),
        depth: 0,
        seldepth: 0,
        nodes: 0,
        elapsed: Duration::ZERO,
        stop_reason: StopReason::NoLegalMoves,
    };
    if roots.is_empty() {
        out.elapsed = started.elapsed();
        return out;
    }
    let mut s = Searcher {
        root,
        tt,
        stop,
        deadline,
        node_limit: limits.nodes,
        nodes: 0,
        seldepth: 0,
        aborted: None,
        pv: [[Move::default(); MAX_PLY]; MAX_PLY],
        pv_len: [0; MAX_PLY],
    };
    let mut work = pos.clone();
    let mut ordered = {
        let mut l = MoveList::new();
        for &m in &roots {
            l.push(m);
        }
        s.order(pos, &l, None)
    };
    out.best = Some(ordered[0]);
    out.pv = vec![ordered[0]];
    let max_depth = limits.depth.unwrap_or(64).clamp(1, (MAX_PLY - 8) as u32);
    out.stop_reason = StopReason::Depth;
    for depth in 1..=max_depth {
        let mut alpha = -INF;
        let mut best: Option<(Move, i32, Vec<Move>)> = None;
        for &m in &ordered {
            let undo = work.play_unchecked(m);
            let v = s.search(&mut work, depth as i32 - 1, alpha, INF, 1);
            work.undo(m, undo);
            if s.aborted.is_some() {
                break;
            }
            if best.as_ref().is_none_or(|b| v > b.1) {
                let mut pv = vec![m];
                pv.extend_from_slice(&s.pv[1][1..s.pv_len[1].max(1)]);
                best = Some((m, v, pv));
                alpha = v;
            }
        }
        if let Some(reason) = s.aborted {
            // A partial depth whose first (best-so-far) move was searched fully still
            // improves on the last depth if it found something better.
            if let Some((m, v, pv)) = best
                && (v > out.score || out.depth == 0)
            {
                out.best = Some(m);
                out.score = v;
                out.pv = pv;
            }
            out.stop_reason = reason;
            break;
        }
        let Some((m, v, pv)) = best else { break };
        out.best = Some(m);
        out.score = v;
        out.pv = pv;
        out.depth = depth;
        ordered.retain(|&x| x != m);
        ordered.insert(0, m);
        if v.abs() > WIN_BOUND {
            out.stop_reason = StopReason::Decided;
            break;
        }
        if ordered.len() == 1 && limits.depth.is_none() {
            break;
        }
        out.stop_reason = StopReason::Depth;
    }
    out.nodes = s.nodes;
    out.seldepth = s.seldepth.max(out.depth);
    out.elapsed = started.elapsed();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_move_from_the_start() {
        let tt = TranspositionTable::new(1);
        let stop = AtomicBool::new(false);
        let pos = Position::startpos(true);
        let out = search(&pos, Limits { depth: Some(3), nodes: None }, &[], &[], &tt, &stop, None);
        let m = out.best.expect("a move");
        assert!(pos.is_legal(m));
        assert_eq!(out.depth, 3);
    }

    #[test]
    fn takes_a_general_when_it_can() {
        // Shu's chariot on Wu's central file attacks Wu's general.
        let pos = Position::from_text("4K4/9/9/4P4/9 4K4/9/4rR4/9/9 4K4/9/9/4P4/9 R RGB - 0 1").unwrap();
        let tt = TranspositionTable::new(1);
        let stop = AtomicBool::new(false);
        for depth in 1..=4 {
            let out = search(&pos, Limits { depth: Some(depth), nodes: None }, &[], &[], &tt, &stop, None);
            assert_eq!(out.best.map(|m| m.to_string()), Some("Ge3-Ge1".to_string()), "depth {depth}");
        }
    }

    #[test]
    fn packing_round_trips() {
        let m = Move::parse("Rh3-Gi5").unwrap();
        assert_eq!(unpack(pack(m)), Some(m));
    }
}
