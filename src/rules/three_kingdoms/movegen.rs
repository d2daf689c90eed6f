//! Moves, legal move generation and the attack test.
//!
//! Moves are generated from the step tables of [`super::geometry`] and each one that
//! can matter (see `Guard`) is tested on the board as it would be after the whole move,
//! including the takeover when it captures a general: the mover's general must be
//! attacked by no rival piece and face no rival general along a clear straight line.
//! The test reads the board through the move without changing it.
//!
//! Only chariots, cannons, horses, flag bearers, soldiers and (for facing) generals are
//! looked for: an advisor or an elephant never leaves its original half, and the only
//! general in that half is its own kingdom's, which controls it while it is in play.

use super::geometry::{Point, geometry};
use super::moves::{Move, MoveList};
use super::piece::{EMPTY, Kind, Piece, kind_of, origin_of};
use super::position::Position;

const GENERAL: u8 = Kind::General as u8;
const ADVISOR: u8 = Kind::Advisor as u8;
const ELEPHANT: u8 = Kind::Elephant as u8;
const HORSE: u8 = Kind::Horse as u8;
const CHARIOT: u8 = Kind::Chariot as u8;
const CANNON: u8 = Kind::Cannon as u8;
const SOLDIER: u8 = Kind::Soldier as u8;

/// A set of points, one bit per point in the layout of `Position::army`.
#[derive(Clone, Copy, Default)]
struct Points([u64; 3]);

impl Points {
    #[inline(always)]
    fn insert(&mut self, p: Point) {
        self.0[p.index() / 45] |= 1 << (p.index() % 45);
    }

    #[inline(always)]
    fn contains(&self, i: usize) -> bool {
        self.0[i / 45] & 1 << (i % 45) != 0
    }
}

/// Which moves can expose the general, so that only those are tested. When the general
/// is neither attacked nor facing another, a move of another piece matters only if it
/// leaves a line from the general (opening it, or removing a cannon's screen), a horse
/// leg or a flag bearer's path towards it, or lands on a line from the general (a new
/// cannon screen). Landing elsewhere only blocks, capturing only removes a rival piece,
/// and taking a general only turns rivals into the mover's pieces.
struct Guard {
    all: bool,
    from: Points,
    onto: Points,
}

impl Guard {
    const EVERY_MOVE: Guard = Guard { all: true, from: Points([0; 3]), onto: Points([0; 3]) };

    #[inline(always)]
    fn needs_test(&self, from: usize, to: usize) -> bool {
        self.all || self.from.contains(from) || self.onto.contains(to)
    }
}

/// The board seen through a move: `moved` on `to`, nothing on `from`.
#[derive(Clone, Copy)]
struct Through {
    from: usize,
    to: usize,
    moved: u8,
}

impl Through {
    /// The board as it is.
    const NOTHING: Through = Through { from: usize::MAX, to: usize::MAX, moved: EMPTY };
}

impl Position {
    /// Bit `o` set when the pieces that started in kingdom `o` are controlled by `k`.
    #[inline(always)]
    fn armies_of(&self, k: usize) -> u8 {
        (self.controller[0] as usize == k) as u8
            | ((self.controller[1] as usize == k) as u8) << 1
            | ((self.controller[2] as usize == k) as u8) << 2
    }

    #[inline(always)]
    fn at(&self, t: &Through, i: usize) -> u8 {
        if i == t.to {
            t.moved
        } else if i == t.from {
            EMPTY
        } else {
            self.board[i]
        }
    }

