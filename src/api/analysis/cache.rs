//! The evaluation store as Analyze, AnalyzeStream and Hint use it: one lookup before
//! the search ([`lookup`]), one write after it ([`save`]). What answers a request is
//! documented with `AnalysisCachePolicy` in the proto; only searches this server ran
//! are written.

use super::Job;
use crate::api::error::{Error, bad_request};
use crate::api::proto;
use crate::engine::Engine;
use crate::engine::store::{
    ENGINE_VERSION, FORMAT, Lookup, StoreKey, StoredLimits, StoredLine, StoredScore, StoredSearch,
};

/// Where a search's result goes once it has run: its key and the limits it runs under.
pub(super) struct Pending {
    key: StoreKey,
    /// The depth of what is stored there (too shallow for this request), if anything.
    stored_depth: Option<u32>,
    /// Whether the store was looked up (a fresh search was not: a deeper entry may be
    /// there, which its write must keep).
    looked_up: bool,
    limits: StoredLimits,
    variant: String,
    rule_set: String,
    multipv: u32,
}

/// What the store says of a request.
pub(super) enum Cached {
    /// A stored search answers it.
    Stored(StoredSearch),
    /// Search; then write the result where `Pending` says (none: not stored).
    Search(Option<Pending>),
}

/// Looks the request's search up, unless its `policy` (the request's `cache` field)
/// asks for a fresh search; a bad policy is INVALID_ARGUMENT naming `cache`.
pub(super) async fn lookup(engine: &Engine, job: &Job, policy: i32) -> Result<Cached, Error> {
    let policy = proto::AnalysisCachePolicy::try_from(policy)
        .map_err(|_| bad_request("cache", format!("{policy} is not an AnalysisCachePolicy")))?;
    let Some(store) = &engine.store else { return Ok(Cached::Search(None)) };
    // A search restricted at its root answers another question than its key names.
    if !job.params.search_moves.is_empty() || !job.params.exclude_moves.is_empty() {
        return Ok(Cached::Search(None));
    }
    let key = StoreKey::of(&job.game, job.params.multipv, &job.evaluation(), job.store_scope.as_deref());
    let limits = StoredLimits {
        depth: job.params.limits.depth.unwrap_or(0),
        nodes: job.params.limits.nodes.unwrap_or(0),
        time_ms: job.budget.time.map_or(0, |t| t.as_millis() as u64),
        clock: job.params.limits.clock.is_some(),
    };
    let (stored_depth, looked_up) = match policy {
        proto::AnalysisCachePolicy::Fresh => (None, false),
        proto::AnalysisCachePolicy::Unspecified | proto::AnalysisCachePolicy::Use => {
            match store.lookup(&key, |stored| deep_enough(stored, &limits)).await {
                Lookup::Hit(stored) => return Ok(Cached::Stored(stored)),
                Lookup::Miss { stored_depth } => (stored_depth, true),
            }
        }
    };
    Ok(Cached::Search(Some(Pending {
        key,
        stored_depth,
        looked_up,
        limits,
        variant: job.game.variant().to_string(),
        rule_set: job.game.rules_or_default().to_string(),
        multipv: job.params.multipv as u32,
    })))
}

/// Whether `stored` is at least as deep as a search under `asked` would be: it reached
/// one of the limits asked (a search stops at the first it reaches; a time budget is
/// reached by a search that took as long, or ran out a move time as long), or stopped
/// where searching on changes nothing.
fn deep_enough(stored: &StoredSearch, asked: &StoredLimits) -> bool {
    let settled = [proto::StopReason::MateFound, proto::StopReason::SingleMove, proto::StopReason::NoLegalMoves]
        .iter()
        .any(|&r| stored.stop_reason == r as i32);
    settled
        || (asked.depth > 0 && stored.depth >= asked.depth)
        || (asked.nodes > 0 && stored.nodes >= asked.nodes)
        || (asked.time_ms > 0 && u64::from(stored.time_ms) >= asked.time_ms)
        // A search that ran out its move time took what it was given, a few
        // milliseconds more or less.
        || (asked.time_ms > 0
            && stored.stop_reason == proto::StopReason::Movetime as i32
            && stored.limits.time_ms >= asked.time_ms)
}

