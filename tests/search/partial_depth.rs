//! A search stopped in the middle of a depth: it plays the deeper depth's choice once
//! that choice has been searched to the end, and the last finished depth's otherwise.

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::types::Move;
use chuhe::rules::xiangqi::Game;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Outcome, Params, Report, StopReason, search};

/// Positions from the opening and the middlegame, where the best move changes from one
/// depth to the next somewhere below depth 10.
const POSITIONS: [&str; 3] = [
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "2bak4/4a4/4b1n2/p3p1p1p/2p6/6P2/P3P3P/2N1B1C2/4A4/2BAK4 w - - 0 1",
];

/// One thread and a fresh table: the search is the same node for node every time.
fn run(game: &Game, limits: Limits, reports: &mut Vec<Report>) -> Outcome {
    let tt = TranspositionTable::new(16);
    let params = Params { limits, ..Params::default() };
    search(game, &params, &tt, &AtomicBool::new(false), None, &mut |r| reports.push(r.clone()))
}

fn best_of(report: &Report) -> Move {
    report.lines[0].pv[0]
}

/// The first depth whose best move differs from the depth before, with the nodes the
/// search had spent when each of the two depths ended.
fn change_of_mind(game: &Game) -> Option<(Move, u64, Move, u64)> {
    let mut reports = Vec::new();
    run(game, Limits { depth: Some(10), ..Limits::default() }, &mut reports);
    reports.windows(2).find(|w| best_of(&w[0]) != best_of(&w[1])).map(|w| {
        let (before, after) = (&w[0], &w[1]);
        (best_of(before), before.nodes, best_of(after), after.nodes)
    })
}

#[test]
fn a_depth_cut_short_plays_its_move_once_searched_to_the_end() {
    let mut changes = 0;
    for text in POSITIONS {
        let game = Game::new(fen::xiangqi(text).unwrap());
        let Some((old_best, old_nodes, new_best, new_nodes)) = change_of_mind(&game) else { continue };
        changes += 1;
        // One node before the deeper depth ends: its new best move was searched to the
        // end long before (the moves after it were still being refuted).
        let mut reports = Vec::new();
        let late = run(&game, Limits { nodes: Some(new_nodes - 1), ..Limits::default() }, &mut reports);
        assert_eq!(late.stop_reason, StopReason::Nodes, "{text}");
        assert_eq!(late.best, Some(new_best), "{text}: stopped at {} of {new_nodes} nodes", new_nodes - 1);
        assert_eq!(late.report.depth, reports.last().unwrap().depth, "{text}: the finished depth is reported");
        // One node after the shallower depth ended, nothing of the deeper one is
        // finished yet: the shallower depth's move.
        let early = run(&game, Limits { nodes: Some(old_nodes + 1), ..Limits::default() }, &mut Vec::new());
        assert_eq!(early.best, Some(old_best), "{text}: stopped at {} nodes", old_nodes + 1);
    }
    assert!(changes >= 2, "only {changes} of the positions change their best move below depth 10");
}

#[test]
fn a_move_time_is_spent_whole() {
    // A deeper depth that does not end in time still counts (above), so the search
    // does not stop early because the next depth would not end.
    let game = Game::new(fen::xiangqi(POSITIONS[1]).unwrap());
    let movetime = std::time::Duration::from_millis(150);
    let outcome = run(&game, Limits { movetime: Some(movetime), ..Limits::default() }, &mut Vec::new());
    assert_eq!(outcome.stop_reason, StopReason::Time);
    assert!(outcome.report.elapsed >= movetime, "stopped after {:?} of {movetime:?}", outcome.report.elapsed);
}
