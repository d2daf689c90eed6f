//! RulesService for Three Kingdoms Xiangqi (`VARIANT_THREE_KINGDOMS`).
//!
//! - `Position.fen` is the Three Kingdoms position text (see
//!   `rules::three_kingdoms::text`), or empty / `startpos` for the start position with
//!   flag bearers. To play without flag bearers, send the start position text with its
//!   flag bearer field `-` (`text::START_WITHOUT_FLAG_BEARERS`). `preset` and the Janggi
//!   setups do not apply and must be left unset (or `START_PRESET_STANDARD`).
//! - Moves (`Position.moves`, `ValidateMoveRequest.move`) are point-name text,
//!   `Rh3-Re3` or `Rh3xRe3`; `ValidateMoveRequest.from`/`to` are read by `Point.name`.
//!   Answers carry the point-name text in `Move.iccs`, and points with `name`, `file`
//!   (0-8 from the owner's left) and `rank` (1-5 from the owner's back rank).
//! - `PositionStatus`: `side_to_move` is a kingdom (SHU, WU, WEI), `eliminated` lists
//!   the defeated kingdoms in the order they fell (those already defeated in the given
//!   position text first, in turn order), `status` is ENDED once one kingdom is left
//!   and DRAWN once the record has drawn the game (third occurrence of a position, or
//!   180 plies without capture or defeat); `fen` is the position text. A drawn game
//!   has no legal moves: ListLegalMoves lists none, and a move after the draw is
//!   illegal (GAME_OVER), as after a win.
//! - `Move.gives_check`: after the move, a rival general is attacked (or faces a
//!   general) by a piece the mover controls.
//! - Adjudicate: RESIGN, TIMEOUT and LEAVE events name the kingdom; a kingdom in play
//!   that resigns, times out or leaves ends the game, the two others sharing the
//!   victory (`GAME_RESULT_SHARED_VICTORY`, `winners`) or the last one winning
//!   (`GAME_RESULT_WIN`, `winner`). The board decides with GENERAL_CAPTURED (the last
//!   kingdom with a general); draws are REPETITION_DRAW (third occurrence) and
//!   MOVE_LIMIT (180 plies without capture or defeat). The only rule set is
//!   `RULE_SET_THREE_KINGDOMS_V1` (or unset).

mod analysis;

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request, unimplemented};
use super::proto;
use super::variant::{NotationCalls, RulesCalls};
use super::wire::Encoded;
use crate::rules::three_kingdoms::outcome::{self, Event, EventKind, Game, GameResult, Termination};
use crate::rules::three_kingdoms::{Kind, Kingdom, Move, MoveError, MoveList, Point, Position, text};

/// The kingdom as a proto player.
impl From<Kingdom> for proto::Player {
    fn from(k: Kingdom) -> proto::Player {
        match k {
            Kingdom::Shu => proto::Player::Shu,
            Kingdom::Wu => proto::Player::Wu,
            Kingdom::Wei => proto::Player::Wei,
        }
    }
}

/// The kingdom a proto player names, if any.
pub fn kingdom(p: i32) -> Option<Kingdom> {
    match proto::Player::try_from(p) {
        Ok(proto::Player::Shu) => Some(Kingdom::Shu),
        Ok(proto::Player::Wu) => Some(Kingdom::Wu),
        Ok(proto::Player::Wei) => Some(Kingdom::Wei),
        _ => None,
    }
}

impl From<Kind> for proto::PieceKind {
    fn from(k: Kind) -> proto::PieceKind {
        match k {
            Kind::General => proto::PieceKind::General,
            Kind::Advisor => proto::PieceKind::Advisor,
            Kind::Elephant => proto::PieceKind::Elephant,
            Kind::Horse => proto::PieceKind::Horse,
            Kind::Chariot => proto::PieceKind::Chariot,
            Kind::Cannon => proto::PieceKind::Cannon,
            Kind::Soldier => proto::PieceKind::Soldier,
            Kind::FlagBearer => proto::PieceKind::FlagBearer,
        }
    }
}

impl From<Point> for proto::Point {
    fn from(p: Point) -> proto::Point {
        proto::Point { file: p.file() as u32, rank: p.rank() as u32, name: p.to_string() }
    }
}

