//! The paranoid alpha-beta search of one root player: node and quiescence searches,
//! move ordering, the kept material, repetition and the table.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::eval::{armies, compare, piece_score, strength_of, value};
use super::{INF, Line, MAX_PLY, QS_EVASIONS, QS_PLIES, ROOT_SALT, SALT, StopReason, WIN, game_keys};
use crate::rules::three_kingdoms::outcome::{Game, QUIET_PLY_LIMIT};
use crate::rules::three_kingdoms::{Kind, Kingdom, Move, MoveList, Point, Position, Undo};
use crate::search::tt::{Bound, TranspositionTable};
use crate::search::types::{clamp16, from_tt, to_tt};

/// One paranoid search for one root player: its limits, counters, tables and line.
pub(super) struct Searcher<'a> {
    pub(super) root: Kingdom,
    pub(super) salt: u64,
    pub(super) tt: &'a TranspositionTable,
    pub(super) stop: &'a AtomicBool,
    pub(super) deadline: Option<Instant>,
    pub(super) node_limit: Option<u64>,
    pub(super) nodes: u64,
    pub(super) seldepth: u32,
    pub(super) aborted: Option<StopReason>,
    /// Material of each original army in the current position.
    pub(super) armies: [i32; 3],
    /// Keys of the game's positions since its last capture or defeat, then of the
    /// searched line; the current position last.
    pub(super) keys: Vec<u64>,
    pub(super) killers: [[Option<Move>; 2]; MAX_PLY],
    /// Credit of quiet moves that cut, by from and to point.
    pub(super) history: Vec<i32>,
    pub(super) pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pub(super) pv_len: [usize; MAX_PLY],
}

pub(super) fn pack(m: Move) -> i16 {
    (m.from().index() as u16 | (m.to().index() as u16) << 8) as i16
}

pub(super) fn unpack(v: i16) -> Option<Move> {
    let v = v as u16;
    let from = Point::from_index((v & 0xff) as usize)?;
    let to = Point::from_index((v >> 8) as usize)?;
    (from != to).then(|| Move::new(from, to))
}

/// Moves the best-scored remaining move to position `i` and returns it.
pub(super) fn pick(list: &mut MoveList, scores: &mut [i32], i: usize) -> Move {
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
    pub(super) fn new(
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
    pub(super) fn visit(&mut self) -> bool {
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

    pub(super) fn key(&self, pos: &Position) -> u64 {
        pos.key() ^ self.salt
    }

    pub(super) fn evaluate(&self, pos: &Position) -> i32 {
        compare(&strength_of(pos, &self.armies), self.root)
    }

    pub(super) fn play(&mut self, pos: &mut Position, m: Move) -> (Undo, [i32; 3]) {
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

    pub(super) fn unplay(&mut self, pos: &mut Position, m: Move, (undo, saved): (Undo, [i32; 3])) {
        pos.undo(m, undo);
        self.keys.pop();
        self.armies = saved;
    }

    /// The score of a decided game for the root player, at `ply`.
    pub(super) fn terminal(&self, pos: &Position, ply: usize) -> Option<i32> {
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
    pub(super) fn is_draw(&self, pos: &Position) -> bool {
        if pos.quiet_plies() >= QUIET_PLY_LIMIT {
            return true;
        }
        let n = self.keys.len() - 1;
        let back = (pos.quiet_plies() as usize).min(n);
        self.keys[n - back..n].contains(&self.keys[n])
    }

    /// Scores `list` for ordering: the table move, captures of generals, captures by
    /// value taken less a tenth of the taker, killers, then the history.
    pub(super) fn order(&self, pos: &Position, list: &MoveList, scores: &mut [i32], first: Option<Move>, ply: usize) {
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

    pub(super) fn remember_quiet(&mut self, ply: usize, m: Move, depth: i32) {
        if self.killers[ply][0] != Some(m) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(m);
        }
        let h = &mut self.history[m.from().index() * Point::COUNT + m.to().index()];
        *h = (*h + depth * depth).min(1 << 20);
    }

    pub(super) fn copy_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = m;
        let len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = len;
    }

    /// The paranoid value of the current position (not the root) in `(alpha, beta)`,
    /// fail-soft.
    pub(super) fn node(&mut self, pos: &mut Position, depth: i32, mut alpha: i32, mut beta: i32, ply: usize) -> i32 {
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

    pub(super) fn quiesce(&mut self, pos: &mut Position, mut alpha: i32, mut beta: i32, ply: usize, qply: u32) -> i32 {
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
    pub(super) fn root(&mut self, pos: &mut Position, roots: &[Move], depth: i32, k: usize) -> Vec<Line> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::three_kingdoms::strength;

    #[test]
    fn packing_round_trips() {
        let m = Move::parse("Rh3-Gi5").unwrap();
        assert_eq!(unpack(pack(m)), Some(m));
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
