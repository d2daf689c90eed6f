//! Legal move generation for Janggi.
//!
//! As in Xiangqi, moves come pseudo-legally from table look-ups and only those that can
//! matter go through a general-safety test that reads the board as it would be after
//! the move without changing it: every general move; moves off a line of the general
//! that an enemy chariot or cannon stands on; moves onto a line an enemy cannon stands
//! on (a new screen, or a capture that changes what the screen is); moves inside the
//! palace when an enemy chariot or cannon stands in it (the diagonals); moves off a
//! point an enemy horse or elephant must pass to reach the general; every move when in
//! check. The pass is legal unless in check.

use super::tables::{
    DIAGONAL_POINTS, DIAGONAL_RAYS, ELEPHANT_ATTACKERS, ELEPHANT_MOVES, ELEPHANT_ZONES, FILE_JUMPS, PALACE,
    PALACE_STEPS, RANK_JUMPS, SOLDIER_ATTACKERS, SOLDIER_STEPS,
};
use super::{Janggi, Position};
use crate::rules::board::{
    Bitboard, Board, BoardAfter, FILE_LINES, Guard, LineView, NO_STOP, RANK_LINES, bit, bit_at, code,
    file_bits_to_board, horse_attackers, horse_attacks, horse_targets, lines_and_square_around, rank_bits_to_board,
    squares,
};
use crate::rules::board_position::Attacks;
use crate::rules::types::{Color, Move, MoveList, Piece, PieceKind, Square};

const RED_CANNON: u8 = code(Piece::new(Color::Red, PieceKind::Cannon));
const BLACK_CANNON: u8 = code(Piece::new(Color::Black, PieceKind::Cannon));

/// Can the piece with mailbox code `c` serve as a cannon's screen (a piece, not a cannon)?
#[inline(always)]
fn is_screen(c: u8) -> bool {
    c != 0 && c != RED_CANNON && c != BLACK_CANNON
}

const fn prey_masks() -> [u16; 2] {
    let mut m = [0u16; 2];
    let mut c = 0;
    while c < 2 {
        let them = if c == 0 { Color::Black } else { Color::Red };
        let mut k = 0;
        while k < 7 {
            let kind = PieceKind::ALL[k];
            if !matches!(kind, PieceKind::Cannon) {
                m[c] |= 1 << code(Piece::new(them, kind));
            }
            k += 1;
        }
        c += 1;
    }
    m
}

/// `PREY[color]`: bit `code` set for the enemy pieces a cannon of `color` may take.
const PREY: [u16; 2] = prey_masks();

impl Attacks for Janggi {
    /// Besides the lines every 9x10 guard watches, the palace when the general stands
    /// on a diagonal point and an enemy chariot or cannon stands in it, and the points
    /// an enemy elephant aiming at the general must pass.
    #[inline]
    fn widen_guard(b: &Board, attackers: Color, guard: &mut Guard) {
        let (them, king) = (attackers, guard.king);
        let (chariots, cannons) = (b.pieces(them, PieceKind::Chariot), b.pieces(them, PieceKind::Cannon));
        let palace = PALACE[them.other().index()];
        if bit(king) & DIAGONAL_POINTS != 0 && (chariots | cannons) & palace != 0 {
            guard.hot_from |= palace;
            if cannons & palace != 0 {
                guard.hot_to |= palace;
            }
        }
        let elephants = b.pieces(them, PieceKind::Elephant);
        if elephants & ELEPHANT_ZONES[king.index()] != 0 {
            for st in ELEPHANT_ATTACKERS[king.index()].as_slice() {
                if elephants & bit_at(st.to as usize) != 0 {
                    guard.hot_from |= bit_at(st.blocks[0] as usize) | bit_at(st.blocks[1] as usize);
                }
            }
        }
    }

    /// Every kind from the general's rank and file and the three files and ranks
    /// around it: the elephant's longest reach (its palace's diagonals lie within).
    #[inline]
    fn direct_checks(_attackers: Color, king: Square) -> [Bitboard; 7] {
        [lines_and_square_around(king, 3); 7]
    }

    /// Every move may answer (each is tested): the palace diagonals and the elephant's
    /// two legs would make a narrower set a variant of its own.
    #[inline]
    fn check_answers(_b: &Board, _king: Square, _attackers: Color) -> (Bitboard, Bitboard) {
        (!0, !0)
    }