/// The start position of a request: the position text, or the start position.
pub fn start_position(p: &proto::Position, field: &str) -> Result<Position, Error> {
    match proto::StartPreset::try_from(p.preset) {
        Ok(proto::StartPreset::Unspecified | proto::StartPreset::Standard) => {}
        _ => return Err(bad_request(format!("{field}.preset"), "Three Kingdoms has no start presets")),
    }
    if p.handicap_moves != 0 {
        return Err(bad_request(format!("{field}.handicap_moves"), "Three Kingdoms has no handicap moves"));
    }
    if p.red_setup != 0 || p.black_setup != 0 {
        return Err(bad_request(format!("{field}.red_setup"), "Janggi setups do not apply to Three Kingdoms"));
    }
    let fen = p.fen.trim();
    if fen.is_empty() || fen.eq_ignore_ascii_case("startpos") {
        return Ok(Position::startpos(true));
    }
    Position::from_text(fen).map_err(|e| bad_request(format!("{field}.fen"), e.to_string()))
}

/// The moves of `Position.moves`, read as point-name text (not yet checked for
/// legality).
pub fn parse_moves(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<Vec<Move>, Error> {
    limits.check_plies(p.moves.len(), format_args!("{field}.moves"))?;
    p.moves
        .iter()
        .enumerate()
        .map(|(i, t)| Move::parse(t).map_err(|e| bad_request(format!("{field}.moves[{i}]"), format!("{t:?}: {e}"))))
        .collect()
}

/// Why `m` is illegal after the record of `game` (reason and detail), or `None`.
fn explain_illegal_in(game: &Game, m: Move) -> Option<(proto::IllegalMoveReason, String)> {
    game.explain_illegal_in_words(m).map(|(reason, detail)| (convert::illegal_reason(reason), detail))
}

/// The game of a request: its start position and every move of `Position.moves`
/// played; an illegal move is INVALID_ARGUMENT naming it.
pub(super) fn game(p: &proto::Position, field: &str, limits: ContentLimits) -> Result<Game, Error> {
    let start = start_position(p, field)?;
    let moves = parse_moves(p, field, limits)?;
    let mut game = Game::new(start);
    for (i, &m) in moves.iter().enumerate() {
        if let Some((_, detail)) = explain_illegal_in(&game, m) {
            return Err(bad_request(format!("{field}.moves[{i}]"), format!("{m} is illegal: {detail}")));
        }
        let _ = game.play(m);
    }
    Ok(game)
}

/// The kingdoms defeated, in the order they fell: those defeated in the start position
/// first, then the defeats of the record.
fn eliminated(game: &Game) -> Vec<Kingdom> {
    let mut out: Vec<Kingdom> = Kingdom::ALL.into_iter().filter(|&k| game.start().is_defeated(k)).collect();
    out.extend(game.defeats().iter().map(|d| d.kingdom));
    out
}

fn game_status(game: &Game) -> proto::PositionStatus {
    let pos = game.position();
    let side = pos.side_to_move();
    let ended = pos.winner().is_some();
    let status = if ended {
        proto::GameStatus::Ended
    } else if game.drawn().is_some() {
        proto::GameStatus::Drawn
    } else {
        proto::GameStatus::Ongoing
    };
    let checkers = if ended { Vec::new() } else { pos.attackers_of_general(side) };
    proto::PositionStatus {
        status: status as i32,
        in_check: !checkers.is_empty(),
        checkers: checkers.into_iter().map(proto::Point::from).collect(),
        side_to_move: proto::Player::from(side) as i32,
        fen: pos.to_text(),
        eliminated: eliminated(game).iter().map(|&k| proto::Player::from(k) as i32).collect(),
        bikjang: false,
    }
}

/// A legal move of `pos`, described.
pub fn describe_move(pos: &Position, m: Move) -> proto::Move {
    let mover = pos.side_to_move();
    let piece = pos.piece_at(m.from());
    let captured = pos.piece_at(m.to());
    let mut after = pos.clone();
    after.play_unchecked(m);
    proto::Move {
        iccs: pos.move_text(m),
        from: Some(proto::Point::from(m.from())),
        to: Some(proto::Point::from(m.to())),
        piece: piece.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured: captured.map_or(proto::PieceKind::Unspecified, |p| proto::PieceKind::from(p.kind())) as i32,
        captured_owner: captured.map_or(proto::Player::Unspecified, |p| proto::Player::from(pos.controller_of(p)))
            as i32,
        player: proto::Player::from(mover) as i32,
        gives_check: after.checks_a_rival(mover),
        ..Default::default()
    }
}

/// Three Kingdoms has one rule set (or none named).
pub fn check_rule_set(rule_set: i32, field: &str) -> Result<(), Error> {
    match proto::RuleSet::try_from(rule_set) {
        Ok(proto::RuleSet::Unspecified | proto::RuleSet::ThreeKingdomsV1) => Ok(()),
        _ => Err(bad_request(field, "Three Kingdoms is played under RULE_SET_THREE_KINGDOMS_V1")),
    }
}

/// Checks a request's notations as ListLegalMoves does: Three Kingdoms has none but
/// its point names.
pub fn check_notations(list: &[i32], field: &str) -> Result<(), Error> {
    convert::check_count(list.len(), convert::MAX_NOTATIONS, field)?;
    for (i, &n) in list.iter().enumerate() {
        match proto::Notation::try_from(n) {
            Ok(proto::Notation::Unspecified) => {}
            _ => {
                return Err(bad_request(
                    format!("{field}[{i}]"),
                    "Three Kingdoms moves are written only as point names (Move.iccs)",
                ));
            }
        }
    }
    Ok(())
}

/// [`super::rules::list_legal_moves`] in the Three Kingdoms game of the request.
fn list_legal_moves(req: &proto::ListLegalMovesRequest, game: &Game) -> Result<proto::ListLegalMovesResponse, Error> {
    check_notations(&req.notations, "notations")?;
    let pos = game.position();
    let mut list = MoveList::new();
    if game.drawn().is_none() {
        pos.legal_moves(&mut list);
    }
    let mut moves: Vec<proto::Move> = list.iter().map(|&m| describe_move(pos, m)).collect();
    moves.sort_by(|a, b| a.iccs.cmp(&b.iccs));
    convert::clear_mover(&mut moves);
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    metrics::counter!("chuhe_moves_generated_total").increment(moves.len() as u64);
    Ok(proto::ListLegalMovesResponse { moves, status: Some(game_status(game)) })
}

/// [`super::notation::convert_moves`] in the Three Kingdoms game of the request: its
/// moves are written in point names only (`from` and `to` unspecified or
/// NOTATION_POINT_NAME), each read, checked and played in turn.
fn convert_moves(req: &proto::ConvertMovesRequest, mut game: Game) -> Result<proto::ConvertMovesResponse, Error> {
    for (value, field) in [(req.from, "from"), (req.to, "to")] {
        if !matches!(proto::Notation::try_from(value), Ok(proto::Notation::Unspecified | proto::Notation::PointName)) {
            return Err(bad_request(
                field,
                "Three Kingdoms moves are written only as point names (NOTATION_POINT_NAME)",
            ));
        }
    }
    let mut resp = proto::ConvertMovesResponse::default();
    for (i, text) in req.moves.iter().enumerate() {
        let field = || format!("moves[{i}]");
        let m = Move::parse(text).map_err(|e| bad_request(field(), format!("{text:?}: {e}")))?;
        if let Some((_, detail)) = explain_illegal_in(&game, m) {
            return Err(bad_request(field(), format!("{text:?} ({m}) is illegal: {detail}")));
        }
        let mut described = describe_move(game.position(), m);
        described.notations = vec![proto::NotationText { notation: req.to, text: described.iccs.clone() }];
        resp.moves.push(described.iccs.clone());
        resp.details.push(described);
        let _ = game.play(m);
    }
    Ok(resp)
}

fn named_point(p: &proto::Point, field: &str) -> Result<Point, Error> {
    if p.name.trim().is_empty() {
        return Err(bad_request(format!("{field}.name"), "Three Kingdoms points are given by name (like Rh3)"));
    }
    Point::parse(p.name.trim()).map_err(|e| bad_request(format!("{field}.name"), e.to_string()))
}

/// [`super::rules::validate_move`] in the Three Kingdoms game of the request.
fn validate_move(req: &proto::ValidateMoveRequest, mut game: Game) -> Result<proto::ValidateMoveResponse, Error> {
    check_notations(&req.notations, "notations")?;
    match proto::Notation::try_from(req.notation) {
        Ok(proto::Notation::Unspecified) => {}
        _ => return Err(bad_request("notation", "Three Kingdoms moves are written only as point names")),
    }
    let m = if req.r#move.trim().is_empty() {
        let from = req.from.as_ref().ok_or_else(|| bad_request("move", "give the move as text or as from and to"))?;
        let to = req.to.as_ref().ok_or_else(|| bad_request("to", "to is required with from"))?;
        let (from, to) = (named_point(from, "from")?, named_point(to, "to")?);
        if from == to {
            return Err(bad_request("to", "from and to are the same point"));
        }
        Move::new(from, to)
    } else {
        let t = req.r#move.trim();
        match game.position().read_move(t) {
            Ok(m) => m,
            Err(e @ MoveError::NotACapture(_)) => {
                return Ok(proto::ValidateMoveResponse {
                    legal: false,
                    reason: proto::IllegalMoveReason::CannotMoveThatWay as i32,
                    detail: e.to_string(),
                    ..Default::default()
                });
            }
            Err(e) => return Err(bad_request("move", format!("{t:?}: {e}"))),
        }
    };
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    if let Some((reason, detail)) = explain_illegal_in(&game, m) {
        return Ok(proto::ValidateMoveResponse { legal: false, reason: reason as i32, detail, ..Default::default() });
    }
    let described = describe_move(game.position(), m);
    let _ = game.play(m);
    Ok(proto::ValidateMoveResponse {
        legal: true,
        reason: proto::IllegalMoveReason::Unspecified as i32,
        detail: String::new(),
        r#move: Some(described),
        status: Some(game_status(&game)),
        fen_after: game.position().to_text(),
    })
}

