//! Jobs: the API's requests done in the background through the queue
//! ([`crate::engine::queue`]). A job's request and result are the API's messages,
//! encoded; this module makes a job of a request (checked, with its id), does a leased
//! job, and reads a result back as the RPC's JSON.

use std::sync::atomic::AtomicBool;

use prost::Message;

use super::audit::{audit_job, run_from};
use super::convert::ContentLimits;
use super::error::{Error, bad_request};
use super::proto;
use crate::engine::Engine;
use crate::engine::queue::{JobId, JobIdentity, JobKind, Lease, NewJob, valid_tenant};
use crate::search::nnue::{Evaluation, NetVariant};

/// Most bytes of a job's encoded request (far beyond any game under the plies cap).
pub const MAX_REQUEST_BYTES: usize = 1 << 20;

/// The tenant of jobs submitted without one.
pub const DEFAULT_TENANT: &str = "default";

/// The job of auditing the game of `request` for `tenant`. Checks what a submitter can
/// check cheaply (the tenant, the number of moves, the size); the game itself is
/// replayed by the worker, which fails the job with the reason if it is refused. The id
/// names the evaluation `evaluation` gives the variant: submitters and workers are
/// expected to share their configuration.
pub fn audit_submission(
    tenant: &str,
    request: &proto::AuditGameRequest,
    limits: ContentLimits,
    evaluation: &Evaluation,
) -> Result<NewJob, Error> {
    if !valid_tenant(tenant) {
        return Err(bad_request("tenant", "1 to 64 letters, digits, '.', '_' or '-'"));
    }
    let position = request.position.as_ref().ok_or_else(|| bad_request("position", "position is required"))?;
    limits.check_plies(position.moves.len(), "position.moves")?;
    let bytes = request.encode_to_vec();
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(bad_request("position", format!("at most {MAX_REQUEST_BYTES} bytes of request")));
    }
    let net_variant =
        if position.variant == proto::Variant::Janggi as i32 { NetVariant::Janggi } else { NetVariant::Xiangqi };
    let rule_set = proto::RuleSet::try_from(request.rule_set)
        .map_or_else(|_| request.rule_set.to_string(), |r| r.as_str_name().to_owned());
    let id = JobId::of(&JobIdentity {
        tenant,
        kind: JobKind::Audit,
        request: &bytes,
        engine_version: super::analysis::ENGINE_VERSION,
        evaluation: &evaluation.name(net_variant),
        rule_set: &rule_set,
    });
    Ok(NewJob { id, tenant: tenant.to_owned(), kind: JobKind::Audit, request: bytes })
}

/// Does the leased job on the calling thread: its encoded result, or why it cannot be
/// done. `save_part` gets each part judged now (not those the lease brought), to be
/// kept for a later delivery; the stop flag ends the work early (the result is then
/// partial and must not be kept).
pub fn do_job(
    engine: &Engine,
    lease: &Lease,
    limits: ContentLimits,
    stop: &AtomicBool,
    save_part: &mut dyn FnMut(u32, Vec<u8>),
) -> Result<Vec<u8>, String> {
    match lease.kind {
        JobKind::Audit => {
            let request = proto::AuditGameRequest::decode(lease.request.as_slice())
                .map_err(|e| format!("the request is not an AuditGameRequest: {e}"))?;
            let audit = audit_job(engine, &request, limits).map_err(|e| e.to_string())?;
            // A kept part that does not decode is judged again.
            let known: Vec<(usize, proto::AuditPly)> = lease
                .parts
                .iter()
                .filter_map(|(i, bytes)| Some((*i as usize, proto::AuditPly::decode(bytes.as_slice()).ok()?)))
                .collect();
            let find = |index: usize| known.iter().find(|(i, _)| *i == index).map(|(_, p)| p.clone());
            let mut plies = Vec::new();
            let summary = run_from(engine, &audit, stop, &find, &mut |ply| {
                if find(ply.move_index as usize).is_none() {
                    save_part(ply.move_index, ply.encode_to_vec());
                }
                plies.push(ply);
            });
            Ok(proto::AuditGameResponse { plies, summary: Some(summary) }.encode_to_vec())
        }
    }
}

/// A job's result as the RPC's JSON (the canonical protobuf JSON mapping).
pub fn result_json(kind: JobKind, result: &[u8]) -> Result<serde_json::Value, String> {
    match kind {
        JobKind::Audit => {
            let answer =
                proto::AuditGameResponse::decode(result).map_err(|e| format!("a result that does not read: {e}"))?;
            serde_json::to_value(&answer).map_err(|e| e.to_string())
        }
    }
}
