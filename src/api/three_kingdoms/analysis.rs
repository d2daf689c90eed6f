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

use super::super::convert;
use super::super::error::{Error, bad_request};
use super::super::on_time::{SearchWork, Searched, StreamMessages, on_time, search_here, stream_on_time};
use super::super::proto;
use super::super::searching::{
    Call, ProgressStream, draw_offer_reason, final_message, principal_variations, progress_message, search_limits,
    stop_reason,
};
use super::super::variant::AnalysisCalls;
use super::{describe_move, kingdom};
use crate::engine::{self, Budget, Deadline, Engine};
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
    convert::check_count(list.len(), convert::MAX_ROOT_MOVES, field)?;
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
        limits: search_limits(&l)?,
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
        engine_version: crate::api::analysis::ENGINE_VERSION.to_string(),
        ..Default::default()
    }
}

/// The answer of a search answered on its time, with the CPU it got.
fn searched_response(pos: &Position, searched: &Searched<Move, i32>, hit_rate: f64) -> proto::AnalyzeResponse {
    let mut answer = response(pos, &(searched.outcome.clone(), searched.movetime), hit_rate);
    searched.mark(&mut answer);
    answer
}

impl Job {
    /// Its search on a search thread, within the time it is given.
    fn work(self) -> impl SearchWork<Move, i32> {
        move |engine: &Engine, stop: &AtomicBool, time, on_depth: &mut dyn FnMut(&Report)| {
            engine.search(&self.game, &self.params, time, stop, on_depth)
        }
    }
}

/// The thinking time of Hint and EvaluateDrawOffer: the request's, or 300 ms.
fn think(engine: &Engine, movetime_ms: u32, deadline: Option<Deadline>) -> Budget {
    engine.budget(if movetime_ms > 0 { movetime_ms } else { 300 }, false, deadline)
}

/// The search RPCs in a Three Kingdoms game.
impl AnalysisCalls for Game {
    fn analyze_here(
        self,
        engine: &Engine,
        r: &proto::AnalyzeRequest,
        on_depth: &mut dyn FnMut(&proto::AnalyzeStreamResponse),
    ) -> Result<proto::AnalyzeResponse, Error> {
        let job = job(engine, r, self, None)?;
        let (pos, budget) = (job.game.position().clone(), job.budget);
        let mut on_depth = |report: &Report| on_depth(&progress(&pos, report, engine.tt.hit_rate()));
        let searched = search_here(engine, budget, &mut on_depth, job.work());
        Ok(searched_response(&pos, &searched, engine.tt.hit_rate()))
    }

    async fn analyze(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<proto::AnalyzeResponse, Error> {
        let job = job(engine, r, self, call.deadline)?;
        let pos = job.game.position().clone();
        let searched = on_time(engine, job.budget, job.work()).await?;
        Ok(searched_response(&pos, &searched, engine.tt.hit_rate()))
    }

    async fn analyze_stream(
        self,
        engine: &Arc<Engine>,
        r: &proto::AnalyzeRequest,
        call: &Call,
    ) -> Result<ProgressStream, Error> {
        let job = job(engine, r, self, call.deadline)?;
        let pos = job.game.position().clone();
        let last = pos.clone();
        let messages = StreamMessages {
            progress: Box::new(move |engine: &Engine, report: &Report| progress(&pos, report, engine.tt.hit_rate())),
            last: Box::new(move |engine: &Engine, searched: &Searched<Move, i32>| {
                final_message(searched_response(&last, searched, engine.tt.hit_rate()))
            }),
        };
        Ok(stream_on_time(engine, job.budget, messages, job.work()).await?)
    }

    async fn hint(
        self,
        engine: &Arc<Engine>,
        r: &proto::HintRequest,
        call: &Call,
    ) -> Result<proto::HintResponse, Error> {
        super::check_notations(&r.notations, "notations")?;
        let game = self;
        check_not_over(&game)?;
        let position = game.position().clone();
        let job = Job { game, params: Params::default(), budget: think(engine, r.movetime_ms, call.deadline) };
        let out = on_time(engine, job.budget, job.work()).await?.outcome;
        let best = out.best.ok_or_else(|| Error::FailedPrecondition("the side to move has no legal move".into()))?;
        Ok(proto::HintResponse {
            r#move: Some(describe_move(&position, best)),
            score: out.score().map(score),
            from_cache: false,
        })
    }

    async fn evaluate_draw_offer(
        self,
        engine: &Arc<Engine>,
        r: &proto::EvaluateDrawOfferRequest,
        call: &Call,
    ) -> Result<proto::EvaluateDrawOfferResponse, Error> {
        let game = self;
        check_not_over(&game)?;
        let pos = game.position();
        let by = kingdom(r.offered_by).ok_or_else(|| bad_request("offered_by", "name SHU, WU or WEI"))?;
        if pos.is_defeated(by) || by == pos.side_to_move() {
            return Err(bad_request(
                "offered_by",
                format!(
                    "the offer must come from a kingdom in play other than {}, which answers it",
                    pos.side_to_move()
                ),
            ));
        }
        let budget = think(engine, r.movetime_ms, call.deadline);
        let verdict = engine
            .run(budget.until, move |engine, stop| {
                search::judge_draw_offer(
                    &game,
                    Limits::default(),
                    &engine.tt,
                    stop,
                    engine::deadline(budget.from_now().0),
                )
            })
            .await?;
        Ok(proto::EvaluateDrawOfferResponse {
            accept: verdict.answer.accept(),
            score: Some(score(verdict.score)),
            reason: draw_offer_reason(verdict.answer) as i32,
        })
    }
}
