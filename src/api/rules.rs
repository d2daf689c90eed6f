//! RulesService: legal moves, move and game validation, adjudication, each RPC a
//! plain function of its request (the gRPC service and the CLI's `--json` output call
//! the same ones).

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request, required};
use super::game::{request_game, request_start};
use super::proto;
use super::variant::RulesCalls;
use super::wire::{Encoded, Writer};
use crate::game::BoardGame;
use crate::rules::outcome::{AdjudicationError, GameResult};
use crate::rules::types::{Color, FixedList, Move, MoveList, Square};

/// ListLegalMoves: the legal moves of the request's position, with its status.
pub fn list_legal_moves(
    req: &proto::ListLegalMovesRequest,
    limits: ContentLimits,
) -> Result<proto::ListLegalMovesResponse, Error> {
    list_legal_moves_encoded(req, limits)?
        .decode()
        .map_err(|e| Error::Internal(format!("move list written wrong: {e}")))
}

/// [`list_legal_moves`] as the response's bytes, which the service sends; the 9x10
/// variants write them straight from the moves (see [`super::wire`]).
pub fn list_legal_moves_encoded(req: &proto::ListLegalMovesRequest, limits: ContentLimits) -> Result<Encoded, Error> {
    request_game(req.position.as_ref(), req.rule_set, limits)?.list_legal_moves(req)
}

/// ValidateMove: whether one move is legal, and why not.
pub fn validate_move(
    req: &proto::ValidateMoveRequest,
    limits: ContentLimits,
) -> Result<proto::ValidateMoveResponse, Error> {
    request_game(req.position.as_ref(), req.rule_set, limits)?.validate_move(req)
}

/// ValidateGame: the first illegal move of a game record, if any.
pub fn validate_game(
    req: &proto::ValidateGameRequest,
    limits: ContentLimits,
) -> Result<proto::ValidateGameResponse, Error> {
    let position = required(req.position.as_ref(), "position")?;
    request_start(position)?.validate_game(position, limits)
}

/// Adjudicate: the result of a game record under a rule set.
pub fn adjudicate(req: &proto::AdjudicateRequest, limits: ContentLimits) -> Result<proto::AdjudicateResponse, Error> {
    let position = required(req.position.as_ref(), "position")?;
    request_start(position)?.adjudicate(req, position, limits)
}

/// RulesService in a 9x10 game.
impl RulesCalls for BoardGame {
    fn list_legal_moves(&self, req: &proto::ListLegalMovesRequest) -> Result<Encoded, Error> {
        list_board_moves(req, self)
    }

    fn validate_move(self, req: &proto::ValidateMoveRequest) -> Result<proto::ValidateMoveResponse, Error> {
        validate_board_move(req, &self)
    }