    /// Would the general of the side to move, standing on `king` after the move
    /// `from`-`to`, be attacked? With `from == to == king` this asks about the position
    /// as it is.
    #[inline(always)]
    fn attacked_after(pos: &Position, king: Square, from: Square, to: Square) -> bool {
        let b = &pos.board;
        let them = pos.turn.other();
        let (kf, kr) = (king.file(), king.rank());
        let after = BoardAfter::new(b, from, to);
        let (rank_occ, file_occ) = (after.rank_occupancy(kr), after.file_occupancy(kf));
        let at = |i: usize| after.code_at(i);
        let chariot = code(Piece::new(them, PieceKind::Chariot));
        let cannon = code(Piece::new(them, PieceKind::Cannon));

        // Along a line from `base`: a chariot first, or a cannon behind a screen.
        let line_attack = |base: usize, v: &LineView| {
            let (lo, hi) = (at(base + v.stops[0] as usize), at(base + v.stops[1] as usize));
            lo == chariot
                || hi == chariot
                || (is_screen(lo) && at(base + v.stops[2] as usize) == cannon)
                || (is_screen(hi) && at(base + v.stops[3] as usize) == cannon)
        };
        if line_attack(kr as usize * 9, &RANK_LINES[kf as usize][rank_occ as usize])
            || line_attack(kf as usize, &FILE_LINES[kr as usize][file_occ as usize])
        {
            return true;
        }
        for ray in DIAGONAL_RAYS[king.index()].as_slice() {
            let near = at(ray[0] as usize);
            if near == chariot {
                return true;
            }
            if ray[1] != NO_STOP {
                let far = at(ray[1] as usize);
                if (near == 0 && far == chariot) || (is_screen(near) && far == cannon) {
                    return true;
                }
            }
        }
        // A capture on `to` removes the enemy piece standing there.
        let alive = !bit(to);
        if horse_attacks(b.pieces(them, PieceKind::Horse) & alive, king.index(), |i| at(i) == 0) {
            return true;
        }
        let elephants = b.pieces(them, PieceKind::Elephant) & alive;
        if elephants & ELEPHANT_ZONES[king.index()] != 0 {
            for st in ELEPHANT_ATTACKERS[king.index()].as_slice() {
                if elephants & bit_at(st.to as usize) != 0
                    && at(st.blocks[0] as usize) == 0
                    && at(st.blocks[1] as usize) == 0
                {
                    return true;
                }
            }
        }
        SOLDIER_ATTACKERS[them.index()][king.index()] & b.pieces(them, PieceKind::Soldier) & alive != 0
    }

    /// Every piece of `by` that attacks `target`.
    #[inline]
    fn attackers_of(b: &Board, target: Square, by: Color) -> Bitboard {
        let (f, r) = (target.file(), target.rank());
        let (rv, fv) = (b.rank_view(target), b.file_view(target));
        let mut found =
            (rank_bits_to_board(rv.first, r) | file_bits_to_board(fv.first, f)) & b.pieces(by, PieceKind::Chariot);
        let cannons = b.pieces(by, PieceKind::Cannon);
        for (base, v) in [(r as usize * 9, rv), (f as usize, fv)] {
            for d in 0..2 {
                let far = base + v.stops[d + 2] as usize;
                if v.stops[d + 2] != NO_STOP
                    && cannons & bit_at(far) != 0
                    && is_screen(b.code_at(base + v.stops[d] as usize))
                {
                    found |= bit_at(far);
                }
            }
        }
        let chariots = b.pieces(by, PieceKind::Chariot);
        for ray in DIAGONAL_RAYS[target.index()].as_slice() {
            let near = b.code_at(ray[0] as usize);
            found |= chariots & bit_at(ray[0] as usize);
            if ray[1] != NO_STOP {
                let far = bit_at(ray[1] as usize);
                if (near == 0 && chariots & far != 0) || (is_screen(near) && cannons & far != 0) {
                    found |= far;
                }
            }
        }
        found |= horse_attackers(b.pieces(by, PieceKind::Horse), target.index(), |i| b.code_at(i) == 0);
        let elephants = b.pieces(by, PieceKind::Elephant);
        for st in ELEPHANT_ATTACKERS[target.index()].as_slice() {
            if elephants & bit_at(st.to as usize) != 0
                && b.code_at(st.blocks[0] as usize) == 0
                && b.code_at(st.blocks[1] as usize) == 0
            {
                found |= bit_at(st.to as usize);
            }
        }
        found | SOLDIER_ATTACKERS[by.index()][target.index()] & b.pieces(by, PieceKind::Soldier)
    }
}

