//! What the search RPCs of every variant share: the limits a request asks for, and the
//! answer's parts as messages (lines, stop reason, progress, the final stream message,
//! the draw-offer reason).

use std::sync::Arc;
use std::time::Duration;

use super::error::{Error, bad_request};
use super::proto;
use crate::engine::{Deadline, SearchStream};
use crate::search::draw_offer::DrawAnswer;
use crate::search::{self, StopReason};

/// What a search call carries besides its request.
#[derive(Clone, Debug, Default)]
pub struct Call {
    /// When it must be answered by, counted from its arrival (none: the request's and
    /// the server's limits alone).
    pub deadline: Option<Deadline>,
    /// Whose stored searches it reads and writes (the tenant's, so that one tenant's
    /// questions and their cost are not shown to another); none: shared by all.
    pub store_scope: Option<Arc<str>>,
}

/// The limits a request asks for (0 is none): depth, nodes and the side to move's clock,
/// checked (a bad clock is INVALID_ARGUMENT naming its field); its movetime goes to the
/// budget, which also weighs the server's cap and the client's deadline.
pub fn search_limits(l: &proto::SearchLimits) -> Result<search::Limits, Error> {
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

/// Nodes per second.
pub fn nps(nodes: u64, elapsed: Duration) -> u64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 { (nodes as f64 / secs) as u64 } else { 0 }
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
        from_cache: false,
        evaluation: String::new(),
        engine_version: String::new(),
        cpu_ms: 0,
        starved: false,
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
        from_cache: a.from_cache,
        evaluation: a.evaluation,
        engine_version: a.engine_version,
        cpu_ms: a.cpu_ms,
        starved: a.starved,
    }
}

/// The messages of AnalyzeStream: one per finished depth, then the final answer.
pub type ProgressStream = SearchStream<proto::AnalyzeStreamResponse>;

/// The API's reason for a draw-offer answer (every variant's).
pub fn draw_offer_reason(answer: DrawAnswer) -> proto::DrawOfferReason {
    match answer {
        DrawAnswer::StandsWorse => proto::DrawOfferReason::StandsWorse,
        DrawAnswer::LevelAndQuiet => proto::DrawOfferReason::LevelAndQuiet,
        DrawAnswer::StandsBetter => proto::DrawOfferReason::StandsBetter,
        DrawAnswer::NotQuiet => proto::DrawOfferReason::NotQuiet,
    }
}
