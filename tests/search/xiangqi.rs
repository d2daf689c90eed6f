//! The search: mates found and proven by brute force, legal answers, limits, the shared
//! table, concurrency.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chuhe::notation::fen;
use chuhe::rules::types::Color;
use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::xiangqi::Game;
use chuhe::rules::xiangqi::Position;
use chuhe::rules::xiangqi::adjudicate::RuleSet;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, Score, StopReason, UnderRules, search};

use crate::common;

/// Can the side to move force a win (the opponent left without a legal move, which
/// loses in Xiangqi) within `n` moves? Plain minimax over legal moves.
fn wins_within(pos: &mut Position, n: u32) -> bool {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().any(|&m| {
        let undo = pos.play_unchecked(m);
        let wins = forced_after(pos, n);
        pos.undo(m, undo);
        wins
    })
}

fn forced_after(pos: &mut Position, n: u32) -> bool {
    let mut replies = MoveList::new();
    pos.legal_moves(&mut replies);
    replies.is_empty()
        || (n > 1
            && replies.iter().all(|&r| {
                let undo = pos.play_unchecked(r);
                let w = wins_within(pos, n - 1);
                pos.undo(r, undo);
                w
            }))
}

fn game(fen_text: &str) -> Game {
    Game::new(fen::xiangqi(fen_text).unwrap())
}

fn run(game: &Game, params: Params, tt: &TranspositionTable) -> chuhe::search::Outcome {
    search(game, &params, tt, &AtomicBool::new(false), None, &mut |_| {})
}

fn depth(d: u32) -> Params {
    Params { limits: Limits { depth: Some(d), ..Limits::default() }, ..Params::default() }
}

#[test]
fn finds_mates_in_one_two_and_three() {
    let cases = [
        ("4k4/1R7/9/9/9/9/9/9/9/R2K5 w - - 0 1", 1),
        ("4k4/9/9/9/9/9/9/9/9/RR1K5 w - - 0 1", 2),
        ("3k5/4a4/9/9/9/9/9/9/9/4K1R2 w - - 0 1", 3),
    ];
    for (fen_text, n) in cases {
        let g = game(fen_text);
        let mut pos = g.position().clone();
        assert!(
            wins_within(&mut pos, n) && (n == 1 || !wins_within(&mut pos, n - 1)),
            "{fen_text} is not a mate in {n}"
        );
        let tt = TranspositionTable::new(8);
        // The search stops once its depth is well past the mate (before this limit).
        let outcome = run(&g, depth(2 * n + 8), &tt);
        assert_eq!(outcome.report.lines[0].score, Score::Mate(n as i32), "{fen_text}");
        let best = outcome.best.unwrap();
        let undo = pos.play_unchecked(best);
        assert!(forced_after(&mut pos, n), "{fen_text}: {best} does not mate in {n}");
        pos.undo(best, undo);
        assert_eq!(outcome.stop_reason, StopReason::MateFound);
        assert!(outcome.report.depth < 2 * n + 8, "{fen_text}: stopped at depth {}", outcome.report.depth);
    }
}

#[test]
fn mated_side_sees_its_mate() {
    // Black to move, mated in one whatever it does (white threatens a0a9... after any move).
    let g = game("R3k4/1R7/9/9/9/9/9/9/9/3K5 b - - 0 1");
    let outcome = run(&g, depth(3), &TranspositionTable::new(1));
    assert_eq!(outcome.best, None);
    assert_eq!(outcome.stop_reason, StopReason::NoLegalMoves);
}

