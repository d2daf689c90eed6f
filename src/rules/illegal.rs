//! Why a move is illegal: one set of reasons for every variant, each in the words a
//! player (or an anti-cheat report) needs. A variant gives the reasons that apply to
//! it (Xiangqi has no pass; only Xiangqi's handicap games have the handicap reasons).
//! [`IllegalMove`] is the error of playing a move without its reason, for the moves of
//! any variant.

use std::fmt;

use super::types::Move;

/// A move that is not legal in the position (or game) it was offered to; `M` is the
/// variant's move type (the 9x10 [`Move`] unless named).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IllegalMove<M = Move>(pub M);

impl<M: fmt::Display> fmt::Display for IllegalMove<M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "illegal move {}", self.0)
    }
}

impl<M: fmt::Debug + fmt::Display> std::error::Error for IllegalMove<M> {}

/// The first rule a move breaks, checked in this order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IllegalReason {
    /// The side to move has no legal move: the game is over.
    GameOver,
    /// A pass, which Xiangqi does not have.
    PassNotAllowed,
    /// No piece stands on the from-point.
    NoPiece,
    /// The piece on the from-point is another side's.
    NotYourPiece,
    /// The to-point holds one of the mover's own pieces.
    CapturesOwnPiece,
    /// Wrong shape for the piece, out of the palace, across the river, backwards.
    CannotMoveThatWay,
    /// A piece in a chariot's or cannon's path, on a horse's leg or an elephant's eye.
    PathBlocked,
    /// A cannon capture that does not jump exactly one screen.
    CannonNeedsOneScreen,
    /// The mover's general would be attacked after the move.
    LeavesGeneralAttacked,
    /// The generals would face each other on an open line.
    GeneralsFace,
    /// Handicap games: a piece crosses the river during the opening moves.
    HandicapCrossesRiver,
    /// Handicap games: a piece other than a pawn stops on its own river bank during the
    /// opening moves.
    HandicapOwnRiverBank,
    /// Handicap games: an extra move gives check.
    HandicapExtraMoveChecks,
    /// Handicap games: the capture of a piece the handicap protects while unmoved.
    HandicapProtectedPiece,
}

impl IllegalReason {
    /// The reason in words.
    pub const fn describe(self) -> &'static str {
        match self {
            IllegalReason::GameOver => "the game is over: the side to move has no legal move",
            IllegalReason::PassNotAllowed => "passing is not allowed",
            IllegalReason::NoPiece => "there is no piece on the from-point",
            IllegalReason::NotYourPiece => "the piece on the from-point belongs to the other side",
            IllegalReason::CapturesOwnPiece => "the to-point holds one of the mover's own pieces",
            IllegalReason::CannotMoveThatWay => "the piece cannot move that way",
            IllegalReason::PathBlocked => "the way is blocked",
            IllegalReason::CannonNeedsOneScreen => "a cannon captures by jumping exactly one screen",
            IllegalReason::LeavesGeneralAttacked => "the move leaves the mover's general attacked",
            IllegalReason::GeneralsFace => "the move leaves the generals facing on an open file",
            IllegalReason::HandicapCrossesRiver => "the handicap forbids crossing the river during the opening moves",
            IllegalReason::HandicapOwnRiverBank => {
                "the handicap forbids any piece but a pawn to reach its own river bank during the opening moves"
            }
            IllegalReason::HandicapExtraMoveChecks => "an extra move of the handicap may not give check",
            IllegalReason::HandicapProtectedPiece => "the handicap forbids capturing this piece before it has moved",
        }
    }
}
