//! The Three Kingdoms search with a table that already holds entries, against a plain
//! paranoid search written here.
//!
//! Up to depth 4 the search reduces no move: late-move reductions are for the root
//! player's moves with 3 plies or more left, and after the root the root player moves
//! again at ply 2 at the earliest (ply 3 while both rivals are in play). Nor does a
//! position come back within those plies at another ply (every move displaces a piece
//! of its mover, and the one or two moves between would have to undo it), so in the
//! last iteration a node meets in the table only entries of its own depth, which it may
//! trust, or shallower ones, which it may not. Every search of the same position to the
//! same depth on one table then gives the plain paranoid values: the table only saves
//! work. A search then reads bounds that an earlier one stored with another window: a
//! search of several lines sets its root moves a lower bar than a search of one.
//!
//! Entries of another search reach further. The search of the position three plies
//! before, to depth 5, leaves entries at depth 1 for the positions four plies into it;
//! the later search, to depth 2, meets them one ply in, at that same depth, and their
//! moves lead straight to the quiescence, so no reduction touched them. They were found
//! with the earlier search's window, and the later position is off its best line, where
//! the root player does better than that window: bounds stored below the later search's
//! bar.

use std::sync::atomic::AtomicBool;

use chuhe::rules::three_kingdoms::outcome::{Game, QUIET_PLY_LIMIT};
use chuhe::rules::three_kingdoms::{Kingdom, Move, MoveList, Position};
use chuhe::search::three_kingdoms::{Limits, Params, WIN, evaluate, search};
use chuhe::search::tt::TranspositionTable;

use super::three_kingdoms::Lcg;

/// The quiescence of the search: captures for at most this many plies, every move for a
/// side in check in the first `QS_EVASIONS` of them.
const QS_PLIES: u32 = 6;
const QS_EVASIONS: u32 = 2;
/// Beyond every score.
const INF: i32 = 32_000;

/// A plain paranoid alpha-beta search for `root`, no table, no reductions, no move
/// ordering: `root` maximises, both rivals minimise; a decided game scores `WIN` less
/// the plies for the root player, `-WIN` plus the plies against it; a position met
/// again since the game's last capture (on the line or in the game) or the 180th quiet
/// ply scores 0; at the horizon, the quiescence above over the static evaluation.
struct Reference {
    root: Kingdom,
    /// Keys of the positions of the line, the current one last.
    keys: Vec<u64>,
}

impl Reference {
    fn terminal(&self, pos: &Position, ply: i32) -> Option<i32> {
        if pos.is_defeated(self.root) {
            Some(-WIN + ply)
        } else if pos.winner() == Some(self.root) {
            Some(WIN - ply)
        } else {
            None
        }
    }

    fn repeated(&self) -> bool {
        let (last, before) = self.keys.split_last().unwrap();
        before.contains(last)
    }

    fn moves(pos: &Position, captures_only: bool) -> Vec<Move> {
        let mut list = MoveList::new();
        if captures_only {
            pos.legal_captures(&mut list);
        } else {
            pos.legal_moves(&mut list);
        }
        list.as_slice().to_vec()
    }

