//! Pieces: their kinds, and a piece as a kind with its original kingdom; the board
//! codes positions store.

use std::fmt;

use super::geometry::Kingdom;

/// The kinds of piece. Letters as in Xiangqi FEN, plus `F` for the flag bearer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// The general.
    General = 0,
    /// The advisor.
    Advisor = 1,
    /// The elephant.
    Elephant = 2,
    /// The horse.
    Horse = 3,
    /// The chariot.
    Chariot = 4,
    /// The cannon.
    Cannon = 5,
    /// The soldier.
    Soldier = 6,
    /// The flag bearer (in the variant with flag bearers).
    FlagBearer = 7,
}

impl Kind {
    /// Every kind, in index order.
    pub const ALL: [Kind; 8] = [
        Kind::General,
        Kind::Advisor,
        Kind::Elephant,
        Kind::Horse,
        Kind::Chariot,
        Kind::Cannon,
        Kind::Soldier,
        Kind::FlagBearer,
    ];

    /// 0 (general) to 7 (flag bearer): an index into per-kind arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `K A B N R C P F`.
    pub const fn letter(self) -> char {
        match self {
            Kind::General => 'K',
            Kind::Advisor => 'A',
            Kind::Elephant => 'B',
            Kind::Horse => 'N',
            Kind::Chariot => 'R',
            Kind::Cannon => 'C',
            Kind::Soldier => 'P',
            Kind::FlagBearer => 'F',
        }
    }

    /// Reads an upper-case kind letter; `E`, `H` and `S` are accepted for the elephant,
    /// the horse and the soldier.
    pub const fn from_letter(c: char) -> Option<Kind> {
        match c {
            'K' => Some(Kind::General),
            'A' => Some(Kind::Advisor),
            'B' | 'E' => Some(Kind::Elephant),
            'N' | 'H' => Some(Kind::Horse),
            'R' => Some(Kind::Chariot),
            'C' => Some(Kind::Cannon),
            'P' | 'S' => Some(Kind::Soldier),
            'F' => Some(Kind::FlagBearer),
            _ => None,
        }
    }

    /// The kind's English name.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::General => "general",
            Kind::Advisor => "advisor",
            Kind::Elephant => "elephant",
            Kind::Horse => "horse",
            Kind::Chariot => "chariot",
            Kind::Cannon => "cannon",
            Kind::Soldier => "soldier",
            Kind::FlagBearer => "flag bearer",
        }
    }

    /// How many of this kind an army starts with (flag bearers when in play).
    pub const fn start_count(self) -> u32 {
        match self {
            Kind::General => 1,
            Kind::Soldier => 5,
            _ => 2,
        }
    }
}

/// A piece: its kind and the kingdom it started in, which fixes how it moves for the
/// whole game. Who controls it is a property of the position.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The piece of `kind` that starts in `origin`.
    #[inline(always)]
    pub const fn new(kind: Kind, origin: Kingdom) -> Piece {
        Piece(1 + origin as u8 * 8 + kind as u8)
    }

    /// Its kind.
    #[inline(always)]
    pub const fn kind(self) -> Kind {
        Kind::ALL[((self.0 - 1) & 7) as usize]
    }

    /// The kingdom the piece started in.
    #[inline(always)]
    pub const fn origin(self) -> Kingdom {
        Kingdom::from_index(((self.0 - 1) >> 3) as usize)
    }

    /// The board code: 1..=24 (0 is an empty point).
    #[inline(always)]
    pub(crate) const fn code(self) -> u8 {
        self.0
    }

    #[inline(always)]
    pub(crate) const fn from_code(code: u8) -> Option<Piece> {
        if code >= 1 && code <= 24 { Some(Piece(code)) } else { None }
    }

    /// The same piece of the next kingdom (the board turned by a third).
    pub const fn rotated(self) -> Piece {
        Piece::new(self.kind(), self.origin().next())
    }
}

impl fmt::Debug for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.origin().name(), self.kind().name())
    }
}

/// Board code of an empty point.
pub(crate) const EMPTY: u8 = 0;
/// No point (a defeated kingdom's general).
pub(crate) const NO_POINT: u8 = u8::MAX;

/// Kind index of a non-empty board code.
#[inline(always)]
pub(crate) const fn kind_of(code: u8) -> u8 {
    (code - 1) & 7
}

/// Origin index of a non-empty board code.
#[inline(always)]
pub(crate) const fn origin_of(code: u8) -> usize {
    ((code - 1) >> 3) as usize
}
