//! The job queue: background work (an audit of one game first) submitted by a platform
//! and done by worker processes, none lost when a worker dies. One trait ([`JobQueue`])
//! with Redis Streams its first implementation ([`RedisQueue`]); the jobs themselves
//! are bytes here (the API's encoded requests and answers), so that this layer knows
//! no protobuf.
//!
//! A job's life: `queued` (submitted) → `running` (a worker holds its lease) → `done`,
//! or back to `queued` when its worker fails, hands it back or lets its lease lapse,
//! and `dead` once it was delivered more than the set number of times; `cancelled` by
//! its tenant at any time before it ends. Only the holder of the current lease (a
//! random token) can save progress, finish or fail the job, so that a result is kept
//! once whatever the number of deliveries. The protocol is written down in
//! `docs/jobs.md`.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

mod redis;
mod replies;
mod scripts;

pub use redis::{KEY_PREFIX, RedisQueue, RedisQueueConfig};

/// What a job does; each kind's request and answer are the API's messages, encoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// An AuditGame request: one game's plies judged.
    Audit,
    /// Analyze requests, one position each.
    Analyze,
    /// An AssessPlayer request: its games judged, then its players assessed.
    Assess,
}

impl JobKind {
    /// Its name in the queue and in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Audit => "audit",
            JobKind::Analyze => "analyze",
            JobKind::Assess => "assess",
        }
    }

    /// The kind named `name`, if any.
    pub fn from_name(name: &str) -> Option<JobKind> {
        match name {
            "audit" => Some(JobKind::Audit),
            "analyze" => Some(JobKind::Analyze),
            "assess" => Some(JobKind::Assess),
            _ => None,
        }
    }
}

/// Where a job is in its life (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum JobState {
    /// Waiting for a worker.
    Queued,
    /// A worker holds its lease.
    Running,
    /// Its result is kept.
    Done,
    /// Given up after too many deliveries: its last error is kept.
    Dead,
    /// Cancelled by its tenant.
    Cancelled,
}

impl JobState {
    /// Its name in the queue and in answers.
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Queued => "queued",
            JobState::Running => "running",
            JobState::Done => "done",
            JobState::Dead => "dead",
            JobState::Cancelled => "cancelled",
        }
    }

    /// The state named `name`, if any.
    pub fn from_name(name: &str) -> Option<JobState> {
        Some(match name {
            "queued" => JobState::Queued,
            "running" => JobState::Running,
            "done" => JobState::Done,
            "dead" => JobState::Dead,
            "cancelled" => JobState::Cancelled,
            _ => return None,
        })
    }

    /// Whether the job has ended (nothing more will happen to it).
    pub fn is_final(self) -> bool {
        matches!(self, JobState::Done | JobState::Dead | JobState::Cancelled)
    }
}

/// A job's id: 32 hex digits, the first 128 bits of the SHA-256 of everything its
/// answer depends on and of its tenant (see [`JobId::of`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(String);

/// What a job's id is made of.
pub struct JobIdentity<'a> {
    /// The tenant that owns it.
    pub tenant: &'a str,
    /// Its kind.
    pub kind: JobKind,
    /// The request, encoded canonically (the same request gives the same bytes).
    pub request: &'a [u8],
    /// The engine's version.
    pub engine_version: &'a str,
    /// What evaluates its searches (`classical` or a net's identity).
    pub evaluation: &'a str,
    /// The rule set it is judged under.
    pub rule_set: &'a str,
}

impl JobId {
    /// The id of the job `identity` describes: the same game with the same engine,
    /// evaluation and rule set submitted twice by a tenant is one job. Each part is
    /// preceded by its length, so that no two identities write the same bytes.
    pub fn of(identity: &JobIdentity<'_>) -> JobId {
        let mut context = ring::digest::Context::new(&ring::digest::SHA256);
        let parts: [&[u8]; 6] = [
            identity.tenant.as_bytes(),
            identity.kind.as_str().as_bytes(),
            identity.engine_version.as_bytes(),
            identity.evaluation.as_bytes(),
            identity.rule_set.as_bytes(),
            identity.request,
        ];
        for part in parts {
            context.update(&(part.len() as u64).to_le_bytes());
            context.update(part);
        }
        let digest = context.finish();
        JobId(digest.as_ref()[..16].iter().map(|b| format!("{b:02x}")).collect())
    }

    /// The id written as `text`, if it is one (32 lowercase hex digits).
    pub fn parse(text: &str) -> Option<JobId> {
        let ok = text.len() == 32 && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        ok.then(|| JobId(text.to_owned()))
    }

