//! Algebraic notation with Italian piece letters, as the Italian Janggi text among the
//! project's seeds (`janggi-it.txt`, "Una partita esplicativa") writes its game, and
//! as it reads for Xiangqi too: the piece letter, then the point of arrival, on the
//! points of [`super::coordinate`] (files `a`-`i` from Red's, Cho's, left; ranks `1`-`10`
//! from Red's side).
//!
//! Letters, those of [`super::italian`] (the seed's rules list the same): R re
//! (general), M mandarino (guard, advisor), E elefante, C cavallo (horse), T torre
//! (chariot), B bombarda (cannon). A soldier (pawn) has no letter.
//!
//! Written canonically: the letter; then, when another legal move of a piece of the
//! same kind reaches the same point, the from-file, or the from-rank when the file does
//! not tell them apart, or the whole from-point; `x` for a capture; the point of
//! arrival; `+` when the move gives check, `#` when it mates: `Cc3`, `Bhe3`, `Thh2`,
//! `T3a5`, `Exh4+`, `Txd7#`. A soldier moving straight ahead is written by its point
//! alone (`g5`); sideways, diagonally in a palace or capturing, with its file first
//! (`ab7`, `gxg6`), as in chess. Janggi's pass is `pass`.
//!
//! Read leniently: the from-point in full where it is not needed (`Cg10-f8`, `Ch4f5`,
//! `g5xg6`), `-`, `:` or `x` between the from-part and the point, `P` for a soldier,
//! spaces, the marks `+ # ! ?` after the move, full-width characters, and `x` written or
//! left out whatever the move takes. Piece letters are upper case, files lower case.
//!
//! Readings of the seed's game (Baggio-Veronesi, GP95), the only text of this notation
//! the project has:
//!
//! - Ranks count from the side of the player who moves first: Baggio's horses stand on
//!   b1 and h1 and his first move is `1.Cc3`, so the first player, Cho, holds ranks 1-3.
//! - A soldier is named by its file letter in lower case: `g5` (from g4), `ab7` (from a7
//!   to b7), `g5xg6` (from g5, taking on g6); `P` is never written there but is read.
//! - The from-part is written where it is not needed (`Cg10-f8`, `Ch4f5`): it is read,
//!   and checked against the piece that moves.
//! - `18..Th9` and `21.... e7` number Han's moves with two or four dots; the record
//!   reader takes any run of dots after the number.

use super::coordinate::point;
use super::italian::{kind_of, letter};
use super::{Notation, NotationError, NotationErrorKind, check_mark, clean, pick};
use crate::rules::BoardPosition;
use crate::rules::board::Board;
use crate::rules::types::{Color, Move, PieceKind, Square};

const EXPECTED: &str =
    "piece letter (none for a soldier), optional from-file, -rank or -point, x, point, such as Cc3, Bhe3 or g5xg6";

/// A move as the text names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Named {
    /// Janggi's pass.
    Pass,
    /// A move: the piece, what the text says of its start, and its target.
    Move {
        /// The moving piece's kind.
        kind: PieceKind,
        /// The start file, when the text gives it (0-8 from Red's left).
        from_file: Option<u8>,
        /// The start rank, when the text gives it (0-9 from Red's side).
        from_rank: Option<u8>,
        /// The target.
        to: Square,
    },
}

