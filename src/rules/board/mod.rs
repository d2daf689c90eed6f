//! The 9x10 board shared by Xiangqi and Janggi: a mailbox for "what stands here",
//! per-rank and per-file occupancy for slider look-ups, bitboards for "where are my
//! pieces of this kind", and an incremental Zobrist key. Nothing here knows how the
//! pieces move; the variants do.

mod guard;
mod leapers;
mod lines;

pub use guard::{CheckCandidates, Guard, only_piece};
pub use leapers::{
    HORSE_ATTACKERS, HORSE_MOVES, HORSE_ZONES, Step, Steps, attackers_of, horse_attackers, horse_attacks, horse_legs,
    horse_targets,
};
pub use lines::{
    ALL_SQUARES, FILE_LINES, FILE_MASKS, LineView, NO_STOP, PALACE, RANK_LINES, RANK_MASKS, between, bit, bit_at,
    file_bits_to_board, lines_and_square_around, rank_bits_to_board, squares,
};

use super::types::{Color, Piece, PieceKind, Square};

/// A set of points as a 90-bit mask (bit `square.index()`).
pub type Bitboard = u128;

// ---------------------------------------------------------------------------
// Zobrist keys, generated at compile time from a fixed seed so that keys are stable
// across builds and machines (a stored transposition table or a test can rely on them).

pub(crate) const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

