//! Korean notation, as Janggi game records (`.gib` files of the KJA style) write moves:
//! the from-point, the piece's name, the to-point, then the name of a captured piece and
//! `장군` for a check: `79졸78`, `08마87`, `74상42병`, `85포55장군`; `한수쉼` is a pass.
//!
//! A point is two digits: the row, counted from the top of the board (Han's back rank,
//! row 1) down to Cho's back rank (row 0, the tenth), then the file 1-9 from the left
//! as Cho sees the board. `79` is ICCS `i3` (Cho's soldier on file i); `08` is `h0`.
//!
//! Names: 차 chariot, 포 cannon, 마 horse, 상 elephant, 사 guard (advisor), 장 general,
//! 졸 Cho's soldier and 병 Han's (either is read for either side). Written canonically
//! with the captured piece and `장군` when the move checks. Read leniently: the Hanja
//! names (車 包 砲 馬 象 士 將 帥 卒 兵), a side mark before the name (`79楚卒78`, `초`,
//! `한`), spaces, `멍군`, and what follows the to-point ignored when it is piece names,
//! `장군` or `멍군`. The same text serves Xiangqi (Red as Cho).

use super::{Notation, NotationError, NotationErrorKind, check_mark, pick};
use crate::rules::BoardPosition;
use crate::rules::types::{Color, Move, PieceKind, Square};

const EXPECTED: &str = "from-point, piece name, to-point, such as 79졸78 or 08마87, or 한수쉼";

/// Korean name of a piece.
pub const fn name(color: Color, kind: PieceKind) -> &'static str {
    match kind {
        PieceKind::General => "장",
        PieceKind::Advisor => "사",
        PieceKind::Elephant => "상",
        PieceKind::Horse => "마",
        PieceKind::Chariot => "차",
        PieceKind::Cannon => "포",
        PieceKind::Soldier => match color {
            Color::Red => "졸",
            Color::Black => "병",
        },
    }
}

fn kind_of(c: char) -> Option<PieceKind> {
    Some(match c {
        '장' | '將' | '帥' | '漢' | '楚' => PieceKind::General,
        '사' | '士' => PieceKind::Advisor,
        '상' | '象' => PieceKind::Elephant,
        '마' | '馬' => PieceKind::Horse,
        '차' | '車' => PieceKind::Chariot,
        '포' | '包' | '砲' => PieceKind::Cannon,
        '졸' | '병' | '卒' | '兵' => PieceKind::Soldier,
        _ => return None,
    })
}

/// The point of two digits: row from the top (1-9, 0 for the tenth), file from the left.
fn point(row: char, file: char) -> Option<Square> {
    let (row, file) = (row.to_digit(10)?, file.to_digit(10)?);
    if file == 0 {
        return None;
    }
    let rank = if row == 0 { 0 } else { 10 - row };
    Some(Square::new(file as u8 - 1, rank as u8))
}

fn write_point(sq: Square) -> String {
    format!("{}{}", (10 - sq.rank()) % 10, sq.file() + 1)
}

/// A move as the text names it: the pass, or a piece kind going from a point to a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Named {
    /// Janggi's pass.
    Pass,
    /// A piece of a kind going from a point to a point.
    Move {
        /// The moving piece's kind.
        kind: PieceKind,
        /// The point it leaves.
        from: Square,
        /// The point it reaches.
        to: Square,
    },
}

