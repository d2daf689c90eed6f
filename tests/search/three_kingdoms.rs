//! The Three Kingdoms search on its own: legal lines, captures of generals, defeats
//! for want of a legal move, multi-PV and the limits.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chuhe::rules::three_kingdoms::outcome::Game;
use chuhe::rules::three_kingdoms::{Move, MoveList, Position};
use chuhe::search::three_kingdoms::{Limits, Outcome, Params, Report, StopReason, WIN, search};
use chuhe::search::tt::TranspositionTable;

use crate::common;

/// Shu's chariot on Wu's central file attacks Wu's general.
const GENERAL_EN_PRISE: &str = "4K4/9/9/4P4/9 4K4/9/4rR4/9/9 4K4/9/9/4P4/9 R RGB - 0 1";
/// Only Rf3-Re3 (Shu's general onto the central file, facing Wu's e file) leaves Wu,
/// hemmed in by Wei's horses, without a legal move.
const WU_BOXED_IN: &str = "N2N5/9/5K3/9/9 5K3/9/7bN1/3bN5/9 9/5K3/9/9/9 R RGB - 0 1";
/// Wu is out; only Bh3-Bh1 leaves Wei without a legal move, and Shu is left alone.
const WEI_BOXED_IN: &str = "1bP1K5/9/9/9/9 9/9/9/9/9 3K5/8rR/7rR1/9/9 R RRB F 0 1";

fn game(text: &str) -> Game {
    Game::new(Position::from_text(text).unwrap())
}

fn depth(d: u32) -> Params {
    Params { limits: Limits { depth: Some(d), ..Limits::default() }, ..Params::default() }
}

fn run(game: &Game, params: &Params) -> Outcome {
    let tt = TranspositionTable::new(4);
    search(game, params, &tt, &AtomicBool::new(false), None, &mut |_| {})
}

fn best(text: &str, params: &Params) -> String {
    let g = game(text);
    let out = run(&g, params);
    g.position().move_text(out.best.expect("a move"))
}

/// Every move of the line is legal where it is played.
fn assert_legal_line(pos: &Position, pv: &[Move]) {
    let mut p = pos.clone();
    for &m in pv {
        assert!(p.is_legal(m), "{m} is illegal in {p}");
        p.play_unchecked(m);
    }
}

/// A small deterministic generator for the random positions (also of `tk_table`).
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// A number below `n`.
    pub(crate) fn next(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n
    }
}

#[test]
fn every_line_is_legal_in_random_positions() {
    let tt = TranspositionTable::new(4);
    for seed in 1..=24u64 {
        let mut rng = Lcg(seed);
        let mut g = Game::new(Position::startpos(seed % 2 == 0));
        for _ in 0..(seed as usize * 9) {
            let mut list = MoveList::new();
            g.position().legal_captures(&mut list);
            if list.is_empty() || rng.next(2) == 0 {
                list.clear();
                g.position().legal_moves(&mut list);
            }
            if list.is_empty() || g.ending().is_some() {
                break;
            }
            g.play(list.as_slice()[rng.next(list.len())]).unwrap();
        }
        let params =
            Params { limits: Limits { nodes: Some(4_000), ..Limits::default() }, multipv: 3, ..Params::default() };
        let out = search(&g, &params, &tt, &AtomicBool::new(false), None, &mut |_| {});
        let pos = g.position();
        let Some(best) = out.best else {
            assert!(pos.winner().is_some(), "no move in {pos}");
            continue;
        };
        assert!(pos.is_legal(best), "best move {best} is illegal in {pos}");
        assert_eq!(out.report.lines[0].pv[0], best);
        for pair in out.report.lines.windows(2) {
            assert!(pair[0].score >= pair[1].score, "lines out of order in {pos}");
            assert_ne!(pair[0].pv[0], pair[1].pv[0]);
        }
        for line in &out.report.lines {
            assert_legal_line(pos, &line.pv);
        }
    }
}

#[test]
fn takes_a_general_in_one() {
    for d in 1..=5 {
        assert_eq!(best(GENERAL_EN_PRISE, &depth(d)), "Ge3xGe1", "depth {d}");
    }
}

#[test]
fn leaves_a_rival_without_a_legal_move() {
    for d in 1..=5 {
        assert_eq!(best(WU_BOXED_IN, &depth(d)), "Rf3-Re3", "depth {d}");
    }
}

#[test]
fn wins_by_leaving_the_last_rival_without_a_legal_move() {
    let g = game(WEI_BOXED_IN);
    let out = run(&g, &depth(6));
    assert_eq!(g.position().move_text(out.best.unwrap()), "Bh3-Bh1");
    assert_eq!(out.report.lines[0].score, WIN - 1);
    assert_eq!(out.stop_reason, StopReason::MateFound);
    assert_eq!(out.report.depth, 1, "a win in one ply is proven at depth 1");
}

