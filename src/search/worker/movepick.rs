//! The staged move picker: a node's moves in the order the search tries them, each
//! stage prepared only when the one before it is spent, so that a node cut off early
//! pays for no more than it looked at.
//!
//! 1. The table move, checked for legality and played before any move is generated.
//! 2. Captures by the value of the victim (and their history); a capture whose piece
//!    is worth more than its victim is checked by the exchange when it comes up, and
//!    put aside for the end if it loses material. Only the captures are generated for
//!    this stage, straight into the picker.
//! 3. The killer moves and the counter move, if they are legal quiet moves here. The
//!    quiet moves are generated when this stage begins, after the captures.
//! 4. The other quiet moves by their histories, scored when the stage begins (once
//!    late-move pruning has started, only checks and a Janggi pass, never pruned).
//! 5. The captures put aside, unless the node prunes them all (quiescence).

use super::*;
use crate::rules::board::{CheckCandidates, Guard};
use crate::rules::types::PieceKind;

/// What kind of move the picker hands out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pick {
    Table,
    GoodCapture,
    /// A killer or the counter move.
    Killer,
    Quiet,
    /// A capture that loses material by the exchange.
    BadCapture,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    Table,
    GenerateCaptures,
    GoodCaptures,
    GenerateQuiets,
    Killers,
    ScoreQuiets,
    Quiets,
    BadCaptures,
    Done,
}

pub(super) struct MovePicker {
    stage: Stage,
    tt_move: Option<Move>,
    /// Captures in `[0, captures)`, quiet moves after them once generated; the
    /// captures put aside are moved to `[0, bad_end)` as the capture stage passes them.
    moves: MoveList,
    /// The [`sort_key`] of each move of `moves` the stages have scored; only those of
    /// the moves not yet handed out (from `cur` on) are kept up to date.
    keys: FixedList<i32, { MoveList::CAPACITY }>,
    captures: usize,
    bad_end: usize,
    cur: usize,
    /// Killers and counter move, in order, and how many of them were handed out.
    refutations: [Option<Move>; 3],
    next_refutation: usize,
    /// Legal moves of the node (the table move included), once generated.
    legal: usize,
    captures_only: bool,
    skip_bad_captures: bool,
    /// Late-move pruning has started: no more quiet moves (but passes).
    pub(super) skip_quiets: bool,
    /// The node's moves that may give check, made when first asked.
    checks: Option<CheckCandidates>,
    /// Is the side to move in check?
    in_check: bool,
    /// The general-safety guard both generation stages use, made by the first.
    guard: Option<Guard>,
}

impl MovePicker {
    /// `tt_move` must be legal here (and a capture when `captures_only`); `in_check`
    /// must say whether the side to move is in check.
    pub(super) fn new(
        tt_move: Option<Move>,
        refutations: [Option<Move>; 3],
        captures_only: bool,
        skip_bad_captures: bool,
        in_check: bool,
    ) -> Self {
        MovePicker {
            stage: Stage::Table,
            tt_move,
            moves: MoveList::new(),
            keys: FixedList::new(),
            captures: 0,
            bad_end: 0,
            cur: 0,
            refutations,
            next_refutation: 0,
            legal: 0,
            captures_only,
            skip_bad_captures,
            skip_quiets: false,
            checks: None,
            in_check,
            guard: None,
        }
    }

    /// Does `m` (legal in `pos`, this picker's node) give check?
    #[inline]
    pub(super) fn gives_check<P: Searchable>(&mut self, pos: &P, m: Move) -> bool {
        let candidates = self.checks.get_or_insert_with(|| pos.check_candidates());
        pos.gives_check_given(candidates, m)
    }

    /// Has the node no legal move? Only known once the picker has run dry.
    pub(super) fn no_legal_move(&self) -> bool {
        self.stage == Stage::Done && self.legal == 0
    }

