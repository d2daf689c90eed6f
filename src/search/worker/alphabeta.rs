//! The node searches: principal variation search with its pruning, reductions and
//! extensions, and quiescence.

use super::movepick::{MovePicker, Pick};
use super::ordering::{lmp_limit, reduction};
use super::*;
use crate::rules::types::PieceKind;
use crate::search::tt::Bound;

impl<P: Searchable> Worker<'_, P> {
    /// `in_check`: the side to move is in check (the caller knows it from the move).
    pub(super) fn negamax(
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
        let entry = if excluded.is_some() { None } else { self.probe(key) };
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
                && eval - P::margin(RFP_MARGIN) * (depth - improving as i32) >= beta
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
                let r = 3 + depth / 3 + ((eval - beta) / P::margin(200)).min(3);
                self.pos.toggle_turn();
                self.prefetch();
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

        // The table move, if legal here (and at the root, still to search).
        let tt_move = tt_move.filter(|&m| {
            if ply == 0 { self.root_moves.contains(&m) && !self.root_skip.contains(&m) } else { self.pos.is_legal(m) }
        });
        let counter = self.counter_move(ply);
        let [k0, k1] = self.killers[ply];
        let mut picker = MovePicker::new(tt_move, [k0, k1, counter], false, false, in_check);

        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_tried = MoveList::new();
        let mut captures_tried = MoveList::new();
        let mut move_count = 0usize;
        while let Some((m, pick)) = self.next_move(&mut picker, ply) {
            if Some(m) == excluded {
                continue;
            }
            let capture = self.pos.captured(m).is_some();
            let slot = self.slot_of(m);
            let quiet_history = if capture { 0 } else { self.quiet_history(m, slot, ply) };
            let killer_or_counter = !capture && (self.is_killer(ply, m) || counter == Some(m));
            let lmr_depth = (depth - 1 - reduction(depth, move_count + 1)).max(0);
            // A capture that loses material by the exchange (tried after the quiets).
            let bad_capture = pick == Pick::BadCapture;
            // Once a mate is in hand (alpha is one), no move is pruned: a shorter mate
            // may start with any move, quiet ones too (a stalemate loses).
            let seeking_shorter_mate = alpha >= MATE_BOUND;
            if ply > 0 && !in_check && best > -MATE_BOUND && !seeking_shorter_mate {
                if capture {
                    if bad_capture
                        && depth <= SEE_PRUNE_DEPTH
                        && !self.pos.see_ge(m, -P::margin(SEE_CAPTURE_MARGIN) * depth)
                        && !picker.gives_check(&self.pos, m)
                    {
                        continue;
                    }
                } else if !(P::PASSES && m.is_pass() && self.pos.pass_may_end_game()) {
                    // (A pass that may end the game is never pruned.)
                    // Late-move pruning spares checks: a mate hides among them.
                    if move_count + 1 > lmp_limit(depth, improving) {
                        picker.skip_quiets = true;
                        if !picker.gives_check(&self.pos, m) {
                            continue;
                        }
                    }
                    let futile = lmr_depth <= FUTILITY_DEPTH
                        && eval + P::margin(FUTILITY_BASE + FUTILITY_MARGIN * lmr_depth) <= alpha;
                    let unpromising = lmr_depth <= HISTORY_PRUNE_DEPTH && quiet_history < -HISTORY_PRUNE_MARGIN * depth;
                    // (Last, as the dearest test: a quiet move that leaves its piece to
                    // be taken for less.)
                    if (futile
                        || unpromising
                        || (lmr_depth <= SEE_PRUNE_DEPTH
                            && !self.pos.see_ge(m, -P::margin(SEE_QUIET_MARGIN * lmr_depth * lmr_depth))))
                        && !picker.gives_check(&self.pos, m)
                    {
                        continue;
                    }
                }
            }

            self.prefetch_after(m);
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

            let made = self.make(m);
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
            self.unmake(m, made);
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
                    if ply == 0 {
                        self.root_partial = Some((score, self.pv[0][..child_len].to_vec()));
                    }
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
        if picker.no_legal_move() {
            // Checkmate or stalemate: both lose. (At the root: no move left to search.)
            return if ply == 0 { -INFINITY } else { -MATE + ply as i32 };
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

    pub(super) fn quiescence(&mut self, mut alpha: i32, beta: i32, ply: usize, in_check: bool) -> i32 {
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
        let entry = self.probe(key);
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
        if !in_check {
            stand = entry.map_or_else(|| self.evaluate(), |e| e.eval as i32);
            if stand >= beta {
                return stand;
            }
            alpha = alpha.max(stand);
            best = stand;
        }
        // Out of check: captures only, and those that lose by the exchange pruned.
        let tt_move = tt_move.filter(|&m| (in_check || self.pos.captured(m).is_some()) && self.pos.is_legal(m));
        let mut picker = MovePicker::new(tt_move, [None; 3], !in_check, !in_check && QS_PRUNING, in_check);
        while let Some((m, _)) = self.next_move(&mut picker, ply) {
            if !in_check && QS_PRUNING {
                let victim = self.pos.captured(m).map_or(0, |p| P::EXCHANGE_VALUES[p.kind().index()]);
                // Delta pruning: even the victim and a margin cannot lift alpha.
                if stand + victim + P::margin(QS_DELTA) <= alpha {
                    continue;
                }
            }
            self.prefetch_after(m);
            let made = self.make(m);
            let gives_check = self.pos.in_check();
            let score = -self.quiescence(-beta, -alpha, ply + 1, gives_check);
            self.unmake(m, made);
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
        if in_check && picker.no_legal_move() {
            return -MATE + ply as i32;
        }
        best
    }

    /// Starts bringing the table's bucket of the current position into the cache: the
    /// child node probes it a little later.
    #[inline(always)]
    fn prefetch(&self) {
        self.shared.tt.prefetch(self.pos.key() ^ P::SALT);
    }

    /// Starts bringing the table's bucket of the position after `m` into the cache
    /// before the move is played: the memory access then overlaps the work up to the
    /// child's probe.
    #[inline(always)]
    fn prefetch_after(&self, m: Move) {
        self.shared.tt.prefetch(self.pos.key_after(m) ^ P::SALT);
    }

    /// The static evaluation from the side to move's view: the net's where one
    /// evaluates (kept within the range of ordinary scores), else the classical one.
    #[inline]
    pub(super) fn evaluate(&mut self) -> i32 {
        match &mut self.nnue {
            Some(stack) => stack.evaluate(self.pos.board(), self.pos.turn()).clamp(-NNUE_BOUND, NNUE_BOUND),
            None => self.pos.evaluate(self.material),
        }
    }

    pub(super) fn has_big_pieces(&self) -> bool {
        let b = self.pos.board();
        let us = self.pos.turn();
        (b.pieces(us, PieceKind::Chariot) | b.pieces(us, PieceKind::Horse) | b.pieces(us, PieceKind::Cannon)) != 0
    }
}