/// [`super::rules::validate_game`] of a Three Kingdoms record: the request's
/// `position`, from `game` at its start (no move played).
fn validate_game(
    position: &proto::Position,
    mut game: Game,
    limits: ContentLimits,
) -> Result<proto::ValidateGameResponse, Error> {
    let moves = parse_moves(position, "position", limits)?;
    let mut illegal = None;
    for (i, &m) in moves.iter().enumerate() {
        if let Some(why) = explain_illegal_in(&game, m) {
            illegal = Some((i, m, why));
            break;
        }
        let _ = game.play(m);
    }
    metrics::counter!("chuhe_positions_checked_total").increment(game.plies().len() as u64 + 1);
    let mut resp = proto::ValidateGameResponse {
        legal: illegal.is_none(),
        final_status: Some(game_status(&game)),
        final_fen: game.position().to_text(),
        plies: game.plies().len() as u32,
        ..Default::default()
    };
    if let Some((i, m, (reason, detail))) = illegal {
        resp.first_illegal_index = i as u32;
        resp.reason = reason as i32;
        resp.detail = format!("{m} is illegal: {detail}");
    }
    Ok(resp)
}

fn event(e: &proto::GameEvent, field: &str) -> Result<Event, Error> {
    let k = kingdom(e.player).ok_or_else(|| bad_request(format!("{field}.player"), "name SHU, WU or WEI"))?;
    let kind = match proto::GameEventKind::try_from(e.kind) {
        Ok(proto::GameEventKind::Resign) => EventKind::Resign(k),
        Ok(proto::GameEventKind::Timeout) => EventKind::Timeout(k),
        Ok(proto::GameEventKind::Leave) => EventKind::Leave(k),
        _ => return Err(bad_request(format!("{field}.kind"), "Three Kingdoms events are RESIGN, TIMEOUT and LEAVE")),
    };
    Ok(Event { kind, ply: e.ply as usize })
}

