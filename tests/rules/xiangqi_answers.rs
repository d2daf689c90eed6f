//! What a Xiangqi position answers besides its list of moves, each in a position
//! checked by hand: the captures alone, the state of the game (ongoing, checkmate,
//! stalemate) and the reason a move is refused.

use chuhe::notation::fen;
use chuhe::rules::Status;
use chuhe::rules::board::squares;
use chuhe::rules::illegal::IllegalReason;
use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::xiangqi;

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap()
}

fn sorted_iccs(list: &MoveList) -> Vec<String> {
    let mut moves: Vec<String> = list.iter().map(|m| m.to_string()).collect();
    moves.sort();
    moves
}

/// Red: general e0, chariot a0, horse b4; Black: general d9, pawn a5, horse c2. The
/// chariot's file is open up to the pawn, the horse's leg b3 is empty towards c2, and
/// nothing else of Red's reaches a black piece: two captures.
#[test]
fn the_captures_are_the_moves_that_take_a_piece() {
    let pos = fen::xiangqi("3k5/9/9/9/p8/1N7/9/2n6/9/R3K4 w - - 0 1").unwrap();
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    assert_eq!(sorted_iccs(&captures), ["a0a5", "b4c2"]);
    let mut all = MoveList::new();
    pos.legal_moves(&mut all);
    assert!(all.len() > captures.len(), "the quiet moves are not captures");
    assert!(captures.iter().all(|&m| all.contains(m)));
}

/// From the start the only captures are the cannons': each file holds the enemy cannon
/// (b7, h7) as the one screen before the enemy horse (b9, h9).
#[test]
fn the_start_position_has_two_cannon_captures() {
    let pos = xiangqi::Position::startpos();
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    assert_eq!(sorted_iccs(&captures), ["b2b9", "h2h9"]);
}

/// Two chariots on the ranks a9 and a8 against the black general on e9: d9, f9 and e8
/// are all watched and the general is in check.
#[test]
fn a_general_in_check_with_no_move_is_checkmated() {
    let pos = fen::xiangqi("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1").unwrap();
    assert!(pos.in_check());
    assert_eq!(pos.legal_move_count(), 0);
    assert_eq!(pos.status(), Status::Checkmate);
}

/// The black general on e9, not in check: e8 is on the chariot a8's rank, f9 on the
/// chariot f1's file, and on d9 it would face the red general d0 across an empty file.
#[test]
fn a_general_with_no_move_and_no_check_is_stalemated() {
    let pos = fen::xiangqi("4k4/R8/9/9/9/9/9/9/5R3/3K5 b - - 0 1").unwrap();
    assert!(!pos.in_check());
    assert_eq!(pos.legal_move_count(), 0);
    assert_eq!(pos.status(), Status::Stalemate);
    assert_eq!(xiangqi::Position::startpos().status(), Status::Ongoing);
}

/// One refused move for each reason a player can be given in the start position.
#[test]
fn the_reasons_a_move_is_refused_from_the_start() {
    let pos = xiangqi::Position::startpos();
    let reason = |text: &str| pos.explain_illegal(iccs(text));
    assert_eq!(reason("h2e2"), None, "the central cannon is legal");
    assert_eq!(pos.explain_illegal(Move::PASS), Some(IllegalReason::PassNotAllowed));
    assert_eq!(reason("e4e5"), Some(IllegalReason::NoPiece));
    assert_eq!(reason("a9a8"), Some(IllegalReason::NotYourPiece));
    assert_eq!(reason("a0b0"), Some(IllegalReason::CapturesOwnPiece));
    assert_eq!(reason("e3e5"), Some(IllegalReason::CannotMoveThatWay), "a pawn steps one point");
    assert_eq!(reason("c0e4"), Some(IllegalReason::CannotMoveThatWay), "an elephant steps two points");
    assert_eq!(reason("d0d1"), Some(IllegalReason::CannotMoveThatWay), "an advisor steps diagonally");
    assert_eq!(reason("a0a4"), Some(IllegalReason::PathBlocked), "the chariot's own pawn on a3");
    assert_eq!(reason("b0d1"), Some(IllegalReason::PathBlocked), "the horse's leg c0 holds an elephant");
    assert_eq!(reason("b2b7"), Some(IllegalReason::CannonNeedsOneScreen), "no screen before b7");
}