#[test]
fn best_moves_are_always_legal() {
    let tt = TranspositionTable::new(8);
    let fens = [
        "startpos",
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
        "4kcP1N/8n/3rb4/9/9/9/9/3p1A3/4K4/5CB2 w - - 0 1",
    ];
    for f in fens {
        let g = game(f);
        for d in 1..=5 {
            let outcome = run(&g, depth(d), &tt);
            let best = outcome.best.unwrap();
            assert!(g.position().is_legal(best), "{f} depth {d}: {best}");
            // The principal variation is a legal line.
            let mut pos = g.position().clone();
            for &m in &outcome.report.lines[0].pv {
                assert!(pos.is_legal(m), "{f}: pv move {m} illegal");
                pos.play_unchecked(m);
            }
        }
    }
}

#[test]
fn depth_and_node_limits_are_exact() {
    let g = game("startpos");
    let outcome = run(&g, depth(6), &TranspositionTable::new(8));
    assert_eq!(outcome.report.depth, 6);
    assert_eq!(outcome.stop_reason, StopReason::Depth);
    for nodes in [1_000u64, 25_000, 100_000] {
        let params = Params { limits: Limits { nodes: Some(nodes), ..Limits::default() }, ..Params::default() };
        let outcome = run(&g, params, &TranspositionTable::new(8));
        assert_eq!(outcome.report.nodes, nodes, "node limit {nodes}");
        assert_eq!(outcome.stop_reason, StopReason::Nodes);
        assert!(outcome.best.is_some());
    }
}

#[test]
fn a_fixed_node_search_is_deterministic() {
    // One thread, a fresh table, the same node limit: the same move, score and count,
    // in the opening and in a sharp middlegame.
    for f in ["startpos", "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"] {
        let g = game(f);
        let params = || Params { limits: Limits { nodes: Some(60_000), ..Limits::default() }, ..Params::default() };
        let first = run(&g, params(), &TranspositionTable::new(8));
        let second = run(&g, params(), &TranspositionTable::new(8));
        assert_eq!(first.best, second.best, "{f}");
        assert_eq!(first.report.lines, second.report.lines, "{f}");
        assert_eq!((first.report.nodes, first.report.depth), (second.report.nodes, second.report.depth), "{f}");
    }
}

#[test]
fn a_fixed_depth_search_visits_a_known_number_of_nodes() {
    // The search's signature: one thread, a fresh 16 MiB table, a fixed depth. A change
    // made for speed alone keeps these counts; a change to what the search prunes,
    // reduces, extends or evaluates changes them, and is kept only when it wins at
    // fixed nodes, with the new counts written here.
    let mut opening = game("startpos");
    for m in ["h2e2", "h9g7"] {
        opening.play(Move::parse_iccs(m).unwrap()).unwrap();
    }
    let middlegame = game("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1");
    for (g, d, nodes) in [(&opening, 11, 55_759), (&middlegame, 10, 21_140)] {
        let outcome = run(g, depth(d), &TranspositionTable::new(16));
        assert_eq!(outcome.report.nodes, nodes, "depth {d}");
    }
}

#[test]
fn time_limit_overrun_is_bounded() {
    let g = game("r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1");
    for ms in [20u64, 150] {
        let params = Params {
            limits: Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() },
            ..Params::default()
        };
        let tt = TranspositionTable::new(8);
        // A minute's deadline beside the move time, so that a search ignoring its move
        // time ends too (and shows by its processor time) instead of running on.
        let backstop = Some(Instant::now() + Duration::from_secs(60));
        let cpu = common::cpu::thread_time();
        let outcome = search(&g, &params, &tt, &AtomicBool::new(false), backstop, &mut |_| {});
        let cpu = common::cpu::thread_time() - cpu;
        assert_eq!(outcome.stop_reason, StopReason::Time, "{ms} ms budget");
        // The search's processor time: a loaded machine makes the search wait for a core
        // (which costs it none), while a search that ignores its budget runs on. Ten
        // times the budget and a fixed allowance.
        assert!(cpu < Duration::from_millis(10 * ms + 200), "{ms} ms budget took {cpu:?} of processor time");
        assert!(g.position().is_legal(outcome.best.unwrap()));
    }
    // The stop flag ends an unlimited search: raised when the search reports its fifth
    // depth, it is seen at the next of the checks made every 1,024 nodes (a minute's
    // deadline ends a search that ignored the flag, with another stop reason).
    let stop = AtomicBool::new(false);
    let tt = TranspositionTable::new(8);
    let backstop = Some(Instant::now() + Duration::from_secs(60));
    let mut raised_at = None;
    let mut raise = |r: &chuhe::search::Report| {
        if r.depth == 5 {
            raised_at = Some(r.nodes);
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    };
    let outcome = search(&g, &Params::default(), &tt, &stop, backstop, &mut raise);
    let raised_at = raised_at.expect("a fifth depth");
    assert_eq!(outcome.stop_reason, StopReason::Stopped);
    assert!(
        outcome.report.nodes <= raised_at + 2 * 1024,
        "raised at {raised_at} nodes, stopped at {}",
        outcome.report.nodes
    );
    assert!(g.position().is_legal(outcome.best.unwrap()));
}