    /// Its text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Most bytes of a tenant's name.
pub const MAX_TENANT_BYTES: usize = 64;

/// Whether `tenant` may name a tenant of the queue: 1 to [`MAX_TENANT_BYTES`] letters,
/// digits, `.`, `_` or `-` (it is part of Redis key names).
pub fn valid_tenant(tenant: &str) -> bool {
    (1..=MAX_TENANT_BYTES).contains(&tenant.len())
        && tenant.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Most bytes of a platform's own id of a job.
pub const MAX_PLATFORM_ID_BYTES: usize = 128;

/// A job to submit.
#[derive(Clone, Debug)]
pub struct NewJob {
    /// Its id ([`JobId::of`]).
    pub id: JobId,
    /// The tenant that owns it.
    pub tenant: String,
    /// The platform's own id for it (not part of [`JobId`]; the first submission's is
    /// kept), at most [`MAX_PLATFORM_ID_BYTES`].
    pub platform_id: String,
    /// Its kind.
    pub kind: JobKind,
    /// Its request, encoded.
    pub request: Vec<u8>,
}

/// What a submit did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Submitted {
    /// The job was queued.
    Queued,
    /// The same job was there already, in this state: nothing was added.
    Existing(JobState),
}

/// A job a worker holds: what it needs to do it, and its lease.
#[derive(Clone, Debug)]
pub struct Lease {
    /// The job.
    pub id: JobId,
    /// Its kind.
    pub kind: JobKind,
    /// Its tenant.
    pub tenant: String,
    /// Its request, encoded.
    pub request: Vec<u8>,
    /// Which delivery this is, from 1.
    pub delivery: u32,
    /// The parts of its result kept by earlier deliveries (an audit's plies, by move
    /// index), so that only what is missing is done again.
    pub parts: Vec<(u32, Vec<u8>)>,
    /// The lease's token: only its holder can change the job.
    pub(crate) token: String,
    /// The worker that holds it (its consumer name).
    pub(crate) worker: String,
}

/// What taking the next job found.
#[derive(Clone, Debug)]
pub enum Taken {
    /// A job to do, under its lease.
    Job(Lease),
    /// A job delivered more than the set number of times, dead-lettered now.
    DeadLettered(JobId),
    /// Nothing within the wait (or an entry whose job had ended, dropped).
    Nothing,
}

/// What failing a job did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failed {
    /// It waits for another delivery.
    Requeued,
    /// It had used its deliveries: dead-lettered with the error.
    DeadLettered,
    /// The lease had been taken over or the job had ended: nothing changed.
    LeaseLost,
}

/// A job as its tenant sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    /// Its id.
    pub id: JobId,
    /// The platform's own id given with its first submission.
    pub platform_id: String,
    /// Its kind.
    pub kind: JobKind,
    /// Its state.
    pub state: JobState,
    /// Deliveries so far.
    pub deliveries: u32,
    /// Its last error, if any.
    pub error: Option<String>,
    /// Its result (the answer, encoded) once done.
    pub result: Option<Vec<u8>>,
    /// The worker that holds or held it last.
    pub worker: Option<String>,
}

/// What cancelling found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cancelled {
    /// Cancelled now.
    Cancelled,
    /// It had ended already, in this state.
    AlreadyFinal(JobState),
    /// The tenant has no such job.
    Unknown,
}

/// Where a job stands, as a watcher compares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobStanding {
    /// Its state.
    pub state: JobState,
    /// Deliveries so far.
    pub deliveries: u32,
}

/// The queue's figures, for metrics and `chuhe jobs status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// Jobs not ended (queued or running): what the bound counts.
    pub open: u64,
    /// Jobs delivered to a worker and not ended.
    pub pending: u64,
    /// Jobs queued and never delivered (the consumer group's lag).
    pub lag: u64,
    /// Age in milliseconds of the oldest job not ended, if any.
    pub oldest_age_ms: Option<u64>,
    /// Entries in the dead-letter stream.
    pub dead_lettered: u64,
}

/// Why the queue did not do what was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QueueError {
    /// The queue holds its bound of open jobs: the job was not added.
    Full {
        /// The bound.
        bound: u64,
    },
    /// The queue could not be reached, or failed the command.
    Unreachable(String),
    /// The job or its tenant is not acceptable.
    Invalid(String),
    /// It cannot be set up as configured (a bad URL).
    Config(String),
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::Full { bound } => write!(f, "the queue is full: it holds its bound of {bound} open jobs"),
            QueueError::Unreachable(e) => write!(f, "queue unreachable: {e}"),
            QueueError::Invalid(e) => f.write_str(e),
            QueueError::Config(e) => f.write_str(e),
        }
    }
}

impl std::error::Error for QueueError {}

/// What a queue's operation returns.
pub type QueueFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, QueueError>> + Send + 'a>>;

