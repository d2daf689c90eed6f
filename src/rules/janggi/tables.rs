//! Janggi's own tables, all built at compile time: the palace and its lines (with the
//! two diagonals), the elephant, the soldier, and what a cannon may jump to along a rank
//! or a file. The horse and the chariot's rank and file views are shared 9x10 geometry
//! (`rules::board`).

use crate::rules::board::{Bitboard, NO_STOP, attackers_of};

const fn on_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

const fn bb(f: i32, r: i32) -> Bitboard {
    1u128 << (r * 9 + f)
}

const fn sq(f: i32, r: i32) -> u8 {
    (r * 9 + f) as u8
}

/// The palace holding `(f, r)`: `0` for Cho's (ranks 0-2), `1` for Han's (ranks 7-9).
pub const fn palace_of(f: i32, r: i32) -> Option<usize> {
    if f < 3 || f > 5 {
        None
    } else if r >= 0 && r <= 2 {
        Some(0)
    } else if r >= 7 && r <= 9 {
        Some(1)
    } else {
        None
    }
}

/// Is `(f, r)` a point of a palace diagonal (a corner or a centre)?
const fn on_diagonal(f: i32, r: i32) -> bool {
    match palace_of(f, r) {
        Some(c) => {
            let centre_rank = if c == 0 { 1 } else { 8 };
            (f == 4 && r == centre_rank) || (f != 4 && r != centre_rank)
        }
        None => false,
    }
}

const fn diagonal_points() -> Bitboard {
    let mut set = 0u128;
    let mut s = 0;
    while s < 90 {
        if on_diagonal(s % 9, s / 9) {
            set |= 1u128 << s;
        }
        s += 1;
    }
    set
}

/// `PALACE[color]`: the nine points of a side's palace (Cho 0, Han 1; the same as
/// Xiangqi's).
pub use crate::rules::board::PALACE;
/// The corners and centres of both palaces: the points the diagonals join.
pub const DIAGONAL_POINTS: Bitboard = diagonal_points();

const fn palace_steps() -> [Bitboard; 90] {
    let mut t = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if let Some(home) = palace_of(f, r) {
            let mut df = -1;
            while df <= 1 {
                let mut dr = -1;
                while dr <= 1 {
                    let (nf, nr) = (f + df, r + dr);
                    let diagonal = df != 0 && dr != 0;
                    let same_palace = match palace_of(nf, nr) {
                        Some(p) => p == home,
                        None => false,
                    };
                    if (df != 0 || dr != 0) && same_palace && (!diagonal || (on_diagonal(f, r) && on_diagonal(nf, nr)))
                    {
                        t[s] |= bb(nf, nr);
                    }
                    dr += 1;
                }
                df += 1;
            }
        }
        s += 1;
    }
    t
}

/// `PALACE_STEPS[from]`: one step along a line of the palace holding `from`
/// (orthogonal, or diagonal where a diagonal is drawn): the general's and the guards'
/// moves. Empty outside the palaces.
pub static PALACE_STEPS: [Bitboard; 90] = palace_steps();

/// A ray along a palace diagonal: the next point, then the one after it or [`NO_STOP`]
/// when the diagonal ends there.
pub type Ray = [u8; 2];

/// The rays along the palace diagonals from one point.
#[derive(Clone, Copy, Debug)]
pub struct Rays {
    /// How many rays are listed.
    pub len: u8,
    /// The rays; the first `len` count.
    pub list: [Ray; 4],
}

impl Rays {
    const EMPTY: Rays = Rays { len: 0, list: [[NO_STOP; 2]; 4] };

    const fn with(mut self, ray: Ray) -> Rays {
        self.list[self.len as usize] = ray;
        self.len += 1;
        self
    }

    /// The listed rays.
    #[inline(always)]
    pub fn as_slice(&self) -> &[Ray] {
        &self.list[..self.len as usize]
    }
}

