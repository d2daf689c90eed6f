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

pub(crate) use movegen::{attackers_of, cannon_attacks};

/// A Janggi game record: start position, moves (passes included), current position.
pub type Game = crate::rules::game::Game<Position>;
/// One ply of a Janggi game.
pub type Ply = crate::rules::game::Ply<Position>;

use std::fmt;

use super::Status;
use super::board::{self, Bitboard, Board, ZOBRIST_BLACK_TO_MOVE, bit, squares};
use super::illegal::IllegalMove;
use super::setup::Setup;
pub use super::setup::{BoardVariant, PositionError, PositionProblem};
use super::types::{Color, Move, MoveList, Piece, PieceKind, Square};
pub use crate::rules::illegal::IllegalReason;
use tables::{PALACE, SOLDIER_POINTS};

/// A Janggi position that passed validation: exactly one general each, no more pieces
/// of a kind than a side starts with, generals and guards in their palace, soldiers
/// never behind their start rank, the side not to move not in check.
#[derive(Clone, PartialEq, Eq)]
pub struct Position {
    board: Board,
    turn: Color,
    halfmove_clock: u32,
    fullmove_number: u32,
    /// Passes played in a row just before this position (0, 1 or 2; 2 ends the game).
    passes: u8,
}

/// What [`Position::play_unchecked`] hands back so that [`Position::undo`] can restore
/// the position exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Undo {
    /// The piece the move took (none for a pass).
    pub captured: Option<Piece>,
    halfmove_clock: u32,
    /// Restored as it was, since the count stops at `u32::MAX` rather than wrap.
    fullmove_number: u32,
    passes: u8,
}

/// Janggi's names of the sides: Cho moves first.
pub const fn side_name(c: Color) -> &'static str {
    match c {
        Color::Red => "cho",
        Color::Black => "han",
    }
}

/// Janggi's names of the kinds (the advisor is a guard, the pawn a soldier).
pub const fn kind_name(k: PieceKind) -> &'static str {
    match k {
        PieceKind::Advisor => "guard",
        PieceKind::Pawn => "soldier",
        other => other.name(),
    }
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
            put(file, 3, Pawn);
        }
    }
    Position { board, turn: Color::Red, halfmove_clock: 0, fullmove_number: 1, passes: 0 }
}

impl Position {
    /// The usual start, FEN `rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1`.
    pub fn startpos() -> Position {
        start_position(Setup4::HorseElephantElephantHorse, Setup4::HorseElephantElephantHorse)
    }

    /// Validates a setup. This is the only way to build a position from pieces.
    pub fn from_setup(setup: Setup) -> Result<Position, PositionError> {
        let invalid = |problem| PositionError { variant: BoardVariant::Janggi, problem };
        if let Some(problem) = setup.count_problem() {
            return Err(invalid(problem));
        }
        let b = &setup.board;
        for (square, piece) in b.iter() {
            let c = piece.color().index();
            let at = bit(square);
            match piece.kind() {
                PieceKind::General | PieceKind::Advisor if at & PALACE[c] == 0 => {
                    return Err(invalid(PositionProblem::OutsidePalace { piece, square }));
                }
                PieceKind::Pawn if at & SOLDIER_POINTS[c] == 0 => {
                    return Err(invalid(PositionProblem::UnreachablePoint { piece, square }));
                }
                _ => {}
            }
        }
        let pos = Position {
            board: setup.board,
            turn: setup.turn,
            halfmove_clock: setup.halfmove_clock,
            fullmove_number: setup.fullmove_number.max(1),
            passes: 0,
        };
        if let Some(general) = pos.board.general(pos.turn.other()) {
            let checkers = movegen::attackers_of(&pos.board, general, pos.turn);
            if checkers != 0 {
                return Err(invalid(PositionProblem::OpponentInCheck { checkers: squares(checkers).collect() }));
            }
        }
        Ok(pos)
    }

    /// The unchecked form of this position (for FEN output or editing). FEN does not
    /// carry the passes just played.
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

    /// The side to move (Red is Cho).
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Plies since the last capture, as FEN counts them.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number, from 1, growing after Han's move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Passes played in a row just before this position; two end the game.
    pub fn consecutive_passes(&self) -> u8 {
        self.passes
    }

