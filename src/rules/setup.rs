//! An unchecked arrangement of a 9x10 game: what a FEN says, before any rule has looked
//! at it. It becomes a playable position only through a variant's validation, which
//! says what is wrong with it as a [`PositionError`].

use std::fmt;

use super::board::Board;
use super::types::{Color, Piece, PieceKind, Square};

/// Pieces, side to move and counters, as written, not yet validated.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Setup {
    /// The pieces.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Plies since the last capture (FEN's halfmove clock).
    pub halfmove_clock: u32,
    /// Move number, starting at 1 and growing after Black's (Han's) move.
    pub fullmove_number: u32,
}

/// The most pieces of each kind (by [`PieceKind::index`]) a side starts with, in
/// Xiangqi and in Janggi.
pub const MAX_PIECES: [u32; 7] = [1, 2, 2, 2, 2, 2, 5];

/// A two-player 9x10 variant, as the validation of a setup names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardVariant {
    /// Xiangqi: red and black; advisors and pawns.
    Xiangqi,
    /// Janggi: cho and han; guards and soldiers.
    Janggi,
}

impl BoardVariant {
    /// The variant's name of a side: `red`, or Janggi's `cho` (Cho moves first) and
    /// `han`.
    pub const fn side_name(self, c: Color) -> &'static str {
        match (self, c) {
            (BoardVariant::Janggi, Color::Red) => "cho",
            (BoardVariant::Janggi, Color::Black) => "han",
            (BoardVariant::Xiangqi, c) => c.name(),
        }
    }

    /// The variant's name of a kind: `advisor`, or Janggi's `guard` (and its `soldier`
    /// for the pawn).
    pub const fn kind_name(self, k: PieceKind) -> &'static str {
        match (self, k) {
            (BoardVariant::Janggi, PieceKind::Advisor) => "guard",
            (BoardVariant::Janggi, PieceKind::Soldier) => "soldier",
            (_, k) => k.name(),
        }
    }
}

/// What makes an arrangement of pieces no position of its variant (each variant checks
/// the problems that apply to it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionProblem {
    /// A side has no general, or more than one.
    GeneralCount {
        /// The side.
        color: Color,
        /// Its generals.
        count: u32,
    },
    /// More pieces of a kind than a side starts with.
    TooManyPieces {
        /// The piece.
        piece: Piece,
        /// How many stand on the board.
        count: u32,
        /// How many a side starts with.
        max: u32,
    },
    /// A general or an advisor (a guard) outside its palace.
    OutsidePalace {
        /// The piece.
        piece: Piece,
        /// Its point.
        square: Square,
    },
    /// Xiangqi: an elephant across the river.
    ElephantAcrossRiver {
        /// The piece.
        piece: Piece,
        /// Its point.
        square: Square,
    },
    /// A piece on a point it can never reach from its start: in Xiangqi an advisor off
    /// the palace diagonals, an elephant off its seven points, a pawn behind its start
    /// or beside it before the river; in Janggi a soldier behind its start rank.
    UnreachablePoint {
        /// The piece.
        piece: Piece,
        /// Its point.
        square: Square,
    },
    /// The side that is not to move is in check: the mover could take the general.
    OpponentInCheck {
        /// The points of the pieces that give check.
        checkers: Vec<Square>,
    },
    /// Xiangqi: the generals face each other on an open file.
    GeneralsFacing {
        /// The file (0-8 from Red's left).
        file: u8,
    },
}

/// Why an arrangement of pieces is not a position of a two-player 9x10 variant: the
/// problem, and the variant whose names the message uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    /// The variant the setup was validated for.
    pub variant: BoardVariant,
    /// What is wrong.
    pub problem: PositionProblem,
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let side = |c: Color| self.variant.side_name(c);
        let who = |p: &Piece| format!("{} {}", side(p.color()), self.variant.kind_name(p.kind()));
        match &self.problem {
            PositionProblem::GeneralCount { color, count } => {
                write!(f, "{} has {count} generals, needs exactly one", side(*color))
            }
            PositionProblem::TooManyPieces { piece, count, max } => {
                write!(f, "{count} pieces of kind {} ('{}'), at most {max}", who(piece), piece.fen_char())
            }
            PositionProblem::OutsidePalace { piece, square } => {
                write!(f, "{} on {square} is outside its palace", who(piece))
            }
            PositionProblem::ElephantAcrossRiver { piece, square } => {
                write!(f, "{} on {square} is across the river", who(piece))
            }
            PositionProblem::UnreachablePoint { piece, square } => match self.variant {
                BoardVariant::Xiangqi => write!(f, "{} on {square} stands where it can never go", who(piece)),
                BoardVariant::Janggi => write!(f, "{} on {square} stands behind its start rank", who(piece)),
            },
            PositionProblem::OpponentInCheck { checkers } => {
                let list: Vec<String> = checkers.iter().map(|s| s.to_string()).collect();
                write!(f, "the side not to move is in check (from {})", list.join(", "))
            }
            PositionProblem::GeneralsFacing { file } => {
                write!(f, "the generals face each other on file {}", (b'a' + file) as char)
            }
        }
    }
}

impl std::error::Error for PositionError {}

impl Setup {
    /// The first problem of the piece counts: exactly one general a side, and of each
    /// kind no more than a side starts with ([`MAX_PIECES`]).
    pub fn count_problem(&self) -> Option<PositionProblem> {
        for color in Color::ALL {
            let count = self.board.count(Piece::new(color, PieceKind::General));
            if count != 1 {
                return Some(PositionProblem::GeneralCount { color, count });
            }
            for kind in PieceKind::ALL {
                let piece = Piece::new(color, kind);
                let (count, max) = (self.board.count(piece), MAX_PIECES[kind.index()]);
                if count > max {
                    return Some(PositionProblem::TooManyPieces { piece, count, max });
                }
            }
        }
        None
    }
}
