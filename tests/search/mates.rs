//! Every mate the search reports, checked by an independent brute-force solver: plain
//! minimax over the rules' legal moves, with no pruning, no evaluation and no table
//! shared with the search. A line scored "mate in n" must force mate in exactly n moves
//! after its first move, at every depth, on a fresh table, on a warm one (the same
//! search again) and on a table crowded by other positions.

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::xiangqi::Game;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Outcome, Params, Score, search};
use common::mate::{Solver, assert_legal_line};

use crate::common;

/// Small endgames and the length of their shortest forced mate (Red to move).
const MATES: [(&str, u32); 8] = [
    ("4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1", 1),
    ("4k4/9/9/9/9/9/9/9/9/RR1K5 w - - 0 1", 2),
    ("5k3/9/9/9/9/9/9/9/4A4/3AK1R2 w - - 0 1", 2),
    ("3k5/4a4/9/9/9/9/9/9/9/4K1R2 w - - 0 1", 3),
    ("4ka3/9/9/9/9/9/9/9/9/3K2R2 w - - 0 1", 3),
    ("5a3/3k5/9/9/9/9/9/9/9/4K1R2 w - - 0 1", 3),
    ("4k4/9/4b4/9/9/9/9/9/9/3K1R3 w - - 0 1", 4),
    ("3a1k3/9/9/9/9/9/9/9/9/3K2R2 w - - 0 1", 4),
];

fn params(depth: u32, multipv: usize) -> Params {
    Params { limits: Limits { depth: Some(depth), ..Limits::default() }, multipv, ..Params::default() }
}

fn run(game: &Game, params: &Params, tt: &TranspositionTable) -> Outcome {
    search(game, params, tt, &AtomicBool::new(false), None, &mut |_| {})
}

/// Checks every line of `outcome`; returns the best line's mate length if it is a mate.
fn check_outcome(solver: &mut Solver, game: &Game, outcome: &Outcome, context: &str) -> Option<i32> {
    for (i, line) in outcome.report.lines.iter().enumerate() {
        let context = format!("{context}, line {}", i + 1);
        solver.check_line(game.position(), line.score, &line.pv, outcome.report.depth, &context);
    }
    match outcome.report.lines.first().map(|l| l.score) {
        Some(Score::Mate(n)) => Some(n),
        _ => None,
    }
}

#[test]
fn the_positions_have_the_stated_shortest_mates() {
    let mut solver = Solver::default();
    for (text, n) in MATES {
        let mut pos = fen::xiangqi(text).unwrap();
        assert_eq!(solver.shortest_win(&mut pos, n), Some(n), "{text}");
    }
}

/// Plies past a mate's length by which the search must report it.
const SHORTEST_BY: u32 = 8;

/// The ply correction of mate scores stored in and read from the table: without it a
/// mate found deeper in the tree is read back at another distance, and a line is
/// reported as a shorter mate than it is (`g0g1` as mate in 2 where it mates in 3).
#[test]
fn every_reported_mate_is_forced_in_exactly_its_length() {
    let mut solver = Solver::default();
    for (text, n) in MATES {
        let game = Game::new(fen::xiangqi(text).unwrap());
        for multipv in [1, 3] {
            let warm = TranspositionTable::new(4);
            // Every reported mate is checked at every depth; the shortest must be
            // reported a few plies past its length (reductions and late-move pruning
            // may hide it at exactly its length, as in any pruning search).
            for depth in 1..=2 * n + SHORTEST_BY {
                let p = params(depth, multipv);
                let fresh = run(&game, &p, &TranspositionTable::new(4));
                let context = format!("{text} multipv {multipv} depth {depth}");
                let found = check_outcome(&mut solver, &game, &fresh, &format!("{context} (fresh table)"));
                if depth == 2 * n + SHORTEST_BY {
                    assert_eq!(found, Some(n as i32), "{context}: the shortest mate is not reported");
                }
                // The same search twice on one table: the second reads the first's mates.
                for round in ["first", "second"] {
                    let outcome = run(&game, &p, &warm);
                    // A warm table may hold a longer forced mate's bounds that cut the
                    // shorter one off: what it reports must still be forced in exactly
                    // its length, and a mate.
                    let found =
                        check_outcome(&mut solver, &game, &outcome, &format!("{context} ({round} on a warm table)"));
                    if depth == 2 * n + SHORTEST_BY {
                        assert!(found.is_some_and(|k| k >= n as i32), "{context}: no mate reported ({found:?})");
                    }
                }
            }
        }
    }
}