/// Reads the text of a move.
pub fn parse(text: &str) -> Result<Named, NotationErrorKind> {
    let s = clean(text);
    if s.is_empty() {
        return Err(NotationErrorKind::Empty);
    }
    if s.eq_ignore_ascii_case("pass") {
        return Ok(Named::Pass);
    }
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    let (kind, rest) = match s.chars().next() {
        Some(c) if c.is_ascii_uppercase() => (kind_of(c)?, &s[1..]),
        _ => (PieceKind::Soldier, s.as_str()),
    };
    if !rest.is_ascii() {
        return Err(syntax);
    }
    let rest = rest.to_ascii_lowercase();
    // The point of arrival ends the text: a file and a rank 1-10.
    let to_at = if rest.ends_with("10") { rest.len().saturating_sub(3) } else { rest.len().saturating_sub(2) };
    let (to, tail) = point(&rest[to_at..]).ok_or(syntax.clone())?;
    if !tail.is_empty() {
        return Err(syntax);
    }
    let from = rest[..to_at].trim_end_matches(['-', ':', 'x']);
    let (from_file, from_rank) = match from.as_bytes() {
        [] => (None, None),
        [f @ b'a'..=b'i'] => (Some(f - b'a'), None),
        digits if digits.iter().all(u8::is_ascii_digit) => {
            let rank: u8 = from.parse().ok().filter(|r| (1..=10).contains(r)).ok_or(syntax.clone())?;
            (None, Some(rank - 1))
        }
        _ => match point(from) {
            Some((sq, "")) => (Some(sq.file()), Some(sq.rank())),
            _ => return Err(syntax),
        },
    };
    Ok(Named::Move { kind, from_file, from_rank, to })
}

/// The moves a text can name in a position, before legality: one from each of the
/// mover's pieces of the kind that the from-part allows.
pub fn candidates(board: &Board, turn: Color, named: &Named) -> Result<Vec<Move>, NotationErrorKind> {
    let Named::Move { kind, from_file, from_rank, to } = *named else {
        return Ok(vec![Move::PASS]);
    };
    let moves: Vec<Move> = board
        .iter()
        .filter(|&(sq, p)| p.color() == turn && p.kind() == kind && sq != to)
        .filter(|(sq, _)| from_file.is_none_or(|f| f == sq.file()) && from_rank.is_none_or(|r| r == sq.rank()))
        .map(|(sq, _)| Move::new(sq, to))
        .collect();
    if moves.is_empty() {
        return Err(NotationErrorKind::NoPieceToMove { color: turn, kind });
    }
    Ok(moves)
}

/// Writes a legal move canonically.
pub fn format(pos: &impl BoardPosition, m: Move) -> String {
    let board = pos.board();
    let piece = match super::moving_piece(board, m, "pass") {
        Ok(piece) => piece,
        Err(text) => return text,
    };
    let (from, to) = (m.from(), m.to());
    let capture = board.piece_at(to).is_some();
    let mut legal = crate::rules::types::MoveList::new();
    pos.legal_moves(&mut legal);
    let rivals: Vec<Square> = legal
        .iter()
        .filter(|o| o.to() == to && o.from() != from && !o.is_pass())
        .filter(|o| board.piece_at(o.from()).is_some_and(|p| p.kind() == piece.kind()))
        .map(|o| o.from())
        .collect();
    let mut file = piece.kind() == PieceKind::Soldier && (capture || from.file() != to.file());
    let mut rank = false;
    if !rivals.is_empty() {
        if rivals.iter().all(|r| r.file() != from.file()) {
            file = true;
        } else if !file && rivals.iter().all(|r| r.rank() != from.rank()) {
            rank = true;
        } else {
            (file, rank) = (true, true);
        }
    }
    let mut out = String::new();
    if piece.kind() != PieceKind::Soldier {
        out.push(letter(piece.kind()));
    }
    if file {
        out.push(char::from(b'a' + from.file()));
    }
    if rank {
        out.push_str(&(from.rank() + 1).to_string());
    }
    if capture {
        out.push('x');
    }
    out.push(char::from(b'a' + to.file()));
    out.push_str(&(to.rank() + 1).to_string());
    out.push_str(check_mark(pos, m));
    out
}

/// Reads a legal move of a position of either 9x10 game (Janggi's through
/// [`BoardPosition`]; for Xiangqi [`super::parse_move`] does the same).
pub fn parse_move(pos: &impl BoardPosition, text: &str) -> Result<Move, NotationError> {
    let err = |kind| NotationError::new(text, Notation::Algebraic, kind);
    let named = parse(text).map_err(err)?;
    pick(pos, text, Notation::Algebraic, candidates(pos.board(), pos.turn(), &named).map_err(err)?)
}
