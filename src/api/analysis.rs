//! AnalysisService: Analyze, AnalyzeStream, Hint, EvaluateDrawOffer over the shared
//! engine.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request};
use super::game::request_game;
use super::proto;
use super::three_kingdoms_analysis;
use crate::engine::{Budget, Deadline, Engine, SearchStream};
use crate::game::{AnyGame, BoardGame};
use crate::rules::types::Move;
use crate::search::draw_offer::{self, DrawAnswer, Standing};
use crate::search::{self, Outcome, Params, Report, Score, StopReason};

/// A search request, whichever RPC it came from.
struct Job {
    /// The game, under the rule set repetitions are judged by (none named: the
    /// variant's own judgement).
    game: BoardGame,
    params: Params,
    budget: Budget,
}

impl Job {
    /// What evaluates its search: `classical` or the net's identity.
    fn evaluation(&self) -> String {
        search::nnue::evaluation_name(self.params.nnue.as_deref())
    }

    /// Searches on the calling thread, from now on: the outcome, and whether a move time
    /// (not the server's cap or the call's deadline) bounded it.
    fn search(&self, engine: &Engine, stop: &AtomicBool, on_depth: &mut dyn FnMut(&Report)) -> (Outcome, bool) {
        let (time, movetime) = self.budget.from_now();
        (engine.search(&self.game, &self.params, time, stop, on_depth), movetime)
    }
}

/// Root moves of a request, each read and, where `game` is given, legal in it.
fn parse_root_moves(list: &[String], field: &str, game: Option<&BoardGame>) -> Result<Vec<Move>, Error> {
    convert::check_count(list.len(), convert::MAX_ROOT_MOVES, field)?;
    let moves: Vec<Move> = list
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Move::parse_iccs(t)
                .ok_or_else(|| bad_request(format!("{field}[{i}]"), format!("{t:?} is not an ICCS move")))
        })
        .collect::<Result<_, _>>()?;
    if let Some(game) = game {
        for (i, &m) in moves.iter().enumerate() {
            if let Some(reason) = game.explain_illegal(m) {
                let detail = format!("{m} is illegal: {}", game.describe_reason(reason));
                return Err(bad_request(format!("{field}[{i}]"), detail));
            }
        }
    }
    Ok(moves)
}

/// The search of a request in its 9x10 `game`.
fn job(
    engine: &Engine,
    game: BoardGame,
    limits: Option<&proto::SearchLimits>,
    multipv: u32,
    search_moves: &[String],
    exclude_moves: &[String],
    deadline: Option<Deadline>,
) -> Result<Job, Error> {
    let l = limits.cloned().unwrap_or_default();
    if multipv > 64 {
        return Err(bad_request("multipv", "at most 64 lines"));
    }
    let params = Params {
        limits: search_limits(&l)?,
        multipv: multipv.max(1) as usize,
        threads: engine.config.threads_per_search,
        // A move to search must be legal (else nothing is searched); one to leave out
        // may be anything.
        search_moves: parse_root_moves(search_moves, "search_moves", Some(&game))?,
        exclude_moves: parse_root_moves(exclude_moves, "exclude_moves", None)?,
        nnue: engine.config.evaluation.net_for(game.net_variant()),
    };
    let budget = engine.budget(l.movetime_ms, l.depth > 0 || l.nodes > 0 || l.clock.is_some(), deadline);
    Ok(Job { game, params, budget })
}

/// The limits a request asks for (0 is none): depth, nodes and the side to move's clock,
/// checked (a bad clock is INVALID_ARGUMENT naming its field); its movetime goes to the
/// budget, which also weighs the server's cap and the client's deadline.
pub(super) fn search_limits(l: &proto::SearchLimits) -> Result<search::Limits, Error> {
    Ok(search::Limits {
        depth: (l.depth > 0).then_some(l.depth),
        nodes: (l.nodes > 0).then_some(l.nodes),
        movetime: None,
        clock: l.clock.as_ref().map(search_clock).transpose()?,
    })
}

/// The longest clock a request may give: a day.
const MAX_CLOCK_MS: u64 = 86_400_000;
/// The largest increment: an hour.
const MAX_INCREMENT_MS: u32 = 3_600_000;
/// The most moves to the next time control.
const MAX_MOVES_TO_GO: u32 = 1_000;