/// The defender's view: after the attacker's mating first move, every reply the
/// search reports is "mated in k" for the k the solver finds.
#[test]
fn every_reported_mated_line_of_the_defender_is_exact() {
    let mut solver = Solver::default();
    for (text, n) in MATES.into_iter().filter(|&(_, n)| n >= 2) {
        let mut game = Game::new(fen::xiangqi(text).unwrap());
        let outcome = run(&game, &params(2 * n + 1, 1), &TranspositionTable::new(4));
        game.play(outcome.best.unwrap()).unwrap();
        let tt = TranspositionTable::new(4);
        for depth in [2 * n - 2, 2 * n, 2 * n + 1] {
            for _ in 0..2 {
                let outcome = run(&game, &params(depth, 3), &tt);
                let context = format!("{text} after {}, depth {depth}", game.plies()[0].mv);
                check_outcome(&mut solver, &game, &outcome, &context);
            }
        }
    }
}

/// Entries of other positions share the slots of a small table: a probe must take only
/// its own key's entry. Positions are searched one after the other on the smallest
/// table, each after a middlegame search has crowded it, and every mate must still be
/// the solver's, every best line a legal one, and every mate position still a mate of
/// its length at full depth.
#[test]
fn a_crowded_table_answers_only_for_its_own_positions() {
    let mut solver = Solver::default();
    let tt = TranspositionTable::new(1);
    let crowd = [
        "startpos",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
    ];
    for (i, (text, n)) in MATES.into_iter().enumerate() {
        let crowd_game = Game::new(fen::xiangqi(crowd[i % crowd.len()]).unwrap());
        let crowded = run(&crowd_game, &params(6, 1), &tt);
        for line in &crowded.report.lines {
            assert_legal_line(crowd_game.position(), &line.pv, crowd[i % crowd.len()]);
        }
        let game = Game::new(fen::xiangqi(text).unwrap());
        for depth in 1..=2 * n + 2 {
            let outcome = run(&game, &params(depth, 2), &tt);
            let context = format!("{text} depth {depth} on a crowded table");
            let found = check_outcome(&mut solver, &game, &outcome, &context);
            if depth > 2 * n {
                assert_eq!(found, Some(n as i32), "{context}: the shortest mate is not reported");
            }
        }
    }
}

/// The defender is told how soon it is mated: once the search sees the whole mate, its
/// score is "mated in k" for the exact k the solver finds after the attacker's mating
/// first move.
#[test]
fn the_defender_is_told_how_soon_it_is_mated() {
    let mut solver = Solver::default();
    for (text, n) in MATES.into_iter().filter(|&(_, n)| n >= 2) {
        let mut game = Game::new(fen::xiangqi(text).unwrap());
        let outcome = run(&game, &params(2 * n + SHORTEST_BY, 1), &TranspositionTable::new(4));
        game.play(outcome.best.unwrap()).unwrap();
        let mut pos = game.position().clone();
        let k = (1..n).find(|&k| solver.lost_within(&mut pos, k)).expect("the defender is lost");
        let defended = run(&game, &params(2 * k + SHORTEST_BY, 1), &TranspositionTable::new(4));
        let context = format!("{text} after {}", game.plies()[0].mv);
        assert_eq!(defended.report.lines[0].score, Score::Mate(-(k as i32)), "{context}");
        check_outcome(&mut solver, &game, &defended, &context);
    }
}
