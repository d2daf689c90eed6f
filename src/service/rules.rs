//! RulesService: legal moves, move and game validation, adjudication. Each RPC is a
//! plain function of its request (the CLI's `--json` output calls the same ones).

use tonic::{Request, Response, Status};

use super::convert::{self, AnyGame, AnyRuleSet, ContentLimits};
use super::errors::bad_request;
use super::proto::{self, rules_service_server::RulesService};
use super::three_kingdoms;
use crate::rules::janggi;
use crate::rules::outcome::GameResult;
use crate::rules::types::{Color, FixedList, Move, MoveList};
use crate::rules::xiangqi::adjudicate;

pub fn list_legal_moves(
    req: &proto::ListLegalMovesRequest,
    limits: ContentLimits,
) -> Result<proto::ListLegalMovesResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::list_legal_moves(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let game = AnyGame::from_request(position, "position", limits)?;
    let rules = convert::optional_rule_set(req.rule_set, "rule_set", game.variant())?;
    let notations = convert::notations(&req.notations, "notations")?;
    game.check_notations(&notations, "notations")?;
    let mut list = MoveList::new();
    game.legal_moves(&mut list);
    // The order of the ICCS texts, without comparing strings: file and rank of the
    // from-point, then of the to-point; a pass last. Each key is computed once.
    let mut keyed = FixedList::<(u16, Move), { MoveList::CAPACITY }>::new();
    for &m in list.iter() {
        let (from, to) = (m.from(), m.to());
        let key = u16::from_be_bytes([from.file() << 4 | from.rank(), to.file() << 4 | to.rank()]);
        keyed.push((if m.is_pass() { u16::MAX } else { key }, m));
    }
    keyed.as_mut_slice().sort_unstable_by_key(|&(key, _)| key);
    for (slot, &(_, m)) in list.as_mut_slice().iter_mut().zip(keyed.iter()) {
        *slot = m;
    }
    let mut moves = game.describe_moves(list.as_slice());
    convert::clear_mover(&mut moves);
    if !notations.is_empty() {
        for (described, &m) in moves.iter_mut().zip(list.iter()) {
            described.notations = game.render(m, &notations);
        }
    }
    if let Some(rules) = rules {
        for (described, &m) in moves.iter_mut().zip(list.iter()) {
            described.warning = game.warning(m, rules) as i32;
        }
    }
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    metrics::counter!("chuhe_moves_generated_total").increment(moves.len() as u64);
    Ok(proto::ListLegalMovesResponse { moves, status: Some(game.status_given(list.as_slice())) })
}

pub fn validate_move(
    req: &proto::ValidateMoveRequest,
    limits: ContentLimits,
) -> Result<proto::ValidateMoveResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::validate_move(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let game = AnyGame::from_request(position, "position", limits)?;
    let rules = convert::optional_rule_set(req.rule_set, "rule_set", game.variant())?;
    let notation = convert::notation(req.notation, "notation")?;
    let notations = convert::notations(&req.notations, "notations")?;
    game.check_notations(&notations, "notations")?;
    let m = if req.r#move.trim().is_empty() {
        let from = req.from.as_ref().ok_or_else(|| bad_request("move", "give the move as text or as from and to"))?;
        let to = req.to.as_ref().ok_or_else(|| bad_request("to", "to is required with from"))?;
        let (from, to) = (convert::square(from, "from")?, convert::square(to, "to")?);
        if from == to {
            return Err(bad_request("to", "from and to are the same point"));
        }
        Move::new(from, to)
    } else {
        match game.resolve_move(&req.r#move, notation)? {
            Ok(m) => m,
            // The text reads, but names no move of this position.
            Err((reason, detail)) => {
                return Ok(proto::ValidateMoveResponse {
                    legal: false,
                    reason: reason as i32,
                    detail,
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
            detail: game.describe_reason(reason).to_string(),
            ..Default::default()
        },
        None => {
            let mut described = game.describe_move(m);
            described.notations = game.render(m, &notations);
            if let Some(rules) = rules {
                described.warning = game.warning(m, rules) as i32;
            }
            // The status carries the FEN after the move: formatted once for both fields.
            let status = game.after(m).status();
            proto::ValidateMoveResponse {
                legal: true,
                reason: proto::IllegalMoveReason::Unspecified as i32,
                detail: String::new(),
                r#move: Some(described),
                fen_after: status.fen.clone(),
                status: Some(status),
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
    let mut game = AnyGame::start(position, "position")?;
    let moves = convert::parse_moves(position, "position", limits)?;
    let mut illegal = None;
    for (i, &m) in moves.iter().enumerate() {
        if let Some(reason) = game.explain_illegal(m) {
            illegal = Some((i, reason));
            break;
        }
        game.play_unchecked(m);
    }
    metrics::counter!("chuhe_positions_checked_total").increment(game.plies() as u64 + 1);
    let mut resp = proto::ValidateGameResponse {
        legal: illegal.is_none(),
        final_status: Some(game.status()),
        final_fen: game.fen(),
        plies: game.plies() as u32,
        ..Default::default()
    };
    if let Some((i, reason)) = illegal {
        resp.first_illegal_index = i as u32;
        resp.reason = convert::illegal_reason(reason) as i32;
        resp.detail = format!("{} is illegal: {}", moves[i], game.describe_reason(reason));
    }
    Ok(resp)
}

pub fn adjudicate(req: &proto::AdjudicateRequest, limits: ContentLimits) -> Result<proto::AdjudicateResponse, Status> {
    if req.position.as_ref().is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32) {
        return three_kingdoms::adjudicate(req, limits);
    }
    let position = req.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let start = AnyGame::start(position, "position")?;
    let variant = start.variant();
    let moves = convert::parse_moves(position, "position", limits)?;
    let rules = convert::rule_set(req.rule_set, "rule_set", variant)?;
    let events = req
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| convert::event(e, &format!("events[{i}]"), variant))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some((i, e)) = events.iter().enumerate().find(|(_, e)| e.ply > moves.len()) {
        return Err(bad_request(
            format!("events[{i}].ply"),
            format!("ply {} is past the record's {} moves", e.ply, moves.len()),
        ));
    }
    let illegal = |index: usize, mv: Move, why: &str| {
        bad_request(format!("position.moves[{index}]"), format!("{mv} is illegal: {why}"))
    };
    let ruling = match (&start, rules) {
        (AnyGame::Xiangqi(g), AnyRuleSet::Xiangqi(r)) => {
            adjudicate::adjudicate_with_handicap(g.start(), g.handicap(), &moves, r, &events)
                .map_err(|e| illegal(e.index, e.mv, e.reason.describe()))?
        }
        (AnyGame::Janggi(g), AnyRuleSet::Janggi(r)) => janggi::adjudicate::adjudicate(g.start(), &moves, r, &events)
            .map_err(|e| match e {
                janggi::adjudicate::RecordError::IllegalMove { index, mv, reason } => {
                    illegal(index, mv, start.describe_reason(reason))
                }
                janggi::adjudicate::RecordError::BadClaim { index, detail } => {
                    bad_request(format!("events[{index}]"), detail)
                }
            })?,
        _ => unreachable!("convert::rule_set matches the rule set to the variant"),
    };
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
    let points = ruling.points.map_or_else(Vec::new, |p| {
        Color::ALL
            .iter()
            .map(|&c| proto::PlayerPoints { player: convert::player(c) as i32, points: p[c.index()] as f64 / 10.0 })
            .collect()
    });
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
        rule_set: rules.to_proto() as i32,
        points,
        final_status: Some(end.status()),
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