impl Position {
    /// Appends the legal moves to `list`, the pass last.
    pub(super) fn generate(&self, list: &mut MoveList) {
        self.generate_inner::<true, false>(0, 0, list)
    }

    /// The moves the pieces can make whether or not they leave the general attacked
    /// (the pass included unless in check): for explaining why a move is illegal.
    pub(super) fn generate_pseudo(&self, list: &mut MoveList) {
        self.generate_inner::<false, false>(0, 0, list)
    }

    /// Appends the legal moves of the pieces on `from` to the points of `to`, no pass.
    pub(super) fn generate_masked(&self, from: Bitboard, to: Bitboard, list: &mut MoveList) {
        self.generate_inner::<true, true>(from, to, list)
    }

    /// With `SAFE`, the legal moves, without, the moves the pieces can make; with
    /// `MASKED`, only the moves of the pieces on `from` to the points of `to`, and no
    /// pass; without, the masks are not even read.
    #[inline(always)]
    fn generate_inner<const SAFE: bool, const MASKED: bool>(&self, from: Bitboard, to: Bitboard, list: &mut MoveList) {
        let Some(king) = self.board.general(self.turn) else { return };
        let guard = if SAFE { self.guard(king) } else { Guard::untested(king, self.attacked_after(king, king, king)) };
        self.generate_guarded::<MASKED, false>(&guard, from, to, list)
    }

    /// The moves `guard` lets through (see [`Position::generate_inner`]); the pass
    /// unless `MASKED` or with `PASS`, last, where it is legal.
    #[inline(always)]
    pub(super) fn generate_guarded<const MASKED: bool, const PASS: bool>(
        &self,
        guard: &Guard,
        from: Bitboard,
        to: Bitboard,
        list: &mut MoveList,
    ) {
        if self.passes >= 2 {
            return;
        }
        let (from_mask, to_mask) = if MASKED { (from, to) } else { (!0, !0) };
        let b = &self.board;
        let us = self.turn;
        let king = guard.king;
        let own = b.by_color(us);
        let enemy = b.by_color(us.other());
        let empty = !b.occupied();
        let allowed = !own;
        let c = us.index();

        let emit = |from: Square, targets: Bitboard, list: &mut MoveList| {
            guard.push_safe(from, targets & to_mask, list, |king, from, to| self.attacked_after(king, from, to))
        };

        for from in squares(b.pieces(us, PieceKind::Chariot) & from_mask) {
            let (rv, fv) = (b.rank_view(from), b.file_view(from));
            let mut t = ((rank_bits_to_board(rv.first, from.rank()) | file_bits_to_board(fv.first, from.file()))
                & enemy)
                | rank_bits_to_board(rv.quiet, from.rank())
                | file_bits_to_board(fv.quiet, from.file());
            for ray in DIAGONAL_RAYS[from.index()].as_slice() {
                let near = bit_at(ray[0] as usize);
                if empty & near != 0 {
                    t |= near;
                    if ray[1] != NO_STOP {
                        t |= bit_at(ray[1] as usize) & allowed;
                    }
                } else {
                    t |= near & enemy;
                }
            }
            emit(from, t, list);
        }
        for from in squares(b.pieces(us, PieceKind::Cannon) & from_mask) {
            emit(from, cannon_targets(b, from, PREY[c]), list);
        }
        for from in squares(b.pieces(us, PieceKind::Horse) & from_mask) {
            emit(from, horse_targets(from.index(), empty) & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Elephant) & from_mask) {
            let mut t = 0;
            for st in ELEPHANT_MOVES[from.index()].as_slice() {
                if empty & bit_at(st.blocks[0] as usize) != 0 && empty & bit_at(st.blocks[1] as usize) != 0 {
                    t |= bit_at(st.to as usize);
                }
            }
            emit(from, t & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Soldier) & from_mask) {
            emit(from, SOLDIER_STEPS[c][from.index()] & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Advisor) & from_mask) {
            emit(from, PALACE_STEPS[from.index()] & allowed, list);
        }
        if from_mask & bit(king) != 0 {
            emit(king, PALACE_STEPS[king.index()] & allowed, list);
        }
        if (!MASKED || PASS) && !guard.in_check {
            list.push(Move::PASS);
        }
    }
}