/// Reads the text of a move.
pub fn parse(text: &str) -> Result<Named, NotationErrorKind> {
    let s: Vec<char> = super::clean(text).chars().collect();
    if s.is_empty() {
        return Err(NotationErrorKind::Empty);
    }
    if s.iter().collect::<String>() == "한수쉼" {
        return Ok(Named::Pass);
    }
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    let [r1, f1, rest @ ..] = s.as_slice() else {
        return Err(syntax);
    };
    let from = point(*r1, *f1).ok_or(syntax.clone())?;
    // A side mark may stand before the name (`79楚卒78`).
    let rest = match rest {
        [mark, name, ..] if matches!(mark, '초' | '한' | '楚' | '漢') && kind_of(*name).is_some() => &rest[1..],
        _ => rest,
    };
    let [piece, r2, f2, tail @ ..] = rest else {
        return Err(syntax);
    };
    let kind = match kind_of(*piece) {
        Some(kind) => kind,
        None if piece.is_ascii_digit() => return Err(syntax),
        None => return Err(NotationErrorKind::UnknownPiece { letter: *piece }),
    };
    let to = point(*r2, *f2).ok_or(syntax.clone())?;
    let mut tail: String = tail.iter().collect();
    for mark in ["장군", "멍군"] {
        if let Some(t) = tail.strip_suffix(mark) {
            tail = t.to_string();
        }
    }
    if !tail.chars().all(|c| kind_of(c).is_some()) || from == to {
        return Err(syntax);
    }
    Ok(Named::Move { kind, from, to })
}

/// Writes a legal move canonically.
pub fn format(pos: &impl BoardPosition, m: Move) -> String {
    let board = pos.board();
    let piece = match super::moving_piece(board, m, "한수쉼") {
        Ok(piece) => piece,
        Err(text) => return text,
    };
    let mut out = format!("{}{}{}", write_point(m.from()), name(piece.color(), piece.kind()), write_point(m.to()));
    if let Some(taken) = board.piece_at(m.to()) {
        out.push_str(name(taken.color(), taken.kind()));
    }
    if !check_mark(pos, m).is_empty() {
        out.push_str("장군");
    }
    out
}

/// The moves a text can mean, before legality: the named one, whose piece must be the
/// mover's of the named kind.
pub fn candidates(pos: &impl BoardPosition, named: &Named) -> Result<Vec<Move>, NotationErrorKind> {
    let Named::Move { kind, from, to } = *named else {
        return Ok(vec![Move::PASS]);
    };
    let color = pos.turn();
    match pos.board().piece_at(from) {
        Some(p) if p.color() == color && p.kind() == kind => Ok(vec![Move::new(from, to)]),
        _ => Err(NotationErrorKind::NoPieceToMove { color, kind }),
    }
}

/// The tag of the result in .gib records: `[대국결과 "초 완승"]`.
pub const RESULT_TAG: &str = "대국결과";

/// Reads the [`RESULT_TAG`] of a .gib record: the side (`초` Cho, `한` Han) and how it
/// won or lost ("초 완승", "한 불계승", "초 시간승", "한 패"), or "무승부" for a draw;
/// `None` for anything else ("미상", unknown).
///
/// ```
/// use chuhe::notation::korean::parse_result;
/// use chuhe::rules::outcome::GameResult;
/// use chuhe::rules::types::Color;
/// assert_eq!(parse_result("초 완승"), Some(GameResult::Win(Color::Red)));
/// assert_eq!(parse_result("한 불계승"), Some(GameResult::Win(Color::Black)));
/// assert_eq!(parse_result("무승부"), Some(GameResult::Draw));
/// assert_eq!(parse_result("미상"), None);
/// ```
pub fn parse_result(text: &str) -> Option<crate::rules::outcome::GameResult> {
    use crate::rules::outcome::GameResult;
    let text = text.trim();
    if text.contains("무승부") {
        return Some(GameResult::Draw);
    }
    let (side, how) = if let Some(rest) = text.strip_prefix('초') {
        (Color::Red, rest)
    } else if let Some(rest) = text.strip_prefix('한') {
        (Color::Black, rest)
    } else {
        return None;
    };
    if how.contains('승') {
        Some(GameResult::Win(side))
    } else if how.contains('패') {
        Some(GameResult::Win(side.other()))
    } else {
        None
    }
}

/// Reads a legal move of a position of either 9x10 game.
pub fn parse_move(pos: &impl BoardPosition, text: &str) -> Result<Move, NotationError> {
    let err = |kind| NotationError::new(text, Notation::Korean, kind);
    let named = parse(text).map_err(err)?;
    pick(pos, text, Notation::Korean, candidates(pos, &named).map_err(err)?)
}