const fn zobrist_pieces() -> [[u64; 90]; 14] {
    let mut t = [[0u64; 90]; 14];
    let mut state = 0x6368_7568_655F_7631; // "chuhe_v1"
    let mut p = 0;
    while p < 14 {
        let mut s = 0;
        while s < 90 {
            let (ns, v) = splitmix(state);
            state = ns;
            t[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    t
}

/// Zobrist key of each piece (by [`Piece::index`]) on each point.
pub static ZOBRIST_PIECES: [[u64; 90]; 14] = zobrist_pieces();
/// Xored in when Black (Han) is to move.
pub const ZOBRIST_BLACK_TO_MOVE: u64 = splitmix(0x5349_4445_544F_4D56).1;

/// Mailbox length: 90 points plus padding so that any `base + NO_STOP` stays inside.
const CELLS: usize = 90 + 81 + 256;

/// Pieces on the 9x10 board. Every mutation keeps the mailbox, the line occupancies,
/// the bitboards and the key consistent.
#[derive(Clone)]
pub struct Board {
    /// `0` for empty, `piece.index() + 1` otherwise; points past 90 are always empty.
    cells: [u8; CELLS],
    rank_occ: [u16; 10],
    file_occ: [u16; 9],
    by_color: [Bitboard; 2],
    by_piece: [Bitboard; 14],
    key: u64,
}

impl PartialEq for Board {
    fn eq(&self, other: &Board) -> bool {
        self.cells[..90] == other.cells[..90]
    }
}
impl Eq for Board {}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for rank in (0..10).rev() {
            let row: String =
                (0..9).map(|file| self.piece_at(Square::new(file, rank)).map_or('.', Piece::fen_char)).collect();
            writeln!(f, "{rank} {row}")?;
        }
        f.write_str("  abcdefghi")
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::empty()
    }
}

impl Board {
    /// A board with no piece.
    pub const fn empty() -> Board {
        Board { cells: [0; CELLS], rank_occ: [0; 10], file_occ: [0; 9], by_color: [0; 2], by_piece: [0; 14], key: 0 }
    }

    /// The piece on `sq`, if any.
    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        decode(self.cells[sq.index()])
    }

    /// Mailbox code at an index that may be a padded, always-empty cell.
    #[inline(always)]
    pub(crate) fn code_at(&self, index: usize) -> u8 {
        // CELLS covers every base + NO_STOP the line tables produce.
        self.cells[index]
    }

    /// Is `sq` empty?
    #[inline(always)]
    pub fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == 0
    }

    /// Every occupied point.
    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    /// The points of `c`'s pieces.
    #[inline(always)]
    pub fn by_color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    /// The points of the pieces `p`.
    #[inline(always)]
    pub fn by_piece(&self, p: Piece) -> Bitboard {
        self.by_piece[p.index()]
    }

    /// The points of `c`'s pieces of kind `k`.
    #[inline(always)]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_piece[Piece::new(c, k).index()]
    }

    /// The occupied files of `rank`, one bit per file.
    #[inline(always)]
    pub fn rank_occupancy(&self, rank: u8) -> u16 {
        self.rank_occ[rank as usize]
    }

    /// The occupied ranks of `file`, one bit per rank.
    #[inline(always)]
    pub fn file_occupancy(&self, file: u8) -> u16 {
        self.file_occ[file as usize]
    }

    /// The slider view along the rank through `sq`.
    #[inline(always)]
    pub fn rank_view(&self, sq: Square) -> &'static LineView {
        &RANK_LINES[sq.file() as usize][self.rank_occ[sq.rank() as usize] as usize]
    }

    /// The slider view along the file through `sq`.
    #[inline(always)]
    pub fn file_view(&self, sq: Square) -> &'static LineView {
        &FILE_LINES[sq.rank() as usize][self.file_occ[sq.file() as usize] as usize]
    }

    /// Piece-placement part of the Zobrist key (the side to move is the position's).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// The key computed from scratch, to check the incremental one.
    pub fn key_from_scratch(&self) -> u64 {
        Square::all()
            .filter_map(|sq| self.piece_at(sq).map(|p| ZOBRIST_PIECES[p.index()][sq.index()]))
            .fold(0, |a, b| a ^ b)
    }

    /// How many pieces `p` stand on the board.
    pub fn count(&self, p: Piece) -> u32 {
        self.by_piece[p.index()].count_ones()
    }

    /// The square of a side's general, if it has one.
    #[inline(always)]
    pub fn general(&self, c: Color) -> Option<Square> {
        let bb = self.pieces(c, PieceKind::General);
        if bb == 0 { None } else { Some(Square::from_index_unchecked(bb.trailing_zeros() as usize)) }
    }

    /// The file on which the two generals face each other with nothing between, if
    /// they do (Xiangqi forbids it; Janggi calls it bikjang).
    pub fn generals_facing(&self) -> Option<u8> {
        let (r, k) = (self.general(Color::Red)?, self.general(Color::Black)?);
        if r.file() != k.file() {
            return None;
        }
        let (lo, hi) = (r.rank().min(k.rank()), r.rank().max(k.rank()));
        let between = self.file_occ[r.file() as usize] & ((1 << hi) - 1) & !((2 << lo) - 1);
        (between == 0).then_some(r.file())
    }

    #[inline(always)]
    fn toggle(&mut self, sq: Square, p: Piece) {
        let (f, r) = (sq.file(), sq.rank());
        self.rank_occ[r as usize] ^= 1 << f;
        self.file_occ[f as usize] ^= 1 << r;
        let b = bit(sq);
        self.by_color[p.color().index()] ^= b;
        self.by_piece[p.index()] ^= b;
        self.key ^= ZOBRIST_PIECES[p.index()][sq.index()];
    }

    /// Puts a piece on a point, replacing whatever stood there (a setup operation).
    pub fn put(&mut self, sq: Square, p: Piece) {
        self.remove(sq);
        self.cells[sq.index()] = code(p);
        self.toggle(sq, p);
    }

    /// Removes and returns the piece on a point.
    pub fn remove(&mut self, sq: Square) -> Option<Piece> {
        let p = self.piece_at(sq)?;
        self.cells[sq.index()] = 0;
        self.toggle(sq, p);
        Some(p)
    }

    /// Moves the piece on `from` to `to`, returning what stood on `to`. `from` must hold
    /// a piece.
    #[inline(always)]
    pub fn move_piece(&mut self, from: Square, to: Square) -> Option<Piece> {
        let moving = self.cells[from.index()];
        debug_assert!(moving != 0, "no piece on {from}");
        let captured = decode(self.cells[to.index()]);
        self.cells[from.index()] = 0;
        self.cells[to.index()] = moving;
        self.shift(from, to, Piece::from_index_unchecked(moving - 1), captured);
        captured
    }

    /// The key [`Board::move_piece`] would leave, the board unchanged.
    #[inline(always)]
    pub fn key_after_move(&self, from: Square, to: Square) -> u64 {
        match decode(self.cells[from.index()]) {
            Some(p) => self.key ^ key_change(p, from, to, decode(self.cells[to.index()])),
            None => self.key,
        }
    }

    /// Takes back [`Board::move_piece`].
    #[inline(always)]
    pub fn unmove_piece(&mut self, from: Square, to: Square, captured: Option<Piece>) {
        let moving = self.cells[to.index()];
        debug_assert!(moving != 0);
        self.cells[from.index()] = moving;
        self.cells[to.index()] = captured.map_or(0, code);
        self.shift(from, to, Piece::from_index_unchecked(moving - 1), captured);
    }

    /// The bookkeeping of a move, which is its own inverse: the mover leaves `from` and
    /// enters `to`; a captured piece on `to` leaves the bitboards and the key, while the
    /// point itself stays occupied.
    #[inline(always)]
    fn shift(&mut self, from: Square, to: Square, p: Piece, captured: Option<Piece>) {
        self.rank_occ[from.rank() as usize] ^= 1 << from.file();
        self.file_occ[from.file() as usize] ^= 1 << from.rank();
        let both = bit(from) | bit(to);
        self.by_color[p.color().index()] ^= both;
        self.by_piece[p.index()] ^= both;
        self.key ^= key_change(p, from, to, captured);
        match captured {
            Some(c) => {
                self.by_color[c.color().index()] ^= bit(to);
                self.by_piece[c.index()] ^= bit(to);
            }
            None => {
                self.rank_occ[to.rank() as usize] ^= 1 << to.file();
                self.file_occ[to.file() as usize] ^= 1 << to.rank();
            }
        }
    }

    /// Every piece with its point, by point index.
    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        squares(self.occupied()).filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }
}