    fn validate_game(
        self,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::ValidateGameResponse, Error> {
        validate_board_game(position, self, limits)
    }

    fn adjudicate(
        self,
        req: &proto::AdjudicateRequest,
        position: &proto::Position,
        limits: ContentLimits,
    ) -> Result<proto::AdjudicateResponse, Error> {
        adjudicate_board(req, position, self, limits)
    }
}

/// The response of ListLegalMovesRequest for a 9x10 game, as bytes.
fn list_board_moves(req: &proto::ListLegalMovesRequest, game: &BoardGame) -> Result<Encoded, Error> {
    let notations = convert::notations(&req.notations, "notations")?;
    convert::check_notations(game, &notations, "notations")?;
    let mut list = MoveList::new();
    game.legal_moves(&mut list);
    // The order of the ICCS texts, without comparing strings: file and rank of the
    // from-point, then of the to-point (which name the move again); a pass last.
    let mut keys = FixedList::<u16, { MoveList::CAPACITY }>::new();
    for &m in list.iter() {
        let (from, to) = (m.from(), m.to());
        keys.push(if m.is_pass() {
            u16::MAX
        } else {
            u16::from_be_bytes([from.file() << 4 | from.rank(), to.file() << 4 | to.rank()])
        });
    }
    keys.as_mut_slice().sort_unstable();
    let point = |byte: u8| Square::new(byte >> 4, byte & 0xf);
    for (slot, &key) in list.as_mut_slice().iter_mut().zip(keys.iter()) {
        let [from, to] = key.to_be_bytes();
        *slot = if key == u16::MAX { Move::PASS } else { Move::new(point(from), point(to)) };
    }
    // ListLegalMovesResponse: the moves (field 1, each `chuhe.v1.Move` without its
    // player), then the status (field 2).
    let mut w = Writer::with_capacity(32 * list.len() + 160);
    game.move_facts(list.as_slice(), |facts| {
        w.message(1, |w| {
            convert::encode_facts(&facts).write_to(w);
            if !notations.is_empty() {
                for text in convert::render(game, facts.m, &notations) {
                    w.prost_message(10, &text);
                }
            }
            if game.rules().is_some() {
                w.uint(11, convert::move_warning(game, facts.m) as u64);
            }
        });
    });
    w.prost_message(2, &convert::game_status_given(game, list.as_slice()));
    metrics::counter!("chuhe_positions_checked_total").increment(1);
    metrics::counter!("chuhe_moves_generated_total").increment(list.len() as u64);
    Ok(w.finish())
}

/// [`validate_move`] in a 9x10 game.
fn validate_board_move(
    req: &proto::ValidateMoveRequest,
    game: &BoardGame,
) -> Result<proto::ValidateMoveResponse, Error> {
    let notation = convert::notation(req.notation, "notation")?;
    let notations = convert::notations(&req.notations, "notations")?;
    convert::check_notations(game, &notations, "notations")?;
    let m = if req.r#move.trim().is_empty() {
        let from = req.from.as_ref().ok_or_else(|| bad_request("move", "give the move as text or as from and to"))?;
        let to = req.to.as_ref().ok_or_else(|| bad_request("to", "to is required with from"))?;
        let (from, to) = (convert::square(from, "from")?, convert::square(to, "to")?);
        if from == to {
            return Err(bad_request("to", "from and to are the same point"));
        }
        Move::new(from, to)
    } else {
        match convert::resolve_move(game, &req.r#move, notation)? {
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
            let mut described = convert::describe_move(game, m);
            described.notations = convert::render(game, m, &notations);
            if game.rules().is_some() {
                described.warning = convert::move_warning(game, m) as i32;
            }
            // The status carries the FEN after the move: formatted once for both fields.
            let status = convert::game_status(&game.after(m));
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

/// [`validate_game`] of a 9x10 record: its `position`, from `game` at its start.
fn validate_board_game(
    position: &proto::Position,
    mut game: BoardGame,
    limits: ContentLimits,
) -> Result<proto::ValidateGameResponse, Error> {
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
        final_status: Some(convert::game_status(&game)),
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

/// [`adjudicate`] of a 9x10 record: the request's `position`, from `start`.
fn adjudicate_board(
    req: &proto::AdjudicateRequest,
    position: &proto::Position,
    start: BoardGame,
    limits: ContentLimits,
) -> Result<proto::AdjudicateResponse, Error> {
    let variant = start.variant();
    let moves = convert::parse_moves(position, "position", limits)?;
    let start = convert::under_rule_set(start, req.rule_set, "rule_set")?.with_default_rules();
    convert::check_count(req.events.len(), convert::MAX_EVENTS, "events")?;
    convert::check_event_order(req.events.iter().map(|e| e.ply))?;
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
    let unjudged = |e: AdjudicationError| match e {
        AdjudicationError::IllegalMove { index, mv, reason } => bad_request(
            format!("position.moves[{index}]"),
            format!("{mv} is illegal: {}", start.describe_reason(reason)),
        ),
        AdjudicationError::BadEvent { index, detail } => bad_request(format!("events[{index}]"), detail),
    };
    let ruling = BoardGame::adjudicate(&start, &moves, &events).map_err(unjudged)?;
    let mut end = start;
    for &m in &moves[..ruling.decided_at_ply] {
        end.play_unchecked(m);
    }
    let termination = convert::termination(ruling.termination);
    metrics::counter!("chuhe_adjudications_total", "rule" => termination.as_str_name()).increment(1);
    let (result, winner) = match ruling.result {
        GameResult::Ongoing => (proto::GameResult::Ongoing, proto::Player::Unspecified),
        GameResult::Draw => (proto::GameResult::Draw, proto::Player::Unspecified),
        GameResult::Win(c) => (proto::GameResult::Win, proto::Player::from(c)),
    };
    let (cycle_first, cycle_last) = ruling.cycle.unwrap_or((0, 0));
    let points = ruling.points.map_or_else(Vec::new, |p| {
        Color::ALL
            .iter()
            .map(|&c| proto::PlayerPoints { player: proto::Player::from(c) as i32, points: p[c.index()] as f64 / 10.0 })
            .collect()
    });
    Ok(proto::AdjudicateResponse {
        result: result as i32,
        termination: termination as i32,
        rule: ruling.termination.map_or("", |t| t.id()).to_string(),
        side_at_fault: ruling.at_fault.map_or(proto::Player::Unspecified, proto::Player::from) as i32,
        decided_at_ply: ruling.decided_at_ply as u32,
        cycle_first_ply: cycle_first as u32,
        cycle_last_ply: cycle_last as u32,
        checking_plies: ruling.checking_plies.iter().map(|&p| p as u32).collect(),
        chases: ruling.chases.iter().map(convert::chase_step).collect(),
        explanation: ruling.explanation.clone(),
        winner: winner as i32,
        winners: if winner == proto::Player::Unspecified { Vec::new() } else { vec![winner as i32] },
        rule_set: convert::proto_rule_set(end.rules_or_default()) as i32,
        points,
        final_status: Some(convert::game_status(&end)),
        moves_after_end: ruling.moves_after_end as u32,
    })
}
