//! Legal move generation for Xiangqi.
//!
//! Moves are generated pseudo-legally from table look-ups and filtered by a king-safety
//! test that runs only where a move can matter: every general move; moves off a line of
//! the general that an enemy chariot, cannon or general stands on; moves onto a line an
//! enemy cannon stands on (a new screen); moves off a horse-leg point of an enemy horse
//! aiming at the general; every move when in check. The test itself reads the board as
//! it would be after the move without changing it.

use super::tables::{ADVISOR_STEPS, ELEPHANT_STEPS, GENERAL_STEPS, SOLDIER_ATTACKERS, SOLDIER_STEPS};
use super::{Position, Xiangqi};
use crate::rules::board::{
    Bitboard, Board, BoardAfter, FILE_LINES, FILE_MASKS, Guard, HORSE_ATTACKERS, HORSE_ZONES, RANK_LINES, RANK_MASKS,
    between, bit, bit_at, code, file_bits_to_board, horse_attackers, horse_attacks, horse_targets, only_piece,
    rank_bits_to_board, squares,
};
use crate::rules::board_position::Attacks;
use crate::rules::types::{Color, MoveList, Piece, PieceKind, Square};

impl Attacks for Xiangqi {
    /// Besides the lines every 9x10 guard watches, the only piece between the general
    /// and the enemy general on its file.
    #[inline]
    fn widen_guard(b: &Board, attackers: Color, guard: &mut Guard) {
        if let Some(general) = b.general(attackers)
            && general.file() == guard.king.file()
        {
            guard.hot_from |= only_piece(b.occupied() & between(general, guard.king));
        }
    }

    /// Chariots and cannons on the general's rank and file, horses a horse's move
    /// away, soldiers a step away, and the facing general on its file.
    #[inline]
    fn direct_checks(attackers: Color, king: Square) -> [Bitboard; 7] {
        let lines = RANK_MASKS[king.rank() as usize] | FILE_MASKS[king.file() as usize];
        let mut direct = [0; 7];
        direct[PieceKind::Chariot.index()] = lines;
        direct[PieceKind::Cannon.index()] = lines;
        direct[PieceKind::Horse.index()] = HORSE_ZONES[king.index()];
        direct[PieceKind::Soldier.index()] = SOLDIER_ATTACKERS[attackers.index()][king.index()];
        direct[PieceKind::General.index()] = FILE_MASKS[king.file() as usize];
        direct
    }

    /// Taking a checker; against a chariot, a cannon or the facing general, a piece
    /// put between, or (a cannon) its screen moved away; against a horse, its leg
    /// blocked.
    #[inline]
    fn check_answers(b: &Board, king: Square, attackers: Color) -> (Bitboard, Bitboard) {
        let occupied = b.occupied();
        let (mut reach, mut leave) = (0, 0);
        for checker in squares(Self::attackers_of(b, king, attackers)) {
            reach |= bit(checker);
            match b.piece_at(checker).map(|p| p.kind()) {
                Some(PieceKind::Horse) => {
                    for st in HORSE_ATTACKERS[king.index()].as_slice() {
                        if st.to as usize == checker.index() {
                            reach |= bit_at(st.block as usize);
                        }
                    }
                }
                Some(PieceKind::Soldier) => {}
                _ => {
                    let line = between(checker, king);
                    reach |= line;
                    leave |= occupied & line;
                }
            }
        }
        (reach, leave)
    }

    /// Would the general of the side to move, standing on `king` after the move
    /// `from`-`to`, be attacked or face the enemy general? With `from == to == king` this
    /// asks about the position as it is.
    #[inline]
    fn attacked_after(pos: &Position, king: Square, from: Square, to: Square) -> bool {
        let b = &pos.board;
        let them = pos.turn.other();
        let (kf, kr) = (king.file(), king.rank());
        let after = BoardAfter::new(b, from, to);
        let (rank_occ, file_occ) = (after.rank_occupancy(kr), after.file_occupancy(kf));
        let at = |i: usize| after.code_at(i);
        let chariot = code(Piece::new(them, PieceKind::Chariot));
        let cannon = code(Piece::new(them, PieceKind::Cannon));
        let general = code(Piece::new(them, PieceKind::General));

        let base = kr as usize * 9;
        let v = &RANK_LINES[kf as usize][rank_occ as usize];
        if at(base + v.stops[0] as usize) == chariot
            || at(base + v.stops[1] as usize) == chariot
            || at(base + v.stops[2] as usize) == cannon
            || at(base + v.stops[3] as usize) == cannon
        {
            return true;
        }
        let base = kf as usize;
        let v = &FILE_LINES[kr as usize][file_occ as usize];
        let (a, c) = (at(base + v.stops[0] as usize), at(base + v.stops[1] as usize));
        if a == chariot
            || a == general
            || c == chariot
            || c == general
            || at(base + v.stops[2] as usize) == cannon
            || at(base + v.stops[3] as usize) == cannon
        {
            return true;
        }
        // A capture on `to` removes the enemy piece standing there.
        let alive = !bit(to);
        if horse_attacks(b.pieces(them, PieceKind::Horse) & alive, king.index(), |i| at(i) == 0) {
            return true;
        }
        SOLDIER_ATTACKERS[them.index()][king.index()] & b.pieces(them, PieceKind::Soldier) & alive != 0
    }

