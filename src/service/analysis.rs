//! AnalysisService: Analyze, AnalyzeStream, Hint, EvaluateDrawOffer over the shared
//! engine.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use tonic::{Request, Response, Status};

use super::convert::{self, AnyGame, AnyRuleSet, ContentLimits};
use super::engine::{Engine, GuardedStream, deadline};
use super::errors::bad_request;
use super::proto::{self, analysis_service_server::AnalysisService};
use super::three_kingdoms_analysis;
use crate::rules::types::Move;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Outcome, Params, Report, Score, StopReason, UnderRules};

/// A search request, whichever RPC it came from.
struct Job {
    game: AnyGame,
    /// The rule set repetitions are judged by; `None`: the variant's default.
    rules: Option<AnyRuleSet>,
    params: Params,
    budget: Option<Duration>,
}

fn parse_root_moves(list: &[String], field: &str) -> Result<Vec<Move>, Status> {
    list.iter()
        .enumerate()
        .map(|(i, t)| {
            Move::parse_iccs(t)
                .ok_or_else(|| bad_request(format!("{field}[{i}]"), format!("{t:?} is not an ICCS move")))
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn job(
    engine: &Engine,
    position: Option<&proto::Position>,
    limits: Option<&proto::SearchLimits>,
    multipv: u32,
    search_moves: &[String],
    exclude_moves: &[String],
    rule_set: i32,
    content: ContentLimits,
    client_timeout: Option<Duration>,
) -> Result<Job, Status> {
    let position = position.ok_or_else(|| bad_request("position", "position is required"))?;
    let game = AnyGame::from_request(position, "position", content)?;
    let rules = convert::optional_rule_set(rule_set, "rule_set", game.variant())?;
    let l = limits.cloned().unwrap_or_default();
    if multipv > 64 {
        return Err(bad_request("multipv", "at most 64 lines"));
    }
    let params = Params {
        limits: search::Limits {
            depth: (l.depth > 0).then_some(l.depth),
            nodes: (l.nodes > 0).then_some(l.nodes),
            movetime: None,
        },
        multipv: multipv.max(1) as usize,
        threads: engine.config.threads_per_search,
        search_moves: parse_root_moves(search_moves, "search_moves")?,
        exclude_moves: parse_root_moves(exclude_moves, "exclude_moves")?,
    };
    let budget = engine.budget(l.movetime_ms, l.depth > 0 || l.nodes > 0, client_timeout);
    Ok(Job { game, rules, params, budget })
}

fn score(s: Score) -> proto::Score {
    proto::Score {
        value: Some(match s {
            Score::Centipawns(c) => proto::score::Value::Cp(c),
            Score::Mate(n) => proto::score::Value::Mate(n),
        }),
    }
}

/// The API's stop reason for either search's.
pub fn stop_reason(r: StopReason) -> proto::StopReason {
    match r {
        StopReason::Depth => proto::StopReason::Depth,
        StopReason::Nodes => proto::StopReason::Nodes,
        StopReason::Time => proto::StopReason::Movetime,
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

/// The final answer of a search.
pub fn analyze_response(outcome: &Outcome, hit_rate: f64) -> proto::AnalyzeResponse {
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
        stop_reason: stop_reason(outcome.stop_reason) as i32,
    }
}

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
    }
}

/// The stream message of one finished depth.
pub fn progress(r: &Report, hit_rate: f64) -> proto::AnalyzeStreamResponse {
    progress_message(lines(r), (r.depth, r.seldepth), r.nodes, r.elapsed, hit_rate)
}

/// Runs a search synchronously on the calling thread (CLI, UCI, tests), on the search
/// of the game's variant, under `rules` (`None`: the variant's default).
pub fn run_search(
    engine: &Engine,
    job_game: &AnyGame,
    rules: Option<AnyRuleSet>,
    params: &Params,
    budget: Option<Duration>,
    stop: &AtomicBool,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    let started = Instant::now();
    metrics::counter!("chuhe_searches_started_total").increment(1);
    let deadline = deadline(budget);
    let outcome = search_game(job_game, rules, params, &engine.tt, stop, deadline, on_depth);
    let elapsed = started.elapsed();
    metrics::counter!("chuhe_searches_finished_total").increment(1);
    metrics::counter!("chuhe_search_nodes_total").increment(outcome.report.nodes);
    metrics::histogram!("chuhe_search_seconds").record(elapsed.as_secs_f64());
    metrics::gauge!("chuhe_tt_hit_rate").set(engine.tt.hit_rate());
    metrics::gauge!("chuhe_tt_fill_ratio").set(engine.tt.hashfull() as f64 / 1000.0);
    if let Some(b) = budget
        && elapsed > b + Duration::from_millis(50)
    {
        metrics::counter!("chuhe_search_deadline_overruns_total").increment(1);
    }
    outcome
}

/// [`search::search`] on a game of any 9x10 variant under `rules` (`None`, or a rule set
/// of another variant, which the service refuses before: the variant's default).
pub fn search_game(
    game: &AnyGame,
    rules: Option<AnyRuleSet>,
    params: &Params,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    match (game, rules) {
        (AnyGame::Xiangqi(game), Some(AnyRuleSet::Xiangqi(rules))) => {
            search::search(&UnderRules { game, rules }, params, tt, stop, deadline, on_depth)
        }
        (AnyGame::Janggi(game), Some(AnyRuleSet::Janggi(rules))) => {
            search::search(&UnderRules { game, rules }, params, tt, stop, deadline, on_depth)
        }
        (AnyGame::Xiangqi(g), _) => search::search(g, params, tt, stop, deadline, on_depth),
        (AnyGame::Janggi(g), _) => search::search(g, params, tt, stop, deadline, on_depth),
    }
}

pub struct Analysis {
    pub engine: Arc<Engine>,
    pub limits: ContentLimits,
}

/// Is this a Three Kingdoms position (served by `three_kingdoms_analysis`)?
fn is_three_kingdoms(p: Option<&proto::Position>) -> bool {
    p.is_some_and(|p| p.variant == proto::Variant::ThreeKingdoms as i32)
}

fn client_timeout<T>(req: &Request<T>) -> Option<Duration> {
    super::middleware::parse_grpc_timeout(req.metadata().get("grpc-timeout")?.to_str().ok()?)
}

impl Analysis {
    /// Admits the job, runs it on a search thread and waits for the outcome.
    async fn search(&self, job: Job) -> Result<Outcome, Status> {
        self.engine
            .run(move |engine, stop| {
                run_search(engine, &job.game, job.rules, &job.params, job.budget, stop, &mut |_| {})
            })
            .await
    }
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
    }
}

type ProgressStream = GuardedStream<proto::AnalyzeStreamResponse>;

#[tonic::async_trait]
impl AnalysisService for Analysis {
    async fn analyze(
        &self,
        request: Request<proto::AnalyzeRequest>,
    ) -> Result<Response<proto::AnalyzeResponse>, Status> {
        let timeout = client_timeout(&request);
        let r = request.get_ref();
        if is_three_kingdoms(r.position.as_ref()) {
            return three_kingdoms_analysis::analyze(&self.engine, r, self.limits, timeout).await.map(Response::new);
        }
        let job = job(
            &self.engine,
            r.position.as_ref(),
            r.limits.as_ref(),
            r.multipv,
            &r.search_moves,
            &r.exclude_moves,
            r.rule_set,
            self.limits,
            timeout,
        )?;
        let outcome = self.search(job).await?;
        Ok(Response::new(analyze_response(&outcome, self.engine.tt.hit_rate())))
    }

    type AnalyzeStreamStream = ProgressStream;

    async fn analyze_stream(
        &self,
        request: Request<proto::AnalyzeStreamRequest>,
    ) -> Result<Response<ProgressStream>, Status> {
        let timeout = client_timeout(&request);
        let r = request.get_ref();
        if is_three_kingdoms(r.position.as_ref()) {
            let stream = three_kingdoms_analysis::analyze_stream(&self.engine, r, self.limits, timeout).await?;
            return Ok(Response::new(stream));
        }
        let job = job(
            &self.engine,
            r.position.as_ref(),
            r.limits.as_ref(),
            r.multipv,
            &r.search_moves,
            &r.exclude_moves,
            r.rule_set,
            self.limits,
            timeout,
        )?;
        let stream = self
            .engine
            .stream(move |engine, stop, send| {
                let mut on_depth = |report: &Report| send(progress(report, engine.tt.hit_rate()));
                let outcome = run_search(engine, &job.game, job.rules, &job.params, job.budget, stop, &mut on_depth);
                send(final_message(analyze_response(&outcome, engine.tt.hit_rate())));
            })
            .await?;
        Ok(Response::new(stream))
    }

    async fn hint(&self, request: Request<proto::HintRequest>) -> Result<Response<proto::HintResponse>, Status> {
        let timeout = client_timeout(&request);
        let r = request.get_ref();
        if is_three_kingdoms(r.position.as_ref()) {
            return three_kingdoms_analysis::hint(&self.engine, r, self.limits, timeout).await.map(Response::new);
        }
        let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
        let limits = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
        let job = job(&self.engine, r.position.as_ref(), Some(&limits), 1, &[], &[], r.rule_set, self.limits, timeout)?;
        let game = job.game.clone();
        let outcome = self.search(job).await?;
        let best = outcome.best.ok_or_else(|| Status::failed_precondition("the side to move has no legal move"))?;
        Ok(Response::new(proto::HintResponse {
            r#move: Some(game.describe_move(best)),
            score: outcome.report.lines.first().map(|l| score(l.score)),
        }))
    }

    async fn evaluate_draw_offer(
        &self,
        request: Request<proto::EvaluateDrawOfferRequest>,
    ) -> Result<Response<proto::EvaluateDrawOfferResponse>, Status> {
        let timeout = client_timeout(&request);
        let r = request.get_ref();
        if is_three_kingdoms(r.position.as_ref()) {
            let answer = three_kingdoms_analysis::evaluate_draw_offer(&self.engine, r, self.limits, timeout).await?;
            return Ok(Response::new(answer));
        }
        let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
        let limits = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
        let job = job(&self.engine, r.position.as_ref(), Some(&limits), 1, &[], &[], r.rule_set, self.limits, timeout)?;
        let game = job.game.clone();
        let offered_by = match proto::Player::try_from(r.offered_by) {
            Ok(proto::Player::Red) => crate::rules::types::Color::Red,
            Ok(proto::Player::Black) => crate::rules::types::Color::Black,
            _ => return Err(bad_request("offered_by", "name RED or BLACK")),
        };
        let outcome = self.search(job).await?;
        let to_move = outcome.report.lines.first().map_or(Score::Centipawns(0), |l| l.score);
        // The engine answers for the side that received the offer.
        let flip = |s: Score| match s {
            Score::Centipawns(c) => Score::Centipawns(-c),
            Score::Mate(n) => Score::Mate(-n),
        };
        let ours = if game.turn() == offered_by { flip(to_move) } else { to_move };
        let quiet = !game.in_check() && !game.has_captures();
        let (accept, reason) = match ours {
            Score::Mate(n) if n < 0 => (true, proto::DrawOfferReason::StandsWorse),
            Score::Mate(_) => (false, proto::DrawOfferReason::StandsBetter),
            Score::Centipawns(c) if c < -LEVEL_MARGIN => (true, proto::DrawOfferReason::StandsWorse),
            Score::Centipawns(c) if c > LEVEL_MARGIN => (false, proto::DrawOfferReason::StandsBetter),
            Score::Centipawns(_) if quiet => (true, proto::DrawOfferReason::LevelAndQuiet),
            Score::Centipawns(_) => (false, proto::DrawOfferReason::NotQuiet),
        };
        Ok(Response::new(proto::EvaluateDrawOfferResponse { accept, score: Some(score(ours)), reason: reason as i32 }))
    }
}

/// Within this many centipawns of zero a position counts as level.
const LEVEL_MARGIN: i32 = 50;
