//! Which moves of a 9x10 position need the general-safety test, and the filter that
//! runs it only on those. Both variants' move generators build a [`Guard`] once per
//! generation: [`Guard::lines`] holds what they share (the pieces between the general
//! and an enemy chariot or cannon on its rank or file, the legs of enemy horses aiming
//! at the general), and each variant adds its own lines (Xiangqi's facing generals,
//! Janggi's palace diagonals and elephants). In check, [`Guard::evasions`] keeps only
//! the moves that may answer it. The same guard of the enemy general, against the side
//! to move, gives the moves that may give check ([`CheckCandidates`]).

use super::leapers::horse_legs;
use super::lines::{FILE_MASKS, RANK_MASKS, between, bit, squares};
use super::{Bitboard, Board};
use crate::rules::types::{Color, Move, MoveList, PieceKind, Square};

/// Which moves may give check in the current position: every move that gives one
/// leaves a point of `leave`, reaches a point of `reach`, or brings its piece to a
/// point from which its kind may attack the enemy general (`direct`). Built like a
/// [`Guard`] of the enemy general (the lines and legs a move may open onto it, the
/// lines where it may become a cannon's screen), so that the exact test (play the
/// move, look) runs only on the few moves that pass.
#[derive(Clone, Copy, Debug)]
pub struct CheckCandidates {
    leave: Bitboard,
    reach: Bitboard,
    direct: [Bitboard; 7],
}

impl CheckCandidates {
    /// No move gives check (there is no enemy general).
    pub const NONE: CheckCandidates = CheckCandidates { leave: 0, reach: 0, direct: [0; 7] };

    /// From the [`Guard`] of the enemy general against the side to move, and the
    /// points from which each kind may attack it, by [`PieceKind::index`].
    #[inline]
    pub fn new(guard: &Guard, direct: [Bitboard; 7]) -> CheckCandidates {
        CheckCandidates { leave: guard.hot_from, reach: guard.hot_to, direct }
    }

    /// May `m` (legal on `b`) give check? `false` is certain; `true` must be tested.
    #[inline]
    pub fn may_check(&self, b: &Board, m: Move) -> bool {
        if self.leave & bit(m.from()) != 0 || self.reach & bit(m.to()) != 0 {
            return true;
        }
        b.piece_at(m.from()).is_some_and(|p| self.direct[p.kind().index()] & bit(m.to()) != 0)
    }
}

/// `pieces` when it is one piece, else none: the piece a line's attack waits behind.
#[inline(always)]
pub fn only_piece(pieces: Bitboard) -> Bitboard {
    if pieces.count_ones() == 1 { pieces } else { 0 }
}

/// Which moves need the general-safety test in the current position.
#[derive(Clone, Copy, Debug)]
pub struct Guard {
    /// Where the general of the side to move stands.
    pub king: Square,
    /// Is that general attacked now?
    pub in_check: bool,
    /// Moving a piece away from one of these points may expose the general.
    pub hot_from: Bitboard,
    /// Moving a piece onto one of these points may give an enemy cannon a screen.
    pub hot_to: Bitboard,
    /// The points a move must reach unless it leaves a point of `hot_from`: in check,
    /// those that may answer it (every point otherwise). The rest are dropped untested.
    pub answers: Bitboard,
}

impl Guard {
    /// In check: only the general's moves, the moves that leave a point of `leave` and
    /// those that reach a point of `reach` may answer it, and each of them is tested.
    #[inline]
    pub fn evasions(king: Square, reach: Bitboard, leave: Bitboard) -> Guard {
        Guard { king, in_check: true, hot_from: leave | bit(king), hot_to: !0, answers: reach }
    }

    /// No move is tested (pseudo-legal generation); `in_check` as it is.
    #[inline]
    pub fn untested(king: Square, in_check: bool) -> Guard {
        Guard { king, in_check, hot_from: 0, hot_to: 0, answers: !0 }
    }

    /// Not in check: the general's own point, the pieces between it and an enemy
    /// (`them`) chariot or cannon on its rank or file that a move may take away or
    /// add (a chariot's only piece between; a cannon's two screens, or the points
    /// between when it has none; where it has one, as a Janggi cannon may over another
    /// cannon, that screen's point both ways), and the legs of the enemy horses aiming
    /// at it.
    #[inline]
    pub fn lines(b: &Board, king: Square, them: Color) -> Guard {
        let chariots = b.pieces(them, PieceKind::Chariot);
        let cannons = b.pieces(them, PieceKind::Cannon);
        let lines = RANK_MASKS[king.rank() as usize] | FILE_MASKS[king.file() as usize];
        let occupied = b.occupied();
        let mut hot_from = bit(king);
        let mut hot_to = 0;
        for slider in squares((chariots | cannons) & lines) {
            let between = between(slider, king);
            let screens = occupied & between;
            if chariots & bit(slider) != 0 {
                hot_from |= only_piece(screens);
            } else {
                match screens.count_ones() {
                    0 => hot_to |= between,
                    1 => {
                        hot_from |= screens;
                        hot_to |= screens;
                    }
                    2 => hot_from |= screens,
                    _ => {}
                }
            }
        }
        hot_from |= horse_legs(b.pieces(them, PieceKind::Horse), king.index());
        Guard { king, in_check: false, hot_from, hot_to, answers: !0 }
    }

    /// Appends the moves from `from` to each point of `targets` to `list`, less those
    /// the test `attacked_after(general's point after the move, from, to)` refuses; it
    /// is asked only for the moves this guard marks.
    #[inline(always)]
    pub fn push_safe(
        &self,
        from: Square,
        targets: Bitboard,
        list: &mut MoveList,
        attacked_after: impl Fn(Square, Square, Square) -> bool,
    ) {
        let from_hot = self.hot_from & bit(from) != 0;
        let targets = if from_hot { targets } else { targets & self.answers };
        if !from_hot && targets & self.hot_to == 0 {
            // No move needs the test: the usual case, taken without a test per move.
            list.extend(squares(targets).map(|to| Move::new(from, to)));
            return;
        }
        for to in squares(targets) {
            let king = if from == self.king { to } else { self.king };
            if (from_hot || self.hot_to & bit(to) != 0) && attacked_after(king, from, to) {
                continue;
            }
            list.push(Move::new(from, to));
        }
    }
}