/// What moving `p` from `from` to `to`, taking `captured` there, changes in the key.
#[inline(always)]
fn key_change(p: Piece, from: Square, to: Square, captured: Option<Piece>) -> u64 {
    let moved = ZOBRIST_PIECES[p.index()][from.index()] ^ ZOBRIST_PIECES[p.index()][to.index()];
    captured.map_or(moved, |c| moved ^ ZOBRIST_PIECES[c.index()][to.index()])
}

/// The board as it would be after the piece on `from` goes to `to` (taking whatever
/// stood there), read without changing the board: what a legality test looks at.
/// With `from == to` it is the board as it is.
#[derive(Clone, Copy)]
pub(crate) struct BoardAfter<'a> {
    board: &'a Board,
    from: Square,
    to: Square,
    mover: u8,
}

impl<'a> BoardAfter<'a> {
    #[inline(always)]
    pub(crate) fn new(board: &'a Board, from: Square, to: Square) -> BoardAfter<'a> {
        BoardAfter { board, from, to, mover: board.code_at(from.index()) }
    }

    /// Mailbox code at an index (padded cells included, as [`Board::code_at`]).
    #[inline(always)]
    pub(crate) fn code_at(&self, index: usize) -> u8 {
        if index == self.to.index() {
            self.mover
        } else if index == self.from.index() {
            0
        } else {
            self.board.code_at(index)
        }
    }

    #[inline(always)]
    pub(crate) fn rank_occupancy(&self, rank: u8) -> u16 {
        let mut occ = self.board.rank_occ[rank as usize];
        if self.from.rank() == rank {
            occ &= !(1 << self.from.file());
        }
        if self.to.rank() == rank {
            occ |= 1 << self.to.file();
        }
        occ
    }

    #[inline(always)]
    pub(crate) fn file_occupancy(&self, file: u8) -> u16 {
        let mut occ = self.board.file_occ[file as usize];
        if self.from.file() == file {
            occ &= !(1 << self.from.rank());
        }
        if self.to.file() == file {
            occ |= 1 << self.to.rank();
        }
        occ
    }
}

#[inline(always)]
fn decode(code: u8) -> Option<Piece> {
    if code == 0 { None } else { Some(Piece::from_index_unchecked(code - 1)) }
}

/// Mailbox code of a piece (what `Board::code_at` returns for it).
#[inline(always)]
pub const fn code(p: Piece) -> u8 {
    p.index() as u8 + 1
}
