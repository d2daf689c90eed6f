//! Small value types of the 9x10 games: colours, piece kinds, points and moves.

use std::fmt;

pub use crate::fixed_list::FixedList;

/// One of the two sides of Xiangqi and Janggi.
///
/// In Janggi, `Red` is Cho (初, who moves first) and `Black` is Han (漢).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Color {
    /// Red moves first, so an unset side is Red.
    #[default]
    Red = 0,
    /// Black moves second (Han in Janggi).
    Black = 1,
}

impl Color {
    /// Both colours, Red first.
    pub const ALL: [Color; 2] = [Color::Red, Color::Black];

    /// The opponent.
    #[inline(always)]
    pub const fn other(self) -> Color {
        match self {
            Color::Red => Color::Black,
            Color::Black => Color::Red,
        }
    }

    /// 0 for Red, 1 for Black: an index into per-side arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `red` or `black`.
    pub const fn name(self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Black => "black",
        }
    }
}

impl std::ops::Not for Color {
    type Output = Color;
    #[inline(always)]
    fn not(self) -> Color {
        self.other()
    }
}

/// The seven kinds of piece shared by Xiangqi and Janggi (Janggi calls the advisor a
/// guard and the pawn a soldier; they move differently, the kinds are the same).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum PieceKind {
    /// The general (king): Janggi's 궁.
    General = 0,
    /// The advisor (guard).
    Advisor = 1,
    /// The elephant.
    Elephant = 2,
    /// The horse.
    Horse = 3,
    /// The chariot.
    Chariot = 4,
    /// The cannon.
    Cannon = 5,
    /// The pawn (soldier).
    Soldier = 6,
}

impl PieceKind {
    /// Every kind, in index order.
    pub const ALL: [PieceKind; 7] = [
        PieceKind::General,
        PieceKind::Advisor,
        PieceKind::Elephant,
        PieceKind::Horse,
        PieceKind::Chariot,
        PieceKind::Cannon,
        PieceKind::Soldier,
    ];

    /// 0 (general) to 6 (pawn): an index into per-kind arrays.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Upper-case FEN letter (Red's form).
    pub const fn letter(self) -> char {
        match self {
            PieceKind::General => 'K',
            PieceKind::Advisor => 'A',
            PieceKind::Elephant => 'B',
            PieceKind::Horse => 'N',
            PieceKind::Chariot => 'R',
            PieceKind::Cannon => 'C',
            PieceKind::Soldier => 'P',
        }
    }

    /// Reads a FEN letter of either case; `h` and `e` are the accepted aliases of the
    /// horse and the elephant.
    pub const fn from_letter(c: char) -> Option<PieceKind> {
        match c.to_ascii_uppercase() {
            'K' => Some(PieceKind::General),
            'A' => Some(PieceKind::Advisor),
            'B' | 'E' => Some(PieceKind::Elephant),
            'N' | 'H' => Some(PieceKind::Horse),
            'R' => Some(PieceKind::Chariot),
            'C' => Some(PieceKind::Cannon),
            'P' => Some(PieceKind::Soldier),
            _ => None,
        }
    }

    /// The kind's English name (`general`, `advisor`, ..., `pawn`).
    pub const fn name(self) -> &'static str {
        match self {
            PieceKind::General => "general",
            PieceKind::Advisor => "advisor",
            PieceKind::Elephant => "elephant",
            PieceKind::Horse => "horse",
            PieceKind::Chariot => "chariot",
            PieceKind::Cannon => "cannon",
            PieceKind::Soldier => "pawn",
        }
    }
}

/// A coloured piece, packed as `color * 7 + kind` (0..14).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    /// The piece of `kind` of `color`.
    #[inline(always)]
    pub const fn new(color: Color, kind: PieceKind) -> Piece {
        Piece(color as u8 * 7 + kind as u8)
    }

    /// Its colour.
    #[inline(always)]
    pub const fn color(self) -> Color {
        if self.0 < 7 { Color::Red } else { Color::Black }
    }

    /// Its kind.
    #[inline(always)]
    pub const fn kind(self) -> PieceKind {
        // A look-up rather than `% 7`: asked for every move the search looks at.
        const KIND_OF: [PieceKind; 16] = {
            let mut t = [PieceKind::General; 16];
            let mut i = 0;
            while i < 14 {
                t[i] = PieceKind::ALL[i % 7];
                i += 1;
            }
            t
        };
        KIND_OF[(self.0 & 15) as usize]
    }

    /// The piece with table index `index` (0..14); checked in debug builds.
    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: u8) -> Piece {
        debug_assert!(index < 14);
        Piece(index)
    }

    /// Index 0..14, for tables.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// FEN letter: upper case for Red, lower case for Black.
    pub const fn fen_char(self) -> char {
        let c = self.kind().letter();
        match self.color() {
            Color::Red => c,
            Color::Black => c.to_ascii_lowercase(),
        }
    }

    /// The piece a FEN letter names: upper case Red, lower case Black.
    pub fn from_fen_char(c: char) -> Option<Piece> {
        let kind = PieceKind::from_letter(c)?;
        let color = if c.is_ascii_uppercase() { Color::Red } else { Color::Black };
        Some(Piece::new(color, kind))
    }
}