fn termination(t: Option<Termination>) -> proto::Termination {
    match t {
        None => proto::Termination::None,
        Some(Termination::LastGeneral) => proto::Termination::GeneralCaptured,
        Some(Termination::Repetition) => proto::Termination::RepetitionDraw,
        Some(Termination::QuietPlyLimit) => proto::Termination::MoveLimit,
        Some(Termination::Resignation) => proto::Termination::Resignation,
        Some(Termination::Timeout) => proto::Termination::Timeout,
        Some(Termination::Left) => proto::Termination::LeftGame,
    }
}

/// [`super::rules::adjudicate`] of a Three Kingdoms record: the request's `position`,
/// from `start` (no move played).
fn adjudicate(
    req: &proto::AdjudicateRequest,
    position: &proto::Position,
    start: Game,
    limits: ContentLimits,
) -> Result<proto::AdjudicateResponse, Error> {
    check_rule_set(req.rule_set, "rule_set")?;
    let moves = parse_moves(position, "position", limits)?;
    convert::check_count(req.events.len(), convert::MAX_EVENTS, "events")?;
    convert::check_event_order(req.events.iter().map(|e| e.ply))?;
    let events =
        req.events.iter().enumerate().map(|(i, e)| event(e, &format!("events[{i}]"))).collect::<Result<Vec<_>, _>>()?;
    if let Some((i, e)) = events.iter().enumerate().find(|(_, e)| e.ply > moves.len()) {
        return Err(bad_request(
            format!("events[{i}].ply"),
            format!("ply {} is past the record's {} moves", e.ply, moves.len()),
        ));
    }
    let ruling = outcome::adjudicate(start.start(), &moves, &events).map_err(|e| match e {
        outcome::AdjudicationError::IllegalMove { index, mv, .. } => {
            bad_request(format!("position.moves[{index}]"), format!("{mv} is illegal"))
        }
        outcome::AdjudicationError::BadEvent { index, detail } => bad_request(format!("events[{index}].ply"), detail),
    })?;
    let mut end = start;
    for &m in &moves[..ruling.decided_at_ply] {
        let _ = end.play(m);
    }
    let term = termination(ruling.termination);
    metrics::counter!("chuhe_adjudications_total", "rule" => term.as_str_name()).increment(1);
    let (result, winners) = match ruling.result {
        GameResult::Ongoing => (proto::GameResult::Ongoing, vec![]),
        GameResult::Draw => (proto::GameResult::Draw, vec![]),
        GameResult::Win(k) => (proto::GameResult::Win, vec![k]),
        GameResult::SharedWin(a, b) => (proto::GameResult::SharedVictory, vec![a, b]),
    };
    let winner = if winners.len() == 1 { proto::Player::from(winners[0]) } else { proto::Player::Unspecified };
    Ok(proto::AdjudicateResponse {
        result: result as i32,
        termination: term as i32,
        rule: ruling.termination.map_or("", |t| t.id()).to_string(),
        side_at_fault: ruling.by.map_or(proto::Player::Unspecified, proto::Player::from) as i32,
        decided_at_ply: ruling.decided_at_ply as u32,
        explanation: ruling.explanation.clone(),
        winner: winner as i32,
        winners: winners.iter().map(|&k| proto::Player::from(k) as i32).collect(),
        rule_set: req.rule_set,
        final_status: Some(game_status(&end)),
        moves_after_end: ruling.moves_after_end as u32,
        ..Default::default()
    })
}

