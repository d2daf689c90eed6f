//! The 9x10 board shared by Xiangqi and Janggi: a mailbox for "what stands here",
//! per-rank and per-file occupancy for slider look-ups, bitboards for "where are my
//! pieces of this kind", and an incremental Zobrist key. Nothing here knows how the
//! pieces move; the variants do.

use super::types::{Color, Move, Piece, PieceKind, Square};

/// A set of points as a 90-bit mask (bit `square.index()`).
pub type Bitboard = u128;

/// Sentinel stop: a line look-up that finds no piece in a direction points past the
/// board, where the padded mailbox is always empty.
pub const NO_STOP: u8 = 0xFF;

/// What a slider standing at one point of a line sees, for one occupancy of the line.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct LineView {
    /// Empty points reachable before the first piece in each direction (line positions).
    pub quiet: u16,
    /// The first piece in each direction (a chariot's captures).
    pub first: u16,
    /// The second piece in each direction (a cannon's captures).
    pub second: u16,
    /// Mailbox offsets of `[first below, first above, second below, second above]`
    /// relative to the line's base, or [`NO_STOP`].
    pub stops: [u8; 4],
}

const fn line_view(pos: usize, occ: usize, len: usize, stride: usize) -> LineView {
    let mut v = LineView { quiet: 0, first: 0, second: 0, stops: [NO_STOP; 4] };
    // below (towards position 0)
    let mut seen = 0;
    let mut i = pos;
    while i > 0 {
        i -= 1;
        if occ & (1 << i) != 0 {
            if seen == 0 {
                v.first |= 1 << i;
                v.stops[0] = (i * stride) as u8;
            } else {
                v.second |= 1 << i;
                v.stops[2] = (i * stride) as u8;
                break;
            }
            seen += 1;
        } else if seen == 0 {
            v.quiet |= 1 << i;
        }
    }
    seen = 0;
    i = pos + 1;
    while i < len {
        if occ & (1 << i) != 0 {
            if seen == 0 {
                v.first |= 1 << i;
                v.stops[1] = (i * stride) as u8;
            } else {
                v.second |= 1 << i;
                v.stops[3] = (i * stride) as u8;
                break;
            }
            seen += 1;
        } else if seen == 0 {
            v.quiet |= 1 << i;
        }
        i += 1;
    }
    v
}

const fn rank_lines() -> [[LineView; 512]; 9] {
    let mut t = [[LineView { quiet: 0, first: 0, second: 0, stops: [0; 4] }; 512]; 9];
    let mut pos = 0;
    while pos < 9 {
        let mut occ = 0;
        while occ < 512 {
            t[pos][occ] = line_view(pos, occ, 9, 1);
            occ += 1;
        }
        pos += 1;
    }
    t
}

const fn file_lines() -> [[LineView; 1024]; 10] {
    let mut t = [[LineView { quiet: 0, first: 0, second: 0, stops: [0; 4] }; 1024]; 10];
    let mut pos = 0;
    while pos < 10 {
        let mut occ = 0;
        while occ < 1024 {
            t[pos][occ] = line_view(pos, occ, 10, 9);
            occ += 1;
        }
        pos += 1;
    }
    t
}

/// `RANK_LINES[file][rank occupancy]`: the view along a rank (stride 1).
pub static RANK_LINES: [[LineView; 512]; 9] = rank_lines();
/// `FILE_LINES[rank][file occupancy]`: the view along a file (stride 9).
pub static FILE_LINES: [[LineView; 1024]; 10] = file_lines();

const fn rank_masks() -> [Bitboard; 10] {
    let mut m = [0; 10];
    let mut r = 0;
    while r < 10 {
        m[r] = 0x1FFu128 << (r * 9);
        r += 1;
    }
    m
}

const fn file_masks() -> [Bitboard; 9] {
    let mut m = [0; 9];
    let mut f = 0;
    while f < 9 {
        let mut r = 0;
        while r < 10 {
            m[f] |= 1u128 << (r * 9 + f);
            r += 1;
        }
        f += 1;
    }
    m
}

pub const RANK_MASKS: [Bitboard; 10] = rank_masks();
pub const FILE_MASKS: [Bitboard; 9] = file_masks();
/// Every point of the board.
pub const ALL_SQUARES: Bitboard = (1u128 << 90) - 1;

/// The rank and file of `sq` and the points at most `radius` files and ranks from it.
/// A move that neither leaves nor reaches one of them cannot change whether a general
/// on `sq` is attacked, when every piece that attacks from further than `radius` does
/// so along a rank or file (see each variant's `check_zone`).
pub fn lines_and_square_around(sq: Square, radius: u8) -> Bitboard {
    let (file, rank) = (sq.file(), sq.rank());
    let ranks = (rank.saturating_sub(radius)..=(rank + radius).min(9)).fold(0, |bb, r| bb | RANK_MASKS[r as usize]);
    let files = (file.saturating_sub(radius)..=(file + radius).min(8)).fold(0, |bb, f| bb | FILE_MASKS[f as usize]);
    RANK_MASKS[rank as usize] | FILE_MASKS[file as usize] | (ranks & files)
}

/// Does `m` leave or reach one of `points`?
#[inline(always)]
pub fn touches(m: Move, points: Bitboard) -> bool {
    (bit(m.from()) | bit(m.to())) & points != 0
}

/// Expands a line bitmask (positions along a rank) into board squares.
#[inline(always)]
pub fn rank_bits_to_board(bits: u16, rank: u8) -> Bitboard {
    (bits as Bitboard) << (rank as u32 * 9)
}

/// Expands a line bitmask (positions along a file) into board squares.
#[inline(always)]
pub fn file_bits_to_board(bits: u16, file: u8) -> Bitboard {
    FILE_SPREAD[bits as usize] << file
}

