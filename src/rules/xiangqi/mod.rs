//! Xiangqi (Chinese chess): validated positions, legal moves, make and unmake, status.
//!
//! ```
//! use chuhe::rules::xiangqi::Position;
//! use chuhe::rules::types::{Move, MoveList};
//!
//! let mut pos = Position::startpos();
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 44);
//! let central_cannon = Move::parse_iccs("h2e2").unwrap();
//! pos.play(central_cannon).unwrap();
//! assert!(pos.play(Move::parse_iccs("a0a5").unwrap()).is_err()); // not Red's turn
//! ```

pub mod adjudicate;
pub mod chase;
mod explain;
pub mod handicap;
mod movegen;
pub mod tables;

pub use crate::rules::illegal::IllegalReason;

use super::Status;
use super::board::{Board, Guard, bit};
use super::board_position::{self, BoardRules};
pub use super::illegal::IllegalMove;
pub use super::setup::{BoardVariant, PositionError, PositionProblem};

/// A Xiangqi game record: start position, moves, current position, and the rules of a
/// handicap start when it has one.
pub type Game = crate::rules::game::Game<Position>;
/// One ply of a Xiangqi game.
pub type Ply = crate::rules::game::Ply<Position>;
use super::types::{Color, Move, MoveList, Piece, PieceKind, Square};
use handicap::Handicap;
use tables::{ADVISOR_POINTS, ELEPHANT_POINTS, PAWN_POINTS};

/// A Xiangqi position that passed validation: exactly one general each, every piece on
/// a point it can reach, the side not to move not in check, the generals not facing.
pub type Position = board_position::Position<Xiangqi>;

/// The rules of Xiangqi for a 9x10 [`board_position::Position`]: the generals may not
/// face each other, a move gives check from at most two files and ranks around the
/// general (horses and their legs, soldiers), handicap starts give a side extra moves,
/// and there is no pass.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Xiangqi;

impl BoardRules for Xiangqi {
    const VARIANT: BoardVariant = BoardVariant::Xiangqi;
    const PASSES: bool = false;
    const GENERALS_MAY_FACE: bool = false;
    const NAME: &'static str = "Xiangqi";
    const PALACE_DIAGONALS: bool = false;
    type Handicap = Handicap;

    fn placement_problem(piece: Piece, square: Square) -> Option<PositionProblem> {
        let c = piece.color().index();
        let at = bit(square);
        match piece.kind() {
            PieceKind::Advisor if at & ADVISOR_POINTS[c] == 0 => {
                Some(PositionProblem::UnreachablePoint { piece, square })
            }
            PieceKind::Elephant if !tables::own_side(c, square.rank() as i32) => {
                Some(PositionProblem::ElephantAcrossRiver { piece, square })
            }
            PieceKind::Elephant if at & ELEPHANT_POINTS[c] == 0 => {
                Some(PositionProblem::UnreachablePoint { piece, square })
            }
            PieceKind::Soldier if at & PAWN_POINTS[c] == 0 => Some(PositionProblem::UnreachablePoint { piece, square }),
            _ => None,
        }
    }

    fn skip_turn(pos: &mut Position) -> bool {
        pos.skip_turn()
    }

    fn undo_skip_turn(pos: &mut Position) {
        pos.undo_skip_turn()
    }

    /// Appends every legal move to `list`.
    #[inline]
    fn legal_moves(pos: &Position, list: &mut MoveList) {
        pos.generate::<true, true, false>(0, 0, list)
    }

    /// Appends every legal capture to `list`.
    fn legal_captures_with(pos: &Position, guard: &Guard, list: &mut MoveList) {
        pos.generate_guarded::<true, false, false>(guard, 0, 0, list)
    }

    /// Appends every legal move to an empty point to `list`.
    fn legal_quiets_with(pos: &Position, guard: &Guard, list: &mut MoveList) {
        pos.generate_guarded::<false, true, false>(guard, 0, 0, list)
    }

    /// Is `m` a legal move here?
    fn is_legal(pos: &Position, m: Move) -> bool {
        if m.is_pass() {
            return false;
        }
        match pos.board.piece_at(m.from()) {
            Some(p) if p.color() == pos.turn => {}
            _ => return false,
        }
        // The moves of that one piece to that one point: legal if there is one.
        let mut list = MoveList::new();
        pos.generate::<true, true, true>(bit(m.from()), bit(m.to()), &mut list);
        !list.is_empty()
    }

    /// Ongoing, or lost for the side to move by checkmate or stalemate.
    fn status(pos: &Position) -> Status {
        pos.status_given(pos.has_legal_move())
    }

    fn explain_illegal(pos: &Position, m: Move) -> Option<IllegalReason> {
        explain::explain_illegal(pos, m)
    }
}

impl Position {
    /// The initial position, FEN `rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1`.
    pub fn startpos() -> Position {
        // Set up once: most requests and records start here.
        static START: std::sync::LazyLock<Position> = std::sync::LazyLock::new(Position::set_up_start);
        START.clone()
    }

    fn set_up_start() -> Position {
        use PieceKind::*;
        let mut board = Board::empty();
        let back = [Chariot, Horse, Elephant, Advisor, General, Advisor, Elephant, Horse, Chariot];
        for color in Color::ALL {
            let (home, cannons, pawns) = if color == Color::Red { (0, 2, 3) } else { (9, 7, 6) };
            for (file, kind) in back.iter().enumerate() {
                board.put(Square::new(file as u8, home), Piece::new(color, *kind));
            }
            for file in [1, 7] {
                board.put(Square::new(file, cannons), Piece::new(color, Cannon));
            }
            for file in [0, 2, 4, 6, 8] {
                board.put(Square::new(file, pawns), Piece::new(color, Soldier));
            }
        }
        Position::from_parts(board, Color::Red, 0, 1)
    }

    /// Has the side to move a legal move? Asks piece by piece and stops at the first
    /// that has one (nearly always the first piece asked).
    pub fn has_legal_move(&self) -> bool {
        self.any_piece_move(|from, list| self.generate::<true, true, true>(from, !0, list))
    }

    /// Handicap openings: gives the move back to the side that has just moved, as if its
    /// opponent had passed. Refused (`false`, nothing changes) when the side to move is
    /// in check: the other side could then take the general.
    pub fn skip_turn(&mut self) -> bool {
        if self.in_check() {
            return false;
        }
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.turn = self.turn.other();
        true
    }

    /// Takes back [`Position::skip_turn`]; always followed by the undo of the move
    /// before it, which restores the move number exactly (it stops at `u32::MAX`).
    pub(super) fn undo_skip_turn(&mut self) {
        self.turn = self.turn.other();
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_sub(1).max(1);
        }
    }

    /// [`Position::status`] for a caller that has already generated the legal moves.
    pub fn status_given(&self, has_legal_move: bool) -> Status {
        if has_legal_move {
            Status::Ongoing
        } else if self.in_check() {
            Status::Checkmate
        } else {
            Status::Stalemate
        }
    }

    /// The positions of the pieces that can still attack (chariot, horse, cannon, pawn).
    pub fn attacking_pieces(&self, color: Color) -> u32 {
        [PieceKind::Chariot, PieceKind::Horse, PieceKind::Cannon, PieceKind::Soldier]
            .iter()
            .map(|k| self.board.pieces(color, *k).count_ones())
            .sum()
    }
}
