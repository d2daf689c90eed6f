//! Janggi pieces that may not move because moving them would expose their own general,
//! each on a position worked out by hand: the legal moves listed in full, and
//! `is_legal` asked about the pinned piece's moves one at a time.

use std::collections::BTreeSet;

use chuhe::notation::fen;
use chuhe::rules::janggi::Position;
use chuhe::rules::types::{Move, MoveList};

fn janggi(text: &str) -> Position {
    fen::janggi(text).unwrap()
}

fn legal_moves(pos: &Position) -> BTreeSet<String> {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|m| m.to_string()).collect()
}

fn set(moves: &[&str]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

fn assert_all_illegal(pos: &Position, moves: &[&str]) {
    for text in moves {
        assert!(!pos.is_legal(Move::parse_iccs(text).unwrap()), "{text} exposes the general");
    }
}

/// Cho's general on e2 only steps to d2, e1 and f2 (e2 is not on a palace diagonal),
/// none of which Han's elephant on b0 reaches (it reaches d3 and e2), and Cho may pass.
const GENERAL_STEPS_AND_PASS: [&str; 4] = ["e2d2", "e2e1", "e2f2", "pass"];

#[test]
fn a_piece_on_either_point_an_elephant_passes_shields_the_general() {
    // Han's elephant on b0 reaches e2 through c0 and d1, and from no other point does an
    // elephant pass those two: the other start of that diagonal, c-1, is off the board.
    // Cho's guard on d1 (the second point passed) may not step to d0, d2 or e1.
    let guard = janggi("5k3/9/9/9/9/9/9/4K4/3A5/1b7 w - - 0 1");
    assert!(!guard.in_check());
    assert_eq!(legal_moves(&guard), set(&GENERAL_STEPS_AND_PASS));
    assert_all_illegal(&guard, &["d1d0", "d1d2", "d1e1"]);

    // Cho's horse on c0 (the first point passed) may not leave for b2, d2 or e1.
    let horse = janggi("5k3/9/9/9/9/9/9/4K4/9/1bN6 w - - 0 1");
    assert!(!horse.in_check());
    assert_eq!(legal_moves(&horse), set(&GENERAL_STEPS_AND_PASS));
    assert_all_illegal(&horse, &["c0b2", "c0d2", "c0e1"]);
}
