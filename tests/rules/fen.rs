//! FEN reading and position validation: every error kind, from a hand-made FEN, with
//! the point or field it names; and what is accepted.

use chuhe::notation::fen::{self, FenError, PositionTextError};
use chuhe::rules::types::{Color, Move, Piece, PieceKind, Square};
use chuhe::rules::xiangqi::{Position, PositionError, PositionProblem};

fn sq(s: &str) -> Square {
    Square::parse(s).unwrap_or_else(|| panic!("bad square {s}"))
}

fn red(kind: PieceKind) -> Piece {
    Piece::new(Color::Red, kind)
}

fn black(kind: PieceKind) -> Piece {
    Piece::new(Color::Black, kind)
}

/// The text error of a FEN that must not parse (the same from `parse` and `xiangqi`).
fn fen_error(text: &str) -> FenError {
    let e = match fen::parse(text) {
        Err(e) => e,
        Ok(setup) => panic!("{text:?} parsed: {setup:?}"),
    };
    assert_eq!(fen::xiangqi(text), Err(PositionTextError::Fen(e.clone())), "{text:?}");
    assert!(!e.to_string().is_empty());
    e
}

/// The validation error of a FEN that parses but is no Xiangqi position.
fn position_error(text: &str) -> PositionProblem {
    let setup = fen::parse(text).unwrap_or_else(|e| panic!("{text:?} does not parse: {e}"));
    match fen::xiangqi(text) {
        Err(PositionTextError::Invalid(e)) => {
            assert_eq!(Position::from_setup(setup), Err(e.clone()));
            assert!(!e.to_string().is_empty());
            e.problem
        }
        other => panic!("{text:?}: expected a validation error, got {other:?}"),
    }
}