/// A request's clock as the time manager's (the same one UCI's `go wtime` uses).
fn search_clock(c: &proto::SearchClock) -> Result<search::time::Clock, Error> {
    if c.time_left_ms == 0 || c.time_left_ms > MAX_CLOCK_MS {
        return Err(bad_request("limits.clock.time_left_ms", format!("1 to {MAX_CLOCK_MS} ms")));
    }
    if c.increment_ms > MAX_INCREMENT_MS {
        return Err(bad_request("limits.clock.increment_ms", format!("at most {MAX_INCREMENT_MS} ms")));
    }
    if c.moves_to_go > MAX_MOVES_TO_GO {
        return Err(bad_request("limits.clock.moves_to_go", format!("at most {MAX_MOVES_TO_GO}")));
    }
    Ok(search::time::Clock {
        time: Duration::from_millis(c.time_left_ms),
        increment: Duration::from_millis(u64::from(c.increment_ms)),
        moves_to_go: (c.moves_to_go > 0).then_some(c.moves_to_go),
    })
}

/// The job of an Analyze request in its 9x10 `game`.
fn analyze_job(
    engine: &Engine,
    r: &proto::AnalyzeRequest,
    game: BoardGame,
    deadline: Option<Deadline>,
) -> Result<Job, Error> {
    job(engine, game, r.limits.as_ref(), r.multipv, &r.search_moves, &r.exclude_moves, deadline)
}

/// AnalyzeStream asks what Analyze asks.
pub fn analyze_request(r: &proto::AnalyzeStreamRequest) -> proto::AnalyzeRequest {
    proto::AnalyzeRequest {
        position: r.position.clone(),
        limits: r.limits,
        multipv: r.multipv,
        search_moves: r.search_moves.clone(),
        exclude_moves: r.exclude_moves.clone(),
        rule_set: r.rule_set,
    }
}

fn score(s: Score) -> proto::Score {
    proto::Score {
        value: Some(match s {
            Score::Centipawns(c) => proto::score::Value::Cp(c),
            Score::Mate(n) => proto::score::Value::Mate(n),
        }),
    }
}

/// The API's stop reason for either search's; `movetime`: a move time bounded the
/// search (else the server's cap or the call's deadline did: DEADLINE).
pub fn stop_reason(r: StopReason, movetime: bool) -> proto::StopReason {
    match r {
        StopReason::Depth => proto::StopReason::Depth,
        StopReason::Nodes => proto::StopReason::Nodes,
        StopReason::Time if movetime => proto::StopReason::Movetime,
        StopReason::Time => proto::StopReason::Deadline,
        StopReason::Stopped => proto::StopReason::Cancelled,
        StopReason::NoLegalMoves => proto::StopReason::NoLegalMoves,
        StopReason::SingleMove => proto::StopReason::SingleMove,
        StopReason::MateFound => proto::StopReason::MateFound,
    }
}

/// Lines numbered from 1, best first, from each line's score and move texts.
pub fn principal_variations(
    lines: impl Iterator<Item = (proto::Score, Vec<String>)>,
) -> Vec<proto::PrincipalVariation> {
    lines
        .enumerate()
        .map(|(i, (score, pv))| proto::PrincipalVariation { multipv: i as u32 + 1, score: Some(score), pv })
        .collect()
}

fn lines(report: &Report) -> Vec<proto::PrincipalVariation> {
    principal_variations(report.lines.iter().map(|l| (score(l.score), l.pv.iter().map(|m| m.to_string()).collect())))
}

/// Nodes per second.
pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 }
}

/// The final answer of a search (`movetime`: see [`stop_reason`]) that `evaluation`
/// evaluated (see [`crate::search::nnue::evaluation_name`]).
pub fn analyze_response(
    outcome: &Outcome,
    movetime: bool,
    hit_rate: f64,
    evaluation: String,
) -> proto::AnalyzeResponse {
    let r = &outcome.report;
    proto::AnalyzeResponse {
        lines: lines(r),
        best_move: outcome.best.map(|m| m.to_string()).unwrap_or_default(),
        ponder_move: outcome.ponder.map(|m| m.to_string()).unwrap_or_default(),
        depth: r.depth,
        seldepth: r.seldepth,
        nodes: r.nodes,
        nps: nps(r.nodes, r.elapsed),
        time_ms: r.elapsed.as_millis() as u32,
        hash_hit_rate: hit_rate,
        stop_reason: stop_reason(outcome.stop_reason, movetime) as i32,
        evaluation,
        engine_version: ENGINE_VERSION.to_string(),
    }
}