    /// Zobrist key of pieces and side to move (a pass changes only the side).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        self.board.key() ^ if self.turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
    }

    /// The key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        self.board.key_from_scratch() ^ if self.turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
    }

    /// Appends every legal move, the pass included, to `list`. None once two passes
    /// in a row have ended the game.
    #[inline]
    pub fn legal_moves(&self, list: &mut MoveList) {
        self.generate(list)
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

    /// Every enemy piece that attacks the general of the side to move.
    pub fn checkers(&self) -> Bitboard {
        match self.board.general(self.turn) {
            Some(k) => movegen::attackers_of(&self.board, k, self.turn.other()),
            None => 0,
        }
    }

    /// Has the side to move a legal move other than the pass? Asks piece by piece and
    /// stops at the first that has one.
    pub fn has_piece_move(&self) -> bool {
        let mut list = MoveList::new();
        squares(self.board.by_color(self.turn)).any(|from| {
            self.generate_masked(bit(from), !0, &mut list);
            !list.is_empty()
        })
    }

    /// Is `m` a legal move here?
    pub fn is_legal(&self, m: Move) -> bool {
        if m.is_pass() {
            return self.passes < 2 && !self.in_check();
        }
        match self.board.piece_at(m.from()) {
            Some(p) if p.color() == self.turn => {}
            _ => return false,
        }
        // The moves of that one piece to that one point: legal if there is one.
        let mut list = MoveList::new();
        self.generate_masked(bit(m.from()), bit(m.to()), &mut list);
        !list.is_empty()
    }

    /// Plays a move known to be legal (a pass, [`Move::PASS`], included). Returns what
    /// [`Position::undo`] needs.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let captured = if m.is_pass() { None } else { self.board.move_piece(m.from(), m.to()) };
        let undo = Undo {
            captured,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
            passes: self.passes,
        };
        self.passes = if m.is_pass() { self.passes.saturating_add(1) } else { 0 };
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
        self.passes = undo.passes;
        if !m.is_pass() {
            self.board.unmove_piece(m.from(), m.to(), undo.captured);
        }
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove(m)) }
    }

    /// Appends the legal captures to `list` (quiescence search).
    pub fn legal_captures(&self, list: &mut MoveList) {
        let mut all = MoveList::new();
        self.generate(&mut all);
        let enemy = self.board.by_color(self.turn.other());
        for &m in &all {
            if !m.is_pass() && enemy & bit(m.to()) != 0 {
                list.push(m);
            }
        }
    }

    /// Gives the turn to the other side without a move and without counting a pass
    /// (the search's null move). Call it again to take it back.
    #[inline]
    pub fn toggle_turn(&mut self) {
        self.turn = self.turn.other();
    }

    /// The generals face each other on an open file (bikjang).
    pub fn bikjang(&self) -> bool {
        self.board.generals_facing().is_some()
    }

    /// `None` when `m` is legal here, otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        if self.passes >= 2 {
            return Some(IllegalReason::GameOver);
        }
        if m.is_pass() {
            return self.in_check().then_some(IllegalReason::PassNotAllowed);
        }
        let piece = match self.board.piece_at(m.from()) {
            None => return Some(IllegalReason::NoPiece),
            Some(p) if p.color() != self.turn => return Some(IllegalReason::NotYourPiece),
            Some(p) => p,
        };
        if self.board.piece_at(m.to()).is_some_and(|p| p.color() == self.turn) {
            return Some(IllegalReason::CapturesOwnPiece);
        }
        if self.is_legal(m) {
            return None;
        }
        let mut list = MoveList::new();
        self.generate_pseudo(&mut list);
        if list.contains(m) {
            return Some(IllegalReason::LeavesGeneralAttacked);
        }
        if piece.kind() == PieceKind::Cannon {
            return Some(IllegalReason::CannonNeedsOneScreen);
        }
        Some(IllegalReason::CannotMoveThatWay)
    }

    /// Points a move must leave or reach to give check: the enemy general's rank and
    /// file (chariots, cannons and their screens) and the points three files and ranks
    /// around it (elephants, horses and their legs, soldiers, the palace's diagonals).
    /// Empty when the enemy has no general.
    pub fn check_zone(&self) -> Bitboard {
        self.board.general(self.turn.other()).map_or(0, |k| board::lines_and_square_around(k, 3))
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

    /// Ongoing, lost for the side to move by checkmate, or ended by two passes in a
    /// row. There is no stalemate: a side not in check may always pass.
    pub fn status(&self) -> Status {
        if self.passes >= 2 {
            Status::Ended
        } else if self.in_check() && !self.has_piece_move() {
            Status::Checkmate
        } else {
            Status::Ongoing
        }
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

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:?}", self.board)?;
        write!(
            f,
            "{} to move, halfmove {}, move {}, passes {}",
            side_name(self.turn),
            self.halfmove_clock,
            self.fullmove_number,
            self.passes
        )
    }
}
