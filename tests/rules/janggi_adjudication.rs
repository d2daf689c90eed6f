//! Janggi rulings under the casual and tournament rule sets, checked against values
//! worked out by hand: the tournament move limit of 200 plies and its count, the side
//! that loses a perpetual check, and the loser of a repeating cycle as the search asks.

use chuhe::notation::fen;
use chuhe::rules::janggi::Position;
use chuhe::rules::janggi::adjudicate::{RuleSet, adjudicate, cycle_loser};
use chuhe::rules::outcome::{GameResult, Ruling, Termination};
use chuhe::rules::repetition::CyclePly;
use chuhe::rules::types::{Color, Move};

use crate::common;

fn mv(text: &str) -> Move {
    Move::parse_iccs(text).unwrap()
}

fn moves(text: &str) -> Vec<Move> {
    text.split(' ').map(mv).collect()
}

/// A record of `plies` moves from the start: no pass, no capture, no check, and no
/// position twice, so nothing but the move limit can end it (the first move in the
/// generator's order that keeps to that).
fn quiet_record(plies: usize) -> Vec<Move> {
    let quiet = |before: &Position, m: Move, after: &Position| {
        !m.is_pass() && before.board().is_empty(m.to()) && !after.in_check()
    };
    common::walk::walk(&Position::startpos(), plies, quiet).0
}

/// Both sides' full armies, counted by the rule set's values: chariots 2 x 13, cannons
/// 2 x 7, horses 2 x 5, elephants 2 x 3, guards 2 x 3, soldiers 5 x 2 = 72 points, and
/// Han's 1.5 more.
const FULL_ARMIES_TENTHS: [u32; 2] = [720, 735];

#[test]
fn the_tournament_move_limit_ends_the_game_by_counting_at_ply_200() {
    let start = Position::startpos();
    let record = quiet_record(201);
    let judge = |plies: usize, rules| adjudicate(&start, &record[..plies], rules, &[]).unwrap();

    let before = judge(199, RuleSet::TournamentV1);
    assert_eq!((before.result, before.termination), (GameResult::Ongoing, None), "{before:?}");
    assert_eq!(before.decided_at_ply, 199);

    for plies in [200, 201] {
        let r = judge(plies, RuleSet::TournamentV1);
        assert_eq!(r.termination, Some(Termination::Counting), "{plies} plies: {r:?}");
        assert_eq!(r.decided_at_ply, 200, "{plies} plies");
        assert_eq!(r.moves_after_end, plies - 200, "{plies} plies");
        // Nothing was captured: 72 against 73.5, Han wins on the half point.
        assert_eq!(r.points, Some(FULL_ARMIES_TENTHS), "{plies} plies");
        assert_eq!(r.result, GameResult::Win(Color::Black), "{plies} plies");
        assert_eq!(r.at_fault, None);
    }

    // The casual rules have no move limit.
    let r = judge(201, RuleSet::CasualV1);
    assert_eq!((r.result, r.termination, r.decided_at_ply), (GameResult::Ongoing, None, 201), "{r:?}");
}

#[test]
fn the_move_limit_counts_the_record_not_the_fens_move_number() {
    // Move 150 of some game: 10 plies more are 10 plies of the record, far from 200.
    let start = fen::janggi("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 150").unwrap();
    let record = moves("a0a1 e9f9 a1a0 f9f8 a0a2 f8e8 a2a0 e8d8 a0a3 d8d9");
    let r = adjudicate(&start, &record, RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.termination, r.decided_at_ply), (GameResult::Ongoing, None, 10), "{r:?}");
}

/// Black's chariot checks the Cho general on ranks 0 and 1 while it steps d0-d1 and
/// back: the position after ply 1 stands again after plies 5 and 9.
fn black_checks_forever() -> (Position, Vec<Move>) {
    let start = fen::janggi("5k3/9/9/9/9/9/9/r8/9/3K5 b - - 0 1").unwrap();
    (start, moves("a2a0 d0d1 a0a1 d1d0 a1a0 d0d1 a0a1 d1d0 a1a0"))
}

#[test]
fn a_perpetual_check_by_han_loses_in_tournament_and_draws_casually() {
    let (start, record) = black_checks_forever();
    let r: Ruling = adjudicate(&start, &record, RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.termination), (GameResult::Win(Color::Red), Some(Termination::PerpetualCheck)), "{r:?}");
    assert_eq!((r.at_fault, r.cycle, r.decided_at_ply), (Some(Color::Black), Some((6, 9)), 9));
    // Han's moves in the cycle 6-9 are plies 7 and 9, both checks.
    assert_eq!(r.checking_plies, vec![7, 9]);
    assert_eq!(r.points, None);

    let r = adjudicate(&start, &record, RuleSet::CasualV1, &[]).unwrap();
    assert_eq!((r.result, r.termination), (GameResult::Draw, Some(Termination::RepetitionDraw)), "{r:?}");
    assert_eq!((r.at_fault, r.cycle, r.checking_plies), (None, Some((6, 9)), vec![7, 9]));
}

/// A four-ply cycle, `first` moving first, with the checks given on each ply.
fn cycle(checks: [bool; 4]) -> Vec<CyclePly> {
    let shuffle = ["a0a1", "a9a8", "a1a0", "a8a9"];
    shuffle.iter().zip(checks).map(|(m, gave_check)| CyclePly { mv: mv(m), gave_check, kept_turn: false }).collect()
}

#[test]
fn the_cycle_loser_is_the_side_that_checked_on_every_move_in_tournament_only() {
    // Plies 1 and 3 are the first mover's, 2 and 4 the other side's.
    let first_checks = cycle([true, false, true, false]);
    let second_checks = cycle([false, true, false, true]);
    let both_check = cycle([true, true, true, true]);
    let one_check_each = cycle([true, true, false, false]);
    let quiet = cycle([false; 4]);
    for first in [Color::Red, Color::Black] {
        let t = RuleSet::TournamentV1;
        assert_eq!(cycle_loser(first, &first_checks, t), Some(first), "{first:?} checks");
        assert_eq!(cycle_loser(first, &second_checks, t), Some(first.other()), "{first:?}'s opponent checks");
        assert_eq!(cycle_loser(first, &both_check, t), None, "mutual perpetual check");
        assert_eq!(cycle_loser(first, &one_check_each, t), None, "one check each");
        assert_eq!(cycle_loser(first, &quiet, t), None, "no check");
        for plies in [&first_checks, &second_checks, &both_check, &quiet] {
            assert_eq!(cycle_loser(first, plies, RuleSet::CasualV1), None, "casual rules, {first:?}");
        }
    }
}