const fn file_spread() -> [Bitboard; 1024] {
    let mut t = [0u128; 1024];
    let mut bits = 0;
    while bits < 1024 {
        let mut r = 0;
        while r < 10 {
            if bits & (1 << r) != 0 {
                t[bits] |= 1u128 << (r * 9);
            }
            r += 1;
        }
        bits += 1;
    }
    t
}

static FILE_SPREAD: [Bitboard; 1024] = file_spread();

/// Iterates the squares of a bitboard, lowest first.
#[inline(always)]
pub fn squares(mut bb: Bitboard) -> impl Iterator<Item = Square> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let i = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            Some(Square::from_index_unchecked(i))
        }
    })
}

#[inline(always)]
pub const fn bit(sq: Square) -> Bitboard {
    1u128 << sq.index()
}

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
    pub const fn empty() -> Board {
        Board { cells: [0; CELLS], rank_occ: [0; 10], file_occ: [0; 9], by_color: [0; 2], by_piece: [0; 14], key: 0 }
    }

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

    #[inline(always)]
    pub fn is_empty(&self, sq: Square) -> bool {
        self.cells[sq.index()] == 0
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.by_color[0] | self.by_color[1]
    }

    #[inline(always)]
    pub fn by_color(&self, c: Color) -> Bitboard {
        self.by_color[c.index()]
    }

    #[inline(always)]
    pub fn by_piece(&self, p: Piece) -> Bitboard {
        self.by_piece[p.index()]
    }

    #[inline(always)]
    pub fn pieces(&self, c: Color, k: PieceKind) -> Bitboard {
        self.by_piece[Piece::new(c, k).index()]
    }

    #[inline(always)]
    pub fn rank_occupancy(&self, rank: u8) -> u16 {
        self.rank_occ[rank as usize]
    }

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
        self.key ^= ZOBRIST_PIECES[p.index()][from.index()] ^ ZOBRIST_PIECES[p.index()][to.index()];
        match captured {
            Some(c) => {
                self.by_color[c.color().index()] ^= bit(to);
                self.by_piece[c.index()] ^= bit(to);
                self.key ^= ZOBRIST_PIECES[c.index()][to.index()];
            }
            None => {
                self.rank_occ[to.rank() as usize] ^= 1 << to.file();
                self.file_occ[to.file() as usize] ^= 1 << to.rank();
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        squares(self.occupied()).filter_map(|sq| self.piece_at(sq).map(|p| (sq, p)))
    }
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

// ---------------------------------------------------------------------------
// Leaper tables shared by the 9x10 variants.

/// One step of a blockable leaper: the point that must be empty, then the target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    pub block: u8,
    pub to: u8,
}

/// Up to eight blockable steps from one point.
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    pub len: u8,
    pub list: [Step; 8],
}

impl Steps {
    const EMPTY: Steps = Steps { len: 0, list: [Step { block: 0, to: 0 }; 8] };

    const fn with(mut self, block: usize, to: usize) -> Steps {
        self.list[self.len as usize] = Step { block: block as u8, to: to as u8 };
        self.len += 1;
        self
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Step] {
        &self.list[..self.len as usize]
    }
}

const HORSE_DELTAS: [(i8, i8); 8] = [(1, 2), (-1, 2), (2, 1), (-2, 1), (2, -1), (-2, -1), (1, -2), (-1, -2)];

/// The leg a horse must find empty to go `(df, dr)` from `(f, r)`.
const fn horse_leg(f: i8, r: i8, df: i8, dr: i8) -> (i8, i8) {
    if dr == 2 || dr == -2 { (f, r + dr / 2) } else { (f + df / 2, r) }
}

const fn on_board(f: i8, r: i8) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn idx(f: i8, r: i8) -> usize {
    (r as usize) * 9 + f as usize
}

const fn horse_tables() -> ([Steps; 90], [Steps; 90]) {
    let mut moves = [Steps::EMPTY; 90];
    let mut attackers = [Steps::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i8, (s / 9) as i8);
        let mut d = 0;
        while d < 8 {
            let (df, dr) = HORSE_DELTAS[d];
            // The horse on s moving to s + delta.
            if on_board(f + df, r + dr) {
                let (lf, lr) = horse_leg(f, r, df, dr);
                moves[s] = moves[s].with(idx(lf, lr), idx(f + df, r + dr));
            }
            // A horse on s - delta attacking s; `block` holds its leg, `to` the horse.
            let (hf, hr) = (f - df, r - dr);
            if on_board(hf, hr) {
                let (lf, lr) = horse_leg(hf, hr, df, dr);
                attackers[s] = attackers[s].with(idx(lf, lr), idx(hf, hr));
            }
            d += 1;
        }
        s += 1;
    }
    (moves, attackers)
}

const HORSE: ([Steps; 90], [Steps; 90]) = horse_tables();
/// `HORSE_MOVES[from]`: leg and target of each horse move from a point.
pub static HORSE_MOVES: [Steps; 90] = HORSE.0;
/// `HORSE_ATTACKERS[target]`: for each point a horse could attack `target` from, the
/// leg (`block`) and the horse's point (`to`).
pub static HORSE_ATTACKERS: [Steps; 90] = HORSE.1;

const fn horse_zones() -> [Bitboard; 90] {
    let mut z = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let a = HORSE.1[s];
        let mut i = 0;
        while i < a.len as usize {
            z[s] |= 1u128 << a.list[i].to;
            i += 1;
        }
        s += 1;
    }
    z
}

/// Points from which a horse could attack a point (ignoring legs): a cheap pre-test.
pub static HORSE_ZONES: [Bitboard; 90] = horse_zones();