/// The horse between the generals may not leave the file; the horse in front of its
/// general may not open the enemy chariot's file; with no legal move every move is
/// refused because the game is over.
#[test]
fn the_reasons_a_move_is_refused_for_the_generals_safety() {
    let facing = fen::xiangqi("4k4/9/9/9/9/4N4/9/9/9/4K4 w - - 0 1").unwrap();
    assert_eq!(facing.explain_illegal(iccs("e4f6")), Some(IllegalReason::GeneralsFace));
    let pinned = fen::xiangqi("3k5/9/9/9/4r4/9/9/9/4N4/4K4 w - - 0 1").unwrap();
    assert_eq!(pinned.explain_illegal(iccs("e1g2")), Some(IllegalReason::LeavesGeneralAttacked));
    assert_eq!(pinned.explain_illegal(iccs("e0f0")), None, "the general steps off the file");
    let stalemate = fen::xiangqi("4k4/R8/9/9/9/9/9/9/5R3/3K5 b - - 0 1").unwrap();
    assert_eq!(stalemate.explain_illegal(iccs("e9e8")), Some(IllegalReason::GameOver));
}

/// Red's general on e0 is attacked twice: by the chariot on e6 along the open file and
/// by the horse on g1, whose leg f1 is empty.
#[test]
fn the_checkers_are_every_piece_attacking_the_general() {
    let pos = fen::xiangqi("3k5/9/9/4r4/9/9/9/9/6n2/4K4 w - - 0 1").unwrap();
    assert!(pos.in_check());
    let checkers: Vec<String> = squares(pos.checkers()).map(|sq| sq.to_string()).collect();
    assert_eq!(checkers, ["g1", "e6"]);
    assert_eq!(xiangqi::Position::startpos().checkers(), 0);
}

/// A chariot on a5 against the black general on e9: to a9 it checks along the rank, to
/// e5 along the file; to a6 or b5 it does not.
#[test]
fn a_move_gives_check_when_the_general_is_attacked_after_it() {
    let pos = fen::xiangqi("4k4/9/9/9/R8/9/9/9/9/3K5 w - - 0 1").unwrap();
    for (text, checks) in [("a5a9", true), ("a5e5", true), ("a5a6", false), ("a5b5", false), ("d0d1", false)] {
        assert!(pos.is_legal(iccs(text)), "{text}");
        assert_eq!(pos.gives_check(iccs(text)), checks, "{text}");
    }
}

/// The counters of FEN after three plies from the start: the halfmove clock counts the
/// plies since a capture (the cannon taking e6 resets it), the move number grows after
/// Black's move.
#[test]
fn the_move_counters_follow_the_plies() {
    let mut pos = xiangqi::Position::startpos();
    assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (0, 1));
    for (text, halfmove, fullmove) in [("h2e2", 1, 1), ("h9g7", 2, 2), ("e2e6", 0, 2), ("g7e6", 0, 3), ("b0c2", 1, 3)] {
        pos.play(iccs(text)).unwrap();
        assert_eq!((pos.halfmove_clock(), pos.fullmove_number()), (halfmove, fullmove), "after {text}");
    }
    let setup = pos.to_setup();
    assert_eq!((setup.halfmove_clock, setup.fullmove_number), (1, 3));
    assert_eq!(fen::format(&setup), "rnbakab1r/9/1c5c1/p1p1n1p1p/9/9/P1P1P1P1P/1CN6/9/R1BAKABNR b - - 1 3");
}