    /// Moves the best-scored move of `[cur, end)` to `cur` (the first of the best); the
    /// caller hands it out next. The move it displaces takes the best one's place.
    #[inline]
    fn select(&mut self, end: usize) {
        let cur = self.cur;
        // One maximum on vectors, without a branch per move: the keys hold the places.
        let best_key = self.keys.as_slice()[cur..end].iter().fold(i32::MIN, |a, &k| a.max(k));
        let best = place_of(best_key);
        self.moves.swap(cur, best);
        let keys = self.keys.as_mut_slice();
        keys[best] = sort_key(keys[cur] >> 8, best);
    }

    fn is_refutation_given(&self, m: Move) -> bool {
        self.refutations[..self.next_refutation].contains(&Some(m))
    }
}

/// The key a move's place and ordering score sort by: the score above, the place
/// below, an earlier place ranking higher among equal scores, so that the largest key
/// is the first of the best moves. Scores stay within 2^22 in size (histories within
/// 3 * HISTORY_MAX, captures within 16 times the largest value plus their history), so
/// the key does not overflow; places are below the lists' capacity, under 256.
#[inline(always)]
pub(super) fn sort_key(score: i32, place: usize) -> i32 {
    debug_assert!(score.unsigned_abs() < 1 << 22 && place < 256, "score {score}, place {place}");
    (score << 8) | (255 - place as i32)
}

/// The place a [`sort_key`] holds.
#[inline(always)]
fn place_of(key: i32) -> usize {
    (255 - (key & 255)) as usize
}

/// Ordering values (MVV-LVA).
const VALUE: [i32; 7] = [10_000, 200, 200, 400, 900, 450, 150];

/// The ordering value of a piece kind.
#[inline]
fn capture_value(kind: PieceKind) -> i32 {
    VALUE[kind.index()]
}