/// A point of the 9x10 board: `rank * 9 + file`, file 0..9 (a..i) from Red's left,
/// rank 0..10 from Red's back rank, as ICCS writes them (`e0` is Red's general).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The number of points.
    pub const COUNT: usize = 90;

    /// The point on `file` (0..9) and `rank` (0..10).
    #[inline(always)]
    pub const fn new(file: u8, rank: u8) -> Square {
        debug_assert!(file < 9 && rank < 10);
        Square(rank * 9 + file)
    }

    /// The square with this index, if it is on the board.
    #[inline(always)]
    pub const fn from_index(index: usize) -> Option<Square> {
        if index < 90 { Some(Square(index as u8)) } else { None }
    }

    /// # Safety-free contract
    /// `index` must be below 90; checked in debug builds.
    #[inline(always)]
    pub(crate) const fn from_index_unchecked(index: usize) -> Square {
        debug_assert!(index < 90);
        Square(index as u8)
    }

    /// `rank * 9 + file`, 0..90.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The file, 0 (a) to 8 (i) from Red's left.
    #[inline(always)]
    pub const fn file(self) -> u8 {
        self.0 % 9
    }

    /// The rank, 0 (Red's back rank) to 9.
    #[inline(always)]
    pub const fn rank(self) -> u8 {
        self.0 / 9
    }

    /// The point mirrored across the river (Red's view to Black's view).
    pub const fn flip_rank(self) -> Square {
        Square::new(self.file(), 9 - self.rank())
    }

    /// The square seen in a mirror between the wings: file `a` becomes `i`.
    pub const fn flip_file(self) -> Square {
        Square::new(8 - self.file(), self.rank())
    }

    /// The square `df` files and `dr` ranks away, if it is on the board.
    pub const fn offset(self, df: i8, dr: i8) -> Option<Square> {
        let f = self.file() as i8 + df;
        let r = self.rank() as i8 + dr;
        if f >= 0 && f < 9 && r >= 0 && r < 10 { Some(Square::new(f as u8, r as u8)) } else { None }
    }

    /// Parses ICCS coordinates such as `e0` (case-insensitive file letter).
    pub fn parse(s: &str) -> Option<Square> {
        Square::parse_bytes(s.as_bytes())
    }

    /// [`Square::parse`] of bytes: text is read by bytes here, so that a slice of it can
    /// never fall inside a character.
    fn parse_bytes(b: &[u8]) -> Option<Square> {
        if b.len() != 2 {
            return None;
        }
        let f = b[0].to_ascii_lowercase().wrapping_sub(b'a');
        let r = b[1].wrapping_sub(b'0');
        if f < 9 && r < 10 { Some(Square::new(f, r)) } else { None }
    }

    /// Every point, by index.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..90u8).map(Square)
    }
}

const fn square_names() -> [[u8; 2]; 90] {
    let mut t = [[0u8; 2]; 90];
    let mut i = 0;
    while i < 90 {
        t[i] = [b'a' + (i % 9) as u8, b'0' + (i / 9) as u8];
        i += 1;
    }
    t
}

static SQUARE_NAMES: [[u8; 2]; 90] = square_names();

impl Square {
    /// The ICCS name (`e0`), without formatting machinery.
    #[inline]
    pub fn name(self) -> &'static str {
        // The table holds ASCII letters and digits only.
        std::str::from_utf8(&SQUARE_NAMES[self.index()]).unwrap_or("??")
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A move on the 9x10 board, packed into 16 bits. A pass (Janggi) has `from == to`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Move(u16);

impl Move {
    /// The move from `from` to `to` (a pass when they coincide).
    #[inline(always)]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | (to.0 as u16) << 7)
    }

    /// The pass of Janggi. It is written `pass` in ICCS.
    pub const PASS: Move = Move(0);

    /// The point the piece leaves.
    #[inline(always)]
    pub const fn from(self) -> Square {
        Square((self.0 & 0x7f) as u8)
    }

    /// The point the piece reaches.
    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 >> 7) as u8)
    }

    /// Is this a pass (the same point twice)?
    #[inline(always)]
    pub const fn is_pass(self) -> bool {
        self.0 & 0x7f == self.0 >> 7
    }

    /// Parses ICCS (`h2e2`, also `H2-E2`), or `pass`.
    pub fn parse_iccs(s: &str) -> Option<Move> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("pass") || s == "@@@@" || s == "0000" {
            return Some(Move::PASS);
        }
        let b = s.as_bytes();
        let (from, to) = match b.len() {
            4 => (&b[0..2], &b[2..4]),
            5 if b[2] == b'-' => (&b[0..2], &b[3..5]),
            _ => return None,
        };
        let (from, to) = (Square::parse_bytes(from)?, Square::parse_bytes(to)?);
        if from == to {
            return None;
        }
        Some(Move::new(from, to))
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_pass() {
            f.write_str("pass")
        } else {
            f.write_str(self.from().name())?;
            f.write_str(self.to().name())
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The moves of one 9x10 position: more than the most moves any legal 9x10 position
/// has (about 120 pseudo-legal moves with a full army; Janggi adds the pass).
pub type MoveList = FixedList<Move, 192>;