/// Writes a search's `answer` where `pending` says, unless the search was cancelled or
/// something deeper is stored there (as the lookup saw, or as the write finds for a
/// fresh search). A remote store is written in the background; never fails the call.
pub(super) async fn save(engine: &Engine, pending: Option<Pending>, answer: &proto::AnalyzeResponse) {
    let (Some(store), Some(p)) = (&engine.store, pending) else { return };
    let cancelled = answer.stop_reason == proto::StopReason::Cancelled as i32;
    // A starved search's time says nothing of its depth: it would answer later
    // requests of that time with a shallow search.
    if cancelled || answer.starved || answer.from_cache || p.stored_depth.is_some_and(|d| d > answer.depth) {
        return;
    }
    let lines = answer
        .lines
        .iter()
        .map(|l| StoredLine {
            score: match l.score.and_then(|s| s.value) {
                Some(proto::score::Value::Mate(n)) => StoredScore::Mate(n),
                Some(proto::score::Value::Cp(c)) => StoredScore::Cp(c),
                None => StoredScore::Cp(0),
            },
            pv: l.pv.clone(),
        })
        .collect();
    let entry = StoredSearch {
        format: FORMAT,
        engine_version: ENGINE_VERSION.to_owned(),
        evaluation: p.key.evaluation().to_owned(),
        key: p.key.as_str().to_owned(),
        variant: p.variant,
        rule_set: p.rule_set,
        multipv: p.multipv,
        limits: p.limits,
        lines,
        best_move: answer.best_move.clone(),
        ponder_move: answer.ponder_move.clone(),
        depth: answer.depth,
        seldepth: answer.seldepth,
        nodes: answer.nodes,
        time_ms: answer.time_ms,
        hash_hit_rate: answer.hash_hit_rate,
        stop_reason: answer.stop_reason,
    };
    store.save(&p.key, &entry, !p.looked_up).await;
}

/// The answer of a stored search, marked as such.
pub(super) fn answer(stored: &StoredSearch) -> proto::AnalyzeResponse {
    let lines = super::principal_variations(stored.lines.iter().map(|l| {
        let value = match l.score {
            StoredScore::Cp(c) => proto::score::Value::Cp(c),
            StoredScore::Mate(n) => proto::score::Value::Mate(n),
        };
        (proto::Score { value: Some(value) }, l.pv.clone())
    }));
    proto::AnalyzeResponse {
        lines,
        best_move: stored.best_move.clone(),
        ponder_move: stored.ponder_move.clone(),
        depth: stored.depth,
        seldepth: stored.seldepth,
        nodes: stored.nodes,
        nps: super::nps(stored.nodes, std::time::Duration::from_millis(u64::from(stored.time_ms))),
        time_ms: stored.time_ms,
        hash_hit_rate: stored.hash_hit_rate,
        stop_reason: stored.stop_reason,
        from_cache: true,
        evaluation: stored.evaluation.clone(),
        engine_version: stored.engine_version.clone(),
        ..Default::default()
    }
}

/// The final answer of a stream, as Analyze would give it.
pub(super) fn response_of(last: &proto::AnalyzeStreamResponse) -> proto::AnalyzeResponse {
    proto::AnalyzeResponse {
        lines: last.lines.clone(),
        best_move: last.best_move.clone(),
        ponder_move: last.ponder_move.clone(),
        depth: last.depth,
        seldepth: last.seldepth,
        nodes: last.nodes,
        nps: last.nps,
        time_ms: last.time_ms,
        hash_hit_rate: last.hash_hit_rate,
        stop_reason: last.stop_reason,
        from_cache: last.from_cache,
        evaluation: last.evaluation.clone(),
        engine_version: last.engine_version.clone(),
        cpu_ms: last.cpu_ms,
        starved: last.starved,
    }
}
