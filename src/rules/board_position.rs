//! The position of a two-player 9x10 variant, written once: [`Position`] holds the
//! board, the side to move, the clocks and the passes in a row, generic over the
//! variant's [`BoardRules`] (its validation of a setup, its attack test, its names).
//! [`crate::rules::xiangqi::Position`] and [`crate::rules::janggi::Position`] are
//! this type under their rules; each variant adds its move generation, legality and
//! status in `impl` blocks of its own module.

use std::fmt;
use std::marker::PhantomData;

use super::Status;
use super::board::{Bitboard, Board, CheckCandidates, Guard, PALACE, ZOBRIST_BLACK_TO_MOVE, bit, squares};
use super::game::{HandicapRules, RecordedPosition};
use super::illegal::{IllegalMove, IllegalReason};
use super::setup::{BoardVariant, PositionError, PositionProblem, Setup};
use super::types::{Color, Move, MoveList, Piece, PieceKind, Square};

/// How the pieces of a two-player 9x10 variant attack a general: written in the
/// variant's move generator, which also says what its [`Guard`] watches.
pub trait Attacks: Sized {
    /// Would the general of the side to move, standing on `king` after the move
    /// `from`-`to`, be attacked (or, where the variant forbids it, face the enemy
    /// general)? With `from == to == king`: is it attacked now?
    fn attacked_after(pos: &Position<Self>, king: Square, from: Square, to: Square) -> bool;
    /// Every piece of `by` that attacks `target` on the board `b`.
    fn attackers_of(b: &Board, target: Square, by: Color) -> Bitboard;
    /// Adds to `guard`, built by [`Guard::lines`] against the pieces of `attackers` for
    /// a general not in check, the moves only this variant's pieces can turn into a
    /// check.
    fn widen_guard(b: &Board, attackers: Color, guard: &mut Guard);
    /// The points from which a piece of `attackers` may attack the general on `king`,
    /// by kind ([`PieceKind::index`]), whatever stands in the way: a superset is
    /// enough (see [`CheckCandidates`]).
    fn direct_checks(attackers: Color, king: Square) -> [Bitboard; 7];
    /// The general on `king` in check from `attackers`: the points a move must reach,
    /// and those it may leave, to answer the check (besides the general's own moves).
    /// A superset is enough: every move that passes is tested.
    fn check_answers(b: &Board, king: Square, attackers: Color) -> (Bitboard, Bitboard);
}

/// A key of the pieces `board_key` with `turn` to move.
#[inline(always)]
fn with_turn(board_key: u64, turn: Color) -> u64 {
    board_key ^ if turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
}

/// What a two-player 9x10 variant decides for its [`Position`]: the checks of a setup,
/// the attack test, how far a checking move reaches, passes and handicaps.
pub trait BoardRules: Attacks + Copy + Eq + fmt::Debug + Default + Send + Sync + 'static {
    /// The variant, as the validation of a setup names it.
    const VARIANT: BoardVariant;
    /// The variant's name, as messages write it (`Xiangqi`, `Janggi`).
    const NAME: &'static str;
    /// Do pieces move along the palace diagonals (Janggi)?
    const PALACE_DIAGONALS: bool;
    /// May a side pass ([`Move::PASS`])? Without, a pass is never played and its
    /// bookkeeping is compiled out.
    const PASSES: bool;
    /// May the generals face each other on an open file?
    const GENERALS_MAY_FACE: bool;
    /// The rules a game may carry beyond its position's (a handicap): a
    /// [`HandicapRules`] of this variant's position.
    type Handicap;

    /// Why `piece` cannot stand on `square` in this variant, if it cannot (besides a
    /// general or advisor outside its palace, which every variant refuses).
    fn placement_problem(piece: Piece, square: Square) -> Option<PositionProblem>;
    /// Appends every legal move of the side to move to `list`.
    fn legal_moves(pos: &Position<Self>, list: &mut MoveList);
    /// Appends the legal moves that take a piece to `list`, with the guard of
    /// [`Position::move_guard`].
    fn legal_captures_with(pos: &Position<Self>, guard: &Guard, list: &mut MoveList);
    /// Appends the legal moves that take nothing to `list` (a pass too, last, where it
    /// is legal), with the guard of [`Position::move_guard`]: after the captures, the
    /// rest of the legal moves, each part in the order [`BoardRules::legal_moves`]
    /// gives it.
    fn legal_quiets_with(pos: &Position<Self>, guard: &Guard, list: &mut MoveList);
    /// Is `m` legal here?
    fn is_legal(pos: &Position<Self>, m: Move) -> bool;
    /// `None` when `m` is legal here, otherwise the first rule it breaks.
    fn explain_illegal(pos: &Position<Self>, m: Move) -> Option<IllegalReason>;
    /// The state of the position on its own.
    fn status(pos: &Position<Self>) -> Status;
    /// Gives the move back to the side that has just moved, for a handicap's extra
    /// move; `false`, and nothing changes, where it is refused (always, by default).
    fn skip_turn(_: &mut Position<Self>) -> bool {
        false
    }
    /// Takes back [`BoardRules::skip_turn`].
    fn undo_skip_turn(_: &mut Position<Self>) {}
}