    /// Calls `found` for every rival piece (an army whose bit is set in `rivals`) that
    /// attacks `king`, or faces it if a general, on the board seen through `t`; stops
    /// and returns true when `found` does. A piece on a line that branches can be
    /// reported twice.
    #[inline(always)]
    fn scan_attackers(&self, king: usize, t: &Through, rivals: u8, mut found: impl FnMut(Point) -> bool) -> bool {
        let g = geometry();
        let rival = |c: u8| c != EMPTY && rivals & (1 << origin_of(c)) != 0;
        for ray in g.rays[king].as_slice() {
            let pts = ray.points();
            let mut i = 0;
            while i < pts.len() && self.at(t, pts[i].index()) == EMPTY {
                i += 1;
            }
            if i == pts.len() {
                continue;
            }
            let c = self.at(t, pts[i].index());
            if rival(c) && matches!(kind_of(c), CHARIOT | GENERAL) && found(pts[i]) {
                return true;
            }
            i += 1;
            while i < pts.len() && self.at(t, pts[i].index()) == EMPTY {
                i += 1;
            }
            if i < pts.len() {
                let c = self.at(t, pts[i].index());
                if rival(c) && kind_of(c) == CANNON && found(pts[i]) {
                    return true;
                }
            }
        }
        for st in g.horse_to[king].as_slice() {
            let c = self.at(t, st.to.index());
            if rival(c) && kind_of(c) == HORSE && self.at(t, st.block.index()) == EMPTY && found(st.to) {
                return true;
            }
        }
        for st in g.flag_bearer_to[king].as_slice() {
            let c = self.at(t, st.to.index());
            if rival(c)
                && kind_of(c) == Kind::FlagBearer as u8
                && self.at(t, st.first.index()) == EMPTY
                && self.at(t, st.second.index()) == EMPTY
                && found(st.to)
            {
                return true;
            }
        }
        for o in 0..3 {
            if rivals & (1 << o) == 0 {
                continue;
            }
            let soldier = Piece::new(Kind::Soldier, super::Kingdom::from_index(o)).code();
            for &p in g.soldier_to[o][king].as_slice() {
                if self.at(t, p.index()) == soldier && found(p) {
                    return true;
                }
            }
        }
        false
    }

    /// After moving `from`-`to` (with the takeover if it captures a general), would the
    /// general of `us` on `king` (before the move) be attacked or face a rival general?
    #[inline(always)]
    fn exposed_after(&self, us: usize, king: usize, from: usize, to: usize) -> bool {
        self.attacker_after(us, king, from, to, |_| true)
    }

    /// Would the side to move's general face a rival general after `m` (with the
    /// takeover if it captures a general)?
    pub(super) fn faces_a_general_after(&self, m: Move) -> bool {
        let Some(king) = self.general(self.side) else { return false };
        let (from, to) = (m.from().index(), m.to().index());
        self.attacker_after(self.side.index(), king.index(), from, to, |code| kind_of(code) == GENERAL)
    }

    /// After moving `from`-`to` (with the takeover if it captures a general), is the
    /// general of `us` on `king` (before the move) attacked or faced by a rival piece
    /// whose board code `wanted` accepts?
    #[inline(always)]
    fn attacker_after(&self, us: usize, king: usize, from: usize, to: usize, wanted: impl Fn(u8) -> bool) -> bool {
        let captured = self.board[to];
        let mut rivals = !self.armies_of(us) & 7;
        if captured != EMPTY && kind_of(captured) == GENERAL {
            rivals &= !self.armies_of(origin_of(captured));
        }
        let king = if from == king { to } else { king };
        let t = Through { from, to, moved: self.board[from] };
        self.scan_attackers(king, &t, rivals, |p| wanted(self.at(&t, p.index())))
    }

    fn guard(&self, us: usize, king: usize) -> Guard {
        let rivals = !self.armies_of(us) & 7;
        let all = self.scan_attackers(king, &Through::NOTHING, rivals, |_| true);
        let g = geometry();
        let mut onto = Points::default();
        for ray in g.rays[king].as_slice() {
            for &p in ray.points() {
                onto.insert(p);
            }
        }
        let mut from = onto;
        from.insert(Point::from_index_unchecked(king));
        for st in g.horse_to[king].as_slice() {
            from.insert(st.block);
        }
        for st in g.flag_bearer_to[king].as_slice() {
            from.insert(st.first);
            from.insert(st.second);
        }
        Guard { all, from, onto }
    }

    /// Is the side to move's general attacked, or facing a rival general?
    pub fn in_check(&self) -> bool {
        match self.general(self.side) {
            Some(k) => {
                let rivals = !self.armies_of(self.side.index()) & 7;
                self.scan_attackers(k.index(), &Through::NOTHING, rivals, |_| true)
            }
            None => false,
        }
    }

    /// The rival pieces that attack `k`'s general or, for generals, face it.
    pub fn attackers_of_general(&self, k: super::Kingdom) -> Vec<Point> {
        let mut out = Vec::new();
        if let Some(g) = self.general(k) {
            let rivals = !self.armies_of(k.index()) & 7;
            self.scan_attackers(g.index(), &Through::NOTHING, rivals, |p| {
                if !out.contains(&p) {
                    out.push(p);
                }
                false
            });
        }
        out
    }

