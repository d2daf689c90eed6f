//! WXF notation (World Xiangqi Federation, after the Asian Xiangqi Federation's
//! system): piece letter, file (1-9 from the mover's right), direction (`+` forward,
//! `-` back, `.` sideways), then steps or the file of arrival. `C2.5`, `H8+7`, `R1-2`,
//! `A4+5`.
//!
//! Letters: K (general), A (advisor), E or B (elephant), H or N (horse), R (chariot),
//! C (cannon), P (pawn); either case. Of the other English letters of the Italian rules
//! text, C for the chariot and G (for the advisor, or for the cannon) clash with these:
//! `C` is read as the cannon, `G` is refused as ambiguous, and [`super::Notation::Italian`]
//! reads the Italian letters.
//!
//! Tandem pieces (two or more of the mover's pieces of a kind on one file; never used
//! for advisors and elephants, which the direction tells apart):
//!
//! | on the file | written |
//! | --- | --- |
//! | two pieces | `R+.3` front, `R-.3` rear (`+`/`-` in place of the file) |
//! | three pawns | `P+.4` front, `P3.4` middle (the plain file), `P-.4` rear |
//! | four pawns | `++.4` foremost, `P+.4`, `P-.4`, `--.4` rearmost |
//! | five pawns | `++.4`, `P+.4`, `P3.4` middle, `P-.4`, `--.4` |
//! | pawns in tandem on two files | the file in place of the letter: `3+.4`, `33.4` (middle of three), `3-.4`, `7+.6`, `7-.6` |
//!
//! Read leniently: `=` for `.`, no direction at all for a sideways move (`C25`), spaces,
//! dashes of any kind, and check marks after the move.

use super::NotationErrorKind;
use super::descriptive::{Described, Designation, Direction, Pick, Place};
use crate::rules::types::PieceKind;

const EXPECTED: &str = "piece letter, file or +/-, direction (+ - .), number, such as C2.5 or R+.3";

/// WXF letter of a piece kind.
pub const fn letter(kind: PieceKind) -> char {
    match kind {
        PieceKind::General => 'K',
        PieceKind::Advisor => 'A',
        PieceKind::Elephant => 'E',
        PieceKind::Horse => 'H',
        PieceKind::Chariot => 'R',
        PieceKind::Cannon => 'C',
        PieceKind::Soldier => 'P',
    }
}

pub(crate) fn direction_char(d: Direction, sideways: char) -> char {
    match d {
        Direction::Forward => '+',
        Direction::Back => '-',
        Direction::Sideways => sideways,
    }
}

pub(crate) fn digit(n: u8) -> char {
    char::from(b'0' + n)
}

/// Writes a described move.
pub fn render(d: &Designation) -> String {
    let l = letter(d.kind);
    let f = digit(d.file);
    let (a, b) = if d.count == 1 {
        (l, f)
    } else if d.kind != PieceKind::Soldier || d.count == 2 {
        if d.two_files { (f, plus_minus(d.index == 0)) } else { (l, plus_minus(d.index == 0)) }
    } else if d.two_files {
        // Three pawns on this file, two or more on another.
        (f, ['+', f, '-'][d.index.min(2)])
    } else {
        match (d.count, d.index) {
            (3, 0) | (4 | 5, 1) => ('P', '+'),
            (3, 2) | (4, 2) | (5, 3) => ('P', '-'),
            (4 | 5, 0) => ('+', '+'),
            (4, 3) | (5, 4) => ('-', '-'),
            _ => ('P', f),
        }
    };
    format!("{a}{b}{}{}", direction_char(d.direction, '.'), digit(d.number))
}

fn plus_minus(front: bool) -> char {
    if front { '+' } else { '-' }
}

/// Reads a WXF move.
pub fn parse(text: &str) -> Result<Described, NotationErrorKind> {
    let s: Vec<char> = super::clean(text)
        .chars()
        .map(|c| match c {
            '–' | '—' | '−' | '－' => '-',
            '=' | '。' => '.',
            '＋' => '+',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    if s.is_empty() {
        return Err(NotationErrorKind::Empty);
    }
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    let (head, direction, number) = match s.as_slice() {
        [a, b, d, n] => (
            (*a, *b),
            match d {
                '+' => Direction::Forward,
                '-' => Direction::Back,
                '.' => Direction::Sideways,
                _ => return Err(syntax),
            },
            *n,
        ),
        // No direction: a sideways move (`C25`).
        [a, b, n] if b.is_ascii_digit() => ((*a, *b), Direction::Sideways, *n),
        _ => return Err(syntax),
    };
    let number = number.to_digit(10).filter(|n| *n >= 1).ok_or(syntax.clone())? as u8;
    let file = |c: char| c.to_digit(10).filter(|n| *n >= 1).map(|n| n as u8);
    let marker = |c: char| match c {
        '+' => Some(Pick::Plus),
        '-' => Some(Pick::Minus),
        _ => None,
    };
    let (kind, place) = match head {
        ('+', '+') => (PieceKind::Soldier, Place::Tandem { file: None, pick: Pick::PlusPlus }),
        ('-', '-') => (PieceKind::Soldier, Place::Tandem { file: None, pick: Pick::MinusMinus }),
        (a, b) if a.is_ascii_digit() => {
            let f = file(a).ok_or(syntax.clone())?;
            let pick = match (marker(b), file(b)) {
                (Some(p), _) => p,
                (None, Some(g)) if g == f => Pick::Middle,
                _ => return Err(syntax),
            };
            (PieceKind::Soldier, Place::Tandem { file: Some(f), pick })
        }
        (a, b) => {
            let kind = kind_of(a)?;
            match (marker(b), file(b)) {
                (Some(pick), _) => (kind, Place::Tandem { file: None, pick }),
                (None, Some(f)) => (kind, Place::File(f)),
                _ => return Err(syntax),
            }
        }
    };
    Ok(Described { kind, place, direction, number })
}

fn kind_of(letter: char) -> Result<PieceKind, NotationErrorKind> {
    match letter {
        'K' => Ok(PieceKind::General),
        'A' => Ok(PieceKind::Advisor),
        'E' | 'B' => Ok(PieceKind::Elephant),
        'H' | 'N' => Ok(PieceKind::Horse),
        'R' => Ok(PieceKind::Chariot),
        'C' => Ok(PieceKind::Cannon),
        'P' => Ok(PieceKind::Soldier),
        'G' => Err(NotationErrorKind::AmbiguousLetter {
            letter,
            hint: "G names the advisor or the cannon in English texts; write A or C",
        }),
        _ => Err(NotationErrorKind::UnknownPiece { letter }),
    }
}
