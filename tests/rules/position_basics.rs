//! What the generic 9x10 position promises beyond its moves: keys from the published
//! SplitMix64 sequence (stable across builds), the turn given away without a move,
//! Janggi's refusal of a handicap's extra move, and the debug view of a position.

use chuhe::notation::fen;
use chuhe::rules::board::{Bitboard, Board, ZOBRIST_BLACK_TO_MOVE, ZOBRIST_PIECES, bit, squares};
use chuhe::rules::game::RecordedPosition;
use chuhe::rules::types::{Color, Move, Piece, PieceKind, Square};
use chuhe::rules::{Status, janggi, xiangqi};

const JANGGI_START: &str = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";

/// The keys are SplitMix64 outputs (Steele, Lea and Flood's constants), seeded with the
/// bytes of "chuhe_v1" for the pieces (piece by piece, point by point) and of
/// "SIDETOMV" for the side to move. The expected values were computed apart from the
/// library, from the published algorithm.
#[test]
fn keys_are_the_splitmix64_sequence_of_the_fixed_seeds() {
    assert_eq!(ZOBRIST_PIECES[0][0], 0xe003_b9b2_e914_6211, "first output: Red general on a0");
    assert_eq!(ZOBRIST_PIECES[0][1], 0x51a8_28a3_48e6_951d, "second output: Red general on b0");
    assert_eq!(ZOBRIST_PIECES[0][89], 0x7bd4_ba80_c631_1ea8);
    assert_eq!(ZOBRIST_PIECES[1][0], 0x7fde_c962_7a95_6da7, "the sequence runs on into the next piece");
    assert_eq!(ZOBRIST_PIECES[13][89], 0x2dd6_7568_6c14_7f78, "last output: Black pawn on i9");
    assert_eq!(ZOBRIST_BLACK_TO_MOVE, 0x8a64_32d7_ba8d_dd57);
}

