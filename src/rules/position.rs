//! What every variant's position answers, as one trait: [`GamePosition`] (any variant,
//! any number of players) and [`BoardPosition`] (the two-player 9x10 games).
//!
//! Perft ([`super::perft`]) is written once over [`GamePosition`]; the notations read
//! and write moves of any [`BoardPosition`]; the search's `Searchable` is a
//! [`BoardPosition`] with an evaluation. Each variant keeps its own inherent methods of
//! the same names (so a caller holding a concrete position needs no import); the
//! implementations below answer with them.
//!
//! ```
//! use chuhe::rules::GamePosition;
//! use chuhe::rules::{janggi, three_kingdoms, xiangqi};
//!
//! fn moves<P: GamePosition>(pos: &P) -> usize {
//!     let mut list = P::Moves::default();
//!     pos.legal_moves(&mut list);
//!     list.as_ref().len()
//! }
//! assert_eq!(moves(&xiangqi::Position::startpos()), 44);
//! assert_eq!(moves(&janggi::Position::startpos()), 32); // the pass included
//! assert_eq!(moves(&three_kingdoms::Position::startpos(false)), 44);
//! ```

use std::fmt::{Debug, Display};

use super::Status;
use super::board::{Board, CheckCandidates, Guard};
use super::board_position::{self, BoardRules, Undo};
use super::illegal::IllegalReason;
use super::three_kingdoms;
use super::types::{Color, Move, MoveList};

/// A validated position of a variant: its legal moves, make and unmake, check, key,
/// side to move and status. The side is an associated type: Three Kingdoms has three.
pub trait GamePosition: Clone {
    /// The variant's name, as messages write it (`Xiangqi`, `Janggi`, `Three Kingdoms`).
    const VARIANT: &'static str;
    /// A move of the variant.
    type Move: Copy + Eq + Display + Debug;
    /// The list the moves are appended to (fixed capacity, no allocation).
    type Moves: Default + AsRef<[Self::Move]>;
    /// What [`GamePosition::play_unchecked`] hands back so that [`GamePosition::undo`]
    /// restores the position exactly.
    type Undo;
    /// A player: a colour of two, or a kingdom of three.
    type Side: Copy + Eq + Debug;
    /// The state of the position on its own (no history).
    type Status: Copy + Eq + Debug;

    /// The side to move.
    fn turn(&self) -> Self::Side;
    /// The Zobrist key of the pieces and the side to move.
    fn key(&self) -> u64;
    /// Appends every legal move of the side to move to `list`.
    fn legal_moves(&self, list: &mut Self::Moves);
    /// Appends the legal moves that take a piece to `list`.
    fn legal_captures(&self, list: &mut Self::Moves);
    /// Is `m` legal here?
    fn is_legal(&self, m: Self::Move) -> bool;
    /// `None` when `m` is legal, otherwise the first rule it breaks.
    fn explain_illegal(&self, m: Self::Move) -> Option<IllegalReason>;
    /// Plays `m`, which must be legal, and returns what [`GamePosition::undo`] needs.
    fn play_unchecked(&mut self, m: Self::Move) -> Self::Undo;
    /// Takes back `m`, played by [`GamePosition::play_unchecked`] which gave `undo`.
    fn undo(&mut self, m: Self::Move, undo: Self::Undo);
    /// Is the side to move's general attacked (or facing a rival general)?
    fn in_check(&self) -> bool;
    /// The state of the position on its own.
    fn status(&self) -> Self::Status;
}

/// A position of a two-player game on the 9x10 board (Xiangqi, Janggi): one move type
/// and move list, two colours, the [`Board`] with its piece bitboards.
pub trait BoardPosition: GamePosition<Move = Move, Moves = MoveList, Side = Color, Status = Status> {
    /// Do pieces move along the palace diagonals (Janggi)? The descriptive notations
    /// (WXF, Chinese, Italian) cannot tell such a move from a straight one.
    const PALACE_DIAGONALS: bool;
    /// May a side pass ([`Move::PASS`])?
    const PASSES: bool;
    /// The pieces.
    fn board(&self) -> &Board;
    /// Would `m` (legal) give check?
    fn gives_check(&self, m: Move) -> bool;
    /// The moves that may give check here, to test many moves with
    /// [`BoardPosition::gives_check_given`].
    fn check_candidates(&self) -> CheckCandidates;
    /// [`BoardPosition::gives_check`], given this position's
    /// [`BoardPosition::check_candidates`].
    fn gives_check_given(&self, candidates: &CheckCandidates, m: Move) -> bool;
    /// The null move: the other side to move, nothing else changed; again to take back.
    fn toggle_turn(&mut self);
    /// The key after the legal move `m`, without playing it.
    fn key_after(&self, m: Move) -> u64;
    /// The guard of the general of the side to move, for generating its moves in parts
    /// ([`BoardPosition::legal_captures_with`], then
    /// [`BoardPosition::legal_quiets_with`]); `in_check` must be what
    /// [`GamePosition::in_check`] says. `None` without a general (no moves).
    fn move_guard(&self, in_check: bool) -> Option<Guard>;
    /// Appends the legal captures, given the guard of [`BoardPosition::move_guard`].
    fn legal_captures_with(&self, guard: &Guard, list: &mut MoveList);
    /// Appends the legal moves that take nothing (and a legal pass, last), given the
    /// guard of [`BoardPosition::move_guard`]: after the captures, the rest of the legal
    /// moves, each part in the order of [`GamePosition::legal_moves`].
    fn legal_quiets_with(&self, guard: &Guard, list: &mut MoveList);
}

