//! Janggi (Korean chess): validated positions, legal moves with the pass, make and
//! unmake, status.
//!
//! The casual rules: generals facing each other (bikjang) restrict nothing; a side not
//! in check may always pass, so there is no stalemate; after two passes in a row the
//! game is over. Cho (初, moves first) is [`Color::Red`], Han (漢) is [`Color::Black`].
//!
//! ```
//! use chuhe::rules::janggi::Position;
//! use chuhe::rules::types::{Move, MoveList};
//!
//! let mut pos = Position::startpos();
//! let mut moves = MoveList::new();
//! pos.legal_moves(&mut moves);
//! assert_eq!(moves.len(), 32); // 31 moves and the pass
//! pos.play(Move::PASS).unwrap();
//! pos.play(Move::PASS).unwrap();
//! assert_eq!(pos.status(), chuhe::rules::Status::Ended);
//! ```

pub mod adjudicate;
mod movegen;
pub mod tables;

pub(crate) use movegen::{cannon_attacks, for_each_reach};

/// A Janggi game record: start position, moves (passes included), current position.
pub type Game = crate::rules::game::Game<Position>;
/// One ply of a Janggi game.
pub type Ply = crate::rules::game::Ply<Position>;

use super::Status;
use super::board::{Board, Guard, bit};
use super::board_position::{self, BoardRules};
use super::game::NoHandicap;
pub use super::setup::{BoardVariant, PositionError, PositionProblem};
use super::types::{Color, Move, MoveList, Piece, PieceKind, Square};
pub use crate::rules::illegal::IllegalReason;
use tables::SOLDIER_POINTS;

/// A Janggi position that passed validation: exactly one general each, no more pieces
/// of a kind than a side starts with, generals and guards in their palace, soldiers
/// never behind their start rank, the side not to move not in check.
pub type Position = board_position::Position<Janggi>;

/// The rules of Janggi for a 9x10 [`board_position::Position`]: the generals may face
/// each other, a move gives check from up to three files and ranks around the general
/// (elephants, the palace diagonals), a side may pass, and there is no handicap start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Janggi;

impl BoardRules for Janggi {
    const VARIANT: BoardVariant = BoardVariant::Janggi;
    const PASSES: bool = true;
    const GENERALS_MAY_FACE: bool = true;
    const NAME: &'static str = "Janggi";
    const PALACE_DIAGONALS: bool = true;
    type Handicap = NoHandicap;

    fn placement_problem(piece: Piece, square: Square) -> Option<PositionProblem> {
        let c = piece.color().index();
        let at = bit(square);
        match piece.kind() {
            PieceKind::Soldier if at & SOLDIER_POINTS[c] == 0 => {
                Some(PositionProblem::UnreachablePoint { piece, square })
            }
            _ => None,
        }
    }

    /// Appends every legal move, the pass included, to `list`. None once two passes
    /// in a row have ended the game.
    #[inline]
    fn legal_moves(pos: &Position, list: &mut MoveList) {
        pos.generate(list)
    }

    /// Is `m` a legal move here?
    fn is_legal(pos: &Position, m: Move) -> bool {
        if m.is_pass() {
            return pos.passes < 2 && !pos.in_check();
        }
        match pos.board.piece_at(m.from()) {
            Some(p) if p.color() == pos.turn => {}
            _ => return false,
        }
        // The moves of that one piece to that one point: legal if there is one.
        let mut list = MoveList::new();
        pos.generate_masked(bit(m.from()), bit(m.to()), &mut list);
        !list.is_empty()
    }

    /// Appends the legal captures to `list` (quiescence search).
    fn legal_captures_with(pos: &Position, guard: &Guard, list: &mut MoveList) {
        pos.generate_guarded::<true, false>(guard, !0, pos.board.by_color(pos.turn.other()), list);
    }

    /// Appends every legal move to an empty point to `list`, and the pass last where
    /// it is legal.
    fn legal_quiets_with(pos: &Position, guard: &Guard, list: &mut MoveList) {
        pos.generate_guarded::<true, true>(guard, !0, !pos.board.occupied(), list);
    }

    /// `None` when `m` is legal here, otherwise the first rule it breaks.
    fn explain_illegal(pos: &Position, m: Move) -> Option<IllegalReason> {
        if pos.passes >= 2 {
            return Some(IllegalReason::GameOver);
        }
        if m.is_pass() {
            return pos.in_check().then_some(IllegalReason::PassNotAllowed);
        }
        let piece = match pos.board.piece_at(m.from()) {
            None => return Some(IllegalReason::NoPiece),
            Some(p) if p.color() != pos.turn => return Some(IllegalReason::NotYourPiece),
            Some(p) => p,
        };
        if pos.board.piece_at(m.to()).is_some_and(|p| p.color() == pos.turn) {
            return Some(IllegalReason::CapturesOwnPiece);
        }
        if pos.is_legal(m) {
            return None;
        }
        let mut list = MoveList::new();
        pos.generate_pseudo(&mut list);
        if list.contains(m) {
            return Some(IllegalReason::LeavesGeneralAttacked);
        }
        if piece.kind() == PieceKind::Cannon {
            return Some(IllegalReason::CannonNeedsOneScreen);
        }
        Some(IllegalReason::CannotMoveThatWay)
    }

