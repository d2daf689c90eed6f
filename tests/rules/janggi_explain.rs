//! Janggi's answers about a single move and a position's state, each checked on a
//! position worked out by hand: why a move is illegal, the status a caller that has
//! generated the moves asks for, facing generals (bikjang), and the Janggi names of
//! the sides and pieces in messages.

use chuhe::notation::fen::{self, PositionTextError};
use chuhe::rules::Status;
use chuhe::rules::janggi::{IllegalReason, Position, kind_name, side_name};
use chuhe::rules::types::{Color, Move, PieceKind};

fn mv(text: &str) -> Move {
    Move::parse_iccs(text).unwrap()
}

fn janggi(text: &str) -> Position {
    fen::janggi(text).unwrap()
}

/// Han's chariot on e2 faces Cho's general on e0 across Cho's guard on e1.
const PINNED_GUARD: &str = "4k4/9/9/9/9/9/9/4r4/4A4/4K4 w - - 0 1";

#[test]
fn each_illegal_move_names_the_first_rule_it_breaks() {
    let start = Position::startpos();
    let cases = [
        ("e5e4", Some(IllegalReason::NoPiece)),
        ("a9a8", Some(IllegalReason::NotYourPiece)),
        ("a0b0", Some(IllegalReason::CapturesOwnPiece)),
        // A horse steps one point straight, then one diagonally: b0 reaches a2, c2, d1.
        ("b0b1", Some(IllegalReason::CannotMoveThatWay)),
        // The cannon on b2: nothing to jump on the way to b3; the cannon on b7 cannot
        // serve as its screen for b8.
        ("b2b3", Some(IllegalReason::CannonNeedsOneScreen)),
        ("b2b8", Some(IllegalReason::CannonNeedsOneScreen)),
        ("a3a4", None),
        ("a0a1", None),
        ("b0c2", None),
    ];
    for (text, reason) in cases {
        assert_eq!(start.explain_illegal(mv(text)), reason, "{text} from the start");
    }
    assert_eq!(start.explain_illegal(Move::PASS), None, "a side not in check may pass");

    let pos = janggi(PINNED_GUARD);
    assert!(!pos.in_check());
    // Stepping aside opens the file to the chariot; taking it is legal.
    assert_eq!(pos.explain_illegal(mv("e1d1")), Some(IllegalReason::LeavesGeneralAttacked));
    assert_eq!(pos.explain_illegal(mv("e1f2")), Some(IllegalReason::LeavesGeneralAttacked));
    assert_eq!(pos.explain_illegal(mv("e1e2")), None);
    assert_eq!(pos.explain_illegal(mv("e0d0")), None);
    assert_eq!(pos.explain_illegal(mv("e1e0")), Some(IllegalReason::CapturesOwnPiece));
}

#[test]
fn no_pass_in_check_and_nothing_after_two_passes() {
    let checked = janggi("4k4/4r4/9/9/9/9/9/9/4K4/9 w - - 0 1");
    assert!(checked.in_check());
    assert_eq!(checked.explain_illegal(Move::PASS), Some(IllegalReason::PassNotAllowed));
    assert_eq!(checked.explain_illegal(mv("e1d1")), None);

    let mut ended = Position::startpos();
    ended.play(Move::PASS).unwrap();
    assert_eq!(ended.explain_illegal(mv("a9a8")), None, "Han may still move after one pass");
    ended.play(Move::PASS).unwrap();
    for m in [Move::PASS, mv("a3a4"), mv("e5e4")] {
        assert_eq!(ended.explain_illegal(m), Some(IllegalReason::GameOver), "{m:?} after two passes");
    }
}

#[test]
fn status_given_the_moves_follows_the_rules() {
    let start = Position::startpos();
    assert_eq!(start.status_given(true), Status::Ongoing);

    // In check with a way out (the general steps aside).
    let checked = janggi("4k4/4r4/9/9/9/9/9/9/4K4/9 w - - 0 1");
    assert_eq!(checked.status_given(true), Status::Ongoing);

    // One chariot checks along the back rank and guards f0; the other, in the palace
    // corner, holds d0 along its file and e1 along the diagonal.
    let mated = janggi("4k4/9/9/9/9/9/9/3r5/9/4K1r2 w - - 0 1");
    assert_eq!(mated.legal_move_count(), 0);
    assert_eq!(mated.status_given(false), Status::Checkmate);

    let mut ended = Position::startpos();
    ended.play(Move::PASS).unwrap();
    assert_eq!(ended.status_given(true), Status::Ongoing, "one pass does not end the game");
    ended.play(Move::PASS).unwrap();
    assert_eq!(ended.status_given(false), Status::Ended);
}

#[test]
fn bikjang_is_two_generals_on_an_open_file() {
    assert!(janggi("4k4/9/9/9/9/9/9/9/4K4/9 w - - 0 1").bikjang());
    assert!(!janggi("4k4/9/9/9/4p4/9/9/9/4K4/9 w - - 0 1").bikjang(), "a soldier between them");
    assert!(!janggi("3k5/9/9/9/9/9/9/9/4K4/9 w - - 0 1").bikjang(), "different files");
    assert!(!Position::startpos().bikjang());
}

#[test]
fn messages_use_the_janggi_names() {
    assert_eq!((side_name(Color::Red), side_name(Color::Black)), ("cho", "han"));
    assert_eq!(kind_name(PieceKind::Advisor), "guard");
    assert_eq!(kind_name(PieceKind::Soldier), "soldier");
    assert_eq!(kind_name(PieceKind::Chariot), PieceKind::Chariot.name());
    // A Han guard on c9, outside the palace (d7-f9).
    match fen::janggi("2a1k4/9/9/9/9/9/9/9/4K4/9 w - - 0 1") {
        Err(PositionTextError::Invalid(e)) => assert_eq!(e.to_string(), "han guard on c9 is outside its palace"),
        other => panic!("expected an invalid position, got {other:?}"),
    }
}
