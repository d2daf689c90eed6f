//! The position text of Three Kingdoms: one line, eight fields separated by spaces.
//!
//! ```text
//! <Shu half> <Wu half> <Wei half> <side to move> <controllers> <flag bearers> <quiet plies> <move number>
//! ```
//!
//! - **Halves**, in turn order: each is five ranks in its owner's frame, **rank 1
//!   first** (the back rank), separated by `/`. A rank lists its points from file `a`
//!   to `i`: a digit `1`-`9` stands for that many empty points, a piece is its kind
//!   letter `K A B N R C P F` (general, advisor, elephant, horse, chariot, cannon,
//!   soldier, flag bearer; `E`, `H`, `S` are read as `B`, `N`, `P`). A piece that
//!   started in another kingdom than the half's owner carries that kingdom's letter in
//!   lower case before its kind: `gN` is Wu's horse, `bP` Wei's soldier.
//! - **Side to move**: `R` (Shu), `G` (Wu) or `B` (Wei).
//! - **Controllers**: three letters, the kingdom that controls the pieces that started
//!   in Shu, in Wu and in Wei. A kingdom in play controls its own army; a kingdom whose
//!   army another controls is defeated. `RGB`: nobody is defeated; `RRB`: Wu is
//!   defeated and Shu took its army; `BBB`: Wei won.
//! - **Flag bearers**: `F` when they are in play, `-` when the table switched them off.
//! - **Quiet plies**: plies since the last capture or defeat (the 180-ply rule).
//! - **Move number**: starts at 1 and grows each time the turn passes Shu's seat.
//!
//! The start position, with and without flag bearers:
//!
//! ```text
//! RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 R RGB F 0 1
//! RNBAKABNR/9/1C5C1/P1P1P1P1P/9 RNBAKABNR/9/1C5C1/P1P1P1P1P/9 RNBAKABNR/9/1C5C1/P1P1P1P1P/9 R RGB - 0 1
//! ```
//!
//! A later position: Wu was defeated and Shu took its army; Shu's soldier stands on
//! `Ge4` and Wu's former chariot on `Ra2` now fights for Shu; Wei to move.
//!
//! ```
//! use chuhe::rules::three_kingdoms::{Kind, Kingdom, Point, Position};
//!
//! let text = "3K5/gR8/9/9/9 9/9/9/4rP4/9 R2AKA2R/9/9/9/9 B RRB - 12 40";
//! let pos = Position::from_text(text).unwrap();
//! assert!(pos.is_defeated(Kingdom::Wu));
//! let chariot = pos.piece_at(Point::parse("Ra2").unwrap()).unwrap();
//! assert_eq!((chariot.kind(), chariot.origin()), (Kind::Chariot, Kingdom::Wu));
//! assert_eq!(pos.controller_of(chariot), Kingdom::Shu);
//! assert_eq!(pos.to_text(), text);
//! ```
//!
//! Texts written by [`Position::to_text`] read back to the same text. Reading accepts a
//! little more (a redundant own-kingdom prefix, the kind aliases, lower-case side and
//! controller letters) and writes it back in the canonical form; a text whose side to
//! move has no legal move is read as the position after that kingdom's defeat.

use std::fmt;

use super::geometry::{Kingdom, Point};
use super::{Kind, Move, MoveTextError, Piece, Position, PositionError, Setup};

/// The start position with flag bearers.
pub const START: &str = "RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 \
                         RNBAKABNR/9/1C1F1F1C1/P1P1P1P1P/9 R RGB F 0 1";
/// The start position without flag bearers.
pub const START_WITHOUT_FLAG_BEARERS: &str =
    "RNBAKABNR/9/1C5C1/P1P1P1P1P/9 RNBAKABNR/9/1C5C1/P1P1P1P1P/9 RNBAKABNR/9/1C5C1/P1P1P1P1P/9 R RGB - 0 1";

/// Longest text read; a position text is at most about 300 bytes.
pub const MAX_LEN: usize = 1024;

