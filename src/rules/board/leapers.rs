//! Leaper tables shared by the 9x10 variants: each horse step with the leg that must
//! be empty, from every point and towards every point, built at compile time.

use super::Bitboard;
use super::lines::bit_at;

/// One step of a blockable leaper: the point that must be empty, then the target.
#[derive(Clone, Copy, Debug, Default)]
pub struct Step {
    /// The point (index) that must be empty: the horse's leg.
    pub block: u8,
    /// The target point (index).
    pub to: u8,
}

/// Up to eight blockable steps from one point.
#[derive(Clone, Copy, Debug)]
pub struct Steps {
    /// How many steps are listed.
    pub len: u8,
    /// The steps; the first `len` count.
    pub list: [Step; 8],
}

impl Steps {
    const EMPTY: Steps = Steps { len: 0, list: [Step { block: 0, to: 0 }; 8] };

    const fn with(mut self, block: usize, to: usize) -> Steps {
        self.list[self.len as usize] = Step { block: block as u8, to: to as u8 };
        self.len += 1;
        self
    }

    /// The listed steps.
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

/// Each point's steps of `steps` grouped by leg: the up to four legs, each with the
/// points it opens (two, fewer at the edge). Unused slots open nothing.
const fn group_by_leg(steps: &[Steps; 90]) -> [[(u8, Bitboard); 4]; 90] {
    let mut t = [[(0u8, 0u128); 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut i = 0;
        while i < steps[s].len as usize {
            let (leg, to) = (steps[s].list[i].block, 1u128 << steps[s].list[i].to);
            let mut slot = 0;
            while t[s][slot].1 != 0 && t[s][slot].0 != leg {
                slot += 1;
            }
            t[s][slot] = (leg, t[s][slot].1 | to);
            i += 1;
        }
        s += 1;
    }
    t
}

/// A horse's moves from each point grouped by leg, the leg as a mask: the targets each
/// leg opens. Unused slots have no leg.
const fn horse_legs_table() -> [[(Bitboard, Bitboard); 4]; 90] {
    let by_leg = group_by_leg(&HORSE.0);
    let mut t = [[(0u128, 0u128); 4]; 90];
    let mut s = 0;
    while s < 90 {
        let mut slot = 0;
        while slot < 4 {
            let (leg, through) = by_leg[s][slot];
            if through != 0 {
                t[s][slot] = (1u128 << leg, through);
            }
            slot += 1;
        }
        s += 1;
    }
    t
}

static HORSE_BY_LEG: [[(Bitboard, Bitboard); 4]; 90] = horse_legs_table();

/// The attackers of each point for a table of each side's steps: `attackers[c][t]`
/// holds the points from which a step of `steps[c]` reaches `t` (a pawn's or a
/// soldier's, whose steps nothing blocks).
pub const fn attackers_of(steps: &[[Bitboard; 90]; 2]) -> [[Bitboard; 90]; 2] {
    let mut attackers = [[0u128; 90]; 2];
    let mut c = 0;
    while c < 2 {
        let mut s = 0;
        while s < 90 {
            let mut t = 0;
            while t < 90 {
                if steps[c][s] & (1u128 << t) != 0 {
                    attackers[c][t] |= 1u128 << s;
                }
                t += 1;
            }
            s += 1;
        }
        c += 1;
    }
    attackers
}

/// Points from which a horse could attack a point (ignoring legs): a cheap pre-test.
pub static HORSE_ZONES: [Bitboard; 90] = horse_zones();

/// The horses that may attack each point, grouped by leg: each of the up to four points
/// diagonally next to the target, and the horse points (two, fewer at the edge) whose
/// leg it is.
static HORSE_ATTACKERS_BY_LEG: [[(u8, Bitboard); 4]; 90] = group_by_leg(&HORSE.1);

/// The legs of the horses of `horses` that attack `target` on an empty board: a piece
/// moved off one of them may open a check.
#[inline]
pub fn horse_legs(horses: Bitboard, target: usize) -> Bitboard {
    let mut legs = 0;
    for &(leg, through) in &HORSE_ATTACKERS_BY_LEG[target] {
        if horses & through != 0 {
            legs |= bit_at(leg as usize);
        }
    }
    legs
}

/// Does a horse of `horses` attack `target`, its leg empty (`empty(point)`)?
#[inline]
pub fn horse_attacks(horses: Bitboard, target: usize, empty: impl Fn(usize) -> bool) -> bool {
    horses & HORSE_ZONES[target] != 0
        && HORSE_ATTACKERS_BY_LEG[target].iter().any(|&(leg, through)| horses & through != 0 && empty(leg as usize))
}

/// The horses of `horses` that attack `target`, each with its leg empty (`empty(point)`).
#[inline]
pub fn horse_attackers(horses: Bitboard, target: usize, empty: impl Fn(usize) -> bool) -> Bitboard {
    let mut found = 0;
    for &(leg, through) in &HORSE_ATTACKERS_BY_LEG[target] {
        if horses & through != 0 && empty(leg as usize) {
            found |= horses & through;
        }
    }
    found
}

/// The points a horse on `from` can step to, its leg empty (`empty`: the empty points),
/// whatever stands there.
#[inline(always)]
pub fn horse_targets(from: usize, empty: Bitboard) -> Bitboard {
    let mut targets = 0;
    for &(leg, through) in &HORSE_BY_LEG[from] {
        if empty & leg != 0 {
            targets |= through;
        }
    }
    targets
}
