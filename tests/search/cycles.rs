//! A forbidden cycle the loser cannot leave, scored by its distance: a nearer loss by
//! the rules is worse than a later one, and both stay losses by the rules (beyond the
//! ordinary scores, below the mates).

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::xiangqi::Game;
use chuhe::rules::xiangqi::Position;
use chuhe::rules::xiangqi::adjudicate::RuleSet;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, MATE_BOUND, Params, Score, UnderRules, search};

/// Red's chariot checks Black's general from i9 and i8 as it steps between f9 and f8 (its
/// advisor holds f7). Red's general on e0 cannot move (Black's soldiers on d1 and f1), and
/// Black threatens two mates in one: the chariot a5-a0 along rank 0, and the cannon c6-e6
/// over the soldier on e3. No single Red move meets both, so Red must keep checking, and
/// perpetual check loses.
const FORCED_PERPETUAL: &str = "5k3/8R/5a3/2c6/r8/9/4p4/9/3p1p3/4K4 w - - 0 1";
/// Red's check, Black's step, Red's check, Black's step back: the start again.
const CYCLE: [&str; 4] = ["i8i9", "f9f8", "i9i8", "f8f9"];

fn mv(iccs: &str) -> Move {
    Move::parse_iccs(iccs).unwrap()
}

fn legal(pos: &Position) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().copied().collect()
}

/// Does the side to move have a move that leaves the opponent without a legal move?
fn mates_in_one(pos: &mut Position) -> bool {
    legal(pos).into_iter().any(|m| {
        let undo = pos.play_unchecked(m);
        let mated = legal(pos).is_empty();
        pos.undo(m, undo);
        mated
    })
}

/// The premises, by brute force over the legal moves: at each Red turn of the cycle every
/// Red move but the cycle's check lets Black mate at once, and Black's only legal move is
/// the cycle's step.
fn assert_forced(start: &Position) {
    let mut pos = start.clone();
    for (i, step) in CYCLE.iter().map(|s| mv(s)).enumerate() {
        let moves = legal(&pos);
        assert!(moves.contains(&step), "{step} is legal at ply {i}");
        if i % 2 == 0 {
            for other in moves.into_iter().filter(|&m| m != step) {
                let undo = pos.play_unchecked(other);
                assert!(mates_in_one(&mut pos), "after Red's {other} Black mates in one");
                pos.undo(other, undo);
            }
        } else {
            assert_eq!(moves, vec![step], "Black's only move at ply {i}");
        }
        pos.play_unchecked(step);
    }
    assert_eq!(pos.key(), start.key(), "the cycle comes back to its start");
}

/// The score, for Red to move, of the game after `played` (moves of the cycle).
fn red_score(start: &Position, played: usize, rules: RuleSet) -> i32 {
    let mut game = Game::new(start.clone());
    for step in &CYCLE[..played] {
        game.play(mv(step)).unwrap();
    }
    let params = Params { limits: Limits { depth: Some(6), ..Limits::default() }, ..Params::default() };
    let outcome = search(
        &UnderRules { game: &game, rules },
        &params,
        &TranspositionTable::new(1),
        &AtomicBool::new(false),
        None,
        &mut |_| {},
    );
    assert_eq!(outcome.best, Some(mv(CYCLE[played])), "Red keeps checking after {played} plies");
    match outcome.report.lines[0].score {
        Score::Centipawns(c) => c,
        other => panic!("a cycle scored as {other:?}"),
    }
}

#[test]
fn a_forced_forbidden_cycle_loses_sooner_when_nearer() {
    let start = fen::xiangqi(FORCED_PERPETUAL).unwrap();
    assert_forced(&start);
    for rules in [RuleSet::AsianV1, RuleSet::SimplifiedV1] {
        // From the start the cycle closes four plies away; after Red's check and Black's
        // step, two plies away (the start is in the game's history).
        let far = red_score(&start, 0, rules);
        let near = red_score(&start, 2, rules);
        for score in [far, near] {
            assert!(score < -10_000 && score > -MATE_BOUND, "{}: {score} is not a loss by the rules", rules.name());
        }
        assert!(
            near < far,
            "{}: a loss two plies away ({near}) scores below one four plies away ({far})",
            rules.name()
        );
    }
}
