//! AnalysisService for Three Kingdoms: the search of `search::three_kingdoms` on the
//! engine's pool, with the shared table, for Analyze, AnalyzeStream, Hint and
//! EvaluateDrawOffer.
//!
//! - Moves (`best_move`, `pv`, `search_moves`, `exclude_moves`) are point-name text.
//! - `multipv` lines are the best moves of the side to move, each with an exact score.
//! - `Score.cp` is the side to move's strength less the average of its rivals' (see the
//!   search module); `Score.mate` is a decided game: positive when the side to move is
//!   left as the last kingdom, negative when it is defeated, counting the moves of the
//!   side to move (plies / 3, rounded up, as if all three kingdoms were in play).
//! - EvaluateDrawOffer answers for the kingdom to move (`offered_by` is another kingdom
//!   in play), by `search::three_kingdoms::judge_draw_offer`; its score is the kingdom
//!   to move's value less its strongest rival's.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::analysis::{draw_offer_reason, final_message, principal_variations, progress_message, stop_reason};
use super::error::{Error, bad_request};
use super::proto;
use super::three_kingdoms::{describe_move, kingdom};
use crate::engine::{self, Budget, Deadline, Engine, SearchStream};
use crate::rules::three_kingdoms::outcome::Game;
use crate::rules::three_kingdoms::{Move, Position};
use crate::search::three_kingdoms::{self as search, Limits, Outcome, Params, Report, WIN, WIN_BOUND};

/// A search request, whichever RPC it came from.
struct Job {
    game: Game,
    params: Params,
    budget: Budget,
}

/// FAILED_PRECONDITION naming how the game ended, if it has.
fn check_not_over(game: &Game) -> Result<(), Error> {
    match game.ending() {
        Some((_, _, why)) => Err(Error::FailedPrecondition(format!("the game is over: {why}"))),
        None => Ok(()),
    }
}

/// Root moves of a request, each read and, where `game` is given, legal in it.
fn root_moves(list: &[String], field: &str, game: Option<&Game>) -> Result<Vec<Move>, Error> {
    super::convert::check_count(list.len(), super::convert::MAX_ROOT_MOVES, field)?;
    let mut moves = Vec::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        let m = Move::parse(t).map_err(|e| bad_request(format!("{field}[{i}]"), format!("{t:?}: {e}")))?;
        if let Some((_, detail)) = game.and_then(|g| g.explain_illegal_in_words(m)) {
            return Err(bad_request(format!("{field}[{i}]"), format!("{m} is illegal: {detail}")));
        }
        moves.push(m);
    }
    Ok(moves)
}

