//! Proto <-> domain conversions for the 9x10 games.

use tonic::Status;

use super::errors::{bad_request, unimplemented};
use super::proto;
use crate::notation::{self, Notation, fen};
use crate::rules::history::Game;
use crate::rules::types::{Color, Move, PieceKind, Square};
use crate::rules::xiangqi::adjudicate::{RuleSet, Warning};
use crate::rules::xiangqi::handicap::Preset;
use crate::rules::xiangqi::{IllegalReason, Position};
use crate::rules::{Status as BoardStatus, outcome};

/// Server-side limits that apply to request contents.
#[derive(Clone, Copy, Debug)]
pub struct ContentLimits {
    /// Most moves a position or game record may carry.
    pub max_game_plies: usize,
}

/// Checks the variant field: unknown or unspecified is INVALID_ARGUMENT; variants
/// announced but not served yet are UNIMPLEMENTED.
pub fn require_xiangqi(variant: i32, field: &str) -> Result<(), Status> {
    match proto::Variant::try_from(variant) {
        Err(_) => Err(bad_request(field, format!("unknown variant {variant}"))),
        Ok(proto::Variant::Unspecified) => Err(bad_request(field, "variant must be set")),
        Ok(proto::Variant::Xiangqi) => Ok(()),
        Ok(v) => Err(unimplemented(format!("variant {} is not served yet", v.as_str_name()))),
    }
}

/// A start preset of the API.
pub fn preset(value: i32, field: &str) -> Result<Preset, Status> {
    use proto::StartPreset as P;
    Ok(match P::try_from(value) {
        Ok(P::Unspecified | P::Standard) => Preset::Standard,
        Ok(P::TwoMoves) => Preset::TwoMoves,
        Ok(P::ThreeMoves) => Preset::ThreeMoves,
        Ok(P::FourMoves) => Preset::FourMoves,
        Ok(P::OneHorse) => Preset::OneHorse,
        Ok(P::HorseAndMove) => Preset::HorseAndMove,
        Ok(P::TwoHorses) => Preset::TwoHorses,
        Ok(P::OneChariot) => Preset::OneChariot,
        Ok(P::NinePieces) => Preset::NinePieces,
        Err(_) => return Err(bad_request(field, format!("unknown preset {value}"))),
    })
}

pub fn proto_preset(p: Preset) -> proto::StartPreset {
    use proto::StartPreset as P;
    match p {
        Preset::Standard => P::Standard,
        Preset::TwoMoves => P::TwoMoves,
        Preset::ThreeMoves => P::ThreeMoves,
        Preset::FourMoves => P::FourMoves,
        Preset::OneHorse => P::OneHorse,
        Preset::HorseAndMove => P::HorseAndMove,
        Preset::TwoHorses => P::TwoHorses,
        Preset::OneChariot => P::OneChariot,
        Preset::NinePieces => P::NinePieces,
    }
}

/// Does the request start from its preset (its FEN is empty or `startpos`)?
pub fn uses_preset(p: &proto::Position) -> bool {
    let text = p.fen.trim();
    text.is_empty() || text == "startpos"
}

/// The game of a request before any move: the FEN's position, or the preset's start
/// with its handicap rules when the FEN is empty or `startpos`.
pub fn new_game(p: &proto::Position, field: &str) -> Result<Game, Status> {
    require_xiangqi(p.variant, &format!("{field}.variant"))?;
    let preset = preset(p.preset, &format!("{field}.preset"))?;
    if uses_preset(p) {
        return Ok(Game::with_handicap(preset.position(), preset.handicap()));
    }
    let start = fen::xiangqi(&p.fen).map_err(|e| bad_request(format!("{field}.fen"), e.to_string()))?;
    Ok(Game::new(start))
}

