//! The board of Three Kingdoms: 135 points in three half-boards, the lines that join
//! them, and every step table the pieces need, built once from the edge list.
//!
//! A point is named by its half's kingdom letter, its file and its rank in that
//! kingdom's own frame (`Re1`, `Gh3`, `Bi5`). Edges:
//!
//! - inside a half, the 9x5 grid of files and ranks, and the two palace diagonals;
//! - across each river arm, `Kf5-Nd5`, `Kg5-Nc5`, `Kh5-Nb5`, `Ki5-Na5` with
//!   `N = K.next()`: K's file x runs on into N's file `8 - x`;
//! - the central triangle `Re5-Ge5-Be5`.
//!
//! A straight line follows a file or a rank inside a half. Up a file past the bank it
//! crosses the arm and runs down the mirrored file; up a central file it branches at the
//! triangle into both neighbours' central files; coming into `Ke5` over a triangle edge
//! it runs down K's central file. A rank never turns onto an across or triangle edge.
//!
//! A cell is a 4-cycle of orthogonal edges (file, rank, across, triangle); the diagonal
//! neighbours of a point are the opposite corners of its cells. Cells are found by
//! searching the orthogonal graph, so the arm and triangle cells (`Kf5 Kg5 Nc5 Nd5`,
//! `Ke5 Kf5 Nd5 Ne5`) come out of the definition, not out of a special case.
//!
//! A horse's diagonal step goes to the corner opposite its leg in a cell holding the leg
//! and the point straight beyond it (a flag bearer's, beyond its second point). Where
//! the line ends at the leg there is no such point and no target, as on the 9x10
//! board. An elephant's eye and target both lie in its own half: it only ever uses the
//! ordinary squares of the grid.
//!
//! The step tables ([`Geometry`]) are computed on first use and shared for the life of
//! the process ([`geometry`]).

mod steps;

use std::fmt;

pub use steps::{
    EdgeKind, Geometry, Leap, LongLeap, MAX_LEAPS, MAX_RAYS, Ray, Steps, geometry, orthogonal_edges,
    palace_diagonal_edges,
};

/// One of the three kingdoms, in turn order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kingdom {
    /// Red, letter `R`; moves first.
    Shu = 0,
    /// Green, letter `G`.
    Wu = 1,
    /// Blue, letter `B`.
    Wei = 2,
}

impl Kingdom {
    /// The three kingdoms, in turn order.
    pub const ALL: [Kingdom; 3] = [Kingdom::Shu, Kingdom::Wu, Kingdom::Wei];

    /// 0 (Shu), 1 (Wu) or 2 (Wei): an index into per-kingdom arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The kingdom with index `i % 3`.
    #[inline(always)]
    pub const fn from_index(i: usize) -> Kingdom {
        Kingdom::ALL[i % 3]
    }

    /// The kingdom after this one in turn order (Shu, Wu, Wei, Shu, ...).
    #[inline(always)]
    pub const fn next(self) -> Kingdom {
        Kingdom::from_index(self as usize + 1)
    }

    /// The kingdom before this one in turn order.
    #[inline(always)]
    pub const fn prev(self) -> Kingdom {
        Kingdom::from_index(self as usize + 2)
    }

    /// `R`, `G` or `B` (the colours red, green and blue).
    pub const fn letter(self) -> char {
        match self {
            Kingdom::Shu => 'R',
            Kingdom::Wu => 'G',
            Kingdom::Wei => 'B',
        }
    }

    /// Reads a kingdom letter of either case.
    pub const fn from_letter(c: char) -> Option<Kingdom> {
        match c.to_ascii_uppercase() {
            'R' => Some(Kingdom::Shu),
            'G' => Some(Kingdom::Wu),
            'B' => Some(Kingdom::Wei),
            _ => None,
        }
    }

    /// The kingdom's name (`Shu`, `Wu`, `Wei`).
    pub const fn name(self) -> &'static str {
        match self {
            Kingdom::Shu => "Shu",
            Kingdom::Wu => "Wu",
            Kingdom::Wei => "Wei",
        }
    }
}

impl fmt::Display for Kingdom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A point of the board: `kingdom * 45 + (rank - 1) * 9 + file`, file 0..9 (`a`..`i`)
/// from the owner's left, rank 1..=5 from the owner's back rank to its bank.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point(u8);

impl Point {
    /// The number of points.
    pub const COUNT: usize = 135;

    /// The point on `file` (0..9) and `rank` (1..=5) of `kingdom`'s half; checked in
    /// debug builds.
    #[inline(always)]
    pub const fn new(kingdom: Kingdom, file: u8, rank: u8) -> Point {
        debug_assert!(file < 9 && rank >= 1 && rank <= 5);
        Point(kingdom as u8 * 45 + (rank - 1) * 9 + file)
    }

