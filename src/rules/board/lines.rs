//! Slider look-ups and bitboard helpers of the 9x10 board: what a chariot or a cannon
//! sees along a rank or a file for every occupancy, built at compile time, and the
//! masks and iterators over points.

use super::Bitboard;
use crate::rules::types::Square;

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

/// The points of each rank.
pub const RANK_MASKS: [Bitboard; 10] = rank_masks();
/// The points of each file.
pub const FILE_MASKS: [Bitboard; 9] = file_masks();
/// Every point of the board.
pub const ALL_SQUARES: Bitboard = (1u128 << 90) - 1;

/// The rank and file of `sq` and the points at most `radius` files and ranks from it:
/// every point from which a piece may attack a general on `sq`, when every piece that
/// attacks from further than `radius` does so along a rank or file (Janggi's
/// `direct_checks`).
pub fn lines_and_square_around(sq: Square, radius: u8) -> Bitboard {
    let (file, rank) = (sq.file(), sq.rank());
    let ranks = (rank.saturating_sub(radius)..=(rank + radius).min(9)).fold(0, |bb, r| bb | RANK_MASKS[r as usize]);
    let files = (file.saturating_sub(radius)..=(file + radius).min(8)).fold(0, |bb, f| bb | FILE_MASKS[f as usize]);
    RANK_MASKS[rank as usize] | FILE_MASKS[file as usize] | (ranks & files)
}

/// The points strictly between `a` and `b` when they share a rank or a file; none
/// otherwise.
#[inline]
pub fn between(a: Square, b: Square) -> Bitboard {
    let (lo, hi) = (a.index().min(b.index()), a.index().max(b.index()));
    // Every index strictly between the two: on one rank these are the points between.
    let span = ((1u128 << hi) - 1) & !((1u128 << (lo + 1)) - 1);
    if a.rank() == b.rank() {
        span
    } else if a.file() == b.file() {
        span & FILE_MASKS[a.file() as usize]
    } else {
        0
    }
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
pub fn squares(bb: Bitboard) -> Squares {
    Squares { low: bb as u64, high: (bb >> 64) as u64 }
}

/// The squares of a bitboard ([`squares`]), taken from its two 64-bit halves in turn:
/// each step is then a few 64-bit instructions rather than 128-bit arithmetic.
#[derive(Clone, Copy, Debug)]
pub struct Squares {
    low: u64,
    high: u64,
}

impl Iterator for Squares {
    type Item = Square;

    #[inline(always)]
    fn next(&mut self) -> Option<Square> {
        let i = if self.low != 0 {
            let i = self.low.trailing_zeros() as usize;
            self.low &= self.low - 1;
            i
        } else if self.high != 0 {
            let i = 64 + self.high.trailing_zeros() as usize;
            self.high &= self.high - 1;
            i
        } else {
            return None;
        };
        Some(Square::from_index_unchecked(i))
    }
}

/// The bitboard of the one point `sq`.
#[inline(always)]
pub const fn bit(sq: Square) -> Bitboard {
    // A look-up: a shift of a 128-bit value by a variable count takes several
    // instructions, and this is asked at every step of move generation.
    SINGLE_BITS[sq.index() & 127]
}

/// The bitboard of the one point of index `i` (below 128), as [`bit`].
#[inline(always)]
pub const fn bit_at(i: usize) -> Bitboard {
    SINGLE_BITS[i & 127]
}

/// `SINGLE_BITS[i]`: the bitboard of bit `i` alone.
const SINGLE_BITS: [Bitboard; 128] = {
    let mut t = [0; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = 1u128 << i;
        i += 1;
    }
    t
};

/// `PALACE[color]`: the nine points of a side's palace (files d-f, ranks 0-2 for Red,
/// 7-9 for Black), the same in both 9x10 variants.
pub const PALACE: [Bitboard; 2] = [palace(0), palace(1)];

const fn palace(color: usize) -> Bitboard {
    let mut set = 0u128;
    let mut s = 0;
    while s < 90 {
        let (f, r) = (s % 9, s / 9);
        let home = if color == 0 { r <= 2 } else { r >= 7 };
        if f >= 3 && f <= 5 && home {
            set |= 1u128 << s;
        }
        s += 1;
    }
    set
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The points of `bb` by testing each of the 90 bits in turn.
    fn each_bit(bb: Bitboard) -> Vec<usize> {
        (0..90).filter(|&i| bb >> i & 1 == 1).collect()
    }

    #[test]
    fn squares_go_through_both_halves_lowest_first() {
        let full = (1u128 << 90) - 1;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut boards = vec![0, 1, 1 << 63, 1 << 64, 1 << 89, 3 << 63, full];
        for _ in 0..1000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let high = seed.rotate_left(23) as u128;
            boards.push(((high << 64) | seed as u128) & full);
        }
        for bb in boards {
            let got: Vec<usize> = squares(bb).map(|s| s.index()).collect();
            assert_eq!(got, each_bit(bb), "{bb:#x}");
        }
    }
}
