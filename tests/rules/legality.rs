//! Legality asked one move at a time: `is_legal` over every pair of points, counted
//! to depth 2 against the reference perft counts of both 9x10 variants, and
//! hand-checked positions where a move is illegal only because of a line the
//! general-safety test must watch.

use crate::common;

use chuhe::notation::fen;
use chuhe::rules::board_position::{BoardRules, Position};
use chuhe::rules::types::{Move, MoveList, Square};
use chuhe::rules::xiangqi;

/// The moves `is_legal` accepts among every pair of distinct points, and the pass when
/// it accepts that (a pass is the one move with the same point twice).
fn accepted<R: BoardRules>(pos: &Position<R>) -> Vec<Move> {
    let mut moves: Vec<Move> = Square::all()
        .flat_map(|from| Square::all().filter(move |&to| to != from).map(move |to| Move::new(from, to)))
        .filter(|&m| pos.is_legal(m))
        .collect();
    if pos.is_legal(Move::PASS) {
        moves.push(Move::PASS);
    }
    moves
}

/// Leaf count to `depth` with the moves found by asking `is_legal` alone.
fn perft_by_is_legal<R: BoardRules>(pos: &mut Position<R>, depth: u32) -> u64 {
    let moves = accepted(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for m in moves {
        let undo = pos.play_unchecked(m);
        nodes += perft_by_is_legal(pos, depth - 1);
        pos.undo(m, undo);
    }
    nodes
}

/// Checks the rows of `variant` to depth 2 of `perft.tsv`; returns how many.
fn check_rows<R: BoardRules>(variant: &str, read: impl Fn(&str) -> Position<R>) -> usize {
    let mut checked = 0;
    for row in common::perft_rows().into_iter().filter(|r| r.variant == variant && r.depth <= 2) {
        let mut pos = read(&row.fen);
        let got = perft_by_is_legal(&mut pos, row.depth);
        assert_eq!(got, row.nodes, "{variant} {} depth {}: is_legal accepts {got} leaves", row.label, row.depth);
        checked += 1;
    }
    checked
}

#[test]
fn is_legal_alone_gives_the_reference_counts_of_xiangqi() {
    let checked = check_rows("xiangqi", xiangqi_at);
    assert!(checked >= 16, "only {checked} Xiangqi rows");
}

#[test]
fn is_legal_alone_gives_the_reference_counts_of_janggi() {
    let checked = check_rows("janggi", |text| fen::janggi(text).unwrap_or_else(|e| panic!("{text}: {e}")));
    assert!(checked >= 12, "only {checked} Janggi rows");
}

/// The generated moves (ICCS, sorted) of the piece on the point `from`.
fn generated_from(pos: &xiangqi::Position, from: &str) -> Vec<String> {
    let from = Square::parse(from).unwrap_or_else(|| panic!("{from} is not a point"));
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let mut moves: Vec<String> = list.iter().filter(|m| m.from() == from).map(|m| m.to_string()).collect();
    moves.sort();
    moves
}

fn xiangqi_at(text: &str) -> xiangqi::Position {
    fen::xiangqi(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap_or_else(|| panic!("{text} is not ICCS"))
}

/// The generals face each other on the e-file with Red's horse between them, and a
/// Black chariot on a0 pins Red's advisor on d0 along the first rank: the advisor may
/// not step to e1, and the horse may not leave the file (it would uncover the generals).
#[test]
fn a_piece_pinned_on_the_rank_stays_pinned_while_the_generals_share_a_file() {
    let pos = xiangqi_at("4k4/9/9/9/9/4N4/9/9/9/r2AK4 w - - 0 1");
    assert!(!pos.is_legal(iccs("d0e1")), "the advisor on d0 is pinned by the chariot on a0");
    assert_eq!(generated_from(&pos, "d0"), Vec::<String>::new());
    // The horse stands between the generals: every horse move leaves the file.
    assert_eq!(generated_from(&pos, "e4"), Vec::<String>::new());
    // The general: e1 (the horse still screens the file) and f0 (the advisor still
    // screens the rank); d0 is its own advisor's.
    assert_eq!(generated_from(&pos, "e0"), ["e0e1", "e0f0"]);
    assert_eq!(pos.legal_move_count(), 2);
}

/// A piece that cannot reach a point is refused there even where the general could
/// step to it: `is_legal` asks for the moves of the piece on the move's own point.
#[test]
fn is_legal_asks_about_the_piece_on_the_moves_point_only() {
    let start = xiangqi::Position::startpos();
    // The general and the advisor on f0 may step to e1; no other piece reaches it.
    assert!(start.is_legal(iccs("e0e1")));
    assert!(start.is_legal(iccs("f0e1")));
    for m in ["a0e1", "b2e1", "c0e1", "i0e1", "a3e1"] {
        assert!(!start.is_legal(iccs(m)), "{m} is not a move of the piece on its point");
    }
}

/// One Black horse on g1 aims at Red's general on e0 over its leg f1, where Red's
/// chariot stands: the chariot may only take the horse. No chariot, cannon or
/// general watches the general's lines, so only the horse's leg makes the chariot's
/// moves need the test.
#[test]
fn a_piece_on_the_leg_of_a_horse_aiming_at_the_general_may_only_take_the_horse() {
    let pos = xiangqi_at("3k5/9/9/9/9/9/9/9/5Rn2/4K4 w - - 0 1");
    assert_eq!(generated_from(&pos, "f1"), ["f1g1"]);
    assert!(!pos.is_legal(iccs("f1f5")), "the chariot leaves the leg: the horse checks");
    assert!(!pos.is_legal(iccs("f1e1")));
    // d0 would face Black's general on d9.
    assert_eq!(generated_from(&pos, "e0"), ["e0e1", "e0f0"]);
    assert_eq!(pos.legal_move_count(), 3);
}