    fn node(&mut self, pos: &mut Position, depth: i32, mut alpha: i32, mut beta: i32, ply: i32) -> i32 {
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        if pos.quiet_plies() >= QUIET_PLY_LIMIT || self.repeated() {
            return 0;
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply, 0);
        }
        let maximizing = pos.side_to_move() == self.root;
        let mut best = if maximizing { -INF } else { INF };
        for m in Self::moves(pos, false) {
            let v = self.child(pos, m, |r, p| r.node(p, depth - 1, alpha, beta, ply + 1));
            take(maximizing, v, &mut best, &mut alpha, &mut beta);
            if alpha >= beta {
                break;
            }
        }
        best
    }

    fn quiesce(&mut self, pos: &mut Position, mut alpha: i32, mut beta: i32, ply: i32, qply: u32) -> i32 {
        if let Some(s) = self.terminal(pos, ply) {
            return s;
        }
        let stand = evaluate(pos, self.root);
        if qply >= QS_PLIES {
            return stand;
        }
        let maximizing = pos.side_to_move() == self.root;
        let evading = qply < QS_EVASIONS && pos.in_check();
        let mut best = if !evading {
            stand
        } else if maximizing {
            -INF
        } else {
            INF
        };
        // Standing pat: the side to move need not capture (unless it must evade).
        if !evading {
            if maximizing {
                alpha = alpha.max(stand);
            } else {
                beta = beta.min(stand);
            }
        }
        for m in Self::moves(pos, !evading) {
            if alpha >= beta {
                break;
            }
            let v = self.child(pos, m, |r, p| r.quiesce(p, alpha, beta, ply + 1, qply + 1));
            take(maximizing, v, &mut best, &mut alpha, &mut beta);
        }
        best
    }

    fn child(&mut self, pos: &mut Position, m: Move, f: impl FnOnce(&mut Self, &mut Position) -> i32) -> i32 {
        let undo = pos.play_unchecked(m);
        self.keys.push(pos.key());
        let v = f(self, pos);
        self.keys.pop();
        pos.undo(m, undo);
        v
    }

    /// The paranoid value at `depth` of each legal move of `pos` for its side to move,
    /// after the positions of `history` (keys, oldest first, `pos`'s last).
    fn root_values(pos: &Position, history: &[u64], depth: i32) -> Vec<(Move, i32)> {
        let mut r = Reference { root: pos.side_to_move(), keys: history.to_vec() };
        let mut p = pos.clone();
        Self::moves(pos, false)
            .into_iter()
            .map(|m| (m, r.child(&mut p, m, |r, p| r.node(p, depth - 1, -INF, INF, 1))))
            .collect()
    }
}

fn params(depth: u32, multipv: usize, exclude_moves: Vec<Move>) -> Params {
    Params { limits: Limits { depth: Some(depth), ..Limits::default() }, multipv, exclude_moves, ..Params::default() }
}

/// The reference value of `m` among `values`.
fn value_of(values: &[(Move, i32)], m: Move) -> i32 {
    values.iter().find(|(n, _)| *n == m).unwrap_or_else(|| panic!("{m} is not a legal move")).1
}

/// One search of a sequence: how many lines, and which root moves to leave out (the
/// best `skip_best` of the reference).
#[derive(Clone, Copy, Debug)]
struct Run {
    lines: usize,
    skip_best: usize,
}

/// Searches `pos` to `depth` once for each of `runs`, in turn, on one table, and compares
/// the lines with the reference: the `lines` best of the moves searched, each with its
/// reference value. Returns the reference values.
fn check_against_the_reference(game: &Game, tt: &TranspositionTable, depth: u32, runs: &[Run]) -> Vec<(Move, i32)> {
    let pos = game.position();
    let history: Vec<u64> = (0..=game.plies().len()).map(|i| game.key_before(i)).collect();
    let mut values = Reference::root_values(pos, &history, depth as i32);
    values.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
    let stop = AtomicBool::new(false);
    for (i, run) in runs.iter().enumerate() {
        let skip = run.skip_best.min(values.len() - 1);
        let excluded: Vec<Move> = values[..skip].iter().map(|&(m, _)| m).collect();
        let lines = run.lines.min(values.len() - skip);
        let out = search(game, &params(depth, lines, excluded), tt, &stop, None, &mut |_| {});
        let got: Vec<i32> = out.report.lines.iter().map(|l| l.score).collect();
        let want: Vec<i32> = values[skip..skip + lines].iter().map(|&(_, v)| v).collect();
        let at = format!("search {i} ({run:?}) to depth {depth} of {}", pos.to_text());
        assert_eq!(got, want, "{at}");
        for line in &out.report.lines {
            assert_eq!(line.score, value_of(&values, line.pv[0]), "{at}: {}", pos.move_text(line.pv[0]));
        }
    }
    values
}

/// The position after `plies` random plies from the start (a capture whenever one of
/// two draws says so and there is one), or sooner if a kingdom is left alone.
fn random_position(seed: u64, plies: usize) -> Position {
    let mut rng = Lcg(seed);
    let mut pos = Position::startpos(seed.is_multiple_of(2));
    for _ in 0..plies {
        let mut list = MoveList::new();
        pos.legal_captures(&mut list);
        if list.is_empty() || rng.next(2) == 0 {
            list.clear();
            pos.legal_moves(&mut list);
        }
        let m = list.as_slice()[rng.next(list.len())];
        let mut next = pos.clone();
        next.play_unchecked(m);
        if next.winner().is_some() {
            break;
        }
        pos = next;
    }
    pos
}