/// The position text of the start position without flag bearers.
pub const START_WITHOUT_FLAG_BEARERS: &str = text::START_WITHOUT_FLAG_BEARERS;

/// No record format is defined for Three Kingdoms: UNIMPLEMENTED, naming the field
/// that asks for one.
pub fn no_records(field: &str) -> Error {
    unimplemented(format!("{field}: records of Three Kingdoms are not served yet"))
}

/// RulesService in a Three Kingdoms game.
impl RulesCalls for Game {
    fn list_legal_moves(&self, req: &proto::ListLegalMovesRequest) -> Result<Encoded, Error> {
        list_legal_moves(req, self).map(|r| Encoded(prost::Message::encode_to_vec(&r)))
    }

    fn validate_move(self, req: &proto::ValidateMoveRequest) -> Result<proto::ValidateMoveResponse, Error> {
        validate_move(req, self)
    }

    fn validate_game(
        self,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::ValidateGameResponse, Error> {
        validate_game(position, self, limits)
    }

    fn adjudicate(
        self,
        req: &proto::AdjudicateRequest,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::AdjudicateResponse, Error> {
        adjudicate(req, position, self, limits)
    }
}

/// NotationService in a Three Kingdoms game: moves in point names, no records.
impl NotationCalls for Game {
    fn convert_moves(self, req: &proto::ConvertMovesRequest) -> Result<proto::ConvertMovesResponse, Error> {
        convert_moves(req, self)
    }

    fn export_record(self, _req: &proto::ExportRecordRequest) -> Result<proto::ExportRecordResponse, Error> {
        Err(no_records("position.variant"))
    }
}