const fn diagonal_rays() -> [Rays; 90] {
    let mut t = [Rays::EMPTY; 90];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        if on_diagonal(f, r) {
            let centre_rank = if r <= 2 { 1 } else { 8 };
            if f == 4 && r == centre_rank {
                // The centre: one step to each corner.
                let mut i = 0;
                while i < 4 {
                    let (cf, cr) = (f + if i & 1 == 0 { -1 } else { 1 }, r + if i & 2 == 0 { -1 } else { 1 });
                    t[s] = t[s].with([sq(cf, cr), NO_STOP]);
                    i += 1;
                }
            } else {
                // A corner: through the centre to the opposite corner.
                t[s] = t[s].with([sq(4, centre_rank), sq(8 - f, 2 * centre_rank - r)]);
            }
        }
        s += 1;
    }
    t
}

/// `DIAGONAL_RAYS[from]`: the rays along palace diagonals from a point (none off the
/// diagonals). Chariots slide and cannons jump along them; they are symmetric, so the
/// same rays from a general find the pieces that attack it along a diagonal.
pub static DIAGONAL_RAYS: [Rays; 90] = diagonal_rays();

/// One elephant move: the two points it passes, which must be empty, and its target
/// (or, in [`ELEPHANT_ATTACKERS`], the elephant's point).
#[derive(Clone, Copy, Debug)]
pub struct ElephantStep {
    /// The two points passed, which must be empty.
    pub blocks: [u8; 2],
    /// The target point (or the elephant's, for attackers).
    pub to: u8,
}

/// Up to eight elephant moves from (or onto) one point.
#[derive(Clone, Copy, Debug)]
pub struct ElephantSteps {
    /// How many steps are listed.
    pub len: u8,
    /// The steps; the first `len` count.
    pub list: [ElephantStep; 8],
}

impl ElephantSteps {
    const EMPTY: ElephantSteps = ElephantSteps { len: 0, list: [ElephantStep { blocks: [0; 2], to: 0 }; 8] };

    const fn with(mut self, step: ElephantStep) -> ElephantSteps {
        self.list[self.len as usize] = step;
        self.len += 1;
        self
    }

    /// The listed steps.
    #[inline(always)]
    pub fn as_slice(&self) -> &[ElephantStep] {
        &self.list[..self.len as usize]
    }
}

const fn elephant_tables() -> ([ElephantSteps; 90], [ElephantSteps; 90]) {
    let mut moves = [ElephantSteps::EMPTY; 90];
    let mut attackers = [ElephantSteps::EMPTY; 90];
    let orthogonal: [(i32, i32); 4] = [(0, 1), (0, -1), (1, 0), (-1, 0)];
    let mut s = 0;
    while s < 90 {
        let (f, r) = ((s % 9) as i32, (s / 9) as i32);
        let mut d = 0;
        while d < 8 {
            // One orthogonal step, then two diagonal steps outward the same way.
            let (of, or) = orthogonal[d / 2];
            let side = if d % 2 == 0 { 1 } else { -1 };
            let (df, dr) = (of + if of == 0 { side } else { 0 }, or + if or == 0 { side } else { 0 });
            let (tf, tr) = (f + of + 2 * df, r + or + 2 * dr);
            if on_board(tf, tr) {
                let blocks = [sq(f + of, r + or), sq(f + of + df, r + or + dr)];
                let to = sq(tf, tr) as usize;
                moves[s] = moves[s].with(ElephantStep { blocks, to: to as u8 });
                attackers[to] = attackers[to].with(ElephantStep { blocks, to: s as u8 });
            }
            d += 1;
        }
        s += 1;
    }
    (moves, attackers)
}

const ELEPHANT: ([ElephantSteps; 90], [ElephantSteps; 90]) = elephant_tables();
/// `ELEPHANT_MOVES[from]`: the points passed and the target of each elephant move.
pub static ELEPHANT_MOVES: [ElephantSteps; 90] = ELEPHANT.0;
/// `ELEPHANT_ATTACKERS[target]`: for each point an elephant could reach `target` from,
/// the points it passes (`blocks`) and the elephant's point (`to`).
pub static ELEPHANT_ATTACKERS: [ElephantSteps; 90] = ELEPHANT.1;

const fn elephant_zones() -> [Bitboard; 90] {
    let mut z = [0u128; 90];
    let mut s = 0;
    while s < 90 {
        let a = ELEPHANT.1[s];
        let mut i = 0;
        while i < a.len as usize {
            z[s] |= 1u128 << a.list[i].to;
            i += 1;
        }
        s += 1;
    }
    z
}

/// Points from which an elephant could attack a point (ignoring blocks): a cheap
/// pre-test.
pub static ELEPHANT_ZONES: [Bitboard; 90] = elephant_zones();