/// Where a cannon on `from` may go: over exactly one screen that is not a cannon, to an
/// empty point or onto a piece whose code is in `prey`, along ranks, files and palace
/// diagonals.
#[inline(always)]
fn cannon_targets(b: &Board, from: Square, prey: u16) -> Bitboard {
    let (f, r) = (from.file(), from.rank());
    let rank = &RANK_JUMPS[f as usize][b.rank_occupancy(r) as usize];
    let (rank_quiet, rank_takes) = cannon_line(b, r as usize * 9, b.rank_view(from), rank, prey);
    let file = &FILE_JUMPS[r as usize][b.file_occupancy(f) as usize];
    let (file_quiet, file_takes) = cannon_line(b, f as usize, b.file_view(from), file, prey);
    let mut t = rank_bits_to_board(rank_quiet, r) | file_bits_to_board(file_quiet, f) | rank_takes | file_takes;
    for ray in DIAGONAL_RAYS[from.index()].as_slice() {
        if ray[1] != NO_STOP && is_screen(b.code_at(ray[0] as usize)) {
            let far = b.code_at(ray[1] as usize);
            if far == 0 || prey >> far & 1 != 0 {
                t |= bit_at(ray[1] as usize);
            }
        }
    }
    t
}

/// The points a cannon of `color` on `from` attacks: the empty points beyond a screen
/// and the enemy piece (not a cannon) it could take.
pub(crate) fn cannon_attacks(b: &Board, from: Square, color: Color) -> Bitboard {
    cannon_targets(b, from, PREY[color.index()])
}

/// Calls `each(kind, from, reach)` for each piece of `by` but the general and guards:
/// `reach` is every point it could move to, or take on if whatever stands there were
/// an enemy (a cannon's jump may land on a cannon here). A point is in some piece's
/// reach exactly when [`Attacks::attackers_of`] finds that piece, so one pass over the
/// pieces gives the attacks on every point at once.
#[inline(always)]
pub(crate) fn for_each_reach(b: &Board, by: Color, mut each: impl FnMut(PieceKind, Square, Bitboard)) {
    let empty = !b.occupied();
    for from in squares(b.pieces(by, PieceKind::Chariot)) {
        let (rv, fv) = (b.rank_view(from), b.file_view(from));
        let mut t =
            rank_bits_to_board(rv.first | rv.quiet, from.rank()) | file_bits_to_board(fv.first | fv.quiet, from.file());
        for ray in DIAGONAL_RAYS[from.index()].as_slice() {
            t |= bit_at(ray[0] as usize);
            if ray[1] != NO_STOP && empty & bit_at(ray[0] as usize) != 0 {
                t |= bit_at(ray[1] as usize);
            }
        }
        each(PieceKind::Chariot, from, t);
    }
    for from in squares(b.pieces(by, PieceKind::Cannon)) {
        // Every code but the empty point's.
        each(PieceKind::Cannon, from, cannon_targets(b, from, !1));
    }
    for from in squares(b.pieces(by, PieceKind::Horse)) {
        each(PieceKind::Horse, from, horse_targets(from.index(), empty));
    }
    for from in squares(b.pieces(by, PieceKind::Elephant)) {
        let mut t = 0;
        for st in ELEPHANT_MOVES[from.index()].as_slice() {
            if empty & bit_at(st.blocks[0] as usize) != 0 && empty & bit_at(st.blocks[1] as usize) != 0 {
                t |= bit_at(st.to as usize);
            }
        }
        each(PieceKind::Elephant, from, t);
    }
    for from in squares(b.pieces(by, PieceKind::Soldier)) {
        each(PieceKind::Soldier, from, SOLDIER_STEPS[by.index()][from.index()]);
    }
}

