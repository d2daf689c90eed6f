//! Make and unmake: a move with its capture, the takeover of a captured general's
//! army, the turn passing on and the defeats for want of a legal move; and back.

use super::geometry::{Kingdom, Point};
use super::moves::{Move, MoveList};
use super::piece::{EMPTY, Kind, NO_POINT, Piece, kind_of, origin_of};
use super::position::{Position, Status};
use super::zobrist::{ZOBRIST_DEFEATED, ZOBRIST_SIDE, zobrist};
use crate::rules::game::{NoHandicap, RecordedPosition};
use crate::rules::illegal::IllegalMove;

/// What [`Position::play_unchecked`] hands back so that [`Position::undo`] restores the
/// position exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    captured: u8,
    side: Kingdom,
    controller: [Kingdom; 3],
    quiet_plies: u32,
    move_number: u32,
    key: u64,
    /// Generals removed by defeats for want of a legal move after the move, in order.
    removed: [u8; 2],
    removed_len: u8,
}

impl Undo {
    /// The piece the move took, if any.
    pub fn captured(&self) -> Option<Piece> {
        Piece::from_code(self.captured)
    }

    /// The kingdoms that had no legal move on their turn after the move and were
    /// defeated, in order.
    pub fn defeated_without_moves(&self) -> impl Iterator<Item = Kingdom> + '_ {
        self.removed[..self.removed_len as usize].iter().map(|&p| Point::from_index_unchecked(p as usize).kingdom())
    }
}

// Zobrist keys from a fixed seed: a piece (kind and origin) on a point under a
// controller, the side to move, each defeated kingdom.

impl Position {
    #[inline(always)]
    pub(super) fn put(&mut self, i: usize, code: u8) {
        self.board[i] = code;
        self.army[origin_of(code)][i / 45] |= 1u64 << (i % 45);
    }

    #[inline(always)]
    pub(super) fn take(&mut self, i: usize) {
        let code = self.board[i];
        self.board[i] = EMPTY;
        self.army[origin_of(code)][i / 45] &= !(1u64 << (i % 45));
    }

    /// Is `m` a legal move here?
    pub fn is_legal(&self, m: Move) -> bool {
        match self.piece_at(m.from()) {
            Some(p) if self.controller_of(p) == self.side && self.status() == Status::Ongoing => {}
            _ => return false,
        }
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.contains(m)
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove<Move>> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove(m)) }
    }

    /// Plays a move known to be legal, with everything it brings: the capture, the
    /// takeover of a captured general's army, the turn passing on, and the defeat of
    /// each next kingdom that has no legal move. Returns what [`Position::undo`] needs.
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let (from, to) = (m.from().index(), m.to().index());
        let code = self.board[from];
        let captured = self.board[to];
        let mut undo = Undo {
            captured,
            side: self.side,
            controller: self.controller,
            quiet_plies: self.quiet_plies,
            move_number: self.move_number,
            key: self.key,
            removed: [NO_POINT; 2],
            removed_len: 0,
        };
        let us = self.side;
        let o = origin_of(code);
        if captured != EMPTY {
            self.key ^= zobrist(to, captured, self.controller[origin_of(captured)]);
            self.take(to);
        }
        self.key ^= zobrist(from, code, us) ^ zobrist(to, code, us);
        self.take(from);
        self.put(to, code);
        if kind_of(code) == Kind::General as u8 {
            self.generals[o] = to as u8;
        }
        if captured != EMPTY {
            self.quiet_plies = 0;
            if kind_of(captured) == Kind::General as u8 {
                let loser = Kingdom::from_index(origin_of(captured));
                self.generals[loser.index()] = NO_POINT;
                self.take_over(loser, us);
            }
        } else {
            self.quiet_plies = self.quiet_plies.saturating_add(1);
        }
        self.pass_turn();
        let mut removed = (undo.removed, 0u8);
        self.settle(&mut removed);
        (undo.removed, undo.removed_len) = removed;
        undo
    }

    /// Takes back `m` played with [`Position::play_unchecked`].
    pub fn undo(&mut self, m: Move, undo: Undo) {
        for &g in undo.removed[..undo.removed_len as usize].iter().rev() {
            let k = Point::from_index_unchecked(g as usize).kingdom();
            self.put(g as usize, Piece::new(Kind::General, k).code());
            self.generals[k.index()] = g;
        }
        let (from, to) = (m.from().index(), m.to().index());
        let code = self.board[to];
        self.take(to);
        self.put(from, code);
        if kind_of(code) == Kind::General as u8 {
            self.generals[origin_of(code)] = from as u8;
        }
        if undo.captured != EMPTY {
            self.put(to, undo.captured);
            if kind_of(undo.captured) == Kind::General as u8 {
                self.generals[origin_of(undo.captured)] = to as u8;
            }
        }
        self.side = undo.side;
        self.controller = undo.controller;
        self.quiet_plies = undo.quiet_plies;
        self.move_number = undo.move_number;
        self.key = undo.key;
    }

    /// The army of `loser` and every army it controls go to `taker`.
    fn take_over(&mut self, loser: Kingdom, taker: Kingdom) {
        for o in 0..3 {
            if self.controller[o] != loser {
                continue;
            }
            for half in 0..3 {
                let mut bits = self.army[o][half];
                while bits != 0 {
                    let i = half * 45 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    let code = self.board[i];
                    self.key ^= zobrist(i, code, loser) ^ zobrist(i, code, taker);
                }
            }
            self.controller[o] = taker;
        }
        self.key ^= ZOBRIST_DEFEATED[loser.index()];
    }

    /// The turn goes to the next kingdom in play; the move number grows each time the
    /// turn passes Shu's seat.
    fn pass_turn(&mut self) {
        self.key ^= ZOBRIST_SIDE[self.side.index()];
        loop {
            self.side = self.side.next();
            if self.side == Kingdom::Shu {
                self.move_number = self.move_number.saturating_add(1);
            }
            if self.in_play(self.side) {
                break;
            }
        }
        self.key ^= ZOBRIST_SIDE[self.side.index()];
    }

    /// While two or more kingdoms are in play and the side to move has no legal move:
    /// that kingdom is defeated, its general leaves the board, the kingdom that moved
    /// last before its turn takes its army, and the turn passes on.
    pub(super) fn settle(&mut self, removed: &mut ([u8; 2], u8)) {
        while self.live_count() >= 2 && !self.has_legal_move() {
            let loser = self.side;
            let g = self.generals[loser.index()] as usize;
            self.key ^= zobrist(g, self.board[g], loser);
            self.take(g);
            self.generals[loser.index()] = NO_POINT;
            let taker = self.previous_in_play(loser);
            self.take_over(loser, taker);
            self.quiet_plies = 0;
            removed.0[removed.1 as usize] = g as u8;
            removed.1 += 1;
            self.pass_turn();
        }
    }
}

/// A Three Kingdoms ply is irreversible when it takes a piece or defeats a kingdom
/// that has no legal move (the key records the defeated).
impl RecordedPosition for Position {
    type Piece = Piece;
    type Handicap = NoHandicap;
    fn captured_by(undo: &Undo) -> Option<Piece> {
        undo.captured()
    }
    fn is_irreversible(undo: &Undo) -> bool {
        undo.captured().is_some() || undo.defeated_without_moves().next().is_some()
    }
    fn side_index(side: Kingdom) -> usize {
        side.index()
    }
    fn fullmove_number(&self) -> u32 {
        self.move_number()
    }
}