const fn soldier_tables() -> [[Bitboard; 90]; 2] {
    let mut steps = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let forward = if c == 0 { 1 } else { -1 };
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            let mut targets = 0u128;
            if on_board(f, r + forward) {
                targets |= bb(f, r + forward);
            }
            if f > 0 {
                targets |= bb(f - 1, r);
            }
            if f < 8 {
                targets |= bb(f + 1, r);
            }
            // Diagonally forward along a diagonal of the enemy palace.
            let mut df = -1;
            while df <= 1 {
                let (nf, nr) = (f + df, r + forward);
                let enemy_palace = match palace_of(f, r) {
                    Some(p) => p != c,
                    None => false,
                };
                if enemy_palace && on_diagonal(f, r) && on_board(nf, nr) && on_diagonal(nf, nr) {
                    targets |= bb(nf, nr);
                }
                df += 2;
            }
            steps[c][s] = targets;
            s += 1;
        }
        c += 1;
    }
    steps
}

const SOLDIER: [[Bitboard; 90]; 2] = soldier_tables();
/// `SOLDIER_STEPS[color][from]`: forward, sideways, and diagonally forward along the
/// diagonals of the enemy palace.
pub static SOLDIER_STEPS: [[Bitboard; 90]; 2] = SOLDIER;
/// `SOLDIER_ATTACKERS[color][target]`: the points from which a soldier of `color`
/// reaches `target`.
pub static SOLDIER_ATTACKERS: [[Bitboard; 90]; 2] = attackers_of(&SOLDIER);

/// Ranks a soldier of each side can stand on: never behind its start rank.
pub const SOLDIER_POINTS: [Bitboard; 2] = [!0u128 << 27 & crate::rules::board::ALL_SQUARES, (1u128 << 63) - 1];

/// For a cannon at `pos` on a line of `len` points with occupancy `occ`: in each
/// direction (`[below, above]`), the empty points between the first piece (the screen)
/// and the second piece (or the end of the line). Nothing if there is no screen.
const fn jumps(pos: usize, occ: usize, len: usize) -> [u16; 2] {
    let mut out = [0u16; 2];
    // below
    let mut screen = false;
    let mut i = pos;
    while i > 0 {
        i -= 1;
        if occ & (1 << i) != 0 {
            if screen {
                break;
            }
            screen = true;
        } else if screen {
            out[0] |= 1 << i;
        }
    }
    screen = false;
    i = pos + 1;
    while i < len {
        if occ & (1 << i) != 0 {
            if screen {
                break;
            }
            screen = true;
        } else if screen {
            out[1] |= 1 << i;
        }
        i += 1;
    }
    out
}

const fn rank_jumps() -> [[[u16; 2]; 512]; 9] {
    let mut t = [[[0u16; 2]; 512]; 9];
    let mut pos = 0;
    while pos < 9 {
        let mut occ = 0;
        while occ < 512 {
            t[pos][occ] = jumps(pos, occ, 9);
            occ += 1;
        }
        pos += 1;
    }
    t
}

const fn file_jumps() -> [[[u16; 2]; 1024]; 10] {
    let mut t = [[[0u16; 2]; 1024]; 10];
    let mut pos = 0;
    while pos < 10 {
        let mut occ = 0;
        while occ < 1024 {
            t[pos][occ] = jumps(pos, occ, 10);
            occ += 1;
        }
        pos += 1;
    }
    t
}

