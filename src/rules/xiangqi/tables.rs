//! Xiangqi's own step tables: general, advisor, elephant and pawn, per colour. The horse
//! and the sliders are shared 9x10 geometry (`rules::board`).

use crate::rules::board::{Bitboard, Steps, attackers_of};

const fn on_board(f: i32, r: i32) -> bool {
    f >= 0 && f < 9 && r >= 0 && r < 10
}

/// Is `(f, r)` inside the palace of `color` (0 red, 1 black)?
pub const fn in_palace(color: usize, f: i32, r: i32) -> bool {
    f >= 3 && f <= 5 && if color == 0 { r >= 0 && r <= 2 } else { r >= 7 && r <= 9 }
}

/// Is rank `r` on `color`'s own side of the river?
pub const fn own_side(color: usize, r: i32) -> bool {
    if color == 0 { r <= 4 } else { r >= 5 }
}

const fn bb(f: i32, r: i32) -> Bitboard {
    1u128 << (r * 9 + f)
}

const fn palace_steps(diagonal: bool) -> [[Bitboard; 90]; 2] {
    let mut t = [[0u128; 90]; 2];
    let deltas: [(i32, i32); 4] =
        if diagonal { [(1, 1), (1, -1), (-1, 1), (-1, -1)] } else { [(1, 0), (-1, 0), (0, 1), (0, -1)] };
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + deltas[d].0, r + deltas[d].1);
                if in_palace(c, nf, nr) {
                    t[c][s] |= bb(nf, nr);
                }
                d += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
}

/// `GENERAL_STEPS[color][from]`: one orthogonal step inside the palace.
pub static GENERAL_STEPS: [[Bitboard; 90]; 2] = palace_steps(false);
/// `ADVISOR_STEPS[color][from]`: one diagonal step inside the palace.
pub static ADVISOR_STEPS: [[Bitboard; 90]; 2] = palace_steps(true);

const fn elephant_steps() -> [[Steps; 90]; 2] {
    let empty = Steps { len: 0, list: [crate::rules::board::Step { block: 0, to: 0 }; 8] };
    let mut t = [[empty; 90]; 2];
    let deltas: [(i32, i32); 4] = [(2, 2), (2, -2), (-2, 2), (-2, -2)];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let (f, r) = ((s % 9) as i32, (s / 9) as i32);
            let mut d = 0;
            while d < 4 {
                let (nf, nr) = (f + deltas[d].0, r + deltas[d].1);
                if on_board(nf, nr) && own_side(c, nr) {
                    let eye = ((r + deltas[d].1 / 2) * 9 + f + deltas[d].0 / 2) as u8;
                    let n = t[c][s].len as usize;
                    t[c][s].list[n] = crate::rules::board::Step { block: eye, to: (nr * 9 + nf) as u8 };
                    t[c][s].len += 1;
                }
                d += 1;
            }
            s += 1;
        }
        c += 1;
    }
    t
}

/// `ELEPHANT_STEPS[color][from]`: the eye and the target of each elephant move; the
/// elephant never crosses the river.
pub static ELEPHANT_STEPS: [[Steps; 90]; 2] = elephant_steps();

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
            if !own_side(c, r) {
                if f > 0 {
                    targets |= bb(f - 1, r);
                }
                if f < 8 {
                    targets |= bb(f + 1, r);
                }
            }
            steps[c][s] = targets;
            s += 1;
        }
        c += 1;
    }
    steps
}

const SOLDIER: [[Bitboard; 90]; 2] = soldier_tables();
/// `SOLDIER_STEPS[color][from]`: forward, and sideways once across the river.
pub static SOLDIER_STEPS: [[Bitboard; 90]; 2] = SOLDIER;
/// `SOLDIER_ATTACKERS[color][target]`: the points from which a soldier of `color` reaches
/// `target`.
pub static SOLDIER_ATTACKERS: [[Bitboard; 90]; 2] = attackers_of(&SOLDIER);

const fn reachable(table: &[[Bitboard; 90]; 2], c: usize, start: Bitboard) -> Bitboard {
    // Closure of `start` under one colour's steps: the points a piece can ever stand on.
    let mut set = start;
    loop {
        let mut next = set;
        let mut s = 0;
        while s < 90 {
            if set & (1u128 << s) != 0 {
                next |= table[c][s];
            }
            s += 1;
        }
        if next == set {
            return set;
        }
        set = next;
    }
}

const fn elephant_reach(c: usize) -> Bitboard {
    let start = if c == 0 { bb(2, 0) | bb(6, 0) } else { bb(2, 9) | bb(6, 9) };
    let mut set = start;
    loop {
        let mut next = set;
        let mut s = 0;
        while s < 90 {
            if set & (1u128 << s) != 0 {
                let st = ELEPHANT_STEPS_CONST[c][s];
                let mut i = 0;
                while i < st.len as usize {
                    next |= 1u128 << st.list[i].to;
                    i += 1;
                }
            }
            s += 1;
        }
        if next == set {
            return set;
        }
        set = next;
    }
}

const ELEPHANT_STEPS_CONST: [[Steps; 90]; 2] = elephant_steps();
const SOLDIER_STEPS_CONST: [[Bitboard; 90]; 2] = SOLDIER;
const ADVISOR_STEPS_CONST: [[Bitboard; 90]; 2] = palace_steps(true);

const fn soldier_starts(c: usize) -> Bitboard {
    let r = if c == 0 { 3 } else { 6 };
    bb(0, r) | bb(2, r) | bb(4, r) | bb(6, r) | bb(8, r)
}

/// `PALACE[color]`: the nine points of a palace (the same in Janggi).
pub use crate::rules::board::PALACE;
/// `ADVISOR_POINTS[color]`: the five points an advisor can stand on.
pub const ADVISOR_POINTS: [Bitboard; 2] =
    [reachable(&ADVISOR_STEPS_CONST, 0, bb(3, 0) | bb(5, 0)), reachable(&ADVISOR_STEPS_CONST, 1, bb(3, 9) | bb(5, 9))];
/// `ELEPHANT_POINTS[color]`: the seven points an elephant can stand on.
pub const ELEPHANT_POINTS: [Bitboard; 2] = [elephant_reach(0), elephant_reach(1)];
/// `PAWN_POINTS[color]`: the points a pawn can ever reach from its start points.
pub const PAWN_POINTS: [Bitboard; 2] =
    [reachable(&SOLDIER_STEPS_CONST, 0, soldier_starts(0)), reachable(&SOLDIER_STEPS_CONST, 1, soldier_starts(1))];

const fn stepping_into(c: usize, zone: Bitboard) -> Bitboard {
    let mut set = 0;
    let mut s = 0;
    while s < 90 {
        if SOLDIER_STEPS_CONST[c][s] & zone != 0 {
            set |= 1u128 << s;
        }
        s += 1;
    }
    set
}

/// `PAWNS_INTO_PALACE[color]`: the points from which a pawn of `color` steps into the
/// other side's palace.
pub const PAWNS_INTO_PALACE: [Bitboard; 2] = [stepping_into(0, PALACE[1]), stepping_into(1, PALACE[0])];