/// A durable queue of jobs shared by submitters and workers. Every change of a job is
/// one atomic step of the queue, so that any number of each may run at once.
pub trait JobQueue: Send + Sync {
    /// Its name (`redis`).
    fn name(&self) -> &'static str;
    /// Adds `job` unless the same job is there, or refuses it at the bound.
    fn submit<'a>(&'a self, job: &'a NewJob) -> QueueFuture<'a, Submitted>;
    /// The next job for `worker`: one whose lease lapsed first, else a new one waited
    /// for up to `wait`.
    fn take<'a>(&'a self, worker: &'a str, wait: Duration) -> QueueFuture<'a, Taken>;
    /// Extends the lease; false when it was taken over or the job ended (stop then).
    fn renew<'a>(&'a self, lease: &'a Lease) -> QueueFuture<'a, bool>;
    /// Keeps one part of the result (part `index`); false when the lease is lost.
    fn save_part<'a>(&'a self, lease: &'a Lease, index: u32, part: &'a [u8]) -> QueueFuture<'a, bool>;
    /// Ends the job with its result, sent to its tenant's result stream; false (and
    /// nothing written) when the lease is lost.
    fn finish<'a>(&'a self, lease: &'a Lease, result: &'a [u8]) -> QueueFuture<'a, bool>;
    /// Records `error` and queues the job again, or dead-letters it when it has used
    /// its deliveries.
    fn fail<'a>(&'a self, lease: &'a Lease, error: &'a str) -> QueueFuture<'a, Failed>;
    /// Hands the job back (the worker is stopping): queued again, the delivery not
    /// counted, its parts kept. False when the lease was lost already.
    fn release<'a>(&'a self, lease: &'a Lease) -> QueueFuture<'a, bool>;
    /// The tenant's job `id`, if it has one.
    fn get<'a>(&'a self, tenant: &'a str, id: &'a JobId) -> QueueFuture<'a, Option<JobRecord>>;
    /// Cancels the tenant's job `id` unless it has ended.
    fn cancel<'a>(&'a self, tenant: &'a str, id: &'a JobId) -> QueueFuture<'a, Cancelled>;
    /// Where each of the tenant's jobs `ids` stands, in one look (none: the tenant has
    /// no such job).
    fn standings<'a>(&'a self, tenant: &'a str, ids: &'a [JobId]) -> QueueFuture<'a, Vec<Option<JobStanding>>>;
    /// The ids of the tenant's jobs still kept, oldest first, at most `limit`.
    fn list<'a>(&'a self, tenant: &'a str, limit: usize) -> QueueFuture<'a, Vec<JobId>>;
    /// The ids of the tenant's most recent jobs, newest first, at most `limit`.
    fn recent<'a>(&'a self, tenant: &'a str, limit: usize) -> QueueFuture<'a, Vec<JobId>>;
    /// The queue's figures.
    fn stats(&self) -> QueueFuture<'_, QueueStats>;
}

/// The default bound of open jobs.
pub const DEFAULT_MAX_OPEN: u64 = 100_000;
/// How long an ended job and its result are kept by default.
pub const DEFAULT_RESULT_TTL: Duration = Duration::from_secs(7 * 86_400);
/// A lease's default length: a worker renews it every third of it.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(30);
/// Deliveries of a job before it is dead-lettered, by default.
pub const DEFAULT_MAX_DELIVERIES: u32 = 5;

#[cfg(test)]
mod tests {
    use super::*;

    fn identity<'a>(tenant: &'a str, request: &'a [u8], rule_set: &'a str) -> JobIdentity<'a> {
        JobIdentity { tenant, kind: JobKind::Audit, request, engine_version: "1", evaluation: "classical", rule_set }
    }

    #[test]
    fn the_same_job_has_the_same_id_and_each_part_changes_it() {
        let base = JobId::of(&identity("a", b"game", "asian"));
        assert_eq!(base, JobId::of(&identity("a", b"game", "asian")));
        assert_eq!(JobId::parse(base.as_str()), Some(base.clone()));
        assert_ne!(base, JobId::of(&identity("b", b"game", "asian")));
        assert_ne!(base, JobId::of(&identity("a", b"game2", "asian")));
        assert_ne!(base, JobId::of(&identity("a", b"game", "chinese")));
        // Lengths first: moving a byte from one part to the next is another job.
        assert_ne!(JobId::of(&identity("ab", b"c", "x")), JobId::of(&identity("a", b"bc", "x")));
    }

    #[test]
    fn tenants_and_ids_are_checked() {
        assert!(valid_tenant("platform-1.eu_west"));
        assert!(!valid_tenant(""));
        assert!(!valid_tenant("a:b"));
        assert!(!valid_tenant(&"a".repeat(MAX_TENANT_BYTES + 1)));
        assert_eq!(JobId::parse("0123"), None);
        assert_eq!(JobId::parse(&"G".repeat(32)), None);
    }
}