    /// Every piece of `by` that attacks `target` (the generals' facing included).
    #[inline]
    fn attackers_of(b: &Board, target: Square, by: Color) -> Bitboard {
        let (f, r) = (target.file(), target.rank());
        let (rv, fv) = (b.rank_view(target), b.file_view(target));
        let first = rank_bits_to_board(rv.first, r) | file_bits_to_board(fv.first, f);
        let second = rank_bits_to_board(rv.second, r) | file_bits_to_board(fv.second, f);
        let mut found = first & b.pieces(by, PieceKind::Chariot);
        found |= second & b.pieces(by, PieceKind::Cannon);
        found |= file_bits_to_board(fv.first, f) & b.pieces(by, PieceKind::General);
        found |= horse_attackers(b.pieces(by, PieceKind::Horse), target.index(), |i| b.code_at(i) == 0);
        found |= SOLDIER_ATTACKERS[by.index()][target.index()] & b.pieces(by, PieceKind::Soldier);
        found
    }
}

impl Position {
    /// Appends the legal moves to `list`: the captures with `CAPTURES`, the moves to an
    /// empty point with `QUIETS`, each piece's in the same order whichever are asked;
    /// with `MASKED`, only those of the pieces standing on `from` to the points of `to`.
    /// (Without, the masks are not even read, and full generation costs what it did
    /// before them.)
    pub(super) fn generate<const CAPTURES: bool, const QUIETS: bool, const MASKED: bool>(
        &self,
        from: Bitboard,
        to: Bitboard,
        list: &mut MoveList,
    ) {
        let Some(king) = self.board.general(self.turn) else { return };
        self.generate_guarded::<CAPTURES, QUIETS, MASKED>(&self.guard(king), from, to, list)
    }

    /// [`Position::generate`] with the guard of the general of the side to move.
    #[inline(always)]
    pub(super) fn generate_guarded<const CAPTURES: bool, const QUIETS: bool, const MASKED: bool>(
        &self,
        guard: &Guard,
        from: Bitboard,
        to: Bitboard,
        list: &mut MoveList,
    ) {
        let (from_mask, to_mask) = if MASKED { (from, to) } else { (!0, !0) };
        let b = &self.board;
        let us = self.turn;
        let king = guard.king;
        let own = b.by_color(us);
        let enemy = b.by_color(us.other());
        let empty = !b.occupied();
        let allowed = match (CAPTURES, QUIETS) {
            (true, true) => !own,
            (true, false) => enemy,
            (false, true) => empty,
            (false, false) => 0,
        };
        let c = us.index();

        let emit = |from: Square, targets: Bitboard, list: &mut MoveList| {
            guard.push_safe(from, targets & to_mask, list, |king, from, to| self.attacked_after(king, from, to))
        };

        for from in squares(b.pieces(us, PieceKind::Chariot) & from_mask) {
            let (rv, fv) = (b.rank_view(from), b.file_view(from));
            let mut t = 0;
            if CAPTURES {
                t |= (rank_bits_to_board(rv.first, from.rank()) | file_bits_to_board(fv.first, from.file())) & enemy;
            }
            if QUIETS {
                t |= rank_bits_to_board(rv.quiet, from.rank()) | file_bits_to_board(fv.quiet, from.file());
            }
            emit(from, t, list);
        }
        for from in squares(b.pieces(us, PieceKind::Cannon) & from_mask) {
            let (rv, fv) = (b.rank_view(from), b.file_view(from));
            let mut t = 0;
            if CAPTURES {
                t |= (rank_bits_to_board(rv.second, from.rank()) | file_bits_to_board(fv.second, from.file())) & enemy;
            }
            if QUIETS {
                t |= rank_bits_to_board(rv.quiet, from.rank()) | file_bits_to_board(fv.quiet, from.file());
            }
            emit(from, t, list);
        }
        for from in squares(b.pieces(us, PieceKind::Horse) & from_mask) {
            emit(from, horse_targets(from.index(), empty) & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Soldier) & from_mask) {
            emit(from, SOLDIER_STEPS[c][from.index()] & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Elephant) & from_mask) {
            let mut t = 0;
            for st in ELEPHANT_STEPS[c][from.index()].as_slice() {
                if empty & bit_at(st.block as usize) != 0 {
                    t |= bit_at(st.to as usize);
                }
            }
            emit(from, t & allowed, list);
        }
        for from in squares(b.pieces(us, PieceKind::Advisor) & from_mask) {
            emit(from, ADVISOR_STEPS[c][from.index()] & allowed, list);
        }
        if from_mask & bit(king) != 0 {
            emit(king, GENERAL_STEPS[c][king.index()] & allowed, list);
        }
    }
}