impl<P: Searchable> Worker<'_, P> {
    /// The next move to try at `ply`, and its kind; `None` when none is left.
    pub(super) fn next_move(&self, mp: &mut MovePicker, ply: usize) -> Option<(Move, Pick)> {
        loop {
            match mp.stage {
                Stage::Table => {
                    mp.stage = Stage::GenerateCaptures;
                    if let Some(m) = mp.tt_move {
                        return Some((m, Pick::Table));
                    }
                }
                Stage::GenerateCaptures => {
                    self.generate_captures(mp, ply);
                    mp.stage = Stage::GoodCaptures;
                }
                Stage::GoodCaptures => {
                    while mp.cur < mp.captures {
                        mp.select(mp.captures);
                        let m = mp.moves.as_slice()[mp.cur];
                        mp.cur += 1;
                        if self.capture_is_good(m) {
                            return Some((m, Pick::GoodCapture));
                        }
                        mp.moves.as_mut_slice()[mp.bad_end] = m;
                        mp.bad_end += 1;
                    }
                    if mp.captures_only {
                        mp.cur = 0;
                        mp.stage = Stage::BadCaptures;
                    } else {
                        mp.stage = Stage::GenerateQuiets;
                    }
                }
                Stage::GenerateQuiets => {
                    self.generate_quiets(mp, ply);
                    mp.stage = Stage::Killers;
                }
                Stage::Killers => {
                    if mp.skip_quiets {
                        mp.stage = Stage::ScoreQuiets;
                        continue;
                    }
                    while mp.next_refutation < mp.refutations.len() {
                        let candidate = mp.refutations[mp.next_refutation];
                        mp.next_refutation += 1;
                        let Some(m) = candidate else { continue };
                        if Some(m) == mp.tt_move
                            || mp.refutations[..mp.next_refutation - 1].contains(&candidate)
                            || !mp.moves.as_slice()[mp.captures..].contains(&m)
                        {
                            // Not handed out: forget it, so the quiet stage gives it.
                            mp.refutations[mp.next_refutation - 1] = None;
                            continue;
                        }
                        return Some((m, Pick::Killer));
                    }
                    mp.stage = Stage::ScoreQuiets;
                }
                Stage::ScoreQuiets => {
                    if !mp.skip_quiets {
                        mp.keys.truncate(mp.captures);
                        self.score_quiets(&mp.moves.as_slice()[mp.captures..], &mut mp.keys, ply);
                    }
                    mp.cur = mp.captures;
                    mp.stage = Stage::Quiets;
                }
                Stage::Quiets => {
                    while mp.cur < mp.moves.len() {
                        if mp.skip_quiets {
                            // Only a pass or a check is still tried.
                            let m = mp.moves.as_slice()[mp.cur];
                            mp.cur += 1;
                            if ((P::PASSES && m.is_pass()) || mp.gives_check(&self.pos, m))
                                && Some(m) != mp.tt_move
                                && !mp.is_refutation_given(m)
                            {
                                return Some((m, Pick::Quiet));
                            }
                            continue;
                        }
                        mp.select(mp.moves.len());
                        let m = mp.moves.as_slice()[mp.cur];
                        mp.cur += 1;
                        if Some(m) != mp.tt_move && !mp.is_refutation_given(m) {
                            return Some((m, Pick::Quiet));
                        }
                    }
                    mp.cur = 0;
                    mp.stage = Stage::BadCaptures;
                }
                Stage::BadCaptures => {
                    if !mp.skip_bad_captures && mp.cur < mp.bad_end {
                        let m = mp.moves.as_slice()[mp.cur];
                        mp.cur += 1;
                        return Some((m, Pick::BadCapture));
                    }
                    mp.stage = Stage::Done;
                }
                Stage::Done => return None,
            }
        }
    }

    /// Generates the node's captures into the picker and scores them.
    fn generate_captures(&self, mp: &mut MovePicker, ply: usize) {
        mp.guard = self.pos.move_guard(mp.in_check);
        let Some(guard) = &mp.guard else { return };
        self.pos.legal_captures_with(guard, &mut mp.moves);
        self.keep_searchable(mp, 0, ply);
        mp.captures = mp.moves.len();
        let b = self.pos.board();
        mp.keys.clear();
        mp.keys.extend(mp.moves.iter().enumerate().map(|(place, &m)| {
            let score = self.pos.captured(m).map_or(0, |victim| {
                let history = b
                    .piece_at(m.from())
                    .map_or(0, |a| self.capture_history[a.index()][m.to().index()][victim.kind().index()]);
                capture_value(victim.kind()) * 16 + history / 32
            });
            sort_key(score, place)
        }));
    }

    /// Generates the node's quiet moves into the picker, after its captures.
    fn generate_quiets(&self, mp: &mut MovePicker, ply: usize) {
        mp.moves.truncate(mp.captures);
        let Some(guard) = &mp.guard else { return };
        self.pos.legal_quiets_with(guard, &mut mp.moves);
        self.keep_searchable(mp, mp.captures, ply);
    }

    /// Counts the legal moves generated from `start` on and drops the table move (and
    /// at the root the moves not to search).
    fn keep_searchable(&self, mp: &mut MovePicker, start: usize, ply: usize) {
        if ply == 0 {
            mp.moves.retain_from(start, |m| self.root_moves.contains(&m) && !self.root_skip.contains(&m));
        }
        mp.legal += mp.moves.len() - start;
        // The table move, searched first, is dropped here: one look for it, and the
        // moves after it shifted down in order.
        if let Some(tt) = mp.tt_move
            && let Some(at) = mp.moves.as_slice()[start..].iter().position(|&m| m == tt)
        {
            mp.moves.remove(start + at);
        }
    }

    /// Does the capture `m` lose no material? Without the exchange when the piece is
    /// worth no more than its victim.
    #[inline]
    fn capture_is_good(&self, m: Move) -> bool {
        let b = self.pos.board();
        let cheap = match (b.piece_at(m.from()), b.piece_at(m.to())) {
            (Some(a), Some(v)) => capture_value(a.kind()) <= capture_value(v.kind()),
            _ => false,
        };
        cheap || self.pos.see_ge(m, 0)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU64};

    use super::*;
    use crate::notation::fen;
    use crate::rules::xiangqi::Game;
    use crate::search::tt::TranspositionTable;

    const POSITIONS: &[&str] = &[
        "startpos",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
        "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
        // In check: the evasions.
        "4k4/9/9/9/9/9/9/9/4r4/3K5 w - - 0 1",
    ];

    /// Everything the picker hands out at the root-less node of `fen` (ply 1), with
    /// the table move and refutations given.
    fn picked(fen_text: &str, tt: Option<Move>, refutations: [Option<Move>; 3], captures_only: bool) -> Vec<Move> {
        let game = Game::new(fen::xiangqi(fen_text).unwrap());
        let table = TranspositionTable::new(1);
        let stop = AtomicBool::new(false);
        let shared = Shared {
            tt: &table,
            stop: &stop,
            done: AtomicBool::new(false),
            nodes: AtomicU64::new(0),
            deadline: None,
            node_limit: u64::MAX,
        };
        let params = Params::default();
        let worker = Worker::new(&game, &params, &shared, 0);
        let in_check = game.position().in_check();
        let mut picker = MovePicker::new(tt, refutations, captures_only, false, in_check);
        let mut out = Vec::new();
        while let Some((m, _)) = worker.next_move(&mut picker, 1) {
            out.push(m);
        }
        assert_eq!(picker.no_legal_move(), out.is_empty() && tt.is_none(), "{fen_text} {tt:?} {out:?}");
        out
    }

    fn sorted(mut v: Vec<Move>) -> Vec<Move> {
        v.sort_by_key(|m| (m.from().index(), m.to().index()));
        v
    }

    #[test]
    fn every_legal_move_comes_once() {
        for f in POSITIONS {
            let pos = fen::xiangqi(f).unwrap();
            let mut legal = MoveList::new();
            pos.legal_moves(&mut legal);
            let all: Vec<Move> = legal.iter().copied().collect();
            let quiet: Vec<Move> = all.iter().copied().filter(|m| pos.board().piece_at(m.to()).is_none()).collect();
            let captures: Vec<Move> = all.iter().copied().filter(|m| pos.board().piece_at(m.to()).is_some()).collect();
            assert_eq!(sorted(picked(f, None, [None; 3], false)), sorted(all.clone()), "{f}");
            // A table move first, refutations (one twice, one a capture, one not legal
            // here) after the good captures, and still every move once.
            let tt = all.last().copied();
            let illegal = Move::parse_iccs("a0a9");
            let refutations = [quiet.first().copied(), quiet.first().copied(), captures.first().copied().or(illegal)];
            let got = picked(f, tt, refutations, false);
            assert_eq!(got.first().copied(), tt, "{f}");
            assert_eq!(sorted(got), sorted(all.clone()), "{f}");
            // Captures only: every legal capture once.
            assert_eq!(sorted(picked(f, None, [None; 3], true)), sorted(captures), "{f}");
        }
    }

    #[test]
    fn captures_come_by_value_and_losing_ones_last() {
        // The red chariot can take the black chariot, a pawn, or a horse the cannon
        // takes back over its screen: the chariot, then the pawn, and the horse last.
        let f = "3k5/2c6/9/2p6/4r4/9/2n1R1p2/9/9/5K3 w - - 0 1";
        let got = picked(f, None, [None; 3], false);
        let iccs: Vec<String> = got.iter().map(|m| m.to_string()).collect();
        let first = &iccs[..2];
        assert_eq!(first, ["e3e5", "e3g3"], "{iccs:?}");
        assert_eq!(iccs.last().map(String::as_str), Some("e3c3"), "{iccs:?}");
    }

    #[test]
    fn sort_keys_rank_by_score_then_earlier_place() {
        let scores = [-(1 << 21), -300, -1, 0, 1, 7, 160_512, (1 << 22) - 1];
        let places = [0, 3, 4, 191];
        for (a, pa) in scores.into_iter().flat_map(|s| places.map(|p| (s, p))) {
            assert_eq!((place_of(sort_key(a, pa)), sort_key(a, pa) >> 8), (pa, a), "the key gives both back");
            for (b, pb) in scores.into_iter().flat_map(|s| places.map(|p| (s, p))) {
                let expected = (a, std::cmp::Reverse(pa)).cmp(&(b, std::cmp::Reverse(pb)));
                assert_eq!(sort_key(a, pa).cmp(&sort_key(b, pb)), expected, "{a}@{pa} vs {b}@{pb}");
            }
        }
    }
}
