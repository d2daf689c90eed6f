//! Moves: the point a piece leaves and the point it goes to, their text, and the move
//! list.

use std::fmt;

use super::geometry::{Point, PointError};

/// A move: the point a piece leaves and the point it goes to. There is no pass.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// The move from `from` to `to`.
    #[inline(always)]
    pub const fn new(from: Point, to: Point) -> Move {
        Move(from.index() as u16 | (to.index() as u16) << 8)
    }

    #[inline(always)]
    pub(super) const fn from_indices(from: usize, to: usize) -> Move {
        Move(from as u16 | (to as u16) << 8)
    }

    /// The point the piece leaves.
    #[inline(always)]
    pub const fn from(self) -> Point {
        Point::from_index_unchecked((self.0 & 0xff) as usize)
    }

    /// The point the piece reaches.
    #[inline(always)]
    pub const fn to(self) -> Point {
        Point::from_index_unchecked((self.0 >> 8) as usize)
    }

    /// Reads `Rh3-Re3`, `Rh3xRe3` or `Rh3Re3` (letters of either case). Whether an
    /// `x` really captures is for the position to say ([`super::Position::parse_move`]).
    pub fn parse(text: &str) -> Result<Move, MoveTextError> {
        let s = text.trim();
        // Byte offset of the `n`-th character: slicing there is always on a boundary.
        let at = |n: usize| s.char_indices().nth(n).map_or(s.len(), |(i, _)| i);
        let (a, c) = match (s.chars().count(), s.chars().nth(3)) {
            (6, _) => (&s[..at(3)], &s[at(3)..]),
            (7, Some('-' | 'x' | 'X')) => (&s[..at(3)], &s[at(4)..]),
            (7, Some(found)) => return Err(MoveTextError::Separator { found }),
            (len, _) => return Err(MoveTextError::Length { len }),
        };
        let from = Point::parse(a).map_err(MoveTextError::From)?;
        let to = Point::parse(c).map_err(MoveTextError::To)?;
        if from == to {
            return Err(MoveTextError::SamePoint);
        }
        Ok(Move::new(from, to))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for Move {
    type Err = MoveTextError;
    fn from_str(s: &str) -> Result<Move, MoveTextError> {
        Move::parse(s)
    }
}

/// Why a text is not a move in point names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveTextError {
    /// A move is two point names, optionally joined by `-` or `x` (6 or 7 characters).
    Length {
        /// The text's length in characters.
        len: usize,
    },
    /// The points are joined by something other than `-` or `x`.
    Separator {
        /// The character between the points.
        found: char,
    },
    /// The first point name is not a point.
    From(PointError),
    /// The second point name is not a point.
    To(PointError),
    /// Both points are the same; there is no pass.
    SamePoint,
}

impl fmt::Display for MoveTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveTextError::Length { len } => {
                write!(f, "a move is two point names joined by - or x (like Rh3-Re3), not {len} characters")
            }
            MoveTextError::Separator { found } => write!(f, "{found:?} between the points is not - or x"),
            MoveTextError::From(e) => write!(f, "first point: {e}"),
            MoveTextError::To(e) => write!(f, "second point: {e}"),
            MoveTextError::SamePoint => f.write_str("a move goes to another point (there is no pass)"),
        }
    }
}

impl std::error::Error for MoveTextError {}

/// The moves of one Three Kingdoms position. The capacity is more than the most moves a
/// side can have: two armies (one taken over) with four chariots and four cannons on the
/// longest lines, four horses, four flag bearers, ten soldiers, the defenders and the
/// general (a unit test adds up the table maxima).
pub type MoveList = crate::rules::types::FixedList<Move, 400>;