/// Parses the record's moves (ICCS) without playing them.
pub fn parse_moves(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<Vec<Move>, Status> {
    if p.moves.len() > limits.max_game_plies {
        return Err(bad_request(
            format!("{field}.moves"),
            format!("{} moves exceed the limit of {}", p.moves.len(), limits.max_game_plies),
        ));
    }
    p.moves
        .iter()
        .enumerate()
        .map(|(i, text)| {
            Move::parse_iccs(text)
                .ok_or_else(|| bad_request(format!("{field}.moves[{i}]"), format!("{text:?} is not an ICCS move")))
        })
        .collect()
}

/// Start position plus moves, every move checked; an illegal one is INVALID_ARGUMENT
/// naming its index and reason.
pub fn game(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<Game, Status> {
    let mut game = new_game(p, field)?;
    let moves = parse_moves(p, field, limits)?;
    for (i, m) in moves.into_iter().enumerate() {
        if let Some(reason) = game.explain_illegal(m) {
            return Err(bad_request(format!("{field}.moves[{i}]"), format!("{m} is illegal: {}", reason.describe())));
        }
        game.play_unchecked(m);
    }
    Ok(game)
}

pub fn player(c: Color) -> proto::Player {
    match c {
        Color::Red => proto::Player::Red,
        Color::Black => proto::Player::Black,
    }
}

pub fn piece_kind(k: PieceKind) -> proto::PieceKind {
    match k {
        PieceKind::General => proto::PieceKind::General,
        PieceKind::Advisor => proto::PieceKind::Advisor,
        PieceKind::Elephant => proto::PieceKind::Elephant,
        PieceKind::Horse => proto::PieceKind::Horse,
        PieceKind::Chariot => proto::PieceKind::Chariot,
        PieceKind::Cannon => proto::PieceKind::Cannon,
        PieceKind::Pawn => proto::PieceKind::Soldier,
    }
}

pub fn point(sq: Square) -> proto::Point {
    proto::Point { file: sq.file() as u32, rank: sq.rank() as u32, name: sq.to_string() }
}

/// Reads a structured point of the 9x10 board.
pub fn square(p: &proto::Point, field: &str) -> Result<Square, Status> {
    if p.file >= 9 || p.rank >= 10 {
        return Err(bad_request(field, format!("point ({}, {}) is off the 9x10 board", p.file, p.rank)));
    }
    Ok(Square::new(p.file as u8, p.rank as u8))
}

/// Legal moves described for the API (one scratch copy of the position for all the
/// check tests).
pub fn describe_moves(pos: &Position, moves: &[Move]) -> Vec<proto::Move> {
    let mut scratch = pos.clone();
    moves
        .iter()
        .map(|&m| {
            let undo = scratch.play_unchecked(m);
            let gives_check = scratch.in_check();
            scratch.undo(m, undo);
            describe(pos, m, gives_check)
        })
        .collect()
}

/// A legal move described for the API.
pub fn describe_move(pos: &Position, m: Move) -> proto::Move {
    describe(pos, m, pos.gives_check(m))
}

fn describe(pos: &Position, m: Move, gives_check: bool) -> proto::Move {
    let b = pos.board();
    let mover = b.piece_at(m.from());
    let captured = b.piece_at(m.to());
    proto::Move {
        iccs: m.to_string(),
        from: Some(point(m.from())),
        to: Some(point(m.to())),
        piece: mover.map_or(proto::PieceKind::Unspecified, |p| piece_kind(p.kind())) as i32,
        captured: captured.map_or(proto::PieceKind::Unspecified, |p| piece_kind(p.kind())) as i32,
        captured_owner: captured.map_or(proto::Player::Unspecified, |p| player(p.color())) as i32,
        player: player(pos.turn()) as i32,
        gives_check,
        is_pass: false,
        notations: Vec::new(),
        warning: proto::MoveWarning::Unspecified as i32,
    }
}

pub fn status(pos: &Position) -> proto::PositionStatus {
    let s = match pos.status() {
        BoardStatus::Ongoing => proto::GameStatus::Ongoing,
        BoardStatus::Checkmate => proto::GameStatus::Checkmate,
        BoardStatus::Stalemate => proto::GameStatus::Stalemate,
        BoardStatus::Ended => proto::GameStatus::Ended,
    };
    proto::PositionStatus {
        status: s as i32,
        in_check: pos.in_check(),
        checkers: crate::rules::board::squares(pos.checkers()).map(point).collect(),
        side_to_move: player(pos.turn()) as i32,
        fen: fen::format(&pos.to_setup()),
        eliminated: Vec::new(),
        bikjang: false,
    }
}

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

/// A move notation of the API for the 9x10 games; unspecified is canonical (ICCS).
pub fn notation(value: i32, field: &str) -> Result<Notation, Status> {
    use proto::Notation as P;
    match P::try_from(value) {
        Ok(P::Unspecified | P::Iccs) => Ok(Notation::Iccs),
        Ok(P::Coordinate) => Ok(Notation::Coordinate),
        Ok(P::Wxf) => Ok(Notation::Wxf),
        Ok(P::Chinese) => Ok(Notation::Chinese),
        Ok(P::Italian) => Ok(Notation::Italian),
        Ok(P::PointName) => Err(bad_request(field, "NOTATION_POINT_NAME is the notation of Three Kingdoms")),
        Err(_) => Err(bad_request(field, format!("unknown notation {value}"))),
    }
}

pub fn proto_notation(n: Notation) -> proto::Notation {
    match n {
        Notation::Iccs => proto::Notation::Iccs,
        Notation::Coordinate => proto::Notation::Coordinate,
        Notation::Wxf => proto::Notation::Wxf,
        Notation::Chinese => proto::Notation::Chinese,
        Notation::Italian => proto::Notation::Italian,
    }
}

/// The notations a request asks moves to be rendered in: each requested value with
/// its notation.
pub fn notations(values: &[i32], field: &str) -> Result<Vec<(i32, Notation)>, Status> {
    values.iter().enumerate().map(|(i, &v)| Ok((v, notation(v, &format!("{field}[{i}]"))?))).collect()
}

/// A legal move of `pos` in each requested notation.
pub fn render(pos: &Position, m: Move, notations: &[(i32, Notation)]) -> Vec<proto::NotationText> {
    notations
        .iter()
        .map(|&(value, n)| proto::NotationText { notation: value, text: notation::format_move(pos, m, n) })
        .collect()
}

/// The rule set of a request; unspecified means SIMPLIFIED_V1 is NOT assumed.
pub fn rule_set(value: i32, field: &str) -> Result<RuleSet, Status> {
    optional_rule_set(value, field)?.ok_or_else(|| bad_request(field, "rule set must be set"))
}

/// The rule set of a request where it may be left unspecified (`None`), as for the move
/// warnings of ListLegalMoves and ValidateMove.
pub fn optional_rule_set(value: i32, field: &str) -> Result<Option<RuleSet>, Status> {
    match proto::RuleSet::try_from(value) {
        Err(_) => Err(bad_request(field, format!("unknown rule set {value}"))),
        Ok(proto::RuleSet::Unspecified) => Ok(None),
        Ok(proto::RuleSet::SimplifiedV1) => Ok(Some(RuleSet::SimplifiedV1)),
        Ok(proto::RuleSet::AsianV1) => Ok(Some(RuleSet::AsianV1)),
        Ok(proto::RuleSet::TournamentV1) => Ok(Some(RuleSet::TournamentV1)),
        Ok(other) => Err(unimplemented(format!("rule set {} is not served yet", other.as_str_name()))),
    }
}

pub fn warning(w: Option<Warning>) -> proto::MoveWarning {
    match w {
        None => proto::MoveWarning::Unspecified,
        Some(Warning::RepetitionDraw) => proto::MoveWarning::RepetitionDraw,
        Some(Warning::ForbiddenCycle) => proto::MoveWarning::ForbiddenCycle,
    }
}

pub fn chase_step(c: &outcome::ChaseStep) -> proto::ChaseStep {
    proto::ChaseStep {
        ply: c.ply as u32,
        chaser: Some(point(c.chaser)),
        chaser_kind: piece_kind(c.chaser_kind) as i32,
        chased: Some(point(c.chased)),
        chased_kind: piece_kind(c.chased_kind) as i32,
    }
}

pub fn event(e: &proto::GameEvent, field: &str) -> Result<outcome::Event, Status> {
    let color = || match proto::Player::try_from(e.player) {
        Ok(proto::Player::Red) => Ok(Color::Red),
        Ok(proto::Player::Black) => Ok(Color::Black),
        _ => Err(bad_request(format!("{field}.player"), "a Xiangqi event names RED or BLACK")),
    };
    let kind = match proto::GameEventKind::try_from(e.kind) {
        Ok(proto::GameEventKind::Resign) => outcome::EventKind::Resign(color()?),
        Ok(proto::GameEventKind::Timeout) => outcome::EventKind::Timeout(color()?),
        Ok(proto::GameEventKind::DrawAgreed) => outcome::EventKind::DrawAgreed,
        Ok(other @ (proto::GameEventKind::BikjangClaim | proto::GameEventKind::Leave)) => {
            return Err(bad_request(
                format!("{field}.kind"),
                format!("{} does not apply to Xiangqi", other.as_str_name()),
            ));
        }
        Ok(proto::GameEventKind::Unspecified) => {
            return Err(bad_request(format!("{field}.kind"), "event kind must be set"));
        }
        Err(_) => return Err(bad_request(format!("{field}.kind"), format!("unknown event kind {}", e.kind))),
    };
    Ok(outcome::Event { kind, ply: e.ply as usize })
}

pub fn termination(t: Option<outcome::Termination>) -> proto::Termination {
    use outcome::Termination as T;
    use proto::Termination as P;
    match t {
        None => P::None,
        Some(T::Checkmate) => P::Checkmate,
        Some(T::Stalemate) => P::Stalemate,
        Some(T::PerpetualCheck) => P::PerpetualCheck,
        Some(T::MutualPerpetualCheck) => P::MutualPerpetual,
        Some(T::PerpetualChase) => P::PerpetualChase,
        Some(T::MutualPerpetualChase) => P::MutualPerpetual,
        Some(T::RepetitionDraw) => P::RepetitionDraw,
        Some(T::MoveLimit) => P::MoveLimit,
        Some(T::InsufficientMaterial) => P::InsufficientMaterial,
        Some(T::Resignation) => P::Resignation,
        Some(T::Timeout) => P::Timeout,
        Some(T::AgreedDraw) => P::AgreedDraw,
        Some(T::Bikjang) => P::Bikjang,
        Some(T::Counting) => P::Counting,
        Some(T::DoublePass) => P::DoublePass,
    }
}