/// Why a text is not a position text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TextError {
    /// No text.
    Empty,
    /// Longer than [`MAX_LEN`] bytes.
    TooLong {
        /// The text's length in bytes.
        len: usize,
    },
    /// Not eight fields.
    FieldCount {
        /// How many fields it has.
        found: usize,
    },
    /// A half does not have five ranks.
    RankCount {
        /// The half (by its kingdom).
        half: Kingdom,
        /// How many ranks it has.
        found: usize,
    },
    /// A rank describes more than nine points.
    RankTooLong {
        /// The half (by its kingdom).
        half: Kingdom,
        /// The rank, from 1 in the half's own frame.
        rank: u8,
    },
    /// A rank describes fewer than nine points.
    RankTooShort {
        /// The half (by its kingdom).
        half: Kingdom,
        /// The rank, from 1 in the half's own frame.
        rank: u8,
        /// How many points it describes.
        points: u8,
    },
    /// A character that is no kind letter, kingdom prefix or digit 1-9.
    UnknownLetter {
        /// The character.
        letter: char,
        /// The half (by its kingdom).
        half: Kingdom,
        /// The rank, from 1 in the half's own frame.
        rank: u8,
    },
    /// A kingdom prefix not followed by a kind letter.
    DanglingPrefix {
        /// The half (by its kingdom).
        half: Kingdom,
        /// The rank, from 1 in the half's own frame.
        rank: u8,
    },
    /// The side to move is not `R`, `G` or `B`.
    SideToMove {
        /// The field as given.
        token: String,
    },
    /// The controllers field is not three kingdom letters.
    Controllers {
        /// The field as given.
        token: String,
    },
    /// The flag bearer field is not `F` or `-`.
    FlagBearers {
        /// The field as given.
        token: String,
    },
    /// A counter is not a number.
    Counter {
        /// Which counter.
        field: &'static str,
        /// The field as given.
        token: String,
    },
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Empty => f.write_str("empty position text"),
            TextError::TooLong { len } => write!(f, "position text of {len} bytes is longer than {MAX_LEN}"),
            TextError::FieldCount { found } => write!(f, "position text has {found} fields, expected 8"),
            TextError::RankCount { half, found } => write!(f, "{half}'s half has {found} ranks, expected 5"),
            TextError::RankTooLong { half, rank } => {
                write!(f, "rank {rank} of {half}'s half describes more than 9 points")
            }
            TextError::RankTooShort { half, rank, points } => {
                write!(f, "rank {rank} of {half}'s half describes {points} points, expected 9")
            }
            TextError::UnknownLetter { letter, half, rank } => {
                write!(f, "unknown letter {letter:?} on rank {rank} of {half}'s half")
            }
            TextError::DanglingPrefix { half, rank } => {
                write!(f, "a kingdom letter without a piece after it on rank {rank} of {half}'s half")
            }
            TextError::SideToMove { token } => write!(f, "side to move {token:?} is not R, G or B"),
            TextError::Controllers { token } => write!(f, "controllers {token:?} are not three of R, G, B"),
            TextError::FlagBearers { token } => write!(f, "flag bearers {token:?} is not F or -"),
            TextError::Counter { field, token } => write!(f, "{field} {token:?} is not a number"),
        }
    }
}

impl std::error::Error for TextError {}

/// Why a text is not a Three Kingdoms position: bad text, or a bad position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The text is not a position text.
    Text(TextError),
    /// The text describes a position the rules reject.
    Position(PositionError),
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::Text(e) => e.fmt(f),
            ParseError::Position(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ParseError {}

impl From<TextError> for ParseError {
    fn from(e: TextError) -> Self {
        ParseError::Text(e)
    }
}

impl From<PositionError> for ParseError {
    fn from(e: PositionError) -> Self {
        ParseError::Position(e)
    }
}

/// Reads a position text into an unchecked setup.
pub fn parse(text: &str) -> Result<Setup, TextError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(TextError::Empty);
    }
    if text.len() > MAX_LEN {
        return Err(TextError::TooLong { len: text.len() });
    }
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [halves @ .., side, controllers, flags, quiet, number] = fields.as_slice() else {
        return Err(TextError::FieldCount { found: fields.len() });
    };
    if halves.len() != 3 {
        return Err(TextError::FieldCount { found: fields.len() });
    }
    let mut setup = Setup::empty(true);
    for (k, half) in Kingdom::ALL.into_iter().zip(halves) {
        parse_half(k, half, &mut setup)?;
    }
    setup.side_to_move = one_kingdom(side).ok_or_else(|| TextError::SideToMove { token: side.to_string() })?;
    let bad_controllers = || TextError::Controllers { token: controllers.to_string() };
    let mut chars = controllers.chars();
    for k in Kingdom::ALL {
        setup.controllers[k.index()] = chars.next().and_then(Kingdom::from_letter).ok_or_else(bad_controllers)?;
    }
    if chars.next().is_some() {
        return Err(bad_controllers());
    }
    setup.flag_bearers = match *flags {
        "F" | "f" => true,
        "-" => false,
        _ => return Err(TextError::FlagBearers { token: flags.to_string() }),
    };
    let counter = |field: &'static str, token: &str| {
        token.parse::<u32>().map_err(|_| TextError::Counter { field, token: token.to_string() })
    };
    setup.quiet_plies = counter("quiet plies", quiet)?;
    setup.move_number = counter("move number", number)?;
    Ok(setup)
}

fn one_kingdom(token: &str) -> Option<Kingdom> {
    let mut chars = token.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Kingdom::from_letter(c),
        _ => None,
    }
}

