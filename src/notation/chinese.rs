//! Chinese notation: piece, file, direction, number, four characters: `炮二平五`,
//! `马8进7`. Red's files and numbers are the numerals 一..九, Black's the digits 1..9
//! (full-width １..９ are read too, and either form is read for either side). 进 is
//! forward, 退 back, 平 sideways; the number is the steps of a straight move forward or
//! back, otherwise the file of arrival.
//!
//! Pieces, written in simplified characters: Red 帅 仕 相 马 车 炮 兵, Black 将 士 象 马
//! 车 炮 卒. Read as well: 帥 將 俥 車 伡 傌 馬 砲 包 進 後, and either side's
//! character for either side.
//!
//! Tandem pieces (two or more of the mover's pieces of a kind on one file; never used
//! for advisors and elephants):
//!
//! | on the file | written |
//! | --- | --- |
//! | two pieces | 前车平三, 后炮退一 (前/后 in place of the file) |
//! | three pawns | 前兵, 中兵, 后兵 |
//! | four or five pawns | 一兵, 二兵, 三兵, 四兵, 五兵, from the front |
//! | pawns in tandem on two files | the place, then the file, without the piece: 前三平四, 中三平四, 后三平四, 前七平六, 后七平六 |
//!
//! Read also: 前 for 一 and 后 for the last of four or five, 中 for the third of five,
//! 前兵三平四 for 前三平四.

use super::NotationErrorKind;
use super::descriptive::{Described, Designation, Direction, Pick, Place};
use crate::rules::types::{Color, PieceKind};

const EXPECTED: &str = "piece, file, 进/退/平, number, such as 炮二平五 or 马8进7";

const NUMERALS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// The simplified character of a piece.
pub const fn piece_char(color: Color, kind: PieceKind) -> char {
    match (color, kind) {
        (Color::Red, PieceKind::General) => '帅',
        (Color::Black, PieceKind::General) => '将',
        (Color::Red, PieceKind::Advisor) => '仕',
        (Color::Black, PieceKind::Advisor) => '士',
        (Color::Red, PieceKind::Elephant) => '相',
        (Color::Black, PieceKind::Elephant) => '象',
        (_, PieceKind::Horse) => '马',
        (_, PieceKind::Chariot) => '车',
        (_, PieceKind::Cannon) => '炮',
        (Color::Red, PieceKind::Soldier) => '兵',
        (Color::Black, PieceKind::Soldier) => '卒',
    }
}

/// A file or a number in `color`'s writing.
fn number(color: Color, n: u8) -> char {
    match color {
        Color::Red => NUMERALS[(n - 1) as usize],
        Color::Black => char::from(b'0' + n),
    }
}

/// Writes a described move.
pub fn render(d: &Designation) -> String {
    let piece = piece_char(d.color, d.kind);
    let file = number(d.color, d.file);
    let place = |index: usize, count: usize| match (count, index) {
        (_, 0) if count <= 3 => '前',
        (3, 1) => '中',
        (c, i) if i + 1 == c && c <= 3 => '后',
        (_, i) => NUMERALS[i],
    };
    let head: String = if d.count == 1 {
        [piece, file].iter().collect()
    } else if d.two_files {
        [place(d.index, d.count), file].iter().collect()
    } else {
        [place(d.index, d.count), piece].iter().collect()
    };
    let direction = match d.direction {
        Direction::Forward => '进',
        Direction::Back => '退',
        Direction::Sideways => '平',
    };
    format!("{head}{direction}{}", number(d.color, d.number))
}

fn kind_of(c: char) -> Option<PieceKind> {
    Some(match c {
        '帅' | '帥' | '将' | '將' => PieceKind::General,
        '仕' | '士' => PieceKind::Advisor,
        '相' | '象' => PieceKind::Elephant,
        '马' | '馬' | '傌' => PieceKind::Horse,
        '车' | '車' | '俥' | '伡' => PieceKind::Chariot,
        '炮' | '砲' | '包' => PieceKind::Cannon,
        '兵' | '卒' => PieceKind::Soldier,
        _ => return None,
    })
}

/// 1..9 from a numeral or a digit (ASCII or full width).
fn value(c: char) -> Option<u8> {
    if let Some(i) = NUMERALS.iter().position(|&n| n == c) {
        return Some(i as u8 + 1);
    }
    let d = match c {
        '１'..='９' => (c as u32 - '１' as u32 + 1) as u8,
        '1'..='9' => (c as u32 - '0' as u32) as u8,
        _ => return None,
    };
    Some(d)
}

fn place(c: char) -> Option<Pick> {
    match c {
        '前' => Some(Pick::Nth(1)),
        '后' | '後' => Some(Pick::Last),
        '中' => Some(Pick::Middle),
        _ => value(c).filter(|n| *n <= 5).map(Pick::Nth),
    }
}

fn direction(c: char) -> Option<Direction> {
    match c {
        '进' | '進' => Some(Direction::Forward),
        '退' => Some(Direction::Back),
        '平' => Some(Direction::Sideways),
        _ => None,
    }
}

/// Reads a move in Chinese notation.
pub fn parse(text: &str) -> Result<Described, NotationErrorKind> {
    let s: Vec<char> = super::clean(text).chars().collect();
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    let (head, d, n) = match s.as_slice() {
        [] => return Err(NotationErrorKind::Empty),
        [head @ .., d, n] if head.len() >= 2 => (head, *d, *n),
        _ => return Err(syntax),
    };
    let direction = direction(d).ok_or(syntax.clone())?;
    let number = value(n).ok_or(syntax.clone())?;
    let marker = |c: char| matches!(c, '前' | '后' | '後' | '中');
    let (kind, place) = match *head {
        // 炮二: piece and file.
        [p, f] if kind_of(p).is_some() => (kind_of(p), Place::File(value(f).ok_or(syntax.clone())?)),
        // 前车, 中兵, 二兵: place and piece.
        [q, p] if kind_of(p).is_some() => {
            (kind_of(p), Place::Tandem { file: None, pick: place(q).ok_or(syntax.clone())? })
        }
        // 前三: place and file of pawns in tandem on two files.
        [q, f] if marker(q) && value(f).is_some() => {
            (Some(PieceKind::Soldier), Place::Tandem { file: value(f), pick: place(q).ok_or(syntax.clone())? })
        }
        // 前兵三: place, piece and file.
        [q, p, f] if kind_of(p).is_some() => {
            let pick = place(q).ok_or(syntax.clone())?;
            (kind_of(p), Place::Tandem { file: Some(value(f).ok_or(syntax.clone())?), pick })
        }
        [q, p] if marker(q) || place(q).is_some() => return Err(NotationErrorKind::UnknownPiece { letter: p }),
        [p, _] | [_, p, _] => return Err(NotationErrorKind::UnknownPiece { letter: p }),
        _ => return Err(syntax),
    };
    let kind = kind.ok_or(syntax)?;
    Ok(Described { kind, place, direction, number })
}
