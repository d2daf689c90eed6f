//! The domain's games and moves as messages: statuses, moves with their facts and
//! notations (also written straight as protobuf bytes), and the reasons a move is
//! illegal.

use super::fields::{check_notation, warning};
use crate::api::error::{Error, bad_request};
use crate::api::proto;
use crate::api::wire::{LENGTH_DELIMITED, VARINT, Writer};
use crate::game::{BoardGame, MoveFacts};
use crate::notation::Notation;
use crate::rules::Status as BoardStatus;
use crate::rules::illegal::IllegalReason;
use crate::rules::types::{Color, Move, Piece, PieceKind, Square};

type Status = Error;

/// The status of the game's current position.
pub fn game_status(game: &BoardGame) -> proto::PositionStatus {
    describe_status(game, game.status())
}

/// [`game_status`] when the legal moves are already known.
pub fn game_status_given(game: &BoardGame, legal_moves: &[Move]) -> proto::PositionStatus {
    describe_status(game, game.status_given(!legal_moves.is_empty()))
}

fn describe_status(game: &BoardGame, status: BoardStatus) -> proto::PositionStatus {
    let s = match status {
        BoardStatus::Ongoing => proto::GameStatus::Ongoing,
        BoardStatus::Checkmate => proto::GameStatus::Checkmate,
        BoardStatus::Stalemate => proto::GameStatus::Stalemate,
        BoardStatus::Ended => proto::GameStatus::Ended,
    };
    proto::PositionStatus {
        status: s as i32,
        in_check: game.in_check(),
        checkers: crate::rules::board::squares(game.checkers()).map(proto::Point::from).collect(),
        side_to_move: proto::Player::from(game.turn()) as i32,
        fen: game.fen(),
        eliminated: Vec::new(),
        bikjang: game.bikjang(),
    }
}

/// Legal moves described for the API.
pub fn describe_moves(game: &BoardGame, moves: &[Move]) -> Vec<proto::Move> {
    let mut described = Vec::with_capacity(moves.len());
    let turn = proto::Player::from(game.turn()) as i32;
    game.move_facts(moves, |facts| described.push(describe_facts(&facts, turn)));
    described
}

/// A legal move described for the API.
pub fn describe_move(game: &BoardGame, m: Move) -> proto::Move {
    // One move in, one description out; the default is never reached.
    describe_moves(game, &[m]).pop().unwrap_or_default()
}

/// Reads a move written in `notation`: `Ok(Err(..))` when the text reads but names no
/// move of this position (with the reason and detail), `Err` when it does not read or
/// the notation does not apply to the variant.
pub fn resolve_move(
    game: &BoardGame,
    text: &str,
    n: Notation,
) -> Result<Result<Move, (proto::IllegalMoveReason, String)>, Status> {
    use crate::notation::NotationErrorKind;
    check_notation(game.variant(), n, "notation")?;
    match game.resolve_move(text, n) {
        Ok(m) => Ok(Ok(m)),
        Err(e) if e.is_syntax() => Err(bad_request("move", e.to_string())),
        Err(e) => {
            let reason = match e.kind {
                NotationErrorKind::Ambiguous { .. } | NotationErrorKind::TandemFiles { .. } => {
                    proto::IllegalMoveReason::Ambiguous
                }
                NotationErrorKind::CannotMove { .. } => proto::IllegalMoveReason::CannotMoveThatWay,
                _ => proto::IllegalMoveReason::NoPiece,
            };
            Ok(Err((reason, e.to_string())))
        }
    }
}

/// Checks that the game's variant can render the requested notations.
pub fn check_notations(game: &BoardGame, notations: &[(i32, Notation)], field: &str) -> Result<(), Status> {
    for (i, &(_, n)) in notations.iter().enumerate() {
        check_notation(game.variant(), n, &format!("{field}[{i}]"))?;
    }
    Ok(())
}

/// A legal move in each requested notation (see [`check_notations`]).
pub fn render(game: &BoardGame, m: Move, notations: &[(i32, Notation)]) -> Vec<proto::NotationText> {
    notations.iter().map(|&(value, n)| proto::NotationText { notation: value, text: game.format_move(m, n) }).collect()
}

/// What the legal move `m` would make of a repetition under the game's rule set.
pub fn move_warning(game: &BoardGame, m: Move) -> proto::MoveWarning {
    warning(game.warning(m))
}

impl From<Color> for proto::Player {
    fn from(c: Color) -> proto::Player {
        match c {
            Color::Red => proto::Player::Red,
            Color::Black => proto::Player::Black,
        }
    }
}

impl From<PieceKind> for proto::PieceKind {
    fn from(k: PieceKind) -> proto::PieceKind {
        match k {
            PieceKind::General => proto::PieceKind::General,
            PieceKind::Advisor => proto::PieceKind::Advisor,
            PieceKind::Elephant => proto::PieceKind::Elephant,
            PieceKind::Horse => proto::PieceKind::Horse,
            PieceKind::Chariot => proto::PieceKind::Chariot,
            PieceKind::Cannon => proto::PieceKind::Cannon,
            PieceKind::Soldier => proto::PieceKind::Soldier,
        }
    }
}

/// A point of the 9x10 board: file and rank name it, `name` stays empty.
impl From<Square> for proto::Point {
    fn from(sq: Square) -> proto::Point {
        proto::Point { file: sq.file() as u32, rank: sq.rank() as u32, name: String::new() }
    }
}