fn parse_half(half: Kingdom, text: &str, setup: &mut Setup) -> Result<(), TextError> {
    let ranks: Vec<&str> = text.split('/').collect();
    if ranks.len() != 5 {
        return Err(TextError::RankCount { half, found: ranks.len() });
    }
    for (r, rank_text) in ranks.iter().enumerate() {
        let rank = r as u8 + 1;
        let mut file: u8 = 0;
        let mut prefix: Option<Kingdom> = None;
        for c in rank_text.chars() {
            if prefix.is_none()
                && let Some(d) = c.to_digit(10).filter(|d| (1..=9).contains(d))
            {
                file += d as u8;
                if file > 9 {
                    return Err(TextError::RankTooLong { half, rank });
                }
            } else if prefix.is_none() && c.is_ascii_lowercase() && Kingdom::from_letter(c).is_some() {
                prefix = Kingdom::from_letter(c);
            } else if let Some(kind) = Kind::from_letter(c) {
                if file >= 9 {
                    return Err(TextError::RankTooLong { half, rank });
                }
                let origin = prefix.take().unwrap_or(half);
                setup.board[Point::new(half, file, rank).index()] = Some(Piece::new(kind, origin));
                file += 1;
            } else if prefix.is_some() {
                return Err(TextError::DanglingPrefix { half, rank });
            } else {
                return Err(TextError::UnknownLetter { letter: c, half, rank });
            }
        }
        if prefix.is_some() {
            return Err(TextError::DanglingPrefix { half, rank });
        }
        if file < 9 {
            return Err(TextError::RankTooShort { half, rank, points: file });
        }
    }
    Ok(())
}

/// Writes a setup as a position text (canonical form).
pub fn format(setup: &Setup) -> String {
    let mut out = String::with_capacity(320);
    for half in Kingdom::ALL {
        for rank in 1..=5 {
            let mut empty = 0;
            for file in 0..9 {
                match setup.board[Point::new(half, file, rank).index()] {
                    None => empty += 1,
                    Some(piece) => {
                        if empty > 0 {
                            out.push(char::from(b'0' + empty));
                            empty = 0;
                        }
                        if piece.origin() != half {
                            out.push(piece.origin().letter().to_ascii_lowercase());
                        }
                        out.push(piece.kind().letter());
                    }
                }
            }
            if empty > 0 {
                out.push(char::from(b'0' + empty));
            }
            out.push(if rank < 5 { '/' } else { ' ' });
        }
    }
    out.push(setup.side_to_move.letter());
    out.push(' ');
    out.extend(setup.controllers.iter().map(|k| k.letter()));
    out.push_str(if setup.flag_bearers { " F " } else { " - " });
    out.push_str(&format!("{} {}", setup.quiet_plies, setup.move_number));
    out
}

impl Position {
    /// Reads a position text (see [`super::text`]), or `startpos` (with flag bearers).
    pub fn from_text(text: &str) -> Result<Position, ParseError> {
        if text.trim() == "startpos" {
            return Ok(Position::startpos(true));
        }
        Ok(Position::from_setup(parse(text)?)?)
    }

    /// The position text (see [`super::text`]).
    pub fn to_text(&self) -> String {
        format(&self.to_setup())
    }
}

impl std::str::FromStr for Position {
    type Err = ParseError;
    fn from_str(s: &str) -> Result<Position, ParseError> {
        Position::from_text(s)
    }
}

impl Position {
    /// Reads a move in point names (`Rh3-Re3`, or `Rh3xRe3` for a capture) and checks
    /// that it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let m = self.read_move(text)?;
        if !self.is_legal(m) {
            return Err(MoveError::Illegal(m));
        }
        Ok(m)
    }

    /// Reads a move text of this position without checking that the move is legal: the
    /// points, and a capture mark (`x`) only where the move takes a piece.
    pub fn read_move(&self, text: &str) -> Result<Move, MoveError> {
        let m = Move::parse(text).map_err(MoveError::Text)?;
        if text.trim().chars().nth(3).is_some_and(|c| c == 'x' || c == 'X') && self.piece_at(m.to()).is_none() {
            return Err(MoveError::NotACapture(m));
        }
        Ok(m)
    }

    /// The move in point names, with `x` for a capture (`Rh3xRe3`).
    pub fn move_text(&self, m: Move) -> String {
        let sep = if self.piece_at(m.to()).is_some() { 'x' } else { '-' };
        format!("{}{sep}{}", m.from(), m.to())
    }
}

/// Why a move text is not a legal move of a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    /// The text is not a move in point names.
    Text(MoveTextError),
    /// Written as a capture (`x`) onto an empty point.
    NotACapture(Move),
    /// The move is not legal here.
    Illegal(Move),
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Text(e) => e.fmt(f),
            MoveError::NotACapture(m) => write!(f, "{m} is written as a capture but takes nothing"),
            MoveError::Illegal(m) => write!(f, "illegal move {m}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}
