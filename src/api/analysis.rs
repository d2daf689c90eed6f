//! AnalysisService: Analyze, AnalyzeStream, Hint, EvaluateDrawOffer over the shared
//! engine.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::convert::{self, ContentLimits};
use super::error::{Error, bad_request};
use super::game::request_game;
use super::on_time::{SearchWork, Searched, StreamMessages, on_time, search_here, stream_on_time};
use super::proto;
pub use super::searching::{Call, ProgressStream};
use super::searching::{
    draw_offer_reason, final_message, nps, principal_variations, progress_message, search_limits, stop_reason,
};
use super::variant::AnalysisCalls;

mod cache;
use crate::engine::{Budget, Engine};
use crate::game::BoardGame;
use crate::notation::Notation;
use crate::rules::types::Move;
use crate::search::draw_offer::{self, Standing};
use crate::search::{Outcome, Params, Report, Score};

/// A search request, whichever RPC it came from.
struct Job {
    /// The game, under the rule set repetitions are judged by (none named: the
    /// variant's own judgement).
    game: BoardGame,
    params: Params,
    budget: Budget,
    /// Whose stored searches answer it ([`Call::store_scope`]).
    store_scope: Option<Arc<str>>,
}

impl Job {
    /// What evaluates its search: `classical` or the net's identity.
    fn evaluation(&self) -> String {
        crate::search::nnue::evaluation_name(self.params.nnue.as_deref())
    }

    /// Its search on a search thread, within the time it is given.
    fn work(self) -> impl SearchWork<Move, Score> {
        move |engine: &Engine, stop: &AtomicBool, time, on_depth: &mut dyn FnMut(&Report)| {
            engine.search(&self.game, &self.params, time, stop, on_depth)
        }
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
    call: &Call,
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
    let budget = engine.budget(l.movetime_ms, l.depth > 0 || l.nodes > 0 || l.clock.is_some(), call.deadline);
    Ok(Job { game, params, budget, store_scope: call.store_scope.clone() })
}

/// The job of an Analyze request in its 9x10 `game`.
fn analyze_job(engine: &Engine, r: &proto::AnalyzeRequest, game: BoardGame, call: &Call) -> Result<Job, Error> {
    job(engine, game, r.limits.as_ref(), r.multipv, &r.search_moves, &r.exclude_moves, call)
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
        cache: r.cache,
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

fn lines(report: &Report) -> Vec<proto::PrincipalVariation> {
    principal_variations(report.lines.iter().map(|l| (score(l.score), l.pv.iter().map(|m| m.to_string()).collect())))
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
        ..Default::default()
    }
}

/// The engine's version, which every answer of a search names.
pub use crate::engine::store::ENGINE_VERSION;

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
    request_game(r.position.as_ref(), r.rule_set, limits)?.analyze_here(engine, r, on_depth)
}

/// Analyze: a search of the request's position within its limits and the server's,
/// ending before the call's `deadline` (counted from its arrival, so that time spent
/// waiting for a search thread counts).
pub async fn analyze(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeRequest,
    limits: ContentLimits,
    call: &Call,
) -> Result<proto::AnalyzeResponse, Error> {
    request_game(r.position.as_ref(), r.rule_set, limits)?.analyze(engine, r, call).await
}

/// AnalyzeStream: [`analyze`] with a message per finished depth; dropping the stream
/// stops the search.
pub async fn analyze_stream(
    engine: &Arc<Engine>,
    r: &proto::AnalyzeStreamRequest,
    limits: ContentLimits,
    call: &Call,
) -> Result<ProgressStream, Error> {
    let r = &analyze_request(r);
    request_game(r.position.as_ref(), r.rule_set, limits)?.analyze_stream(engine, r, call).await
}

/// Hint: the best move after a short search.
pub async fn hint(
    engine: &Arc<Engine>,
    r: &proto::HintRequest,
    limits: ContentLimits,
    call: &Call,
) -> Result<proto::HintResponse, Error> {
    request_game(r.position.as_ref(), r.rule_set, limits)?.hint(engine, r, call).await
}

/// EvaluateDrawOffer: should the side to answer accept a draw, by a short search.
pub async fn evaluate_draw_offer(
    engine: &Arc<Engine>,
    r: &proto::EvaluateDrawOfferRequest,
    limits: ContentLimits,
    call: &Call,
) -> Result<proto::EvaluateDrawOfferResponse, Error> {
    request_game(r.position.as_ref(), r.rule_set, limits)?.evaluate_draw_offer(engine, r, call).await
}

/// Runs the job on a search thread, answered on its time (see [`on_time`]).
async fn search(engine: &Arc<Engine>, job: Job) -> Result<Searched<Move, Score>, Error> {
    Ok(on_time(engine, job.budget, job.work()).await?)
}

/// The answer of a search of `evaluation`, with the CPU it got.
fn searched_response(engine: &Engine, searched: &Searched<Move, Score>, evaluation: String) -> proto::AnalyzeResponse {
    let mut answer = analyze_response(&searched.outcome, searched.movetime, engine.tt.hit_rate(), evaluation);
    searched.mark(&mut answer);
    answer
}