/// A FEN with the given pieces (point, letter) and side to move.
fn placement(pieces: &[(&str, char)], side: char) -> String {
    let mut cells = [None; 90];
    for &(point, letter) in pieces {
        cells[sq(point).index()] = Some(letter);
    }
    let mut out = String::new();
    for rank in (0..10u8).rev() {
        let mut empty = 0;
        for file in 0..9u8 {
            match cells[Square::new(file, rank).index()] {
                None => empty += 1,
                Some(c) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    format!("{out} {side} - - 0 1")
}

/// The point seen from the other side of the river (same file).
fn mirror(point: &str) -> String {
    sq(point).flip_rank().to_string()
}

fn valid(text: &str) -> Position {
    fen::xiangqi(text).unwrap_or_else(|e| panic!("{text:?}: {e}"))
}

// ---------------------------------------------------------------------------
// Text errors.

#[test]
fn empty_text() {
    assert_eq!(fen_error(""), FenError::Empty);
    assert_eq!(fen_error("  \t "), FenError::Empty);
}

#[test]
fn too_long() {
    let text = format!("{} {}", fen::XIANGQI_START, "0".repeat(300));
    assert_eq!(fen_error(&text), FenError::TooLong { len: text.len() });
}

#[test]
fn unknown_letter() {
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNX w - - 0 1"),
        FenError::UnknownLetter { letter: 'X', rank: 0, file: 8 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/4x4/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
        FenError::UnknownLetter { letter: 'x', rank: 4, file: 4 }
    );
    // Chess letters that are not Xiangqi's, and the digit 0.
    assert_eq!(fen_error("q8/9/9/9/9/9/9/9/9/9 w"), FenError::UnknownLetter { letter: 'q', rank: 9, file: 0 });
    assert_eq!(fen_error("4k4/9/9/9/9/9/9/9/9/0K8 w"), FenError::UnknownLetter { letter: '0', rank: 0, file: 0 });
}

#[test]
fn rank_too_long() {
    assert_eq!(
        fen_error("rnbakabnr1/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
        FenError::RankTooLong { rank: 9 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/55/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
        FenError::RankTooLong { rank: 4 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNRR w - - 0 1"),
        FenError::RankTooLong { rank: 0 }
    );
}

#[test]
fn rank_too_short() {
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/8/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
        FenError::RankTooShort { rank: 5, points: 8 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB w - - 0 1"),
        FenError::RankTooShort { rank: 0, points: 7 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1//RNBAKABNR w - - 0 1"),
        FenError::RankTooShort { rank: 1, points: 0 }
    );
}

#[test]
fn wrong_rank_count() {
    // Nine ranks (one empty rank missing), eleven, and one.
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/RNBAKABNR w - - 0 1"),
        FenError::RankCount { found: 9 }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1"),
        FenError::RankCount { found: 11 }
    );
    assert_eq!(fen_error("rnbakabnr w"), FenError::RankCount { found: 1 });
}

#[test]
fn bad_side_to_move() {
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR x - - 0 1"),
        FenError::SideToMove { token: "x".to_string() }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR white - - 0 1"),
        FenError::SideToMove { token: "white".to_string() }
    );
}

#[test]
fn bad_counter() {
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - x 1"),
        FenError::Counter { field: "halfmove clock", token: "x".to_string() }
    );
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 -1"),
        FenError::Counter { field: "move number", token: "-1".to_string() }
    );
    // Past u32.
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 4294967296 1"),
        FenError::Counter { field: "halfmove clock", token: "4294967296".to_string() }
    );
}

/// The counters are written back as read, from 0 to the largest u32.
#[test]
fn counters_round_trip_through_format() {
    for (halfmove, fullmove) in [(0u32, 1u32), (9, 10), (59, 1234), (4_294_967_295, 4_294_967_295)] {
        let text = format!("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - {halfmove} {fullmove}");
        let setup = fen::parse(&text).unwrap();
        assert_eq!((setup.halfmove_clock, setup.fullmove_number), (halfmove, fullmove));
        assert_eq!(fen::format(&setup), text);
    }
}

#[test]
fn trailing_fields() {
    assert_eq!(
        fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1 moves"),
        FenError::TrailingFields { token: "moves".to_string() }
    );
}

// ---------------------------------------------------------------------------
// Validation errors.

#[test]
fn too_many_pieces_of_a_kind() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/RRR6/4K4 w - - 0 1"),
        PositionProblem::TooManyPieces { piece: red(PieceKind::Chariot), count: 3, max: 2 }
    );
    assert_eq!(
        position_error("3k5/9/9/9/PPPPPP3/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::TooManyPieces { piece: red(PieceKind::Soldier), count: 6, max: 5 }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/4A4/3AKA3 w - - 0 1"),
        PositionProblem::TooManyPieces { piece: red(PieceKind::Advisor), count: 3, max: 2 }
    );
    assert_eq!(
        position_error("3k5/9/nnn6/9/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::TooManyPieces { piece: black(PieceKind::Horse), count: 3, max: 2 }
    );
    assert_eq!(
        position_error("3k5/9/9/ccc6/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::TooManyPieces { piece: black(PieceKind::Cannon), count: 3, max: 2 }
    );
    // The full armies are fine.
    valid(fen::XIANGQI_START);
}

#[test]
fn no_general() {
    assert_eq!(
        position_error("9/9/9/9/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::GeneralCount { color: Color::Black, count: 0 }
    );
    assert_eq!(
        position_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBA1ABNR w - - 0 1"),
        PositionProblem::GeneralCount { color: Color::Red, count: 0 }
    );
    assert_eq!(position_error("9/9/9/9/9/9/9/9/9/9 w"), PositionProblem::GeneralCount { color: Color::Red, count: 0 });
}

#[test]
fn two_generals() {
    assert_eq!(
        position_error("3kk4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::GeneralCount { color: Color::Black, count: 2 }
    );
    assert_eq!(
        position_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBKKABNR w - - 0 1"),
        PositionProblem::GeneralCount { color: Color::Red, count: 2 }
    );
}

#[test]
fn general_outside_palace() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/9/6K2 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: red(PieceKind::General), square: sq("g0") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/9/4K4/9/9/9 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: red(PieceKind::General), square: sq("e3") }
    );
    assert_eq!(
        position_error("9/9/9/3k5/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: black(PieceKind::General), square: sq("d6") }
    );
    // In the other side's palace.
    assert_eq!(
        position_error("3kK4/9/9/9/9/9/9/9/9/9 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: red(PieceKind::General), square: sq("e9") }
    );
}

#[test]
fn advisor_outside_palace() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/9/2A1K4 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: red(PieceKind::Advisor), square: sq("c0") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/9/4a4/9/9/4K4 w - - 0 1"),
        PositionProblem::OutsidePalace { piece: black(PieceKind::Advisor), square: sq("e3") }
    );
}

#[test]
fn advisor_on_unreachable_palace_point() {
    assert_eq!(
        position_error("5k3/9/9/9/9/9/9/9/9/3KA4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Advisor), square: sq("e0") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/3A5/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Advisor), square: sq("d1") }
    );
    assert_eq!(
        position_error("3k5/3a5/9/9/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: black(PieceKind::Advisor), square: sq("d8") }
    );
    // The five advisor points of each side are fine.
    for point in ["d0", "f0", "e1", "d2", "f2"] {
        valid(&placement(&[("d1", 'K'), ("f8", 'k'), (point, 'A')], 'w'));
        valid(&placement(&[("d1", 'K'), ("f8", 'k'), (&mirror(point), 'a')], 'w'));
    }
}

#[test]
fn elephant_across_the_river() {
    assert_eq!(
        position_error("3k5/9/9/9/2B6/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::ElephantAcrossRiver { piece: red(PieceKind::Elephant), square: sq("c5") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/2b6/9/9/9/4K4 w - - 0 1"),
        PositionProblem::ElephantAcrossRiver { piece: black(PieceKind::Elephant), square: sq("c4") }
    );
}

#[test]
fn elephant_on_unreachable_point() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/9/1B7/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Elephant), square: sq("b1") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/4B4/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Elephant), square: sq("e4") }
    );
    assert_eq!(
        position_error("3k5/9/9/4b4/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: black(PieceKind::Elephant), square: sq("e6") }
    );
    // The seven elephant points of each side are fine.
    for point in ["c0", "g0", "a2", "e2", "i2", "c4", "g4"] {
        valid(&placement(&[("d0", 'K'), ("f9", 'k'), (point, 'B')], 'w'));
        valid(&placement(&[("d0", 'K'), ("f9", 'k'), (&mirror(point), 'b')], 'w'));
    }
}

