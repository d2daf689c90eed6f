//! RulesService: legal moves, move and game validation, adjudication. Each RPC is a
//! plain function of its request (the CLI's `--json` output calls the same ones).

use tonic::{Request, Response, Status};

use super::convert::{self, ContentLimits};
use super::errors::bad_request;
use super::proto::{self, rules_service_server::RulesService};
use super::three_kingdoms;
use crate::notation::{self, NotationErrorKind, fen};
use crate::rules::outcome::GameResult;
use crate::rules::types::{Move, MoveList};
use crate::rules::xiangqi::adjudicate;

pub fn list_legal_moves(
    req: &proto::ListLegalMovesRequest,
    limits: ContentLimits,
) -> Result<proto::ListLegalMovesResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::list_legal_moves(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let rules = convert::optional_rule_set(req.rule_set, "rule_set")?;
    let game = convert::game(position, "position", limits)?;
    let notations = convert::notations(&req.notations, "notations")?;
    let pos = game.position();
    let mut list = MoveList::new();
    game.legal_moves(&mut list);
    let mut moves = convert::describe_moves(pos, list.as_slice());
    if !notations.is_empty() {
        for (described, &m) in moves.iter_mut().zip(list.iter()) {
            described.notations = convert::render(pos, m, &notations);
        }
    }
    if let Some(rules) = rules {
        for (described, &m) in moves.iter_mut().zip(list.iter()) {
            described.warning = convert::warning(adjudicate::move_warning(&game, m, rules)) as i32;
        }
    }
    moves.sort_by(|a, b| a.iccs.cmp(&b.iccs));
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    metrics::counter!("chuhe_moves_generated_total").increment(moves.len() as u64);
    Ok(proto::ListLegalMovesResponse { moves, status: Some(convert::status(pos)) })
}

pub fn validate_move(
    req: &proto::ValidateMoveRequest,
    limits: ContentLimits,
) -> Result<proto::ValidateMoveResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::validate_move(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let rules = convert::optional_rule_set(req.rule_set, "rule_set")?;
    let game = convert::game(position, "position", limits)?;
    let notation = convert::notation(req.notation, "notation")?;
    let notations = convert::notations(&req.notations, "notations")?;
    let pos = game.position();
    let m = if req.r#move.trim().is_empty() {
        let from = req.from.as_ref().ok_or_else(|| bad_request("move", "give the move as text or as from and to"))?;
        let to = req.to.as_ref().ok_or_else(|| bad_request("to", "to is required with from"))?;
        let (from, to) = (convert::square(from, "from")?, convert::square(to, "to")?);
        if from == to {
            return Err(bad_request("to", "from and to are the same point"));
        }
        Move::new(from, to)
    } else {
        match notation::resolve_move(pos, &req.r#move, notation) {
            Ok(m) => m,
            Err(e) if e.is_syntax() => return Err(bad_request("move", e.to_string())),
            Err(e) => {
                // The text reads, but names no move of this position.
                let reason = match e.kind {
                    NotationErrorKind::Ambiguous { .. } | NotationErrorKind::TandemFiles { .. } => {
                        proto::IllegalMoveReason::Ambiguous
                    }
                    NotationErrorKind::CannotMove { .. } => proto::IllegalMoveReason::CannotMoveThatWay,
                    _ => proto::IllegalMoveReason::NoPiece,
                };
                return Ok(proto::ValidateMoveResponse {
                    legal: false,
                    reason: reason as i32,
                    detail: e.to_string(),
                    ..Default::default()
                });
            }
        }
    };
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    Ok(match game.explain_illegal(m) {
        Some(reason) => proto::ValidateMoveResponse {
            legal: false,
            reason: convert::illegal_reason(reason) as i32,
            detail: reason.describe().to_string(),
            ..Default::default()
        },
        None => {
            let mut described = convert::describe_move(pos, m);
            described.notations = convert::render(pos, m, &notations);
            if let Some(rules) = rules {
                described.warning = convert::warning(adjudicate::move_warning(&game, m, rules)) as i32;
            }
            let mut after = pos.clone();
            after.play_unchecked(m);
            proto::ValidateMoveResponse {
                legal: true,
                reason: proto::IllegalMoveReason::Unspecified as i32,
                detail: String::new(),
                r#move: Some(described),
                status: Some(convert::status(&after)),
                fen_after: fen::format(&after.to_setup()),
            }
        }
    })
}