/// The search RPCs in a 9x10 game.
impl AnalysisCalls for BoardGame {
    fn analyze_here(
        self,
        engine: &Engine,
        r: &proto::AnalyzeRequest,
        on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
    ) -> Result<proto::AnalyzeResponse, Error> {
        let job = analyze_job(engine, r, self, &Call::default())?;
        let (budget, evaluation) = (job.budget, job.evaluation());
        let mut on_depth = |report: &Report| on_depth(&progress(report, engine.tt.hit_rate()));
        let searched = search_here(engine, budget, &mut on_depth, job.work());
        Ok(searched_response(engine, &searched, evaluation))
    }

    async fn analyze(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<proto::AnalyzeResponse, Error> {
        let job = analyze_job(engine, r, self, call)?;
        let pending = match cache::lookup(engine, &job, r.cache).await? {
            cache::Cached::Stored(stored) => return Ok(cache::answer(&stored)),
            cache::Cached::Search(pending) => pending,
        };
        let evaluation = job.evaluation();
        let answer = searched_response(engine, &search(engine, job).await?, evaluation);
        cache::save(engine, pending, &answer).await;
        Ok(answer)
    }

    async fn analyze_stream(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<ProgressStream, Error> {
        let job = analyze_job(engine, r, self, call)?;
        let mut pending = match cache::lookup(engine, &job, r.cache).await? {
            cache::Cached::Stored(stored) => {
                return Ok(Box::pin(tokio_stream::once(final_message(cache::answer(&stored)))));
            }
            cache::Cached::Search(pending) => pending,
        };
        let evaluation = job.evaluation();
        let messages = StreamMessages {
            progress: Box::new(|engine: &Engine, report: &Report| progress(report, engine.tt.hit_rate())),
            last: Box::new(move |engine: &Engine, searched: &Searched<Move, Score>| {
                final_message(searched_response(engine, searched, evaluation.clone()))
            }),
        };
        let stream = stream_on_time(engine, job.budget, messages, job.work()).await?;
        // The final answer is written as it goes out, without holding the stream back.
        let engine = engine.clone();
        Ok(Box::pin(tokio_stream::StreamExt::map(stream, move |message| {
            if message.is_final && pending.is_some() {
                let (engine, pending, answer) = (engine.clone(), pending.take(), cache::response_of(&message));
                tokio::spawn(async move { cache::save(&engine, pending, &answer).await });
            }
            message
        })))
    }

    async fn hint(
        self,
        engine: &Arc<Engine>,
        r: &proto::HintRequest,
        call: &Call,
    ) -> Result<proto::HintResponse, Error> {
        // Checked and rendered as ListLegalMoves checks and renders them.
        let notations = convert::notations(&r.notations, "notations")?;
        convert::check_notations(&self, &notations, "notations")?;
        let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
        let think = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
        let job = job(engine, self, Some(&think), 1, &[], &[], call)?;
        let game = job.game.clone();
        let pending = match cache::lookup(engine, &job, r.cache).await? {
            cache::Cached::Stored(stored) => {
                let best = Move::parse_iccs(&stored.best_move).filter(|&m| game.explain_illegal(m).is_none());
                return hint_answer(&game, best, &notations, cache::answer(&stored));
            }
            cache::Cached::Search(pending) => pending,
        };
        let evaluation = job.evaluation();
        let searched = search(engine, job).await?;
        let answer = searched_response(engine, &searched, evaluation);
        cache::save(engine, pending, &answer).await;
        hint_answer(&game, searched.outcome.best, &notations, answer)
    }

    async fn evaluate_draw_offer(
        self,
        engine: &Arc<Engine>,
        r: &proto::EvaluateDrawOfferRequest,
        call: &Call,
    ) -> Result<proto::EvaluateDrawOfferResponse, Error> {
        let ms = if r.movetime_ms > 0 { r.movetime_ms } else { 300 };
        let think = proto::SearchLimits { movetime_ms: ms, ..Default::default() };
        let job = job(engine, self, Some(&think), 1, &[], &[], call)?;
        let game = job.game.clone();
        let offered_by = match proto::Player::try_from(r.offered_by) {
            Ok(proto::Player::Red) => crate::rules::types::Color::Red,
            Ok(proto::Player::Black) => crate::rules::types::Color::Black,
            _ => return Err(bad_request("offered_by", "name RED or BLACK")),
        };
        let outcome = search(engine, job).await?.outcome;
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
}

/// The hint of a search's `answer` in `game`: its `best` move, written in `notations`
/// too, and its first line's score.
fn hint_answer(
    game: &BoardGame,
    best: Option<Move>,
    notations: &[(i32, Notation)],
    answer: proto::AnalyzeResponse,
) -> Result<proto::HintResponse, Error> {
    let best = best.ok_or_else(|| Error::FailedPrecondition("the side to move has no legal move".into()))?;
    let mut described = convert::describe_move(game, best);
    described.notations = convert::render(game, best, notations);
    Ok(proto::HintResponse {
        r#move: Some(described),
        score: answer.lines.first().and_then(|l| l.score),
        from_cache: answer.from_cache,
    })
}