#[test]
fn pawn_behind_its_start() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/P8/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Soldier), square: sq("a2") }
    );
    assert_eq!(
        position_error("3k5/9/p8/9/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: black(PieceKind::Soldier), square: sq("a7") }
    );
}

#[test]
fn pawn_beside_its_start_before_the_river() {
    assert_eq!(
        position_error("3k5/9/9/9/9/9/1P7/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Soldier), square: sq("b3") }
    );
    assert_eq!(
        position_error("3k5/9/9/9/9/3P5/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: red(PieceKind::Soldier), square: sq("d4") }
    );
    assert_eq!(
        position_error("3k5/9/9/1p7/9/9/9/9/9/4K4 w - - 0 1"),
        PositionProblem::UnreachablePoint { piece: black(PieceKind::Soldier), square: sq("b6") }
    );
    // Once across the river a pawn may stand on any file, up to the last rank.
    valid("3k1P3/9/9/9/1P7/9/9/9/9/4K4 w - - 0 1");
    valid("3k5/9/9/9/9/1p7/9/9/9/4K2p1 w - - 0 1");
}

#[test]
fn side_not_to_move_in_check() {
    assert_eq!(
        position_error("4k4/9/9/9/4R4/9/9/9/9/3K5 w - - 0 1"),
        PositionProblem::OpponentInCheck { checkers: vec![sq("e5")] }
    );
    // Two checkers, listed by point (rank, then file).
    assert_eq!(
        position_error("4k4/9/3N5/9/4R4/9/9/9/9/3K5 w - - 0 1"),
        PositionProblem::OpponentInCheck { checkers: vec![sq("e5"), sq("d7")] }
    );
    // Red in check with Black to move, by a cannon over a screen.
    assert_eq!(
        position_error("3k5/9/9/9/9/9/9/4c4/4A4/4K4 b - - 0 1"),
        PositionProblem::OpponentInCheck { checkers: vec![sq("e2")] }
    );
    // The side to move may be in check.
    assert!(valid("4k4/9/9/9/4R4/9/9/9/9/3K5 b - - 0 1").in_check());
}

#[test]
fn generals_facing_on_an_open_file() {
    assert_eq!(position_error("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1"), PositionProblem::GeneralsFacing { file: 4 });
    assert_eq!(position_error("3k5/9/9/9/9/9/9/9/9/3K5 b - - 0 1"), PositionProblem::GeneralsFacing { file: 3 });
    assert_eq!(position_error("9/5k3/9/9/9/9/9/5K3/9/9 w - - 0 1"), PositionProblem::GeneralsFacing { file: 5 });
    // A piece between them closes the file.
    valid("4k4/9/9/9/4p4/9/9/9/9/4K4 w - - 0 1");
}

#[test]
fn error_messages_name_the_point() {
    let e = fen::xiangqi("3k5/9/9/9/9/9/9/9/9/6K2 w - - 0 1").unwrap_err();
    assert!(e.to_string().contains("g0"), "{e}");
    let e = fen::xiangqi("4k4/9/9/9/9/9/9/9/9/4K4 w - - 0 1").unwrap_err();
    assert!(e.to_string().contains('e'), "{e}");
    let e = fen_error("rnbakabnr/9/1c5c1/p1p1p1p1p/9/4x4/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1");
    assert!(e.to_string().contains("e4"), "{e}");
}

// ---------------------------------------------------------------------------
// What is accepted.

#[test]
fn horse_and_elephant_aliases() {
    let aliased = valid("rheakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHEAKAEHR w - - 0 1");
    assert_eq!(aliased, Position::startpos());
    assert_eq!(fen::format(&aliased.to_setup()), fen::XIANGQI_START);
    // Mixed with the usual letters.
    let mixed = valid("rneakaehr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RHBAKABNR w - - 0 1");
    assert_eq!(mixed, Position::startpos());
}

#[test]
fn start_position_and_defaults() {
    assert_eq!(valid("startpos"), Position::startpos());
    assert_eq!(valid("  startpos \n"), Position::startpos());
    assert_eq!(valid(fen::XIANGQI_START), Position::startpos());
    assert_eq!(fen::format(&Position::startpos().to_setup()), fen::XIANGQI_START);
    // Missing trailing fields take their defaults; `r` is Red.
    let short = valid("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR");
    assert_eq!(short, Position::startpos());
    assert_eq!(valid("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR r"), Position::startpos());
    // Counters are kept; move number 0 reads as 1.
    let pos = valid("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12");
    assert_eq!((pos.turn(), pos.halfmove_clock(), pos.fullmove_number()), (Color::Black, 7, 12));
    assert_eq!(fen::format(&pos.to_setup()), "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 7 12");
    assert_eq!(valid("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 0").fullmove_number(), 1);
}

#[test]
fn fen_follows_play() {
    let mut pos = Position::startpos();
    for m in ["h2e2", "h9g7", "h0g2", "i9h9"] {
        pos.play(Move::parse_iccs(m).unwrap()).unwrap();
    }
    let text = fen::format(&pos.to_setup());
    assert_eq!(text, "rnbakabr1/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C1N2/9/RNBAKAB1R w - - 4 3");
    assert_eq!(valid(&text), pos);
}

/// Every piece on every point: validation accepts exactly the points the piece can
/// stand on, and names the right reason for the others.
#[test]
fn every_point_of_every_piece() {
    for color in Color::ALL {
        // Two generals off every advisor point and off each other's file.
        let (own, theirs) = match color {
            Color::Red => ("d1", "f8"),
            Color::Black => ("d8", "f1"),
        };
        // The side of the piece is not to move, so its attacks are no error.
        let side = if color == Color::Red { 'b' } else { 'w' };
        let (own_letter, their_letter) = if color == Color::Red { ('K', 'k') } else { ('k', 'K') };
        for kind in PieceKind::ALL {
            let piece = Piece::new(color, kind);
            for point in Square::all() {
                let at = point.to_string();
                if at == own || at == theirs {
                    continue;
                }
                // Red's view of the point: ranks 0-4 are the mover's own side.
                let (f, r) =
                    (point.file() as i32, if color == Color::Red { point.rank() } else { 9 - point.rank() } as i32);
                let in_palace = (3..=5).contains(&f) && r <= 2;
                let expected = match kind {
                    PieceKind::General => {
                        let text = placement(&[(&at, piece.fen_char()), (theirs, their_letter)], side);
                        let expected = if !in_palace {
                            Err(PositionProblem::OutsidePalace { piece, square: point })
                        } else if at.starts_with('f') {
                            Err(PositionProblem::GeneralsFacing { file: 5 })
                        } else {
                            Ok(())
                        };
                        assert_eq!(fen::xiangqi(&text).map(|_| ()).map_err(strip), expected, "{text}");
                        continue;
                    }
                    PieceKind::Advisor if !in_palace => Err(PositionProblem::OutsidePalace { piece, square: point }),
                    PieceKind::Advisor if (f + r) % 2 == 0 => {
                        Err(PositionProblem::UnreachablePoint { piece, square: point })
                    }
                    PieceKind::Elephant if r > 4 => Err(PositionProblem::ElephantAcrossRiver { piece, square: point }),
                    PieceKind::Elephant if !(f % 2 == 0 && r % 2 == 0 && (f / 2 + r / 2) % 2 == 1) => {
                        Err(PositionProblem::UnreachablePoint { piece, square: point })
                    }
                    PieceKind::Soldier if r < 3 || (r < 5 && f % 2 == 1) => {
                        Err(PositionProblem::UnreachablePoint { piece, square: point })
                    }
                    _ => Ok(()),
                };
                let text = placement(&[(own, own_letter), (theirs, their_letter), (&at, piece.fen_char())], side);
                let got = fen::xiangqi(&text).map(|_| ()).map_err(strip);
                assert_eq!(got, expected, "{} on {at}: {text}", kind.name());
            }
        }
    }
}

fn strip(e: PositionTextError<PositionError>) -> PositionProblem {
    match e {
        PositionTextError::Invalid(e) => e.problem,
        PositionTextError::Fen(e) => panic!("bad FEN text: {e}"),
    }
}

/// The move number stops at u32::MAX; taking a move (or a Janggi pass) back restores it
/// as it was, in both 9x10 variants.
#[test]
fn undo_restores_a_move_number_at_its_limit() {
    macro_rules! each_move_and_back {
        ($start:expr, $text:expr) => {{
            let start = $start;
            let mut list = chuhe::rules::types::MoveList::new();
            start.legal_moves(&mut list);
            assert!(list.len() > 1, "{}", $text);
            for &m in list.iter() {
                let mut pos = start.clone();
                let undo = pos.play_unchecked(m);
                assert_eq!(pos.fullmove_number(), u32::MAX, "{m}");
                pos.undo(m, undo);
                assert!(pos == start, "{m} from {}", $text);
                assert_eq!(fen::format(&pos.to_setup()), $text, "{m}");
            }
        }};
    }
    let text = "3k5/9/9/9/9/9/9/9/4A4/4K4 b - - 7 4294967295";
    each_move_and_back!(valid(text), text);
    let text = "4k4/9/9/9/9/9/9/9/4A4/4K4 b - - 7 4294967295";
    each_move_and_back!(chuhe::rules::janggi::Position::from_setup(fen::parse(text).unwrap()).unwrap(), text);
}