/// A cannon's moves along one line (a rank from `base` = rank × 9, or a file from
/// `base` = file), `view` the line's stops from the cannon and `jumps` the points
/// beyond each first stop: the empty points past a screen as line bits, and the
/// captures past it (the pieces of `prey`) as a bitboard.
#[inline(always)]
fn cannon_line(b: &Board, base: usize, view: &LineView, jumps: &[u16; 2], prey: u16) -> (u16, Bitboard) {
    let (mut quiet, mut takes) = (0, 0);
    for (d, beyond) in jumps.iter().enumerate() {
        if is_screen(b.code_at(base + view.stops[d] as usize)) {
            quiet |= beyond;
            let far = base + view.stops[d + 2] as usize;
            if prey >> b.code_at(far) & 1 != 0 {
                takes |= bit_at(far);
            }
        }
    }
    (quiet, takes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(pieces: &[(&str, Color, PieceKind)]) -> Board {
        let mut b = Board::empty();
        for &(at, color, kind) in pieces {
            b.put(Square::parse(at).unwrap(), Piece::new(color, kind));
        }
        b
    }

    fn set(names: &[&str]) -> Bitboard {
        names.iter().map(|n| bit(Square::parse(n).unwrap())).fold(0, |a, b| a | b)
    }

    #[test]
    fn a_cannon_attacks_past_one_screen_that_is_not_a_cannon() {
        use Color::{Black, Red};
        use PieceKind::{Advisor, Cannon, Chariot, Horse, Soldier};
        let a0 = Square::parse("a0").unwrap();
        // Up the file: the soldier on a3 screens a4, a5 and the horse on a6, which the
        // cannon may take; a7 lies behind the horse. Along the rank the first piece is a
        // cannon, which screens nothing.
        let b = board(&[("a0", Red, Cannon), ("b0", Black, Cannon), ("a3", Red, Soldier), ("a6", Black, Horse)]);
        assert_eq!(cannon_attacks(&b, a0, Red), set(&["a4", "a5", "a6"]));
        // Along the palace diagonal d0-e1-f2, over the guard on e1.
        let d0 = Square::parse("d0").unwrap();
        let b = board(&[("d0", Red, Cannon), ("e1", Red, Advisor), ("f2", Black, Chariot)]);
        assert_eq!(cannon_attacks(&b, d0, Red), set(&["f2"]));
        let b = board(&[("d0", Red, Cannon), ("e1", Red, Advisor)]);
        assert_eq!(cannon_attacks(&b, d0, Red), set(&["f2"]));
        let b = board(&[("d0", Red, Cannon), ("e1", Red, Advisor), ("f2", Black, Cannon)]);
        assert_eq!(cannon_attacks(&b, d0, Red), 0, "a cannon cannot take a cannon");
        // Black's cannon on the same point does not take Black's own chariot.
        let b = board(&[("d0", Black, Cannon), ("e1", Red, Advisor), ("f2", Black, Chariot)]);
        assert_eq!(cannon_attacks(&b, d0, Black), 0);
    }

    #[test]
    fn each_piece_s_reach_is_where_the_attackers_of_a_point_find_it() {
        // Random games from the start, with a fixed seed; every point of every position
        // along them, both sides.
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut checked = 0;
        for _game in 0..20 {
            let mut pos = Position::startpos();
            let mut moves = MoveList::new();
            for _ply in 0..120 {
                let b = pos.board().clone();
                for by in Color::ALL {
                    for_each_reach(&b, by, |kind, from, reach| {
                        assert_eq!(b.piece_at(from), Some(Piece::new(by, kind)));
                        for i in 0..90 {
                            let sq = Square::from_index(i).unwrap();
                            let found = Janggi::attackers_of(&b, sq, by) & bit(from) != 0;
                            assert_eq!(reach & bit(sq) != 0, found, "{kind:?} on {from:?} to {sq:?}");
                            checked += found as usize;
                        }
                    });
                }
                moves.clear();
                pos.legal_moves(&mut moves);
                if moves.is_empty() {
                    break;
                }
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
                pos.play_unchecked(moves.as_slice()[(seed >> 33) as usize % moves.len()]);
            }
        }
        assert!(checked > 10_000, "only {checked} attacks seen");
    }
}
