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

use std::fmt;

use super::Status;
use super::board::{self, Bitboard, Board, ZOBRIST_BLACK_TO_MOVE, bit, squares};
pub use super::illegal::IllegalMove;
use super::setup::Setup;
pub use super::setup::{BoardVariant, PositionError, PositionProblem};

/// A Xiangqi game record: start position, moves, current position, and the rules of a
/// handicap start when it has one.
pub type Game = crate::rules::game::Game<Position>;
/// One ply of a Xiangqi game.
pub type Ply = crate::rules::game::Ply<Position>;
use super::types::{Color, Move, MoveList, Piece, PieceKind, Square};
use tables::{ADVISOR_POINTS, ELEPHANT_POINTS, PALACE, PAWN_POINTS};

/// A Xiangqi position that passed validation: exactly one general each, every piece on
/// a point it can reach, the side not to move not in check, the generals not facing.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: Board,
    turn: Color,
    halfmove_clock: u32,
    fullmove_number: u32,
}

/// What [`Position::play_unchecked`] hands back so that [`Position::undo`] can restore
/// the position exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// The piece the move took.
    pub captured: Option<Piece>,
    halfmove_clock: u32,
    /// Restored as it was, since the count stops at `u32::MAX` rather than wrap.
    fullmove_number: u32,
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
                board.put(Square::new(file, pawns), Piece::new(color, Pawn));
            }
        }
        Position { board, turn: Color::Red, halfmove_clock: 0, fullmove_number: 1 }
    }

    /// Validates a setup. This is the only way to build a position from pieces.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let invalid = |problem| PositionError { variant: BoardVariant::Xiangqi, problem };
        if let Some(problem) = setup.count_problem() {
            return Err(invalid(problem));
        }
        let b = &setup.board;
        for (square, piece) in b.iter() {
            let c = piece.color().index();
            let at = bit(square);
            let error = match piece.kind() {
                PieceKind::General if at & PALACE[c] == 0 => Some(PositionProblem::OutsidePalace { piece, square }),
                PieceKind::Advisor if at & PALACE[c] == 0 => Some(PositionProblem::OutsidePalace { piece, square }),
                PieceKind::Advisor if at & ADVISOR_POINTS[c] == 0 => {
                    Some(PositionProblem::UnreachablePoint { piece, square })
                }
                PieceKind::Elephant if !tables::own_side(c, square.rank() as i32) => {
                    Some(PositionProblem::ElephantAcrossRiver { piece, square })
                }
                PieceKind::Elephant if at & ELEPHANT_POINTS[c] == 0 => {
                    Some(PositionProblem::UnreachablePoint { piece, square })
                }
                PieceKind::Pawn if at & PAWN_POINTS[c] == 0 => {
                    Some(PositionProblem::UnreachablePoint { piece, square })
                }
                _ => None,
            };
            if let Some(problem) = error {
                return Err(invalid(problem));
            }
        }
        let pos = Position {
            board: setup.board,
            turn: setup.turn,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number.max(1),
        };
        if let Some(file) = pos.board.generals_facing() {
            return Err(invalid(PositionProblem::GeneralsFacing { file }));
        }
        let them = pos.turn.other();
        if let Some(king) = pos.board.general(them) {
            let checkers = movegen::attackers_of(&pos, king, pos.turn);
            if checkers != 0 {
                return Err(invalid(PositionProblem::OpponentInCheck { checkers: squares(checkers).collect() }));
            }
        }
        Ok(pos)
    }

    /// The unchecked form of this position (for FEN output or editing).
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board.clone(),
            turn: self.turn,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        }
    }

    /// The pieces.
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Plies since the last capture, as FEN counts them.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number, from 1, growing after Black's move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Zobrist key of pieces and side to move.
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.board.key() ^ if self.turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
    }

    /// The key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        self.board.key_from_scratch() ^ if self.turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
    }

    /// Appends every legal move to `list`.
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.generate::<false, false>(0, 0, list)
    }

    /// Appends every legal capture to `list`.
    pub fn legal_captures(&self, list: &mut MoveList) {
        self.generate::<true, false>(0, 0, list)
    }

    /// Has the side to move a legal move? Asks piece by piece and stops at the first
    /// that has one (nearly always the first piece asked).
    pub fn has_legal_move(&self) -> bool {
        let mut list = MoveList::new();
        squares(self.board.by_color(self.turn)).any(|from| {
            self.generate::<false, true>(bit(from), !0, &mut list);
            !list.is_empty()
        })
    }

    /// How many legal moves there are (perft's last ply).
    #[inline]
    pub fn legal_move_count(&self) -> usize {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.len()
    }

    /// Is the side to move in check?
    pub fn in_check(&self) -> bool {
        match self.board.general(self.turn) {
            Some(k) => self.attacked_after(k, k, k),
            None => false,
        }
    }

    /// Is `m` a legal move here?
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_pass() {
            return false;
        }
        match self.board.piece_at(m.from()) {
            Some(p) if p.color() == self.turn => {}
            _ => return false,
        }
        // The moves of that one piece to that one point: legal if there is one.
        let mut list = MoveList::new();
        self.generate::<false, true>(bit(m.from()), bit(m.to()), &mut list);
        !list.is_empty()
    }

    /// Plays a move known to be legal. Returns what [`Position::undo`] needs.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let undo = Undo {
            captured: self.board.move_piece(m.from(), m.to()),
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
        };
        self.halfmove_clock = if undo.captured.is_some() { 0 } else { self.halfmove_clock.saturating_add(1) };
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_add(1);
        }
        self.turn = self.turn.other();
        undo
    }

    /// Takes back the move `m` played with [`Position::play_unchecked`].
    #[inline]
    pub fn undo(&mut self, m: Move, undo: Undo) {
        self.turn = self.turn.other();
        self.fullmove_number = undo.fullmove_number;
        self.halfmove_clock = undo.halfmove_clock;
        self.board.unmove_piece(m.from(), m.to(), undo.captured);
    }

    /// Passes the turn without moving (a search device, never a legal Xiangqi move);
    /// undone by calling it again. Only sensible when not in check.
    #[inline]
    pub fn toggle_turn(&mut self) {
        self.turn = self.turn.other();
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
    pub(crate) fn undo_skip_turn(&mut self) {
        self.turn = self.turn.other();
        if self.turn == Color::Black {
            self.fullmove_number = self.fullmove_number.saturating_sub(1).max(1);
        }
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove(m)) }
    }

    /// Points a move must leave or reach to give check: the enemy general's rank and
    /// file (chariots, cannons and their screens, the facing generals) and the points
    /// two files and ranks around it (horses and their legs, soldiers). Empty when the
    /// enemy has no general.
    pub fn check_zone(&self) -> Bitboard {
        self.board.general(self.turn.other()).map_or(0, |k| board::lines_and_square_around(k, 2))
    }

    /// Would `m` (legal) give check?
    pub fn gives_check(&self, m: Move) -> bool {
        if !board::touches(m, self.check_zone()) {
            return false;
        }
        let mut after = self.clone();
        after.play_unchecked(m);
        after.in_check()
    }

    /// Ongoing, or lost for the side to move by checkmate or stalemate.
    pub fn status(&self) -> Status {
        self.status_given(self.has_legal_move())
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
        [PieceKind::Chariot, PieceKind::Horse, PieceKind::Cannon, PieceKind::Pawn]
            .iter()
            .map(|k| self.board.pieces(color, *k).count_ones())
            .sum()
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:?}", self.board)?;
        write!(f, "{} to move, halfmove {}, move {}", self.turn.name(), self.halfmove_clock, self.fullmove_number)
    }
}