#[test]
fn search_and_exclude_moves_choose_the_root_moves() {
    let g = game(WU_BOXED_IN);
    let only = Move::parse("Ra1-Rc2").unwrap();
    let params = Params { search_moves: vec![only], ..depth(3) };
    assert_eq!(run(&g, &params).best, Some(only));
    let params = Params { exclude_moves: vec![Move::parse("Rf3-Re3").unwrap()], ..depth(3) };
    assert_ne!(g.position().move_text(run(&g, &params).best.unwrap()), "Rf3-Re3");
    let params = Params { search_moves: vec![Move::parse("Ra1-Ra2").unwrap()], ..depth(3) };
    let out = run(&g, &params);
    assert_eq!((out.best, out.stop_reason), (None, StopReason::NoLegalMoves));
}

#[test]
fn multipv_lines_are_distinct_and_best_first() {
    let g = Game::new(Position::startpos(true));
    let out = run(&g, &Params { multipv: 4, ..depth(3) });
    assert_eq!(out.report.lines.len(), 4);
    let firsts: Vec<Move> = out.report.lines.iter().map(|l| l.pv[0]).collect();
    for (i, m) in firsts.iter().enumerate() {
        assert!(!firsts[..i].contains(m), "{m} twice");
    }
    assert!(out.report.lines.windows(2).all(|w| w[0].score >= w[1].score));
    // The best line is the one a single-line search finds.
    let single = run(&g, &depth(3));
    assert_eq!(single.report.lines[0].score, out.report.lines[0].score);
}

#[test]
fn depth_and_node_limits_hold() {
    let g = Game::new(Position::startpos(true));
    let mut depths = Vec::new();
    let tt = TranspositionTable::new(4);
    let out = search(&g, &depth(4), &tt, &AtomicBool::new(false), None, &mut |r: &Report| depths.push(r.depth));
    assert_eq!(depths, vec![1, 2, 3, 4]);
    assert_eq!((out.report.depth, out.stop_reason), (4, StopReason::Depth));

    let params = Params { limits: Limits { nodes: Some(5_000), ..Limits::default() }, ..Params::default() };
    let out = run(&g, &params);
    assert!(out.report.nodes <= 5_000, "{} nodes", out.report.nodes);
    assert_eq!(out.stop_reason, StopReason::Nodes);
    assert!(g.position().is_legal(out.best.unwrap()));
}

#[test]
fn the_deadline_and_the_stop_flag_end_the_search() {
    let g = Game::new(Position::startpos(true));
    let tt = TranspositionTable::new(4);
    let cpu = common::cpu::thread_time();
    let deadline = Some(Instant::now() + Duration::from_millis(100));
    let out = search(&g, &Params::default(), &tt, &AtomicBool::new(false), deadline, &mut |_| {});
    let cpu = common::cpu::thread_time() - cpu;
    assert_eq!(out.stop_reason, StopReason::Time);
    assert!(out.report.elapsed >= Duration::from_millis(100), "{:?}", out.report.elapsed);
    // Ten times the 100 ms allowed, in processor time (which a loaded machine does not
    // stretch): an unlimited search that missed its deadline would not end at all.
    assert!(cpu < Duration::from_millis(1_000), "{cpu:?} of processor time");
    assert!(g.position().is_legal(out.best.unwrap()));

    // A flag raised before the search: it answers from its first check, 1,024 nodes in
    // (a minute's deadline ends a search that ignored the flag, with another reason).
    let stopped = AtomicBool::new(true);
    let backstop = Some(Instant::now() + Duration::from_secs(60));
    let out = search(&g, &Params::default(), &tt, &stopped, backstop, &mut |_| {});
    assert_eq!(out.stop_reason, StopReason::Stopped);
    assert!(out.report.nodes <= 2 * 1024, "{} nodes", out.report.nodes);
    assert!(g.position().is_legal(out.best.unwrap()));
}

#[test]
fn the_quiet_ply_limit_draws_inside_the_search() {
    // Wu boxed in, one ply before the 180th quiet ply: the defeat (which resets the
    // count) still wins; every other move is a draw.
    let text = WU_BOXED_IN.replace(" 0 1", " 179 60");
    assert_eq!(best(&text, &depth(3)), "Rf3-Re3");
    let g = game(&text);
    let params = Params { exclude_moves: vec![Move::parse("Rf3-Re3").unwrap()], ..depth(3) };
    assert_eq!(run(&g, &params).report.lines[0].score, 0);
}
