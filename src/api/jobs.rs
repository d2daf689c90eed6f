//! Jobs: the API's requests done in the background through the queue
//! ([`crate::engine::queue`]). A job's request and result are the API's messages,
//! encoded; this module makes a job of a submission (checked, with its id), does a
//! leased job, and reads a job back as the RPC's message and JSON.

use std::collections::BTreeSet;
use std::sync::atomic::AtomicBool;

use prost::Message;

use super::audit::{audit_job, audit_ply, run_from};
use super::convert::ContentLimits;
use super::error::{Error, bad_request};
use super::fairplay::{MAX_GAMES, Models, Prepared, assess_request, assessed_variant, assessment_message};
use super::proto;
use crate::engine::Engine;
use crate::engine::queue::{JobId, JobIdentity, JobKind, JobRecord, JobState, Lease, NewJob, valid_tenant};
use crate::fairplay::assess;
use crate::fairplay::games::ScreenedGame;
use crate::fairplay::screen::judge_games;
use crate::search::nnue::{Evaluation, NetVariant};

/// Most bytes of a job's encoded request (far beyond any game under the plies cap).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// Most positions of one analysis job.
pub const MAX_ANALYSES: usize = 1000;

/// The tenant of jobs submitted without one.
pub const DEFAULT_TENANT: &str = "default";

/// What a job's id and its worker depend on besides its request: the submitter's
/// configuration, expected to be the workers' too.
pub struct Submitter<'a> {
    /// The limits of request contents.
    pub limits: ContentLimits,
    /// What evaluates searches.
    pub evaluation: &'a Evaluation,
    /// The fair-play models (assessments need the variant's).
    pub models: &'a Models,
}

/// The job of `work` for `tenant`, with the platform's own id. Checks what a submitter
/// can check cheaply (the tenant, counts, sizes, the variant; for an assessment, that
/// a model is held); the worker replays the games, and fails the job with the reason
/// if one is refused. A bad field is named from the work (`audit.position`).
pub fn submission(
    tenant: &str,
    platform_id: &str,
    work: &proto::JobWork,
    submitter: &Submitter<'_>,
) -> Result<NewJob, Error> {
    if !valid_tenant(tenant) {
        return Err(bad_request("tenant", "1 to 64 letters, digits, '.', '_' or '-'"));
    }
    if platform_id.len() > crate::engine::queue::MAX_PLATFORM_ID_BYTES {
        return Err(bad_request("platform_id", "at most 128 bytes"));
    }
    use proto::job_work::Work;
    let limits = submitter.limits;
    let (kind, bytes, evaluation, rule_set) = match work.work.as_ref() {
        None => return Err(bad_request("work", "name the work: audit, analyze or assess")),
        Some(Work::Audit(request)) => {
            let position = request.position.as_ref().ok_or_else(|| bad_request("audit.position", "required"))?;
            limits.check_plies(position.moves.len(), "audit.position.moves")?;
            let evaluation = submitter.evaluation.name(net_variant(position.variant));
            (JobKind::Audit, request.encode_to_vec(), evaluation, rule_set_name(request.rule_set))
        }
        Some(Work::Analyze(analyses)) => {
            let n = analyses.requests.len();
            if n == 0 || n > MAX_ANALYSES {
                return Err(bad_request("analyze.requests", format!("1 to {MAX_ANALYSES} positions")));
            }
            let mut evaluations = BTreeSet::new();
            for (i, r) in analyses.requests.iter().enumerate() {
                let field = format!("analyze.requests[{i}].position");
                let position = r.position.as_ref().ok_or_else(|| bad_request(&field, "required"))?;
                limits.check_plies(position.moves.len(), format!("{field}.moves"))?;
                evaluations.insert(submitter.evaluation.name(net_variant(position.variant)));
            }
            // Each request names its own rule set, and its bytes are the id's.
            let evaluation = evaluations.into_iter().collect::<Vec<_>>().join(",");
            (JobKind::Analyze, analyses.encode_to_vec(), evaluation, "each request's".to_owned())
        }
        Some(Work::Assess(request)) => {
            let variant = assessed_variant(request.variant).map_err(|e| e.within("assess"))?;
            assess_request(request).map_err(|e| e.within("assess"))?;
            if request.games.is_empty() || request.games.len() > MAX_GAMES {
                return Err(bad_request("assess.games", format!("1 to {MAX_GAMES} games")));
            }
            // A new model is new work: its digest stands in the id for the rule set,
            // which the model names.
            let digest = submitter.models.digest(variant).ok_or_else(|| {
                Error::FailedPrecondition(format!(
                    "no fair-play model for {variant} here (--fairplay-model): the workers' must be the same"
                ))
            })?;
            let evaluation = submitter.evaluation.name(net_variant(request.variant));
            (JobKind::Assess, request.encode_to_vec(), evaluation, format!("model {digest}"))
        }
    };
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(bad_request("work", format!("at most {MAX_REQUEST_BYTES} bytes of request")));
    }
    let id = JobId::of(&JobIdentity {
        tenant,
        kind,
        request: &bytes,
        engine_version: super::analysis::ENGINE_VERSION,
        evaluation: &evaluation,
        rule_set: &rule_set,
    });
    Ok(NewJob { id, tenant: tenant.to_owned(), platform_id: platform_id.to_owned(), kind, request: bytes })
}