/// Reads a structured point of the 9x10 board.
pub fn square(p: &proto::Point, field: &str) -> Result<Square, Status> {
    if p.file >= 9 || p.rank >= 10 {
        return Err(bad_request(field, format!("point ({}, {}) is off the 9x10 board", p.file, p.rank)));
    }
    Ok(Square::new(p.file as u8, p.rank as u8))
}

/// Clears `player` in the moves of a list: they are all the side to move's, which the
/// list's status names once. (It keeps the start position's list under 1 KiB, the
/// size up to which HTTP/2 sends many responses in one write.)
pub fn clear_mover(moves: &mut [proto::Move]) {
    for m in moves {
        m.player = proto::Player::Unspecified as i32;
    }
}

/// The ICCS text of a move, as bytes: file letter and rank digit of each point, or
/// `pass` (without the formatting machinery of `to_string`).
fn iccs_bytes(m: Move) -> [u8; 4] {
    if m.is_pass() {
        return *b"pass";
    }
    let (from, to) = (m.from(), m.to());
    [b'a' + from.file(), b'0' + from.rank(), b'a' + to.file(), b'0' + to.rank()]
}

/// A legal move as a message, made by `player` (a `proto::Player` value; unspecified
/// leaves it unset).
pub fn describe_facts(facts: &MoveFacts, player_value: i32) -> proto::Move {
    let m = facts.m;
    proto::Move {
        iccs: iccs_bytes(m).iter().map(|&b| char::from(b)).collect(),
        from: (!m.is_pass()).then(|| proto::Point::from(m.from())),
        to: (!m.is_pass()).then(|| proto::Point::from(m.to())),
        piece: facts.mover.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured: facts.captured.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured_owner: facts.captured.map_or(proto::Player::Unspecified, |p| proto::Player::from(p.color())) as i32,
        player: player_value,
        gives_check: facts.gives_check,
        is_pass: m.is_pass(),
        notations: Vec::new(),
        warning: proto::MoveWarning::Unspecified as i32,
    }
}

/// The fields of [`describe_facts`] with `player` unset, as protobuf bytes (fields 1
/// to 9 of `chuhe.v1.Move`). Every number here is below 128, a one-byte varint, and a
/// point's body takes at most 4 bytes, so the fields are written on the stack at fixed
/// sizes; the move list copies them out whole.
#[inline]
pub fn encode_facts(facts: &MoveFacts) -> MoveFields {
    let m = facts.m;
    let mut out = MoveFields { bytes: [0; MoveFields::MAX], len: 0 };
    out.pair(1 << 3 | LENGTH_DELIMITED, 4);
    out.bytes[2..6].copy_from_slice(&iccs_bytes(m));
    out.len = 6;
    if !m.is_pass() {
        for (field, sq) in [(2, m.from()), (3, m.to())] {
            let (file, rank) = (sq.file(), sq.rank());
            out.pair(field << 3 | LENGTH_DELIMITED, 2 * u8::from(file != 0) + 2 * u8::from(rank != 0));
            out.varint_field(1, file);
            out.varint_field(2, rank);
        }
    }
    let kind = |p: Option<Piece>| p.map_or(0, |p| proto::PieceKind::from(p.kind()) as u8);
    out.varint_field(4, kind(facts.mover));
    out.varint_field(5, kind(facts.captured));
    out.varint_field(6, facts.captured.map_or(0, |p| proto::Player::from(p.color()) as u8));
    out.varint_field(8, u8::from(facts.gives_check));
    out.varint_field(9, u8::from(m.is_pass()));
    out
}

/// The bytes [`encode_facts`] writes.
pub struct MoveFields {
    bytes: [u8; MoveFields::MAX],
    len: usize,
}

impl MoveFields {
    /// ICCS 6, two points 6 each, then five one-byte fields of 2.
    const MAX: usize = 28;

    /// Appends the fields to a response being written.
    #[inline]
    pub fn write_to(&self, w: &mut Writer) {
        w.raw(&self.bytes, self.len);
    }

    #[inline]
    fn pair(&mut self, a: u8, b: u8) {
        self.bytes[self.len] = a;
        self.bytes[self.len + 1] = b;
        self.len += 2;
    }

    /// A varint field (wire type 0) of a value below 128, left out at 0 as proto3 does.
    #[inline]
    fn varint_field(&mut self, field: u8, v: u8) {
        debug_assert!(v < 0x80 && field < 16);
        if v != 0 {
            self.pair(field << 3 | VARINT, v);
        }
    }
}

/// The API's reason for an illegal move of a 9x10 game.
pub fn illegal_reason(r: IllegalReason) -> proto::IllegalMoveReason {
    use proto::IllegalMoveReason as P;
    match r {
        IllegalReason::GameOver => P::GameOver,
        IllegalReason::PassNotAllowed => P::PassNotAllowed,
        IllegalReason::NoPiece => P::NoPiece,
        IllegalReason::NotYourPiece => P::NotYourPiece,
        IllegalReason::CapturesOwnPiece => P::CapturesOwnPiece,
        IllegalReason::CannotMoveThatWay => P::CannotMoveThatWay,
        IllegalReason::PathBlocked => P::PathBlocked,
        IllegalReason::CannonNeedsOneScreen => P::CannonNeedsOneScreen,
        IllegalReason::LeavesGeneralAttacked => P::LeavesGeneralAttacked,
        IllegalReason::GeneralsFace => P::GeneralsFace,
        IllegalReason::HandicapCrossesRiver
        | IllegalReason::HandicapOwnRiverBank
        | IllegalReason::HandicapExtraMoveChecks
        | IllegalReason::HandicapProtectedPiece => P::HandicapRestriction,
    }
}