    /// Appends every legal move of the side to move to `list` (none once the game is
    /// won).
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.generate::<false, false, false>(list);
    }

    /// Appends the legal captures of the side to move to `list` (the legal moves onto
    /// a rival piece, generals included).
    #[inline]
    pub fn legal_captures(&self, list: &mut MoveList) {
        self.generate::<false, false, true>(list);
    }

    /// How many legal moves there are.
    pub fn legal_move_count(&self) -> usize {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.len()
    }

    /// Does the side to move have a legal move? Stops at the first one.
    pub(super) fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        self.generate::<true, false, false>(&mut list)
    }

    /// Appends every move the side to move's pieces can make, whether or not it
    /// leaves its general attacked or facing a rival general (for explaining why a
    /// move is illegal).
    pub fn pseudo_legal_moves(&self, list: &mut MoveList) {
        self.generate::<false, true, false>(list);
    }

    /// Appends the legal moves to `list`; with `FIRST`, stops after the first and
    /// returns whether there was one; with `CAPTURES`, only the captures.
    fn generate<const FIRST: bool, const PSEUDO: bool, const CAPTURES: bool>(&self, list: &mut MoveList) -> bool {
        let us = self.side.index();
        let king = self.generals[us] as usize;
        if self.controller[us].index() != us || self.live_count() < 2 {
            return false;
        }
        let g = geometry();
        let b = &self.board;
        let ours = self.armies_of(us);
        let enemy = |c: u8| c != EMPTY && ours & (1 << origin_of(c)) == 0;
        let open = |c: u8| c == EMPTY || ours & (1 << origin_of(c)) == 0;

        // Looking for one legal move, testing the first few is cheaper than the guard.
        let guard = if FIRST { Guard::EVERY_MOVE } else { self.guard(us, king) };
        macro_rules! emit {
            ($from:expr, $to:expr) => {{
                let (from, to) = ($from, $to);
                if CAPTURES && b[to] == EMPTY {
                    // Not a capture.
                } else if PSEUDO || !guard.needs_test(from, to) || !self.exposed_after(us, king, from, to) {
                    list.push(Move::from_indices(from, to));
                    if FIRST {
                        return true;
                    }
                }
            }};
        }

        for o in 0..3 {
            if ours & (1 << o) == 0 {
                continue;
            }
            for half in 0..3 {
                let mut bits = self.army[o][half];
                while bits != 0 {
                    let from = half * 45 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    match kind_of(b[from]) {
                        GENERAL => {
                            for &p in g.general[from].as_slice() {
                                if open(b[p.index()]) {
                                    emit!(from, p.index());
                                }
                            }
                        }
                        ADVISOR => {
                            for &p in g.palace_diagonals[from].as_slice() {
                                if open(b[p.index()]) {
                                    emit!(from, p.index());
                                }
                            }
                        }
                        ELEPHANT | HORSE => {
                            let leaps = if kind_of(b[from]) == ELEPHANT {
                                g.elephant[from].as_slice()
                            } else {
                                g.horse[from].as_slice()
                            };
                            for st in leaps {
                                if b[st.block.index()] == EMPTY && open(b[st.to.index()]) {
                                    emit!(from, st.to.index());
                                }
                            }
                        }
                        CHARIOT => {
                            for ray in g.rays[from].as_slice() {
                                let skip = ray.skip();
                                for (i, p) in ray.points().iter().enumerate() {
                                    let c = b[p.index()];
                                    if c == EMPTY {
                                        if i >= skip {
                                            emit!(from, p.index());
                                        }
                                    } else {
                                        if i >= skip && enemy(c) {
                                            emit!(from, p.index());
                                        }
                                        break;
                                    }
                                }
                            }
                        }
                        CANNON => {
                            for ray in g.rays[from].as_slice() {
                                let skip = ray.skip();
                                let mut screen = false;
                                for (i, p) in ray.points().iter().enumerate() {
                                    let c = b[p.index()];
                                    if !screen {
                                        if c != EMPTY {
                                            screen = true;
                                        } else if i >= skip {
                                            emit!(from, p.index());
                                        }
                                    } else if c != EMPTY {
                                        if i >= skip && enemy(c) {
                                            emit!(from, p.index());
                                        }
                                        break;
                                    }
                                }
                            }
                        }
                        SOLDIER => {
                            for &p in g.soldier[o][from].as_slice() {
                                if open(b[p.index()]) {
                                    emit!(from, p.index());
                                }
                            }
                        }
                        _ => {
                            for st in g.flag_bearer[from].as_slice() {
                                if b[st.first.index()] == EMPTY
                                    && b[st.second.index()] == EMPTY
                                    && open(b[st.to.index()])
                                {
                                    emit!(from, st.to.index());
                                }
                            }
                        }
                    }
                }
            }
        }
        !list.is_empty()
    }
}