fn net_variant(variant: i32) -> NetVariant {
    if variant == proto::Variant::Janggi as i32 { NetVariant::Janggi } else { NetVariant::Xiangqi }
}

fn rule_set_name(value: i32) -> String {
    proto::RuleSet::try_from(value).map_or_else(|_| value.to_string(), |r| r.as_str_name().to_owned())
}

/// The job of auditing the game of `request` for `tenant` ([`submission`] of an audit).
pub fn audit_submission(
    tenant: &str,
    request: &proto::AuditGameRequest,
    limits: ContentLimits,
    evaluation: &Evaluation,
) -> Result<NewJob, Error> {
    let work = proto::JobWork { work: Some(proto::job_work::Work::Audit(request.clone())) };
    let models = Models::default();
    submission(tenant, "", &work, &Submitter { limits, evaluation, models: &models }).map_err(|e| match e {
        // The command line names the request itself, not the work around it.
        Error::BadField { field, reason } => {
            Error::BadField { field: field.strip_prefix("audit.").unwrap_or(&field).to_owned(), reason }
        }
        other => other,
    })
}

/// What a worker does jobs with.
pub struct WorkerContext<'a> {
    /// The engine every search runs on.
    pub engine: &'a Engine,
    /// The fair-play models assessments use.
    pub models: &'a Models,
    /// The limits of a job's request.
    pub limits: ContentLimits,
}

/// Why a job was not done.
const STOPPED: &str = "stopped before the end";

/// Does the leased job on the calling thread: its encoded result, or why it cannot be
/// done. `save_part` gets each part done now (not those the lease brought), to be kept
/// for a later delivery; the stop flag ends the work early (the result is then partial
/// and must not be kept): an audit between two plies, an analysis or an assessment
/// between two positions or games.
pub fn do_job(
    context: &WorkerContext<'_>,
    lease: &Lease,
    stop: &AtomicBool,
    save_part: &mut dyn FnMut(u32, Vec<u8>),
) -> Result<Vec<u8>, String> {
    // A kept part that does not decode is done again.
    fn known<T: Message + Default>(lease: &Lease, index: usize) -> Option<T> {
        let (_, bytes) = lease.parts.iter().find(|(i, _)| *i as usize == index)?;
        T::decode(bytes.as_slice()).ok()
    }
    let engine = context.engine;
    let stopped = || stop.load(std::sync::atomic::Ordering::Relaxed);
    match lease.kind {
        JobKind::Audit => {
            let request = proto::AuditGameRequest::decode(lease.request.as_slice())
                .map_err(|e| format!("the request is not an AuditGameRequest: {e}"))?;
            let audit = audit_job(engine, &request, context.limits).map_err(|e| e.to_string())?;
            let find = |index: usize| known::<proto::AuditPly>(lease, index);
            let mut plies = Vec::new();
            let summary = run_from(engine, &audit, stop, &find, &mut |ply| {
                if find(ply.move_index as usize).is_none() {
                    save_part(ply.move_index, ply.encode_to_vec());
                }
                plies.push(ply);
            });
            Ok(proto::AuditGameResponse { plies, summary: Some(summary) }.encode_to_vec())
        }
        JobKind::Analyze => {
            let analyses = proto::AnalyzePositions::decode(lease.request.as_slice())
                .map_err(|e| format!("the request is not an AnalyzePositions: {e}"))?;
            let mut responses = Vec::with_capacity(analyses.requests.len());
            for (i, request) in analyses.requests.iter().enumerate() {
                if let Some(done) = known::<proto::AnalyzeResponse>(lease, i) {
                    responses.push(done);
                    continue;
                }
                if stopped() {
                    return Err(STOPPED.into());
                }
                let answer = super::analysis::analyze_here(engine, request, context.limits, &mut |_| {})
                    .map_err(|e| e.within(&format!("requests[{i}]")).to_string())?;
                save_part(i as u32, answer.encode_to_vec());
                responses.push(answer);
            }
            Ok(proto::AnalyzePositionsResult { responses }.encode_to_vec())
        }
        JobKind::Assess => {
            let request = proto::AssessPlayerRequest::decode(lease.request.as_slice())
                .map_err(|e| format!("the request is not an AssessPlayerRequest: {e}"))?;
            let Prepared { model, judging, mut games } =
                super::fairplay::prepare_assessment(engine, context.models, &request, context.limits)
                    .map_err(|e| e.to_string())?;
            let wanted = assess_request(&request).map_err(|e| e.to_string())?;
            let screening = judging.screening(engine, 1);
            let screened = |g: &ScreenedGame, c: crate::rules::types::Color| {
                wanted.player.is_none_or(|p| g.players[crate::fairplay::sides::color_index(c)] == p)
            };
            for (i, game) in games.iter_mut().enumerate() {
                if game.evidence.is_some() {
                    continue;
                }
                let field = format!("games[{i}]");
                if let Some(audit) = known::<proto::AuditGameResponse>(lease, i) {
                    let evidence = super::fairplay::audit_evidence(&audit, &game.start, &game.moves, &field);
                    if let Ok(evidence) = evidence {
                        game.evidence = Some(evidence);
                        continue;
                    }
                }
                let one = std::slice::from_mut(game);
                if stopped() || !judge_games(engine, &screening, one, &screened, stop, &|_, _| {}) {
                    return Err(STOPPED.into());
                }
                let plies = one[0].evidence.iter().flatten().map(|e| audit_ply(e, 0)).collect();
                save_part(i as u32, proto::AuditGameResponse { plies, summary: None }.encode_to_vec());
            }
            let assessments = assess::assess(&model, &games, &wanted).map_err(|e| e.to_string())?;
            let assessments = assessments.iter().map(assessment_message).collect();
            Ok(proto::AssessPlayerResult { assessments }.encode_to_vec())
        }
    }
}