/// A position of a two-player 9x10 variant that passed its validation.
#[derive(Clone, PartialEq, Eq)]
pub struct Position<R> {
    pub(super) board: Board,
    pub(super) turn: Color,
    pub(super) halfmove_clock: u32,
    pub(super) fullmove_number: u32,
    /// Passes played in a row just before this position (0, 1 or 2; 2 ends a Janggi
    /// game). Always 0 where the variant has no pass.
    pub(super) passes: u8,
    rules: PhantomData<R>,
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

impl<R: BoardRules> Position<R> {
    /// A position of `board` with `turn` to move and no pass just played, unchecked:
    /// for the variants' start positions.
    pub(super) fn from_parts(board: Board, turn: Color, halfmove_clock: u32, fullmove_number: u32) -> Self {
        Position { board, turn, halfmove_clock, fullmove_number, passes: 0, rules: PhantomData }
    }

    /// Validates a setup. This is the only way to build a position from pieces.
    pub fn from_setup(setup: Setup) -> Result<Self, PositionError> {
        let invalid = |problem| PositionError { variant: R::VARIANT, problem };
        if let Some(problem) = setup.count_problem() {
            return Err(invalid(problem));
        }
        // Generals and advisors (guards) stay in their palace in both variants.
        let placement = |(square, piece): (Square, Piece)| {
            let palace_piece = matches!(piece.kind(), PieceKind::General | PieceKind::Advisor);
            if palace_piece && bit(square) & PALACE[piece.color().index()] == 0 {
                return Some(PositionProblem::OutsidePalace { piece, square });
            }
            R::placement_problem(piece, square)
        };
        if let Some(problem) = setup.board.iter().find_map(placement) {
            return Err(invalid(problem));
        }
        let pos = Self::from_parts(setup.board, setup.turn, setup.halfmove_clock, setup.fullmove_number.max(1));
        if !R::GENERALS_MAY_FACE
            && let Some(file) = pos.board.generals_facing()
        {
            return Err(invalid(PositionProblem::GeneralsFacing { file }));
        }
        if let Some(general) = pos.board.general(pos.turn.other()) {
            let checkers = R::attackers_of(&pos.board, general, pos.turn);
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

    /// The side to move (Red is Janggi's Cho).
    #[inline(always)]
    pub fn turn(&self) -> Color {
        self.turn
    }

    /// Plies since the last capture, as FEN counts them.
    pub fn halfmove_clock(&self) -> u32 {
        self.halfmove_clock
    }

    /// The move number, from 1, growing after Black's (Han's) move.
    pub fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }

    /// Zobrist key of pieces and side to move (a pass changes only the side).
    #[inline(always)]
    pub fn key(&self) -> u64 {
        with_turn(self.board.key(), self.turn)
    }

    /// The key after the legal move `m`, without playing it: so that a search can ask
    /// for the next position's table entry before it gets there.
    #[inline(always)]
    pub fn key_after(&self, m: Move) -> u64 {
        let board =
            if R::PASSES && m.is_pass() { self.board.key() } else { self.board.key_after_move(m.from(), m.to()) };
        with_turn(board, self.turn.other())
    }

    /// The key computed from scratch (for tests of the incremental key).
    pub fn key_from_scratch(&self) -> u64 {
        self.board.key_from_scratch() ^ if self.turn == Color::Black { ZOBRIST_BLACK_TO_MOVE } else { 0 }
    }

    /// Would the general of the side to move, standing on `king` after the move
    /// `from`-`to`, be attacked? See [`Attacks::attacked_after`].
    #[inline(always)]
    pub(super) fn attacked_after(&self, king: Square, from: Square, to: Square) -> bool {
        R::attacked_after(self, king, from, to)
    }

    /// Which moves the general-safety test must see, the general standing on `king`:
    /// in check, every move that may answer it ([`Attacks::check_answers`]); otherwise
    /// what [`Guard::lines`] and the variant ([`Attacks::widen_guard`]) mark.
    #[inline]
    pub(super) fn guard(&self, king: Square) -> Guard {
        self.guard_knowing(king, self.attacked_after(king, king, king))
    }

    /// [`Position::guard`], `in_check` telling whether the general on `king` is
    /// attacked.
    #[inline]
    fn guard_knowing(&self, king: Square, in_check: bool) -> Guard {
        if in_check {
            let (reach, leave) = R::check_answers(&self.board, king, self.turn.other());
            return Guard::evasions(king, reach, leave);
        }
        let mut guard = Guard::lines(&self.board, king, self.turn.other());
        R::widen_guard(&self.board, self.turn.other(), &mut guard);
        guard
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
            Some(k) => R::attackers_of(&self.board, k, self.turn.other()),
            None => 0,
        }
    }

