//! Zobrist keys from a fixed seed: a piece (kind and origin) on a point under a
//! controller, the side to move, each defeated kingdom.

use super::geometry::{Kingdom, Point};
use super::piece::{EMPTY, origin_of};
use super::position::Position;
use crate::rules::board::splitmix;

const fn zobrist_pieces() -> [[[u64; 3]; 24]; Point::COUNT] {
    let mut t = [[[0u64; 3]; 24]; Point::COUNT];
    let mut state = 0x3367_646F_6D73_7631; // "3kdoms" v1
    let mut p = 0;
    while p < Point::COUNT {
        let mut c = 0;
        while c < 24 {
            let mut k = 0;
            while k < 3 {
                let (ns, v) = splitmix(state);
                state = ns;
                t[p][c][k] = v;
                k += 1;
            }
            c += 1;
        }
        p += 1;
    }
    t
}

static ZOBRIST_PIECES: [[[u64; 3]; 24]; Point::COUNT] = zobrist_pieces();
pub(super) const ZOBRIST_SIDE: [u64; 3] =
    [splitmix(0x5349_4445_0001).1, splitmix(0x5349_4445_0002).1, splitmix(0x5349_4445_0003).1];
pub(super) const ZOBRIST_DEFEATED: [u64; 3] =
    [splitmix(0x4445_4645_0001).1, splitmix(0x4445_4645_0002).1, splitmix(0x4445_4645_0003).1];

#[inline(always)]
pub(super) fn zobrist(point: usize, code: u8, controller: Kingdom) -> u64 {
    ZOBRIST_PIECES[point][code as usize - 1][controller.index()]
}

impl Position {
    /// The key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        let mut key = ZOBRIST_SIDE[self.side.index()];
        for (i, &code) in self.board.iter().enumerate() {
            if code != EMPTY {
                key ^= zobrist(i, code, self.controller[origin_of(code)]);
            }
        }
        for k in Kingdom::ALL {
            if self.is_defeated(k) {
                key ^= ZOBRIST_DEFEATED[k.index()];
            }
        }
        key
    }
}