pub fn validate_game(
    req: &proto::ValidateGameRequest,
    limits: ContentLimits,
) -> Result<proto::ValidateGameResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::validate_game(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let mut game = convert::new_game(position, "position")?;
    let moves = convert::parse_moves(position, "position", limits)?;
    let mut illegal = None;
    for (i, &m) in moves.iter().enumerate() {
        if let Some(reason) = game.explain_illegal(m) {
            illegal = Some((i, reason));
            break;
        }
        game.play_unchecked(m);
    }
    metrics::counter!("chuhe_positions_checked_total").increment(game.plies().len() as u64 + 1);
    let pos = game.position();
    let mut resp = proto::ValidateGameResponse {
        legal: illegal.is_none(),
        final_status: Some(convert::status(pos)),
        final_fen: fen::format(&pos.to_setup()),
        plies: game.plies().len() as u32,
        ..Default::default()
    };
    if let Some((i, reason)) = illegal {
        resp.first_illegal_index = i as u32;
        resp.reason = convert::illegal_reason(reason) as i32;
        resp.detail = format!("{} is illegal: {}", moves[i], reason.describe());
    }
    Ok(resp)
}

pub fn adjudicate(req: &proto::AdjudicateRequest, limits: ContentLimits) -> Result<proto::AdjudicateResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::adjudicate(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let start = convert::new_game(position, "position")?;
    let moves = convert::parse_moves(position, "position", limits)?;
    let rules = convert::rule_set(req.rule_set, "rule_set")?;
    let events = req
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| convert::event(e, &format!("events[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((i, e)) = events.iter().enumerate().find(|(_, e)| e.ply > moves.len()) {
        return Err(bad_request(
            format!("events[{i}].ply"),
            format!("ply {} is past the record's {} moves", e.ply, moves.len()),
        ));
    }
    let ruling = adjudicate::adjudicate_with_handicap(start.start(), start.handicap(), &moves, rules, &events)
        .map_err(|e| {
            bad_request(format!("position.moves[{}]", e.index), format!("{} is illegal: {}", e.mv, e.reason.describe()))
        })?;
    let mut end = start;
    for &m in &moves[..ruling.decided_at_ply] {
        end.play_unchecked(m);
    }
    let termination = convert::termination(ruling.termination);
    metrics::counter!("chuhe_adjudications_total", "rule" => termination.as_str_name()).increment(1);
    let (result, winner) = match ruling.result {
        GameResult::Ongoing => (proto::GameResult::Ongoing, proto::Player::Unspecified),
        GameResult::Draw => (proto::GameResult::Draw, proto::Player::Unspecified),
        GameResult::Win(c) => (proto::GameResult::Win, convert::player(c)),
    };
    let (cycle_first, cycle_last) = ruling.cycle.unwrap_or((0, 0));
    Ok(proto::AdjudicateResponse {
        result: result as i32,
        termination: termination as i32,
        rule: format!("{}: {}", rules.name(), ruling.termination.map_or("none", |t| t.name())),
        side_at_fault: ruling.at_fault.map_or(proto::Player::Unspecified, convert::player) as i32,
        decided_at_ply: ruling.decided_at_ply as u32,
        cycle_first_ply: cycle_first as u32,
        cycle_last_ply: cycle_last as u32,
        checking_plies: ruling.checking_plies.iter().map(|&p| p as u32).collect(),
        chases: ruling.chases.iter().map(convert::chase_step).collect(),
        explanation: ruling.explanation.clone(),
        winner: winner as i32,
        winners: if winner == proto::Player::Unspecified { Vec::new() } else { vec![winner as i32] },
        rule_set: req.rule_set,
        points: Vec::new(),
        final_status: Some(convert::status(end.position())),
        moves_after_end: ruling.moves_after_end as u32,
    })
}

/// The tonic service: each RPC runs its function on the request.
#[derive(Clone, Copy, Debug)]
pub struct Rules {
    pub limits: ContentLimits,
}

#[tonic::async_trait]
impl RulesService for Rules {
    async fn list_legal_moves(
        &self,
        request: Request<proto::ListLegalMovesRequest>,
    ) -> Result<Response<proto::ListLegalMovesResponse>, Status> {
        list_legal_moves(request.get_ref(), self.limits).map(Response::new)
    }

    async fn validate_move(
        &self,
        request: Request<proto::ValidateMoveRequest>,
    ) -> Result<Response<proto::ValidateMoveResponse>, Status> {
        validate_move(request.get_ref(), self.limits).map(Response::new)
    }

    async fn validate_game(
        &self,
        request: Request<proto::ValidateGameRequest>,
    ) -> Result<Response<proto::ValidateGameResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        // A long record is milliseconds of work: keep it off the async workers.
        tokio::task::spawn_blocking(move || validate_game(&req, limits))
            .await
            .map_err(|e| Status::internal(format!("validation task failed: {e}")))?
            .map(Response::new)
    }

    async fn adjudicate(
        &self,
        request: Request<proto::AdjudicateRequest>,
    ) -> Result<Response<proto::AdjudicateResponse>, Status> {
        let limits = self.limits;
        let req = request.into_inner();
        tokio::task::spawn_blocking(move || adjudicate(&req, limits))
            .await
            .map_err(|e| Status::internal(format!("adjudication task failed: {e}")))?
            .map(Response::new)
    }
}