    /// The point with this index, if there is one.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < Point::COUNT { Some(Point(index as u8)) } else { None }
    }

    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: usize) -> Point {
        debug_assert!(index < Point::COUNT);
        Point(index as u8)
    }

    /// The point's index, 0..135.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The kingdom whose half holds this point.
    #[inline(always)]
    pub const fn kingdom(self) -> Kingdom {
        Kingdom::from_index(self.0 as usize / 45)
    }

    /// File 0..9 (`a`..`i`) from the owner's left.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 % 45 % 9
    }

    /// Rank 1..=5 from the owner's back rank.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 % 45 / 9 + 1
    }

    /// Inside the palace of the half (files d-f, ranks 1-3)?
    #[inline(always)]
    pub const fn in_palace(self) -> bool {
        let (f, r) = (self.file(), self.rank());
        f >= 3 && f <= 5 && r <= 3
    }

    /// The same file and rank in the next kingdom's half: the board turned by a third.
    #[inline(always)]
    pub const fn rotated(self) -> Point {
        Point((self.0 + 45) % 135)
    }

    /// Every point, in index order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..Point::COUNT).map(Point::from_index_unchecked)
    }

    /// Reads a point name such as `Re1`, `Gh3`, `Bi5` (kingdom and file letters of
    /// either case).
    pub fn parse(s: &str) -> Result<Point, PointError> {
        let mut chars = s.chars();
        let (Some(k), Some(f), Some(r), None) = (chars.next(), chars.next(), chars.next(), chars.next()) else {
            return Err(PointError::Length { len: s.chars().count() });
        };
        let kingdom = Kingdom::from_letter(k).ok_or(PointError::Kingdom { letter: k })?;
        let file = match f.to_ascii_lowercase() {
            c @ 'a'..='i' => c as u8 - b'a',
            _ => return Err(PointError::File { letter: f }),
        };
        let rank = match r {
            '1'..='5' => r as u8 - b'0',
            _ => return Err(PointError::Rank { letter: r }),
        };
        Ok(Point::new(kingdom, file, rank))
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}{}", self.kingdom().letter(), (b'a' + self.file()) as char, self.rank())
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::str::FromStr for Point {
    type Err = PointError;
    fn from_str(s: &str) -> Result<Point, PointError> {
        Point::parse(s)
    }
}

/// Why a text is not a point name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PointError {
    /// A point name has three characters (`Re1`); this one has `len`.
    Length {
        /// The text's length in characters.
        len: usize,
    },
    /// The first character is not `R`, `G` or `B`.
    Kingdom {
        /// The character.
        letter: char,
    },
    /// The second character is not a file `a`..`i`.
    File {
        /// The character.
        letter: char,
    },
    /// The third character is not a rank `1`..`5`.
    Rank {
        /// The character.
        letter: char,
    },
}

impl fmt::Display for PointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PointError::Length { len } => write!(f, "a point name has 3 characters (like Re1), not {len}"),
            PointError::Kingdom { letter } => write!(f, "{letter:?} is not a kingdom letter (R, G or B)"),
            PointError::File { letter } => write!(f, "{letter:?} is not a file (a to i)"),
            PointError::Rank { letter } => write!(f, "{letter:?} is not a rank (1 to 5)"),
        }
    }
}

impl std::error::Error for PointError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(s: &str) -> Point {
        Point::parse(s).unwrap()
    }

    #[test]
    fn points_and_names() {
        assert_eq!(Point::all().count(), 135);
        for p in Point::all() {
            assert_eq!(Point::parse(&p.to_string()), Ok(p));
            assert_eq!(Point::new(p.kingdom(), p.file(), p.rank()), p);
            assert_eq!(p.rotated().rotated().rotated(), p);
        }
        assert_eq!(pt("Re1").index(), 4);
        assert_eq!(pt("Bi5").index(), 134);
        assert_eq!(pt("Gh3").to_string(), "Gh3");
        assert!(matches!(Point::parse("Ré"), Err(PointError::Length { len: 2 })));
        assert!(matches!(Point::parse("Ré1"), Err(PointError::File { letter: 'é' })));
        assert!(matches!(Point::parse("Qa1"), Err(PointError::Kingdom { .. })));
    }

    #[test]
    fn kingdoms_are_named_and_points_read_through_every_entry() {
        let names: Vec<String> = Kingdom::ALL.iter().map(|k| k.to_string()).collect();
        assert_eq!(names, ["Shu", "Wu", "Wei"]);
        assert_eq!(Point::from_index(0), Some(pt("Ra1")));
        assert_eq!(Point::from_index(134), Some(pt("Bi5")));
        assert_eq!(Point::from_index(135), None);
        assert_eq!(format!("{:?}", pt("Gh3")), "Gh3");
        assert_eq!("bi5".parse::<Point>(), Ok(pt("Bi5")));
        assert_eq!("Re6".parse::<Point>(), Err(PointError::Rank { letter: '6' }));
    }

    #[test]
    fn point_errors_name_the_character_at_fault() {
        let message = |s: &str| Point::parse(s).unwrap_err().to_string();
        assert!(message("Re").contains('2'), "{}", message("Re"));
        assert!(message("Qa1").contains("'Q'"), "{}", message("Qa1"));
        assert!(message("Rj1").contains("'j'"), "{}", message("Rj1"));
        assert!(message("Re0").contains("'0'"), "{}", message("Re0"));
    }
}