    /// The moves that may give check here: the guard of the enemy general against the
    /// side to move, and the points from which each kind may attack it. None when the
    /// enemy has no general.
    #[inline]
    pub fn check_candidates(&self) -> CheckCandidates {
        let us = self.turn;
        let Some(king) = self.board.general(us.other()) else { return CheckCandidates::NONE };
        let mut guard = Guard::lines(&self.board, king, us);
        R::widen_guard(&self.board, us, &mut guard);
        CheckCandidates::new(&guard, R::direct_checks(us, king))
    }

    /// Would `m` (legal) give check?
    pub fn gives_check(&self, m: Move) -> bool {
        self.gives_check_given(&self.check_candidates(), m)
    }

    /// Would `m` (legal) give check, `candidates` being this position's
    /// [`Position::check_candidates`] (made once for many moves)?
    #[inline]
    pub fn gives_check_given(&self, candidates: &CheckCandidates, m: Move) -> bool {
        if !candidates.may_check(&self.board, m) {
            return false;
        }
        let mut after = self.clone();
        after.play_unchecked(m);
        after.in_check()
    }

    /// Plays a move known to be legal (where the variant has one, a pass,
    /// [`Move::PASS`]). Returns what [`Position::undo`] needs.
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) -> Undo {
        let pass = R::PASSES && m.is_pass();
        let captured = if pass { None } else { self.board.move_piece(m.from(), m.to()) };
        let undo = Undo {
            captured,
            halfmove_clock: self.halfmove_clock,
            fullmove_number: self.fullmove_number,
            passes: self.passes,
        };
        if R::PASSES {
            self.passes = if pass { self.passes.saturating_add(1) } else { 0 };
        }
        self.halfmove_clock = if captured.is_some() { 0 } else { self.halfmove_clock.saturating_add(1) };
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
        if R::PASSES {
            self.passes = undo.passes;
            if m.is_pass() {
                return;
            }
        }
        self.board.unmove_piece(m.from(), m.to(), undo.captured);
    }

    /// Gives the turn to the other side without a move and without counting a pass
    /// (the search's null move, never a legal move); undone by calling it again. Only
    /// sensible when not in check.
    #[inline]
    pub fn toggle_turn(&mut self) {
        self.turn = self.turn.other();
    }

    /// Appends every legal move of the side to move to `list` (in Janggi the pass
    /// too, last, unless in check or the game is over).
    #[inline(always)]
    pub fn legal_moves(&self, list: &mut MoveList) {
        R::legal_moves(self, list)
    }

    /// Appends the legal moves that take a piece to `list`.
    pub fn legal_captures(&self, list: &mut MoveList) {
        if let Some(guard) = self.move_guard(self.in_check()) {
            R::legal_captures_with(self, &guard, list)
        }
    }