#[test]
fn the_shared_table_makes_a_repeated_request_cheaper() {
    // Over several middlegame positions: the tree of one position at one depth is
    // erratic (the first search reduces nodes that have no table move yet, the repeat
    // does not), their sum is not.
    let positions = [
        "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
        "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
        "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
        "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
    ];
    let (mut first_nodes, mut second_nodes) = (0, 0);
    for f in &positions[1..] {
        let g = game(f);
        let tt = TranspositionTable::new(16);
        first_nodes += run(&g, depth(11), &tt).report.nodes;
        second_nodes += run(&g, depth(11), &tt).report.nodes;
    }
    let g = game(positions[0]);
    let tt = TranspositionTable::new(16);
    let first = run(&g, depth(11), &tt);
    let second = run(&g, depth(11), &tt);
    first_nodes += first.report.nodes;
    second_nodes += second.report.nodes;
    // At least a third fewer (how many fewer depends on the evaluation's weights).
    assert!(second_nodes * 3 < first_nodes * 2, "first {first_nodes} second {second_nodes}");
    // A nearby position (after the expected reply) profits too.
    let mut next = g.clone();
    next.play(first.best.unwrap()).unwrap();
    let fresh = run(&next, depth(10), &TranspositionTable::new(16));
    let warm = run(&next, depth(10), &tt);
    assert!(warm.report.nodes < fresh.report.nodes, "warm {} fresh {}", warm.report.nodes, fresh.report.nodes);
}

#[test]
fn concurrent_searches_share_the_table_safely() {
    let tt = TranspositionTable::new(8);
    let fens = ["startpos", "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1"];
    std::thread::scope(|s| {
        for i in 0..4 {
            let tt = &tt;
            s.spawn(move || {
                let g = game(fens[i % 2]);
                let params = Params { threads: 2, ..depth(6) };
                let outcome = run(&g, params, tt);
                assert!(g.position().is_legal(outcome.best.unwrap()));
            });
        }
    });
}