/// `RANK_JUMPS[file][rank occupancy]`: a cannon's quiet targets beyond its screen along
/// a rank, per direction (line positions, as in `board::LineView`).
pub static RANK_JUMPS: [[[u16; 2]; 512]; 9] = rank_jumps();
/// `FILE_JUMPS[rank][file occupancy]`: the same along a file.
pub static FILE_JUMPS: [[[u16; 2]; 1024]; 10] = file_jumps();

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::board::squares;
    use crate::rules::types::Square;

    fn set(names: &[&str]) -> Bitboard {
        names.iter().map(|n| 1u128 << Square::parse(n).unwrap().index()).fold(0, |a, b| a | b)
    }

    #[test]
    fn palace_lines() {
        let at = |n: &str| PALACE_STEPS[Square::parse(n).unwrap().index()];
        assert_eq!(at("e1"), set(&["d0", "e0", "f0", "d1", "f1", "d2", "e2", "f2"]));
        assert_eq!(at("d0"), set(&["e0", "d1", "e1"]));
        assert_eq!(at("e0"), set(&["d0", "f0", "e1"]));
        assert_eq!(at("d1"), set(&["d0", "d2", "e1"]));
        assert_eq!(at("f9"), set(&["e9", "f8", "e8"]));
        assert_eq!(at("e7"), set(&["d7", "f7", "e8"]));
        assert_eq!(at("e4"), 0);
        assert_eq!(PALACE[0].count_ones(), 9);
        assert_eq!(DIAGONAL_POINTS, set(&["d0", "f0", "e1", "d2", "f2", "d7", "f7", "e8", "d9", "f9"]));
    }

    #[test]
    fn diagonal_rays() {
        let rays = |n: &str| DIAGONAL_RAYS[Square::parse(n).unwrap().index()].as_slice().to_vec();
        let s = |n: &str| Square::parse(n).unwrap().index() as u8;
        assert_eq!(rays("d0"), vec![[s("e1"), s("f2")]]);
        assert_eq!(rays("f7"), vec![[s("e8"), s("d9")]]);
        assert_eq!(rays("e8").len(), 4);
        assert!(rays("e8").iter().all(|r| r[1] == NO_STOP));
        assert!(rays("e0").is_empty());
    }

    #[test]
    fn elephant_moves() {
        let from = Square::parse("c0").unwrap().index();
        let targets: Bitboard = ELEPHANT_MOVES[from].as_slice().iter().map(|st| 1u128 << st.to).sum();
        assert_eq!(targets, set(&["a3", "e3", "f2"]));
        let e4 = Square::parse("e4").unwrap().index();
        assert_eq!(ELEPHANT_MOVES[e4].len, 8);
        let to_a3 = ELEPHANT_MOVES[from].as_slice().iter().find(|st| st.to == s("a3")).unwrap();
        assert_eq!(to_a3.blocks, [s("c1"), s("b2")]);
        fn s(n: &str) -> u8 {
            Square::parse(n).unwrap().index() as u8
        }
        for (t, attackers) in ELEPHANT_ATTACKERS.iter().enumerate() {
            for st in attackers.as_slice() {
                assert!(ELEPHANT_MOVES[st.to as usize].as_slice().iter().any(|m| m.to as usize == t));
            }
        }
    }

    #[test]
    fn soldier_steps() {
        let at = |c: usize, n: &str| SOLDIER_STEPS[c][Square::parse(n).unwrap().index()];
        assert_eq!(at(0, "a3"), set(&["a4", "b3"]));
        assert_eq!(at(0, "d7"), set(&["d8", "c7", "e7", "e8"]));
        assert_eq!(at(0, "e8"), set(&["e9", "d8", "f8", "d9", "f9"]));
        assert_eq!(at(0, "d8"), set(&["d9", "c8", "e8"]));
        assert_eq!(at(0, "e9"), set(&["d9", "f9"]));
        assert_eq!(at(1, "f2"), set(&["f1", "e2", "g2", "e1"]));
        assert_eq!(at(1, "e1"), set(&["e0", "d1", "f1", "d0", "f0"]));
        for s in squares(SOLDIER_POINTS[0]) {
            assert!(s.rank() >= 3);
        }
        assert_eq!(SOLDIER_POINTS[0].count_ones(), 63);
        assert_eq!(SOLDIER_POINTS[1].count_ones(), 63);
        assert!(squares(SOLDIER_POINTS[1]).all(|s| s.rank() <= 6));
    }

    #[test]
    fn cannon_jumps() {
        // Cannon on position 1, screens on 3 and 6 of a 9-point line: 4 and 5 beyond.
        assert_eq!(jumps(1, 0b0100_1010, 9), [0, 0b0011_0000]);
        // Nothing to jump below; a screen at 0 leaves nothing beyond it.
        assert_eq!(jumps(2, 0b0000_0101, 9), [0, 0]);
        assert_eq!(jumps(9, 0b10_0000_0001, 10), [0, 0]);
        assert_eq!(jumps(9, 0b11_0000_0000, 10)[0], 0b0_1111_1111);
    }
}