/// The job of an Analyze request (AnalyzeStream's has the same fields) in its game.
fn job(engine: &Engine, r: &proto::AnalyzeRequest, game: Game, deadline: Option<Deadline>) -> Result<Job, Error> {
    if r.multipv > 64 {
        return Err(bad_request("multipv", "at most 64 lines"));
    }
    let l = r.limits.unwrap_or_default();
    let params = Params {
        limits: super::analysis::search_limits(&l)?,
        multipv: r.multipv.max(1) as usize,
        threads: 1,
        search_moves: root_moves(&r.search_moves, "search_moves", Some(&game))?,
        exclude_moves: root_moves(&r.exclude_moves, "exclude_moves", None)?,
        nnue: None,
    };
    Ok(Job { game, params, budget: engine.budget(l.movetime_ms, l.depth > 0 || l.nodes > 0, deadline) })
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

/// A line in point-name text, each move written in the position it is played in.
fn line_text(pos: &Position, pv: &[Move]) -> Vec<String> {
    let mut pos = pos.clone();
    let mut out = Vec::with_capacity(pv.len());
    for &m in pv {
        if !pos.is_legal(m) {
            break;
        }
        out.push(pos.move_text(m));
        pos.play_unchecked(m);
    }
    out
}

/// The search so far (or at its end) as a stream message, not final.
fn progress(pos: &Position, r: &Report, hit_rate: f64) -> proto::AnalyzeStreamResponse {
    let lines = principal_variations(r.lines.iter().map(|l| (score(l.score), line_text(pos, &l.pv))));
    progress_message(lines, (r.depth, r.seldepth), r.nodes, r.elapsed, hit_rate)
}

fn response(pos: &Position, (out, movetime): &(Outcome, bool), hit_rate: f64) -> proto::AnalyzeResponse {
    let p = progress(pos, &out.report, hit_rate);
    proto::AnalyzeResponse {
        lines: p.lines,
        best_move: p.best_move,
        ponder_move: p.ponder_move,
        depth: p.depth,
        seldepth: p.seldepth,
        nodes: p.nodes,
        nps: p.nps,
        time_ms: p.time_ms,
        hash_hit_rate: p.hash_hit_rate,
        stop_reason: stop_reason(out.stop_reason, *movetime) as i32,
        // Three Kingdoms has only its own classical evaluation.
        evaluation: crate::search::nnue::evaluation_name(None),
        engine_version: super::analysis::ENGINE_VERSION.to_string(),
    }
}

/// Runs `job` on the calling (search) thread from now on; `on_depth` sees each
/// completed depth. Also says whether a move time (not the server's cap or the call's
/// deadline) bounded it.
fn run(engine: &Engine, job: &Job, stop: &AtomicBool, on_depth: &mut dyn FnMut(&Report)) -> (Outcome, bool) {
    let (time, movetime) = job.budget.from_now();
    (engine.search_three_kingdoms(&job.game, &job.params, time, stop, on_depth), movetime)
}

/// Analyze of the request's Three Kingdoms `game` on the calling thread (the command
/// line's `chuhe analyze`): `on_depth` sees each completed depth as the stream would
/// send it.
pub fn analyze_here(
    engine: &Engine,
    r: &proto::AnalyzeRequest,
    game: Game,
    on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
) -> Result<proto::AnalyzeResponse, Error> {
    let job = job(engine, r, game, None)?;
    let pos = job.game.position();
    let stop = AtomicBool::new(false);
    let out = run(engine, &job, &stop, &mut |report| on_depth(&progress(pos, report, engine.tt.hit_rate())));
    Ok(response(pos, &out, engine.tt.hit_rate()))
}

/// [`super::analysis::analyze`] of the request's Three Kingdoms `game`.
pub async fn analyze(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeRequest,
    game: Game,
    deadline: Option<Deadline>,
) -> Result<proto::AnalyzeResponse, Error> {
    let job = job(engine, r, game, deadline)?;
    engine
        .run(job.budget.until, move |engine, stop| {
            let out = run(engine, &job, stop, &mut |_| {});
            response(job.game.position(), &out, engine.tt.hit_rate())
        })
        .await
        .map_err(Error::from)
}

/// [`super::analysis::analyze_stream`] of the request's Three Kingdoms `game`.
pub async fn analyze_stream(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeRequest,
    game: Game,
    deadline: Option<Deadline>,
) -> Result<SearchStream<proto::AnalyzeStreamResponse>, Error> {
    let job = job(engine, r, game, deadline)?;
    engine
        .stream(job.budget.until, move |engine, stop, send| {
            let pos = job.game.position();
            let mut on_depth = |report: &Report| send(progress(pos, report, engine.tt.hit_rate()));
            let out = run(engine, &job, stop, &mut on_depth);
            send(final_message(response(pos, &out, engine.tt.hit_rate())));
        })
        .await
        .map_err(Error::from)
}

/// The thinking time of Hint and EvaluateDrawOffer: the request's, or 300 ms.
fn think(engine: &Engine, movetime_ms: u32, deadline: Option<Deadline>) -> Budget {
    engine.budget(if movetime_ms > 0 { movetime_ms } else { 300 }, false, deadline)
}

/// [`super::analysis::hint`] in the request's Three Kingdoms `game`.
pub async fn hint(
    engine: &Arc<Engine>,
    r: &proto::HintRequest,
    game: Game,
    deadline: Option<Deadline>,
) -> Result<proto::HintResponse, Error> {
    check_not_over(&game)?;
    let position = game.position().clone();
    let job = Job { game, params: Params::default(), budget: think(engine, r.movetime_ms, deadline) };
    let (out, _) = engine.run(job.budget.until, move |engine, stop| run(engine, &job, stop, &mut |_| {})).await?;
    let best = out.best.ok_or_else(|| Error::FailedPrecondition("the side to move has no legal move".into()))?;
    Ok(proto::HintResponse { r#move: Some(describe_move(&position, best)), score: out.score().map(score) })
}

/// [`super::analysis::evaluate_draw_offer`] in the request's Three Kingdoms `game`.
pub async fn evaluate_draw_offer(
    engine: &Arc<Engine>,
    r: &proto::EvaluateDrawOfferRequest,
    game: Game,
    deadline: Option<Deadline>,
) -> Result<proto::EvaluateDrawOfferResponse, Error> {
    check_not_over(&game)?;
    let pos = game.position();
    let by = kingdom(r.offered_by).ok_or_else(|| bad_request("offered_by", "name SHU, WU or WEI"))?;
    if pos.is_defeated(by) || by == pos.side_to_move() {
        return Err(bad_request(
            "offered_by",
            format!("the offer must come from a kingdom in play other than {}, which answers it", pos.side_to_move()),
        ));
    }
    let budget = think(engine, r.movetime_ms, deadline);
    let verdict = engine
        .run(budget.until, move |engine, stop| {
            search::judge_draw_offer(&game, Limits::default(), &engine.tt, stop, engine::deadline(budget.from_now().0))
        })
        .await?;
    Ok(proto::EvaluateDrawOfferResponse {
        accept: verdict.answer.accept(),
        score: Some(score(verdict.score)),
        reason: draw_offer_reason(verdict.answer) as i32,
    })
}
