//! Positions: pieces with their original kingdom, who controls each army, the side to
//! move, the counters and an incremental Zobrist key, and what a position answers about
//! itself. Validation is in `setup`, make and unmake in `make`, the keys in `zobrist`.
//!
//! A takeover always moves a whole army (every piece a kingdom controls), so all the
//! pieces that started in one kingdom share one controller at any time: the kingdom
//! itself while it is in play, the kingdom that took its army once it is defeated. A
//! position therefore keeps one controller per original army, and a kingdom is defeated
//! exactly when its army is controlled by another.

use super::geometry::{Kingdom, Point};
use super::piece::{NO_POINT, Piece};

/// The state of a position on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// Two or three kingdoms are in play and the side to move has a legal move.
    Ongoing,
    /// The last kingdom with a general.
    Won(Kingdom),
}

/// A validated Three Kingdoms position.
///
/// Positions are always settled: when a kingdom has no legal move on its turn, its
/// defeat (general removed, army to the kingdom that moved last) is applied at once, by
/// [`Position::play`] after a move and by [`Position::from_setup`] on input. So the side
/// to move has a legal move unless one kingdom is left ([`Status::Won`]).
///
/// The kingdom that moved last before a turn is always the kingdom in play before it in
/// turn order (defeated kingdoms are skipped), so a position needs no record of the last
/// move: that kingdom takes the army of a side found without moves.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    /// Piece code per point (0 empty).
    pub(super) board: [u8; Point::COUNT],
    /// `army[origin][half]`: the points of `origin`'s pieces in each half, one bit per
    /// point (`(rank - 1) * 9 + file`).
    pub(super) army: [[u64; 3]; 3],
    /// Point of each kingdom's general, `NO_POINT` once defeated.
    pub(super) generals: [u8; 3],
    /// Controller of each original army.
    pub(super) controller: [Kingdom; 3],
    pub(super) side: Kingdom,
    pub(super) flag_bearers: bool,
    pub(super) quiet_plies: u32,
    pub(super) move_number: u32,
    pub(super) key: u64,
}

impl Position {
    /// The piece on `p`, if any.
    #[inline(always)]
    pub fn piece_at(&self, p: Point) -> Option<Piece> {
        Piece::from_code(self.board[p.index()])
    }

    /// The kingdom that controls the pieces that started in `origin`.
    #[inline(always)]
    pub fn controller(&self, origin: Kingdom) -> Kingdom {
        self.controller[origin.index()]
    }

    /// The kingdom that controls `piece` here.
    #[inline(always)]
    pub fn controller_of(&self, piece: Piece) -> Kingdom {
        self.controller(piece.origin())
    }

    /// The kingdom to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Kingdom {
        self.side
    }

    /// Is `k` still in play (it has its general)?
    #[inline(always)]
    pub fn in_play(&self, k: Kingdom) -> bool {
        self.controller[k.index()] == k
    }

    /// Has `k` been defeated?
    #[inline(always)]
    pub fn is_defeated(&self, k: Kingdom) -> bool {
        !self.in_play(k)
    }

    /// The kingdoms still in play, in turn order.
    pub fn kingdoms_in_play(&self) -> impl Iterator<Item = Kingdom> + '_ {
        Kingdom::ALL.into_iter().filter(|&k| self.in_play(k))
    }

    pub(super) fn live_count(&self) -> usize {
        Kingdom::ALL.iter().filter(|&&k| self.in_play(k)).count()
    }

    /// Where `k`'s general stands, unless `k` is defeated.
    pub fn general(&self, k: Kingdom) -> Option<Point> {
        let p = self.generals[k.index()];
        (p != NO_POINT).then(|| Point::from_index_unchecked(p as usize))
    }

    /// Is the game played with flag bearers?
    pub fn flag_bearers(&self) -> bool {
        self.flag_bearers
    }

    /// Plies since the last capture or defeat.
    pub fn quiet_plies(&self) -> u32 {
        self.quiet_plies
    }

    /// The move number, from 1, growing each time the turn passes Shu's seat.
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// Zobrist key of the pieces with their controllers, the side to move and the
    /// defeated kingdoms: equal keys, same position for the repetition rule.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.key
    }

    /// Ongoing, or won by the last kingdom in play.
    pub fn status(&self) -> Status {
        if self.live_count() == 1 { Status::Won(self.side) } else { Status::Ongoing }
    }

    /// The winner, once one kingdom is left.
    pub fn winner(&self) -> Option<Kingdom> {
        match self.status() {
            Status::Won(k) => Some(k),
            Status::Ongoing => None,
        }
    }

    /// The kingdom in play before `k` in turn order (`k` itself when it is alone).
    pub(super) fn previous_in_play(&self, k: Kingdom) -> Kingdom {
        let p = k.prev();
        if self.in_play(p) {
            p
        } else if self.in_play(p.prev()) {
            p.prev()
        } else {
            k
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::three_kingdoms::MoveList;
    use crate::rules::three_kingdoms::piece::{EMPTY, Kind};

    #[test]
    fn pieces_pack_kind_and_origin() {
        for origin in Kingdom::ALL {
            for kind in Kind::ALL {
                let p = Piece::new(kind, origin);
                assert_eq!((p.kind(), p.origin()), (kind, origin));
                assert_eq!(Piece::from_code(p.code()), Some(p));
                assert_eq!(Kind::from_letter(kind.letter()), Some(kind));
            }
        }
        assert_eq!(Piece::from_code(EMPTY), None);
    }

    #[test]
    fn start_position() {
        for flags in [true, false] {
            let pos = Position::startpos(flags);
            let pieces = pos.board.iter().filter(|&&c| c != EMPTY).count();
            assert_eq!(pieces, if flags { 54 } else { 48 });
            assert_eq!(pos.side_to_move(), Kingdom::Shu);
            assert_eq!(pos.status(), Status::Ongoing);
            assert!(!pos.in_check());
            assert_eq!(pos.key(), pos.key_from_scratch());
            for k in Kingdom::ALL {
                assert_eq!(pos.general(k), Some(Point::new(k, 4, 1)));
            }
        }
        assert_ne!(Position::startpos(true).key(), Position::startpos(false).key());
    }

    #[test]
    fn play_and_undo_every_move_two_plies_deep() {
        let mut pos = Position::startpos(true);
        let start = pos.clone();
        let mut first = MoveList::new();
        pos.legal_moves(&mut first);
        for &a in first.iter() {
            let ua = pos.play_unchecked(a);
            assert_eq!(pos.key(), pos.key_from_scratch(), "after {a}");
            assert_eq!(pos.side_to_move(), Kingdom::Wu);
            let mut second = MoveList::new();
            pos.legal_moves(&mut second);
            for &b in second.iter() {
                let before = pos.clone();
                let ub = pos.play_unchecked(b);
                assert_eq!(pos.key(), pos.key_from_scratch(), "after {a} {b}");
                pos.undo(b, ub);
                assert_eq!(pos, before);
            }
            pos.undo(a, ua);
            assert_eq!(pos, start);
        }
    }

    #[test]
    fn the_move_number_grows_when_the_turn_passes_shu() {
        let mut pos = Position::startpos(false);
        for (text, number) in [("Ra1-Ra2", 1), ("Ga1-Ga2", 1), ("Ba1-Ba2", 2), ("Ra2-Ra1", 2)] {
            let m = pos.parse_move(text).unwrap();
            pos.play(m).unwrap();
            assert_eq!(pos.move_number(), number, "after {text}");
        }
        assert_eq!(pos.quiet_plies(), 4);
    }
}
