//! Janggi soldiers inside the enemy palace, on positions worked out by hand: besides
//! forward and sideways, a soldier on a point of a palace diagonal may step forward
//! along it, never backward. Perft reaches one such soldier (the `palace-diag` row, a
//! Han soldier on Cho's centre); these cover both sides, the near and far corners.

use std::collections::BTreeSet;

use chuhe::notation::fen;
use chuhe::rules::types::MoveList;

/// The legal moves of the piece on `from` (ICCS), from a Janggi FEN.
fn moves_from(text: &str, from: &str) -> BTreeSet<String> {
    let pos = fen::janggi(text).unwrap();
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list.iter().map(|m| m.to_string()).filter(|m| m.starts_with(from)).collect()
}

fn set(moves: &[&str]) -> BTreeSet<String> {
    moves.iter().map(|m| m.to_string()).collect()
}

#[test]
fn a_soldier_on_the_enemy_palace_centre_steps_forward_to_both_far_corners() {
    // Cho's soldier on e8 (Han's palace centre): e9 ahead, d8 and f8 aside, and the two
    // far corners d9 and f9; not the near corners d7 and f7 behind it.
    let centre = moves_from("9/4P4/4k4/9/9/9/9/9/3K5/9 w - - 0 1", "e8");
    assert_eq!(centre, set(&["e8e9", "e8d8", "e8f8", "e8d9", "e8f9"]));
    // Han's soldier on e1 (Cho's palace centre) moves down the board the same way.
    let han = moves_from("5k3/9/9/9/9/9/9/4K4/4p4/9 b - - 0 1", "e1");
    assert_eq!(han, set(&["e1e0", "e1d1", "e1f1", "e1d0", "e1f0"]));
}

#[test]
fn a_soldier_on_a_palace_corner_steps_to_the_centre_only_from_the_near_side() {
    // Cho's soldier on d7 (a near corner): d8 ahead, c7 and e7 aside, e8 the centre.
    let near = moves_from("5k3/9/3P5/9/9/9/9/9/3K5/9 w - - 0 1", "d7");
    assert_eq!(near, set(&["d7d8", "d7c7", "d7e7", "d7e8"]));
    // On d9 (a far corner) nothing is ahead: only c9 and e9 aside, not back to e8.
    let far = moves_from("3P5/9/5k3/9/9/9/9/9/3K5/9 w - - 0 1", "d9");
    assert_eq!(far, set(&["d9c9", "d9e9"]));
}
