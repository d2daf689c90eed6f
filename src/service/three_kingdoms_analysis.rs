//! AnalysisService for Three Kingdoms: Analyze and Hint run the paranoid search of
//! `search::three_kingdoms` on the engine's pool, with the shared table.
//!
//! - Moves (`best_move`, `pv`, `search_moves`, `exclude_moves`) are point-name text.
//! - One line is answered whatever `multipv` asks.
//! - `Score.cp` is the side to move's strength less its strongest rival's (see the
//!   search module); `Score.mate` is a decided game: positive when the side to move is
//!   left as the last kingdom, negative when it is defeated, counting the moves of the
//!   side to move (plies / 3, rounded up, as if all three kingdoms were in play).
//! - AnalyzeStream and EvaluateDrawOffer answer UNIMPLEMENTED for Three Kingdoms.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tonic::Status;

use super::convert::ContentLimits;
use super::engine::{Engine, deadline};
use super::errors::bad_request;
use super::proto;
use super::three_kingdoms::{describe_move, parse_moves, start_position};
use crate::rules::three_kingdoms::Move;
use crate::rules::three_kingdoms::outcome::Game;
use crate::search::three_kingdoms::{self as search, Limits, Outcome, Params, StopReason, WIN, WIN_BOUND};

struct Job {
    game: Game,
    params: Params,
    budget: Option<Duration>,
}

/// The game of the record of `p`; an illegal move is INVALID_ARGUMENT.
fn current(p: &proto::Position, content: ContentLimits) -> Result<Game, Status> {
    let start = start_position(p, "position")?;
    let moves = parse_moves(p, "position", content)?;
    let mut game = Game::new(start);
    for (i, &m) in moves.iter().enumerate() {
        if game.play(m).is_err() {
            return Err(bad_request(format!("position.moves[{i}]"), format!("{m} is illegal")));
        }
    }
    Ok(game)
}

fn root_moves(list: &[String], field: &str) -> Result<Vec<Move>, Status> {
    list.iter()
        .enumerate()
        .map(|(i, t)| Move::parse(t).map_err(|e| bad_request(format!("{field}[{i}]"), format!("{t:?}: {e}"))))
        .collect()
}

fn score(v: i32) -> proto::Score {
    let value = if v > WIN_BOUND {
        proto::score::Value::Mate((WIN - v + 2) / 3)
    } else if v < -WIN_BOUND {
        proto::score::Value::Mate(-((WIN + v + 2) / 3))
    } else {
        proto::score::Value::Cp(v)
    };
    proto::Score { value: Some(value) }
}

fn stop_reason(r: StopReason) -> proto::StopReason {
    match r {
        StopReason::Depth => proto::StopReason::Depth,
        StopReason::Nodes => proto::StopReason::Nodes,
        StopReason::Time => proto::StopReason::Movetime,
        StopReason::Stopped => proto::StopReason::Cancelled,
        StopReason::NoLegalMoves => proto::StopReason::NoLegalMoves,
        StopReason::SingleMove => proto::StopReason::SingleMove,
        StopReason::Decided => proto::StopReason::MateFound,
    }
}

async fn run(engine: &Arc<Engine>, job: Job) -> Result<Outcome, Status> {
    engine
        .run(move |engine, stop| {
            metrics::counter!("chuhe_searches_started_total").increment(1);
            let outcome = search::search(&job.game, &job.params, &engine.tt, stop, deadline(job.budget), &mut |_| {});
            metrics::counter!("chuhe_searches_finished_total").increment(1);
            metrics::counter!("chuhe_search_nodes_total").increment(outcome.report.nodes);
            outcome
        })
        .await
}

pub async fn analyze(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeRequest,
    content: ContentLimits,
    client_timeout: Option<Duration>,
) -> Result<proto::AnalyzeResponse, Status> {
    let p = r.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let game = current(p, content)?;
    if r.multipv > 64 {
        return Err(bad_request("multipv", "at most 64 lines"));
    }
    let l = r.limits.unwrap_or_default();
    let job = Job {
        game,
        params: Params {
            limits: Limits { depth: (l.depth > 0).then_some(l.depth), nodes: (l.nodes > 0).then_some(l.nodes) },
            search_moves: root_moves(&r.search_moves, "search_moves")?,
            exclude_moves: root_moves(&r.exclude_moves, "exclude_moves")?,
            ..Params::default()
        },
        budget: engine.budget(l.movetime_ms, l.depth > 0 || l.nodes > 0, client_timeout),
    };
    let started = Instant::now();
    let mut pos = job.game.position().clone();
    let out = run(engine, job).await?;
    let reason = out.stop_reason;
    let score_value = out.score().unwrap_or(0);
    let best_line = out.report.lines.first().map(|l| l.pv.clone()).unwrap_or_default();
    // The line in point-name text, each move written in the position it is played in.
    let mut pv = Vec::new();
    for &m in &best_line {
        if !pos.is_legal(m) {
            break;
        }
        pv.push(pos.move_text(m));
        pos.play_unchecked(m);
    }
    let out = &out.report;
    let secs = out.elapsed.as_secs_f64();
    Ok(proto::AnalyzeResponse {
        lines: if pv.is_empty() {
            Vec::new()
        } else {
            vec![proto::PrincipalVariation { multipv: 1, score: Some(score(score_value)), pv: pv.clone() }]
        },
        best_move: pv.first().cloned().unwrap_or_default(),
        ponder_move: pv.get(1).cloned().unwrap_or_default(),
        depth: out.depth,
        seldepth: out.seldepth,
        nodes: out.nodes,
        nps: if secs > 0.0 { (out.nodes as f64 / secs) as u64 } else { 0 },
        time_ms: started.elapsed().as_millis() as u32,
        hash_hit_rate: engine.tt.hit_rate(),
        stop_reason: stop_reason(reason) as i32,
    })
}

pub async fn hint(
    engine: &Arc<Engine>,
    r: &proto::HintRequest,
    content: ContentLimits,
    client_timeout: Option<Duration>,
) -> Result<proto::HintResponse, Status> {
    let p = r.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    let game = current(p, content)?;
    let position = game.position().clone();
    let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
    let job = Job { game, params: Params::default(), budget: engine.budget(ms, false, client_timeout) };
    let out = run(engine, job).await?;
    let best = out.best.ok_or_else(|| Status::failed_precondition("the game is over: one kingdom is left"))?;
    Ok(proto::HintResponse { r#move: Some(describe_move(&position, best)), score: out.score().map(score) })
}