/// Xiangqi and Janggi: one position type under each variant's [`BoardRules`].
impl<R: BoardRules> GamePosition for board_position::Position<R> {
    const VARIANT: &'static str = R::NAME;
    type Move = Move;
    type Moves = MoveList;
    type Undo = Undo;
    type Side = Color;
    type Status = Status;

    #[inline(always)]
    fn turn(&self) -> Color {
        board_position::Position::turn(self)
    }
    #[inline(always)]
    fn key(&self) -> u64 {
        board_position::Position::key(self)
    }
    #[inline(always)]
    fn legal_moves(&self, list: &mut MoveList) {
        R::legal_moves(self, list)
    }
    #[inline(always)]
    fn legal_captures(&self, list: &mut MoveList) {
        board_position::Position::legal_captures(self, list)
    }
    #[inline(always)]
    fn is_legal(&self, m: Move) -> bool {
        R::is_legal(self, m)
    }
    fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        R::explain_illegal(self, m)
    }
    #[inline(always)]
    fn play_unchecked(&mut self, m: Move) -> Undo {
        board_position::Position::play_unchecked(self, m)
    }
    #[inline(always)]
    fn undo(&mut self, m: Move, undo: Undo) {
        board_position::Position::undo(self, m, undo)
    }
    #[inline(always)]
    fn in_check(&self) -> bool {
        board_position::Position::in_check(self)
    }
    fn status(&self) -> Status {
        R::status(self)
    }
}

impl<R: BoardRules> BoardPosition for board_position::Position<R> {
    const PALACE_DIAGONALS: bool = R::PALACE_DIAGONALS;
    const PASSES: bool = R::PASSES;
    #[inline(always)]
    fn board(&self) -> &Board {
        board_position::Position::board(self)
    }
    #[inline(always)]
    fn gives_check(&self, m: Move) -> bool {
        board_position::Position::gives_check(self, m)
    }
    #[inline(always)]
    fn check_candidates(&self) -> CheckCandidates {
        board_position::Position::check_candidates(self)
    }
    #[inline(always)]
    fn gives_check_given(&self, candidates: &CheckCandidates, m: Move) -> bool {
        board_position::Position::gives_check_given(self, candidates, m)
    }
    #[inline(always)]
    fn toggle_turn(&mut self) {
        board_position::Position::toggle_turn(self)
    }
    #[inline(always)]
    fn key_after(&self, m: Move) -> u64 {
        board_position::Position::key_after(self, m)
    }
    #[inline(always)]
    fn move_guard(&self, in_check: bool) -> Option<Guard> {
        board_position::Position::move_guard(self, in_check)
    }
    #[inline(always)]
    fn legal_captures_with(&self, guard: &Guard, list: &mut MoveList) {
        R::legal_captures_with(self, guard, list)
    }
    #[inline(always)]
    fn legal_quiets_with(&self, guard: &Guard, list: &mut MoveList) {
        R::legal_quiets_with(self, guard, list)
    }
}

/// Three Kingdoms: three sides, its own moves and status. Its inherent
/// `explain_illegal` also says the reason in words; the trait keeps the reason.
impl GamePosition for three_kingdoms::Position {
    const VARIANT: &'static str = "Three Kingdoms";
    type Move = three_kingdoms::Move;
    type Moves = three_kingdoms::MoveList;
    type Undo = three_kingdoms::Undo;
    type Side = three_kingdoms::Kingdom;
    type Status = three_kingdoms::Status;

    #[inline(always)]
    fn turn(&self) -> three_kingdoms::Kingdom {
        self.side_to_move()
    }
    #[inline(always)]
    fn key(&self) -> u64 {
        three_kingdoms::Position::key(self)
    }
    #[inline(always)]
    fn legal_moves(&self, list: &mut three_kingdoms::MoveList) {
        three_kingdoms::Position::legal_moves(self, list)
    }
    #[inline(always)]
    fn legal_captures(&self, list: &mut three_kingdoms::MoveList) {
        three_kingdoms::Position::legal_captures(self, list)
    }
    #[inline(always)]
    fn is_legal(&self, m: three_kingdoms::Move) -> bool {
        three_kingdoms::Position::is_legal(self, m)
    }
    fn explain_illegal(&self, m: three_kingdoms::Move) -> Option<IllegalReason> {
        three_kingdoms::Position::explain_illegal(self, m).map(|(reason, _)| reason)
    }
    #[inline(always)]
    fn play_unchecked(&mut self, m: three_kingdoms::Move) -> three_kingdoms::Undo {
        three_kingdoms::Position::play_unchecked(self, m)
    }
    #[inline(always)]
    fn undo(&mut self, m: three_kingdoms::Move, undo: three_kingdoms::Undo) {
        three_kingdoms::Position::undo(self, m, undo)
    }
    #[inline(always)]
    fn in_check(&self) -> bool {
        three_kingdoms::Position::in_check(self)
    }
    fn status(&self) -> three_kingdoms::Status {
        three_kingdoms::Position::status(self)
    }
}
