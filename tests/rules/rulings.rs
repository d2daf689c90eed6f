//! What a Xiangqi ruling says beyond its result: the explanation a referee reads, the
//! plies it names. Each case was found missing by mutation testing of the adjudication.

use chuhe::notation::fen;
use chuhe::rules::outcome::{GameResult, Termination};
use chuhe::rules::repetition::CyclePly;
use chuhe::rules::types::{Color, Move};
use chuhe::rules::xiangqi::Game;
use chuhe::rules::xiangqi::adjudicate::{RuleSet, Warning, adjudicate, judge_cycle, move_warning};

use crate::adjudication::moves;
use crate::common;

/// Under the Asian rules a move limit reached without a single check waives nothing, and
/// the ruling does not speak of waived checks.
#[test]
fn a_move_limit_without_checks_waives_none() {
    let start = fen::xiangqi("3k5/9/9/9/9/9/9/9/R8/4K4 w - - 118 60").unwrap();
    let ruling = adjudicate(&start, &moves("a1a2 d9d8"), RuleSet::AsianV1, &[]).unwrap();
    assert_eq!((ruling.result, ruling.termination), (GameResult::Draw, Some(Termination::MoveLimit)));
    assert_eq!(ruling.decided_at_ply, 2);
    assert_eq!(ruling.explanation, "120 plies without a capture");
}

/// The loser of each cycle of the reference repetition table, judged over the plies since
/// the previous occurrence of its final position: Black when Red wins, Red when Black
/// wins, nobody when the table says draw (under the Asian and the simplified rules).
#[test]
fn the_loser_of_each_reference_cycle_is_the_side_the_table_beats() {
    for (rules, column) in [(RuleSet::AsianV1, 3), (RuleSet::SimplifiedV1, 4)] {
        for row in common::tsv_rows("repetition.tsv", 5) {
            let (label, expected) = (&row[0], row[column].as_str());
            let mut pos = fen::xiangqi(&row[1]).unwrap();
            let record = moves(&row[2]);
            let mut positions = vec![pos.clone()];
            let mut plies = Vec::new();
            for &m in &record {
                pos.play_unchecked(m);
                plies.push(CyclePly::new(m, pos.checkers() != 0));
                positions.push(pos.clone());
            }
            let n = record.len();
            let since = (0..n).rev().find(|&i| positions[i].key() == positions[n].key()).unwrap();
            let start = positions[since].clone();
            let first_mover = start.turn();
            let verdict = judge_cycle(move || start, first_mover, &plies[since..], since + 1, rules);
            let loser = match expected {
                "red" => Some(Color::Black),
                "black" => Some(Color::Red),
                "draw" => None,
                other => panic!("{label}: result {other:?}"),
            };
            assert_eq!(verdict.loser(), loser, "{label} under {}: {verdict:?}", rules.name());
        }
    }
}

/// A record may go on after a third occurrence (a game played without a referee): the
/// move that brings the position back a fourth time completes a repetition all the same.
#[test]
fn a_fourth_occurrence_is_warned_like_a_third() {
    let start = fen::xiangqi("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
    let mut game = Game::new(start);
    // Red's cannon chases Black's chariot between a2 and b2: after the first four plies
    // each position of the cycle stands three times.
    for m in moves("c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7") {
        game.play(m).unwrap();
    }
    let chase = Move::parse_iccs("b2a2").unwrap();
    assert_eq!(move_warning(&game, chase, RuleSet::SimplifiedV1), Some(Warning::RepetitionDraw));
    assert_eq!(move_warning(&game, chase, RuleSet::AsianV1), Some(Warning::ForbiddenCycle));
}

/// A perpetual attack lists the threats on the piece attacked on every move, not those
/// on a piece attacked on some moves only. Red's cannon attacks Black's chariot from a2
/// and b2 in turn; from a2 it also attacks the chariot on a0 over the soldier on a1, from
/// b2 not (Red's horse on b0 is its screen there, with nothing behind).
#[test]
fn an_attack_lists_only_the_piece_attacked_throughout() {
    use chuhe::rules::types::{PieceKind, Square};
    let start = fen::xiangqi("2bakabn1/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/p8/rNBAKAB1R w - - 0 1").unwrap();
    let r =
        adjudicate(&start, &moves("c2a2 a7b7 a2b2 b7a7 b2a2 a7b7 a2b2 b7a7 b2a2"), RuleSet::TournamentV1, &[]).unwrap();
    assert_eq!((r.result, r.termination), (GameResult::Win(Color::Black), Some(Termination::PerpetualChase)));
    assert_eq!(r.cycle, Some((2, 9)));
    let sq = |s: &str| Square::parse(s).unwrap();
    let steps: Vec<_> = r.chases.iter().map(|c| (c.ply, c.chased, c.chased_kind)).collect();
    let chariot = PieceKind::Chariot;
    assert_eq!(steps, [(3, sq("b7"), chariot), (5, sq("a7"), chariot), (7, sq("b7"), chariot), (9, sq("a7"), chariot)]);
}