#[test]
fn multipv_lines_are_distinct_and_ordered() {
    let g = game("startpos");
    let params = Params { multipv: 3, ..depth(4) };
    let outcome = run(&g, params, &TranspositionTable::new(8));
    let lines = &outcome.report.lines;
    assert_eq!(lines.len(), 3);
    let firsts: Vec<Move> = lines.iter().map(|l| l.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    let cp = |s: Score| if let Score::Centipawns(c) = s { c } else { 0 };
    assert!(cp(lines[0].score) >= cp(lines[1].score) && cp(lines[1].score) >= cp(lines[2].score));
    // Restricting and excluding root moves.
    let h2e2 = Move::parse_iccs("h2e2").unwrap();
    let only = Params { search_moves: vec![h2e2], ..depth(3) };
    assert_eq!(run(&g, only, &TranspositionTable::new(1)).best, Some(h2e2));
    let without = Params { exclude_moves: vec![outcome.best.unwrap()], ..depth(3) };
    assert_ne!(run(&g, without, &TranspositionTable::new(1)).best, outcome.best);
}

#[test]
fn perpetual_check_is_avoided_when_it_loses() {
    // The repetition table's soldier line: Black to move may keep checking, but the third
    // repetition would lose; with any other move available the engine must not pick
    // the check that completes the cycle.
    let mut g = game("3k5/9/9/9/9/5p3/9/5p3/5K3/5C3 w - - 0 1");
    for m in "f1e1 f2e2 e1f1 e2f2 f1e1 f2e2 e1f1".split_whitespace() {
        g.play(Move::parse_iccs(m).unwrap()).unwrap();
    }
    let outcome = run(&g, depth(4), &TranspositionTable::new(4));
    assert_ne!(outcome.best, Move::parse_iccs("e2f2"), "walked into a losing perpetual check");
}

/// The score the search gives to completing each repetition of the reference table, by
/// the row's last move: a loss for the side the rule set blames, a win for its opponent,
/// a draw otherwise, under the Asian and the simplified rules alike (the search judges
/// the cycle as the adjudication does).
#[test]
fn completing_a_repetition_scores_by_the_rule_set() {
    for (rules, column) in [(RuleSet::AsianV1, 3), (RuleSet::SimplifiedV1, 4)] {
        for row in common::tsv_rows("repetition.tsv", 5) {
            let (label, expected) = (&row[0], &row[column]);
            let mut moves: Vec<Move> = row[2].split_whitespace().map(|t| Move::parse_iccs(t).unwrap()).collect();
            let last = moves.pop().unwrap();
            let mut g = game(&row[1]);
            for &m in &moves {
                g.play(m).unwrap();
            }
            let mover = if g.position().turn() == Color::Red { "red" } else { "black" };
            // Depth 2: the position after `last` is a node of its own, judged for repetition.
            let params = Params { search_moves: vec![last], ..depth(2) };
            let outcome = search(
                &UnderRules { game: &g, rules },
                &params,
                &TranspositionTable::new(1),
                &AtomicBool::new(false),
                None,
                &mut |_| {},
            );
            let Score::Centipawns(score) = outcome.report.lines[0].score else { panic!("{label}: a mate score") };
            let got = match score {
                s if s > 10_000 => mover,
                s if s < -10_000 => {
                    if mover == "red" {
                        "black"
                    } else {
                        "red"
                    }
                }
                0 => "draw",
                s => panic!("{label} ({}): {s} is not a repetition score", rules.name()),
            };
            assert_eq!(got, expected, "{label} under {}", rules.name());
        }
    }
}

/// Under the Asian rules the engine steps out of a perpetual chase that would lose, where
/// the simplified rules let it repeat for the draw.
#[test]
fn a_losing_chase_is_avoided_under_the_asian_rules() {
    let row = common::tsv_rows("repetition.tsv", 5).into_iter().find(|r| r[0] == "Direct chase by cannon").unwrap();
    let mut moves: Vec<Move> = row[2].split_whitespace().map(|t| Move::parse_iccs(t).unwrap()).collect();
    let last = moves.pop().unwrap();
    let mut g = game(&row[1]);
    for &m in &moves {
        g.play(m).unwrap();
    }
    let asian = search(
        &UnderRules { game: &g, rules: RuleSet::AsianV1 },
        &depth(4),
        &TranspositionTable::new(4),
        &AtomicBool::new(false),
        None,
        &mut |_| {},
    );
    assert_ne!(asian.best, Some(last), "chased into a forbidden cycle");
    // The same search under the simplified rules takes the draw by repetition.
    let simplified = search(&g, &depth(4), &TranspositionTable::new(4), &AtomicBool::new(false), None, &mut |_| {});
    assert_eq!(simplified.best, Some(last));
    assert!(matches!(asian.report.lines[0].score, Score::Centipawns(c) if c > -10_000));
}