/// The RPC's state of a job's.
pub fn proto_state(state: JobState) -> proto::JobState {
    match state {
        JobState::Queued => proto::JobState::Queued,
        JobState::Running => proto::JobState::Running,
        JobState::Done => proto::JobState::Done,
        JobState::Dead => proto::JobState::Dead,
        JobState::Cancelled => proto::JobState::Cancelled,
    }
}

/// The prefix of a job's name.
pub const NAME_PREFIX: &str = "jobs/";

/// The id a job's name (`jobs/ID`, or the id alone) gives, or the error naming `field`.
pub fn parse_name(name: &str, field: &str) -> Result<JobId, Error> {
    JobId::parse(name.strip_prefix(NAME_PREFIX).unwrap_or(name))
        .ok_or_else(|| bad_request(field, format!("{name:?} is not a job's name (jobs/ and 32 hex digits)")))
}

/// A job's result, decoded as the RPC's message of its kind.
pub fn result_message(kind: JobKind, result: &[u8]) -> Result<proto::JobResult, String> {
    use proto::job_result::Result as Of;
    let unreadable = |e: prost::DecodeError| format!("a result that does not read: {e}");
    let result = match kind {
        JobKind::Audit => Of::Audit(proto::AuditGameResponse::decode(result).map_err(unreadable)?),
        JobKind::Analyze => Of::Analyze(proto::AnalyzePositionsResult::decode(result).map_err(unreadable)?),
        JobKind::Assess => Of::Assess(proto::AssessPlayerResult::decode(result).map_err(unreadable)?),
    };
    Ok(proto::JobResult { result: Some(result) })
}

/// A job as the RPC answers it; its result left out when `with_result` is false.
pub fn job_message(record: &JobRecord, with_result: bool) -> Result<proto::Job, String> {
    let result = match (&record.result, record.state) {
        (Some(bytes), JobState::Done) if with_result => Some(result_message(record.kind, bytes)?),
        _ => None,
    };
    Ok(proto::Job {
        name: format!("{NAME_PREFIX}{}", record.id),
        platform_id: record.platform_id.clone(),
        kind: record.kind.as_str().to_owned(),
        state: proto_state(record.state) as i32,
        done: record.state.is_final(),
        deliveries: record.deliveries,
        result,
        error: record.error.clone().unwrap_or_default(),
    })
}

/// A job's result as the RPC's JSON (the canonical protobuf JSON mapping) of its kind's
/// message (an AuditGameResponse for an audit).
pub fn result_json(kind: JobKind, result: &[u8]) -> Result<serde_json::Value, String> {
    use proto::job_result::Result as Of;
    let value = match result_message(kind, result)?.result {
        Some(Of::Audit(m)) => serde_json::to_value(&m),
        Some(Of::Analyze(m)) => serde_json::to_value(&m),
        Some(Of::Assess(m)) => serde_json::to_value(&m),
        None => return Err("an empty result".into()),
    };
    value.map_err(|e| e.to_string())
}