const fn run(lines: usize, skip_best: usize) -> Run {
    Run { lines, skip_best }
}

/// One line, the same again, every line (each root move with the full window), then one
/// line without the best move.
const AGAIN: [Run; 4] = [run(1, 0), run(1, 0), run(usize::MAX, 0), run(1, 1)];

/// Shu's chariot on Wu's central file attacks Wu's general.
const GENERAL_EN_PRISE: &str = "4K4/9/9/4P4/9 4K4/9/4rR4/9/9 4K4/9/9/4P4/9 R RGB - 0 1";
/// Wu is out; only Bh3-Bh1 leaves Wei without a legal move, and Shu is left alone.
const WEI_BOXED_IN: &str = "1bP1K5/9/9/9/9 9/9/9/9/9 3K5/8rR/7rR1/9/9 R RRB F 0 1";

#[test]
fn searching_again_on_the_same_table_keeps_the_plain_values() {
    // Positions of random games (seed, plies) where a bound read on the wrong side of
    // the window changes a value, and a few others.
    let games = [(3, 60), (8, 60), (15, 60), (16, 90), (24, 90), (28, 30), (30, 30), (1, 90), (2, 150), (5, 120)];
    for (seed, plies) in games {
        let game = Game::new(random_position(seed, plies));
        check_against_the_reference(&game, &TranspositionTable::new(1), 3, &AGAIN);
    }
    // A general to take, and a win in one ply (won games are kept in the table relative
    // to the node).
    for text in [GENERAL_EN_PRISE, WEI_BOXED_IN] {
        let game = Game::new(Position::from_text(text).unwrap());
        let values = check_against_the_reference(&game, &TranspositionTable::new(1), 4, &AGAIN);
        if text == WEI_BOXED_IN {
            assert_eq!(values[0].1, WIN - 1);
        }
    }
}

#[test]
fn the_entries_of_the_search_three_plies_before_keep_the_plain_values() {
    // Positions of random games (seed, plies) where a lower bound of the earlier search
    // read as a fail-low, or a fail-high stored as exact, changes a value, and two others;
    // from each, the search's best move and two random replies, four times.
    let games = [(6, 30), (24, 30), (34, 60), (36, 60), (39, 30), (7, 90), (12, 120)];
    let lines = [run(1, 0), run(2, 0), run(3, 0)];
    let stop = AtomicBool::new(false);
    let mut checked = 0;
    for (seed, plies) in games {
        let pos = random_position(seed, plies);
        let game = Game::new(pos.clone());
        let tt = TranspositionTable::new(1);
        let before = search(&game, &params(5, 1, Vec::new()), &tt, &stop, None, &mut |_| {});
        let mut rng = Lcg(seed * 1000 + plies as u64);
        for _ in 0..4 {
            let mut later = game.clone();
            later.play(before.best.unwrap()).unwrap();
            for _ in 0..2 {
                let mut list = MoveList::new();
                later.position().legal_moves(&mut list);
                if list.is_empty() || later.ending().is_some() {
                    break;
                }
                later.play(list.as_slice()[rng.next(list.len())]).unwrap();
            }
            // The same root player, three plies on.
            if later.plies().len() == 3
                && later.ending().is_none()
                && later.position().side_to_move() == pos.side_to_move()
            {
                check_against_the_reference(&later, &tt, 2, &lines);
                checked += 1;
            }
        }
    }
    assert!(checked >= 20, "{checked} positions checked");
}

/// A child's value `v` taken into `best` and the window: the root player raises alpha,
/// the two others (its opponents together) lower beta.
fn take(maximizing: bool, v: i32, best: &mut i32, alpha: &mut i32, beta: &mut i32) {
    if maximizing {
        *best = (*best).max(v);
        *alpha = (*alpha).max(v);
    } else {
        *best = (*best).min(v);
        *beta = (*beta).min(v);
    }
}