    /// Ongoing, lost for the side to move by checkmate, or ended by two passes in a
    /// row. There is no stalemate: a side not in check may always pass.
    fn status(pos: &Position) -> Status {
        if pos.passes >= 2 {
            Status::Ended
        } else if pos.in_check() && !pos.has_piece_move() {
            Status::Checkmate
        } else {
            Status::Ongoing
        }
    }
}

/// Janggi's names of the sides: Cho moves first.
pub const fn side_name(c: Color) -> &'static str {
    BoardVariant::Janggi.side_name(c)
}

/// Janggi's names of the kinds (the advisor is a guard, the pawn a soldier).
pub const fn kind_name(k: PieceKind) -> &'static str {
    BoardVariant::Janggi.kind_name(k)
}

/// The four ways a side may set up its horses and elephants, read left to right from
/// that side's own view over the four points between its chariots and guards.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Setup4 {
    /// 마상마상.
    HorseElephantHorseElephant,
    /// 상마상마.
    ElephantHorseElephantHorse,
    /// 마상상마: both horses outside (the usual start).
    HorseElephantElephantHorse,
    /// 상마마상: both elephants outside.
    ElephantHorseHorseElephant,
}

impl Setup4 {
    /// The four setups.
    pub const ALL: [Setup4; 4] = [
        Setup4::HorseElephantHorseElephant,
        Setup4::ElephantHorseElephantHorse,
        Setup4::HorseElephantElephantHorse,
        Setup4::ElephantHorseHorseElephant,
    ];

    /// The kinds on the four points, left to right from the side's own view.
    pub const fn kinds(self) -> [PieceKind; 4] {
        use PieceKind::{Elephant as E, Horse as H};
        match self {
            Setup4::HorseElephantHorseElephant => [H, E, H, E],
            Setup4::ElephantHorseElephantHorse => [E, H, E, H],
            Setup4::HorseElephantElephantHorse => [H, E, E, H],
            Setup4::ElephantHorseHorseElephant => [E, H, H, E],
        }
    }

    /// The setup of `side` as Korean records write it (the `초차림` and `한차림` tags of a
    /// .gib file): 마 horse, 상 elephant, read left to right as Cho sees the board, Han's
    /// too. Han's `상마상마` is [`Setup4::HorseElephantHorseElephant`] from its own view.
    pub fn korean(self, side: Color) -> String {
        let mut kinds = self.kinds();
        if side == Color::Black {
            kinds.reverse();
        }
        kinds.iter().map(|&k| if k == PieceKind::Horse { '마' } else { '상' }).collect()
    }

    /// Reads a setup of `side` written as [`Setup4::korean`] writes it (spaces ignored).
    pub fn from_korean(text: &str, side: Color) -> Option<Setup4> {
        let text: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        Setup4::ALL.into_iter().find(|s| s.korean(side) == text)
    }
}

/// A start position with the given horse and elephant setups for Cho and Han.
pub fn start_position(cho: Setup4, han: Setup4) -> Position {
    use PieceKind::*;
    let mut board = Board::empty();
    for (color, setup) in [(Color::Red, cho), (Color::Black, han)] {
        let red = color == Color::Red;
        let rank = |r: u8| if red { r } else { 9 - r };
        let mut put = |file: u8, r: u8, kind| board.put(Square::new(file, rank(r)), Piece::new(color, kind));
        for (file, kind) in [(0, Chariot), (3, Advisor), (5, Advisor), (8, Chariot)] {
            put(file, 0, kind);
        }
        // Left to right from the side's own view: Han looks from file i towards file a.
        let files = if red { [1, 2, 6, 7] } else { [7, 6, 2, 1] };
        for (file, kind) in files.into_iter().zip(setup.kinds()) {
            put(file, 0, kind);
        }
        put(4, 1, General);
        put(1, 2, Cannon);
        put(7, 2, Cannon);
        for file in [0, 2, 4, 6, 8] {
            put(file, 3, Soldier);
        }
    }
    Position::from_parts(board, Color::Red, 0, 1)
}

impl Position {
    /// The usual start, FEN `rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1`.
    pub fn startpos() -> Position {
        start_position(Setup4::HorseElephantElephantHorse, Setup4::HorseElephantElephantHorse)
    }

    /// Passes played in a row just before this position; two end the game.
    pub fn consecutive_passes(&self) -> u8 {
        self.passes
    }

    /// Has the side to move a legal move other than the pass? Asks piece by piece and
    /// stops at the first that has one.
    pub fn has_piece_move(&self) -> bool {
        self.any_piece_move(|from, list| self.generate_masked(from, !0, list))
    }

    /// The generals face each other on an open file (bikjang).
    pub fn bikjang(&self) -> bool {
        self.board.generals_facing().is_some()
    }

    /// [`Position::status`] for a caller that has already generated the legal moves.
    pub fn status_given(&self, has_legal_move: bool) -> Status {
        if self.passes >= 2 {
            Status::Ended
        } else if !has_legal_move && self.in_check() {
            Status::Checkmate
        } else {
            Status::Ongoing
        }
    }
}