/// The engine's version, which every answer of a search names.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A stream message (not final) for a search so far: its lines, best first, and its
/// depth, greatest depth, nodes and time.
pub fn progress_message(
    lines: Vec<proto::PrincipalVariation>,
    (depth, seldepth): (u32, u32),
    nodes: u64,
    elapsed: Duration,
    hit_rate: f64,
) -> proto::AnalyzeStreamResponse {
    let pv = lines.first().map(|l| l.pv.clone()).unwrap_or_default();
    proto::AnalyzeStreamResponse {
        lines,
        best_move: pv.first().cloned().unwrap_or_default(),
        ponder_move: pv.get(1).cloned().unwrap_or_default(),
        depth,
        seldepth,
        nodes,
        nps: nps(nodes, elapsed),
        time_ms: elapsed.as_millis() as u32,
        hash_hit_rate: hit_rate,
        stop_reason: proto::StopReason::Unspecified as i32,
        is_final: false,
        evaluation: String::new(),
        engine_version: String::new(),
    }
}

/// The stream message of one finished depth.
pub fn progress(r: &Report, hit_rate: f64) -> proto::AnalyzeStreamResponse {
    progress_message(lines(r), (r.depth, r.seldepth), r.nodes, r.elapsed, hit_rate)
}

/// Analyze on the calling thread, with no deadline but the request's limits (the
/// command line's `chuhe analyze`): `on_depth` sees each finished depth as
/// AnalyzeStream would send it.
pub fn analyze_here(
    engine: &Engine,
    r: &proto::AnalyzeRequest,
    limits: ContentLimits,
    on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
) -> Result<proto::AnalyzeResponse, Error> {
    let game = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => return three_kingdoms_analysis::analyze_here(engine, r, game, on_depth),
    };
    let job = analyze_job(engine, r, game, None)?;
    let stop = AtomicBool::new(false);
    let hit_rate = || engine.tt.hit_rate();
    let (outcome, movetime) = job.search(engine, &stop, &mut |report| on_depth(&progress(report, hit_rate())));
    Ok(analyze_response(&outcome, movetime, hit_rate(), job.evaluation()))
}

/// Admits the job, runs it on a search thread and waits for the outcome (and whether a
/// move time bounded it).
async fn search(engine: &Arc<Engine>, job: Job) -> Result<(Outcome, bool), Error> {
    Ok(engine.run(job.budget.until, move |engine, stop| job.search(engine, stop, &mut |_| {})).await?)
}

/// The last message of a stream: the final answer, marked final.
pub fn final_message(a: proto::AnalyzeResponse) -> proto::AnalyzeStreamResponse {
    proto::AnalyzeStreamResponse {
        lines: a.lines,
        best_move: a.best_move,
        ponder_move: a.ponder_move,
        depth: a.depth,
        seldepth: a.seldepth,
        nodes: a.nodes,
        nps: a.nps,
        time_ms: a.time_ms,
        hash_hit_rate: a.hash_hit_rate,
        stop_reason: a.stop_reason,
        is_final: true,
        evaluation: a.evaluation,
        engine_version: a.engine_version,
    }
}

/// The messages of AnalyzeStream: one per finished depth, then the final answer.
pub type ProgressStream = SearchStream<proto::AnalyzeStreamResponse>;

/// Analyze: a search of the request's position within its limits and the server's,
/// ending before the call's `deadline` (counted from its arrival, so that time spent
/// waiting for a search thread counts).
pub async fn analyze(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeRequest,
    limits: ContentLimits,
    deadline: Option<Deadline>,
) -> Result<proto::AnalyzeResponse, Error> {
    let game = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => return three_kingdoms_analysis::analyze(engine, r, game, deadline).await,
    };
    let job = analyze_job(engine, r, game, deadline)?;
    let evaluation = job.evaluation();
    let (outcome, movetime) = search(engine, job).await?;
    Ok(analyze_response(&outcome, movetime, engine.tt.hit_rate(), evaluation))
}

