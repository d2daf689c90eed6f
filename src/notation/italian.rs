//! The WXF-style notation of the Italian rules text (`xiangqi-rules-it.txt`, "La
//! notazione"), with Italian piece letters: T torre (chariot), C cavallo (horse),
//! E elefante (elephant), M consigliere (advisor), R re (general), B bombarda (cannon),
//! P pedone (pawn); direction `+` forward, `=` sideways, `-` back; then steps or the
//! file of arrival: `B2=5`, `C8+7`, `T1-2`, `M4+5`.
//!
//! Tandem pieces carry their place on the file after the letter, and keep the file:
//! A (or F) for the front piece, B for the rear piece, M for the middle one: `TA2=3`,
//! `BB8-1`, `PM3=4`. The text gives no marks for four or five pawns on a file; here
//! they follow WXF's `++ + - --`: `PAA3=4` foremost, `PA3=4`, `PM3=4` (middle of
//! five), `PB3=4`, `PBB3=4` rearmost. Because the file is kept, pawns in tandem on two
//! files need nothing more. As in WXF, advisors and elephants are always written with
//! their file.
//!
//! The Italian letters clash with the English ones (C is the horse here, the cannon in
//! WXF; R the general here, the chariot in WXF; B the cannon here, an elephant in WXF),
//! so a text is read as one or the other by naming the notation. Read leniently: either
//! case, `.` for `=`, a marker without the file (`TA=3`), spaces, check marks.

use super::NotationErrorKind;
use super::descriptive::{Described, Designation, Direction, Pick, Place};
use super::wxf::{digit, direction_char};
use crate::rules::types::PieceKind;

const EXPECTED: &str = "piece letter, optional A/F/M/B marker, file, direction (+ = -), number, such as B2=5 or TA2=3";

/// Italian letter of a piece kind.
pub const fn letter(kind: PieceKind) -> char {
    match kind {
        PieceKind::General => 'R',
        PieceKind::Advisor => 'M',
        PieceKind::Elephant => 'E',
        PieceKind::Horse => 'C',
        PieceKind::Chariot => 'T',
        PieceKind::Cannon => 'B',
        PieceKind::Soldier => 'P',
    }
}

/// Writes a described move.
pub fn render(d: &Designation) -> String {
    let marker = match (d.count, d.index) {
        (1, _) => "",
        (2 | 3, 0) | (4 | 5, 1) => "A",
        (2, 1) | (3, 2) | (4, 2) | (5, 3) => "B",
        (4 | 5, 0) => "AA",
        (4, 3) | (5, 4) => "BB",
        _ => "M",
    };
    format!("{}{marker}{}{}{}", letter(d.kind), digit(d.file), direction_char(d.direction, '='), digit(d.number))
}

/// Reads a move in Italian letters.
pub fn parse(text: &str) -> Result<Described, NotationErrorKind> {
    let s: Vec<char> = super::clean(text)
        .chars()
        .map(|c| match c {
            '–' | '—' | '−' | '－' => '-',
            '.' | '＝' => '=',
            '＋' => '+',
            c => c.to_ascii_uppercase(),
        })
        .collect();
    let Some((&first, rest)) = s.split_first() else {
        return Err(NotationErrorKind::Empty);
    };
    let kind = kind_of(first)?;
    let syntax = NotationErrorKind::Syntax { expected: EXPECTED };
    // The tail is always direction and number.
    let [head @ .., d, n] = rest else {
        return Err(syntax);
    };
    let direction = match d {
        '+' => Direction::Forward,
        '-' => Direction::Back,
        '=' => Direction::Sideways,
        _ => return Err(syntax),
    };
    let number = n.to_digit(10).filter(|n| *n >= 1).ok_or(syntax.clone())? as u8;
    let (marks, file) = match head {
        [marks @ .., f] if f.is_ascii_digit() => {
            (marks, Some(f.to_digit(10).filter(|n| *n >= 1).ok_or(syntax.clone())? as u8))
        }
        marks => (marks, None),
    };
    let pick = match marks.iter().collect::<String>().as_str() {
        "" => None,
        "A" | "F" => Some(Pick::Plus),
        "B" => Some(Pick::Minus),
        "M" => Some(Pick::Middle),
        "AA" | "FF" => Some(Pick::PlusPlus),
        "BB" => Some(Pick::MinusMinus),
        _ => return Err(syntax),
    };
    let place = match (pick, file) {
        (None, Some(f)) => Place::File(f),
        (Some(pick), file) => Place::Tandem { file, pick },
        (None, None) => return Err(syntax),
    };
    Ok(Described { kind, place, direction, number })
}

pub(crate) fn kind_of(letter: char) -> Result<PieceKind, NotationErrorKind> {
    match letter {
        'R' => Ok(PieceKind::General),
        'M' => Ok(PieceKind::Advisor),
        'E' => Ok(PieceKind::Elephant),
        'C' => Ok(PieceKind::Horse),
        'T' => Ok(PieceKind::Chariot),
        'B' => Ok(PieceKind::Cannon),
        'P' => Ok(PieceKind::Soldier),
        _ => Err(NotationErrorKind::UnknownPiece { letter }),
    }
}