    /// Appends the legal moves that take nothing to `list` (in Janggi the pass too,
    /// last, where it is legal). The captures, then these, are the legal moves, each
    /// part in the order of [`Position::legal_moves`].
    pub fn legal_quiets(&self, list: &mut MoveList) {
        if let Some(guard) = self.move_guard(self.in_check()) {
            R::legal_quiets_with(self, &guard, list)
        }
    }

    /// What generating the moves of the side to move in parts needs once: the guard of
    /// its general, for [`Position::legal_captures_with`] and
    /// [`Position::legal_quiets_with`]. `in_check` must be what [`Position::in_check`]
    /// says (a search knows it from the move that led here). `None` without a general:
    /// there is no move.
    #[inline]
    pub fn move_guard(&self, in_check: bool) -> Option<Guard> {
        debug_assert_eq!(in_check, self.in_check(), "move_guard told the wrong check");
        let king = self.board.general(self.turn)?;
        Some(self.guard_knowing(king, in_check))
    }

    /// [`Position::legal_captures`] with the guard of [`Position::move_guard`].
    #[inline(always)]
    pub fn legal_captures_with(&self, guard: &Guard, list: &mut MoveList) {
        R::legal_captures_with(self, guard, list)
    }

    /// [`Position::legal_quiets`] with the guard of [`Position::move_guard`].
    #[inline(always)]
    pub fn legal_quiets_with(&self, guard: &Guard, list: &mut MoveList) {
        R::legal_quiets_with(self, guard, list)
    }

    /// How many legal moves there are (perft's last ply).
    #[inline]
    pub fn legal_move_count(&self) -> usize {
        let mut list = MoveList::new();
        self.legal_moves(&mut list);
        list.len()
    }

    /// Is `m` a legal move here?
    #[inline(always)]
    pub fn is_legal(&self, m: Move) -> bool {
        R::is_legal(self, m)
    }

    /// `None` when `m` is legal here, otherwise the first rule it breaks.
    pub fn explain_illegal(&self, m: Move) -> Option<IllegalReason> {
        R::explain_illegal(self, m)
    }

    /// Plays `m` if it is legal; otherwise leaves the position unchanged.
    pub fn play(&mut self, m: Move) -> Result<Undo, IllegalMove> {
        if self.is_legal(m) { Ok(self.play_unchecked(m)) } else { Err(IllegalMove(m)) }
    }

    /// The state of the position on its own: ongoing, or lost for the side to move
    /// (checkmate; in Xiangqi stalemate too), or ended (Janggi, two passes in a row).
    pub fn status(&self) -> Status {
        R::status(self)
    }

    /// Has the side to move a legal move of a piece (the pass aside)? Asks piece by
    /// piece, with `generate(from, list)` appending the legal moves of the pieces on
    /// `from`, and stops at the first that has one (nearly always the first asked).
    #[inline]
    pub(super) fn any_piece_move(&self, generate: impl Fn(Bitboard, &mut MoveList)) -> bool {
        let mut list = MoveList::new();
        squares(self.board.by_color(self.turn)).any(|from| {
            generate(bit(from), &mut list);
            !list.is_empty()
        })
    }
}

/// A game record's position: the piece a ply took is in its [`Undo`]; Xiangqi's
/// handicaps give the same side a move again.
impl<R: BoardRules> RecordedPosition for Position<R>
where
    R::Handicap: HandicapRules<Self>,
{
    type Piece = Piece;
    type Handicap = R::Handicap;
    fn captured_by(undo: &Undo) -> Option<Piece> {
        undo.captured
    }
    fn side_index(side: Color) -> usize {
        side.index()
    }
    fn fullmove_number(&self) -> u32 {
        self.fullmove_number
    }
    fn skip_turn(&mut self) -> bool {
        R::skip_turn(self)
    }
    fn undo_skip_turn(&mut self) {
        R::undo_skip_turn(self)
    }
}

impl<R: BoardRules> fmt::Debug for Position<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:?}", self.board)?;
        let side = R::VARIANT.side_name(self.turn);
        write!(f, "{side} to move, halfmove {}, move {}", self.halfmove_clock, self.fullmove_number)?;
        if R::PASSES { write!(f, ", passes {}", self.passes) } else { Ok(()) }
    }
}