/// AnalyzeStream: [`analyze`] with a message per finished depth; dropping the stream
/// stops the search.
pub async fn analyze_stream(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeStreamRequest,
    limits: ContentLimits,
    deadline: Option<Deadline>,
) -> Result<ProgressStream, Error> {
    let r = &analyze_request(r);
    let game = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => {
            return three_kingdoms_analysis::analyze_stream(engine, r, game, deadline).await;
        }
    };
    let job = analyze_job(engine, r, game, deadline)?;
    let stream = engine
        .stream(job.budget.until, move |engine, stop, send| {
            let mut on_depth = |report: &Report| send(progress(report, engine.tt.hit_rate()));
            let (outcome, movetime) = job.search(engine, stop, &mut on_depth);
            send(final_message(analyze_response(&outcome, movetime, engine.tt.hit_rate(), job.evaluation())));
        })
        .await?;
    Ok(stream)
}

/// Hint: the best move after a short search.
pub async fn hint(
    engine: &Arc<Engine>,
    r: &proto::HintRequest,
    limits: ContentLimits,
    deadline: Option<Deadline>,
) -> Result<proto::HintResponse, Error> {
    let game = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => return three_kingdoms_analysis::hint(engine, r, game, deadline).await,
    };
    let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
    let think = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
    let job = job(engine, game, Some(&think), 1, &[], &[], deadline)?;
    let game = job.game.clone();
    let (outcome, _) = search(engine, job).await?;
    let best = outcome.best.ok_or_else(|| Error::FailedPrecondition("the side to move has no legal move".into()))?;
    Ok(proto::HintResponse {
        r#move: Some(convert::describe_move(&game, best)),
        score: outcome.report.lines.first().map(|l| score(l.score)),
    })
}

/// EvaluateDrawOffer: should the side to answer accept a draw, by a short search.
pub async fn evaluate_draw_offer(
    engine: &Arc<Engine>,
    r: &proto::EvaluateDrawOfferRequest,
    limits: ContentLimits,
    deadline: Option<Deadline>,
) -> Result<proto::EvaluateDrawOfferResponse, Error> {
    let game = match request_game(r.position.as_ref(), r.rule_set, limits)? {
        AnyGame::Board(game) => game,
        AnyGame::ThreeKingdoms(game) => {
            return three_kingdoms_analysis::evaluate_draw_offer(engine, r, game, deadline).await;
        }
    };
    let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
    let think = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
    let job = job(engine, game, Some(&think), 1, &[], &[], deadline)?;
    let game = job.game.clone();
    let offered_by = match proto::Player::try_from(r.offered_by) {
        Ok(proto::Player::Red) => crate::rules::types::Color::Red,
        Ok(proto::Player::Black) => crate::rules::types::Color::Black,
        _ => return Err(bad_request("offered_by", "name RED or BLACK")),
    };
    let (outcome, _) = search(engine, job).await?;
    let to_move = outcome.report.lines.first().map_or(Score::Centipawns(0), |l| l.score);
    // The engine answers for the side that received the offer.
    let flip = |s: Score| match s {
        Score::Centipawns(c) => Score::Centipawns(-c),
        Score::Mate(n) => Score::Mate(-n),
    };
    let ours = if game.turn() == offered_by { flip(to_move) } else { to_move };
    let standing = match ours {
        Score::Mate(n) if n < 0 => Standing::Lost,
        Score::Mate(_) => Standing::Won,
        Score::Centipawns(c) => Standing::Margin(c),
    };
    let answer = draw_offer::answer(standing, || !game.in_check() && !game.has_captures());
    Ok(proto::EvaluateDrawOfferResponse {
        accept: answer.accept(),
        score: Some(score(ours)),
        reason: draw_offer_reason(answer) as i32,
    })
}

/// The API's reason for a draw-offer answer (every variant's).
pub fn draw_offer_reason(answer: DrawAnswer) -> proto::DrawOfferReason {
    match answer {
        DrawAnswer::StandsWorse => proto::DrawOfferReason::StandsWorse,
        DrawAnswer::LevelAndQuiet => proto::DrawOfferReason::LevelAndQuiet,
        DrawAnswer::StandsBetter => proto::DrawOfferReason::StandsBetter,
        DrawAnswer::NotQuiet => proto::DrawOfferReason::NotQuiet,
    }
}