/// A position's key is the exclusive or of its pieces' keys and, with Black to move,
/// the side's: Red chariot a0, Red general e0, Black general d9, Black cannon h7.
#[test]
fn a_positions_key_combines_its_pieces_and_the_side_to_move() {
    let black = fen::xiangqi("3k5/9/7c1/9/9/9/9/9/9/R3K4 b - - 0 1").unwrap();
    assert_eq!(black.key(), 0x8ec4_ee93_0e69_bc6a);
    assert_eq!(black.key_from_scratch(), 0x8ec4_ee93_0e69_bc6a);
    let red = fen::xiangqi("3k5/9/7c1/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
    assert_eq!(red.key(), 0x04a0_dc44_b4e4_613d);
    assert_eq!(red.key_from_scratch(), 0x04a0_dc44_b4e4_613d);
}

/// The search's null move: the other side moves, the pieces stay; given back, the
/// position is the same again. From the start Black has the same 44 moves as Red.
#[test]
fn toggling_the_turn_gives_the_move_to_the_other_side_and_back() {
    let start = xiangqi::Position::startpos();
    let mut pos = start.clone();
    pos.toggle_turn();
    assert_eq!(pos.turn(), Color::Black);
    assert_eq!(pos.key(), start.key() ^ ZOBRIST_BLACK_TO_MOVE);
    assert_eq!(pos.board(), start.board());
    assert_eq!(pos.legal_move_count(), 44);
    assert!(pos.is_legal(Move::parse_iccs("h7e7").unwrap()), "Black's cannon to the centre");
    pos.toggle_turn();
    assert_eq!(pos, start);
}

/// Janggi has no handicap: a record's position refuses to give a side a second move,
/// and nothing changes.
#[test]
fn janggi_refuses_an_extra_move() {
    let mut pos = fen::janggi(JANGGI_START).unwrap();
    let before = pos.clone();
    assert!(!RecordedPosition::skip_turn(&mut pos));
    assert_eq!(pos, before);
    assert_eq!(pos.turn(), Color::Red);
}

/// Xiangqi gives a handicap's extra move: the same side moves again, the move number
/// grows after Black's turn as after a move, and taking it back restores turn and number.
/// A side in check gets no extra move.
#[test]
fn xiangqi_gives_an_extra_move_and_takes_it_back() {
    let start = xiangqi::Position::startpos();
    let mut pos = start.clone();
    assert!(RecordedPosition::skip_turn(&mut pos));
    assert_eq!((pos.turn(), RecordedPosition::fullmove_number(&pos)), (Color::Black, 1));
    assert!(RecordedPosition::skip_turn(&mut pos));
    assert_eq!((pos.turn(), RecordedPosition::fullmove_number(&pos)), (Color::Red, 2));
    RecordedPosition::undo_skip_turn(&mut pos);
    assert_eq!((pos.turn(), pos.fullmove_number()), (Color::Black, 1));
    RecordedPosition::undo_skip_turn(&mut pos);
    assert_eq!(pos, start);
    let mut checked = fen::xiangqi("3k5/9/9/4r4/9/9/9/9/6n2/4K4 w - - 0 1").unwrap();
    let before = checked.clone();
    assert!(!RecordedPosition::skip_turn(&mut checked));
    assert_eq!(checked, before);
}

/// The start position's sets of pieces against the layout listed by hand, and the boards
/// of two different positions differ.
#[test]
fn the_boards_piece_sets_and_equality() {
    let start = xiangqi::Position::startpos();
    let b = start.board();
    let names = |set: Bitboard| squares(set).map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(names(b.by_piece(Piece::new(Color::Red, PieceKind::Chariot))), ["a0", "i0"]);
    assert_eq!(names(b.by_piece(Piece::new(Color::Black, PieceKind::Cannon))), ["b7", "h7"]);
    assert_eq!(names(b.pieces(Color::Black, PieceKind::General)), ["e9"]);
    assert_eq!(names(b.pieces(Color::Red, PieceKind::Soldier)), ["a3", "c3", "e3", "g3", "i3"]);
    assert_eq!(b.occupied().count_ones(), 32);
    assert_eq!(b.by_color(Color::Red).count_ones(), 16);
    let mut moved = start.clone();
    moved.play(Move::parse_iccs("h2e2").unwrap()).unwrap();
    assert_ne!(moved.board(), start.board());
}

/// A piece put on an empty board and taken off again leaves no trace in the sets, the
/// line occupancies or the key; a piece put over another replaces it.
#[test]
fn pieces_put_and_removed_leave_no_trace() {
    let mut board = Board::empty();
    let chariot = Piece::new(Color::Red, PieceKind::Chariot);
    let horse = Piece::new(Color::Black, PieceKind::Horse);
    let e4 = Square::parse("e4").unwrap();
    board.put(e4, chariot);
    assert_eq!((board.rank_occupancy(4), board.file_occupancy(4)), (1 << 4, 1 << 4));
    board.put(e4, horse);
    assert_eq!((board.by_piece(chariot), board.by_color(Color::Red)), (0, 0));
    assert_eq!((board.by_piece(horse), board.by_color(Color::Black)), (bit(e4), bit(e4)));
    assert_eq!((board.rank_occupancy(4), board.file_occupancy(4)), (1 << 4, 1 << 4));
    assert_eq!(board.key(), ZOBRIST_PIECES[horse.index()][e4.index()]);
    assert_eq!(board.remove(e4), Some(horse));
    assert_eq!((board.occupied(), board.by_piece(horse), board.key()), (0, 0, 0));
    assert_eq!((board.rank_occupancy(4), board.file_occupancy(4)), (0, 0));
    assert_eq!(board.remove(e4), None);
    assert_eq!(board, Board::empty());
}

/// The key kept move by move is the key of the same position read anew from its FEN,
/// a capture on the way, and taking the moves back restores the start's key.
#[test]
fn the_key_kept_through_moves_is_the_key_of_the_position_read_anew() {
    let start = xiangqi::Position::startpos();
    let mut pos = start.clone();
    let moves = ["h2e2", "h9g7", "e2e6", "g7e6", "b0c2"].map(|text| Move::parse_iccs(text).unwrap());
    let mut undos = Vec::new();
    for m in moves {
        undos.push(pos.play(m).unwrap());
        let fresh = fen::xiangqi(&fen::format(&pos.to_setup())).unwrap();
        assert_eq!(pos.key(), fresh.key(), "after {m}");
    }
    for (&m, undo) in moves.iter().zip(undos).rev() {
        pos.undo(m, undo);
    }
    assert_eq!(pos.key(), start.key());
    assert_eq!(pos, start);
}

/// The debug view: the board from Black's side down (rank 9 first) in FEN letters,
/// then the side to move in the variant's name, the clocks and, in Janggi, the passes.
#[test]
fn the_debug_view_shows_board_side_clocks_and_passes() {
    let start = xiangqi::Position::startpos();
    let expected = "\
9 rnbakabnr
8 .........
7 .c.....c.
6 p.p.p.p.p
5 .........
4 .........
3 P.P.P.P.P
2 .C.....C.
1 .........
0 RNBAKABNR
  abcdefghi
red to move, halfmove 0, move 1";
    assert_eq!(format!("{start:?}"), expected);

    let mut pos: janggi::Position = fen::janggi(JANGGI_START).unwrap();
    let last_line = |p: &janggi::Position| format!("{p:?}").lines().last().unwrap_or_default().to_string();
    assert_eq!(last_line(&pos), "cho to move, halfmove 0, move 1, passes 0");
    pos.play(Move::PASS).expect("Cho may pass");
    assert_eq!(last_line(&pos), "han to move, halfmove 1, move 1, passes 1");
    assert_eq!(
        pos.board().piece_at(Square::new(4, 1)),
        Some(Piece::new(Color::Red, PieceKind::General)),
        "a pass moves nothing"
    );
}

/// A record's plies name the piece a move took and count each side's checks: Red's
/// chariot takes the pawn on a6, Black's chariot checks from i0, Red's general steps
/// to e1, Black's to d8, and Red's chariot checks it from a8.
#[test]
fn a_records_plies_name_the_capture_and_count_the_checks_by_side() {
    let start = fen::xiangqi("3k4r/9/9/p8/9/9/9/9/9/R3K4 w - - 0 7").unwrap();
    assert_eq!(RecordedPosition::fullmove_number(&start), 7);
    let mut game = xiangqi::Game::new(start);
    for m in ["a0a6", "i9i0", "e0e1", "d9d8", "a6a8"] {
        game.play(Move::parse_iccs(m).unwrap()).unwrap_or_else(|e| panic!("{m}: {e:?}"));
    }
    let plies = game.plies();
    assert_eq!(plies[0].captured, Some(Piece::new(Color::Black, PieceKind::Soldier)));
    assert!(plies[1..].iter().all(|p| p.captured.is_none()));
    let checks: Vec<[u32; 2]> = plies.iter().map(|p| [p.checks_so_far[0], p.checks_so_far[1]]).collect();
    assert_eq!(checks, [[0, 0], [0, 1], [0, 1], [0, 1], [1, 1]], "checks by Red, by Black");
    assert_eq!(RecordedPosition::fullmove_number(game.position()), 9);
}

/// A status is named in lower-case words, as the rulings' reasons and the command line
/// write it ("Black has no legal move (stalemate) and loses").
#[test]
fn statuses_are_named_as_documented() {
    let names = [Status::Ongoing, Status::Checkmate, Status::Stalemate, Status::Ended].map(Status::name);
    assert_eq!(names, ["ongoing", "checkmate", "stalemate", "ended"]);
}
