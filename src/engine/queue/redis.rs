//! The queue on Redis Streams (Redis 7.0 or newer): a stream of open jobs read by the
//! workers' consumer group, a hash per job, and each change one Lua script
//! ([`super::scripts`], run as a [`LuaScript`]).

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, IntoConnectionInfo, Value};

use super::replies::{bytes, items, text, unexpected};
use super::scripts;
use super::{
    Cancelled, Failed, JobId, JobKind, JobQueue, JobRecord, JobStanding, JobState, Lease, MAX_PLATFORM_ID_BYTES,
    NewJob, QueueError, QueueFuture, QueueStats, Submitted, Taken, valid_tenant,
};
use crate::engine::lua_script::LuaScript;

/// The prefix of every key of the queue.
pub const KEY_PREFIX: &str = "chuhe:jobs:v1:";
const GROUP: &str = "workers";

/// How a queue on Redis is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisQueueConfig {
    /// `redis://HOST:PORT[/DB]` or `rediss://`, with `user:password@` if any.
    pub url: String,
    /// Most open (queued or running) jobs: a submit beyond is refused.
    pub max_open: u64,
    /// How long an ended job, its result and its result stream entry are kept.
    pub result_ttl: Duration,
    /// A lease's length: a job whose worker has not renewed it for this long is
    /// taken over.
    pub lease: Duration,
    /// Deliveries of a job before it is dead-lettered.
    pub max_deliveries: u32,
}

impl RedisQueueConfig {
    /// The defaults of [`super`] for the Redis at `url`.
    pub fn new(url: &str) -> RedisQueueConfig {
        RedisQueueConfig {
            url: url.to_owned(),
            max_open: super::DEFAULT_MAX_OPEN,
            result_ttl: super::DEFAULT_RESULT_TTL,
            lease: super::DEFAULT_LEASE,
            max_deliveries: super::DEFAULT_MAX_DELIVERIES,
        }
    }
}

struct Scripts {
    submit: LuaScript,
    lease: LuaScript,
    reclaim: LuaScript,
    renew: LuaScript,
    save_part: LuaScript,
    finish: LuaScript,
    fail: LuaScript,
    release: LuaScript,
    cancel: LuaScript,
}

/// The queue on Redis (see the module documentation).
pub struct RedisQueue {
    config: RedisQueueConfig,
    /// Commands that answer at once.
    commands: ConnectionManager,
    /// The blocking reads, on a connection of their own so that no renewal waits
    /// behind them.
    reads: ConnectionManager,
    scripts: Arc<Scripts>,
}

/// The longest wait of a blocking read; the reply is waited for this plus
/// [`RESPONSE_TIMEOUT`].
const MAX_READ_WAIT: Duration = Duration::from_secs(10);
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

fn failed(e: redis::RedisError) -> QueueError {
    QueueError::Unreachable(e.to_string())
}

fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

fn millis(d: Duration) -> u64 {
    d.as_millis().clamp(1, u64::MAX as u128) as u64
}

/// A random lease token (128 bits, hex).
fn token() -> String {
    use ring::rand::SecureRandom;
    let mut bytes = [0u8; 16];
    // The system's random source does not fail on Linux; were it to, the lease would
    // still be unique by the time below.
    let _ = ring::rand::SystemRandom::new().fill(&mut bytes);
    let mut text: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    text.push_str(&format!("-{:x}", now_ms()));
    text
}

impl RedisQueue {
    /// Connects lazily to the Redis `config` names. Must be called within a Tokio
    /// runtime.
    pub fn connect(config: RedisQueueConfig) -> Result<RedisQueue, QueueError> {
        let bad = |e: redis::RedisError| QueueError::Config(format!("--queue: {e}"));
        let info = config.url.as_str().into_connection_info().map_err(bad)?;
        if config.url.starts_with("rediss://") {
            let _ = tokio_rustls::rustls::crypto::ring::default_provider().install_default();
        }
        if config.max_deliveries == 0 || config.max_open == 0 {
            return Err(QueueError::Config("--max-deliveries and --max-open must be at least 1".into()));
        }
        let client = Client::open(info).map_err(bad)?;
        let manager = |response: Duration| {
            let settings = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(RESPONSE_TIMEOUT))
                .set_response_timeout(Some(response))
                .set_number_of_retries(2)
                .set_max_delay(Duration::from_millis(500));
            ConnectionManager::new_lazy_with_config(client.clone(), settings).map_err(bad)
        };
        let commands = manager(RESPONSE_TIMEOUT)?;
        let reads = manager(MAX_READ_WAIT + RESPONSE_TIMEOUT)?;
        let scripts = Arc::new(Scripts {
            submit: LuaScript::new(scripts::full(scripts::SUBMIT)),
            lease: LuaScript::new(scripts::full(scripts::LEASE)),
            reclaim: LuaScript::new(scripts::full(scripts::RECLAIM)),
            renew: LuaScript::new(scripts::full(scripts::RENEW)),
            save_part: LuaScript::new(scripts::full(scripts::SAVE_PART)),
            finish: LuaScript::new(scripts::full(scripts::FINISH)),
            fail: LuaScript::new(scripts::full(scripts::FAIL)),
            release: LuaScript::new(scripts::full(scripts::RELEASE)),
            cancel: LuaScript::new(scripts::full(scripts::CANCEL)),
        });
        Ok(RedisQueue { config, commands, reads, scripts })
    }

    /// Its configuration.
    pub fn config(&self) -> &RedisQueueConfig {
        &self.config
    }

    fn ttl_ms(&self) -> u64 {
        millis(self.config.result_ttl)
    }

    /// Runs `script` with `args` after the key prefix.
    async fn run(&self, script: &LuaScript, args: &[&[u8]]) -> Result<Value, QueueError> {
        let mut connection = self.commands.clone();
        let args: Vec<&[u8]> = std::iter::once(KEY_PREFIX.as_bytes()).chain(args.iter().copied()).collect();
        script.run(&mut connection, &[], &args).await.map_err(failed)
    }

    /// Creates the consumer group (and the stream) unless it is there.
    async fn ensure_group(&self) -> Result<(), QueueError> {
        let mut connection = self.commands.clone();
        let created: Result<Value, _> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(format!("{KEY_PREFIX}work"))
            .arg(GROUP)
            .arg("0")
            .arg("MKSTREAM")
            .query_async(&mut connection)
            .await;
        match created {
            Err(e) if e.code() != Some("BUSYGROUP") => Err(failed(e)),
            _ => Ok(()),
        }
    }

    /// The reply of the lease step (`run`, `dead` or `gone`).
    fn leased(reply: &Value, token: &str, worker: &str) -> Result<Taken, QueueError> {
        let parts = items(reply);
        let word = parts.first().and_then(text);
        let id =
            || parts.get(1).and_then(text).and_then(|t| JobId::parse(&t)).ok_or_else(|| unexpected("lease", reply));
        match word.as_deref() {
            Some("none") | Some("gone") => Ok(Taken::Nothing),
            Some("dead") => Ok(Taken::DeadLettered(id()?)),
            Some("run") if parts.len() >= 6 && parts.len().is_multiple_of(2) => {
                let kind = parts[2].clone();
                let kind =
                    text(&kind).and_then(|k| JobKind::from_name(&k)).ok_or_else(|| unexpected("lease", reply))?;
                let tenant = text(&parts[3]).ok_or_else(|| unexpected("lease", reply))?;
                let request = bytes(&parts[4]).unwrap_or_default().to_vec();
                let delivery =
                    text(&parts[5]).and_then(|d| d.parse().ok()).ok_or_else(|| unexpected("lease", reply))?;
                let mut kept = Vec::new();
                for pair in parts[6..].chunks(2) {
                    let index = text(&pair[0]).and_then(|i| i.parse().ok());
                    if let (Some(index), Some(part)) = (index, bytes(&pair[1])) {
                        kept.push((index, part.to_vec()));
                    }
                }
                kept.sort_by_key(|(index, _)| *index);
                Ok(Taken::Job(Lease {
                    id: id()?,
                    kind,
                    tenant,
                    request,
                    delivery,
                    parts: kept,
                    token: token.to_owned(),
                    worker: worker.to_owned(),
                }))
            }
            _ => Err(unexpected("lease", reply)),
        }
    }

    async fn reclaim(&self, worker: &str) -> Result<Taken, QueueError> {
        let token = token();
        let reply = self
            .run(
                &self.scripts.reclaim,
                &[
                    token.as_bytes(),
                    worker.as_bytes(),
                    self.config.max_deliveries.to_string().as_bytes(),
                    self.ttl_ms().to_string().as_bytes(),
                    millis(self.config.lease).to_string().as_bytes(),
                ],
            )
            .await?;
        let taken = Self::leased(&reply, &token, worker)?;
        if matches!(taken, Taken::Job(_)) {
            metrics::counter!("chuhe_jobs_reclaimed_total").increment(1);
        }
        Ok(taken)
    }

    /// The next new entry of the stream for `worker`, waited for up to `wait`.
    async fn read(&self, worker: &str, wait: Duration) -> Result<Option<(String, String)>, QueueError> {
        let mut connection = self.reads.clone();
        let read: Result<Value, _> = redis::cmd("XREADGROUP")
            .arg("GROUP")
            .arg(GROUP)
            .arg(worker)
            .arg("COUNT")
            .arg(1)
            .arg("BLOCK")
            .arg(millis(wait.min(MAX_READ_WAIT)))
            .arg("STREAMS")
            .arg(format!("{KEY_PREFIX}work"))
            .arg(">")
            .query_async(&mut connection)
            .await;
        let reply = match read {
            Err(e) if e.code() == Some("NOGROUP") => {
                self.ensure_group().await?;
                return Ok(None);
            }
            other => other.map_err(failed)?,
        };
        // [[stream, [[entry, [field, value, ...]]]]] (RESP2), or a map (RESP3).
        let streams: Vec<&Value> = match &reply {
            Value::Map(pairs) => pairs.iter().map(|(_, v)| v).collect(),
            Value::Nil => return Ok(None),
            other => items(other).iter().filter_map(|s| items(s).get(1)).collect(),
        };
        for entries in streams {
            for e in items(entries) {
                let fields = items(e);
                let entry = fields.first().and_then(text);
                let job = items(fields.get(1).unwrap_or(&Value::Nil)).get(1).and_then(text);
                if let (Some(entry), Some(job)) = (entry, job) {
                    return Ok(Some((entry, job)));
                }
            }
        }
        Ok(None)
    }

    async fn lease_entry(&self, worker: &str, entry: String, id: String) -> Result<Taken, QueueError> {
        let token = token();
        let reply = self
            .run(
                &self.scripts.lease,
                &[
                    entry.as_bytes(),
                    id.as_bytes(),
                    token.as_bytes(),
                    worker.as_bytes(),
                    self.config.max_deliveries.to_string().as_bytes(),
                    self.ttl_ms().to_string().as_bytes(),
                ],
            )
            .await?;
        Self::leased(&reply, &token, worker)
    }

    /// The tenant's job ids in its index, by `order` (`ZRANGE`: oldest first, or
    /// `ZREVRANGE`), at most `limit`.
    async fn ids(&self, tenant: &str, limit: usize, order: &str) -> Result<Vec<JobId>, QueueError> {
        if !valid_tenant(tenant) || limit == 0 {
            return Ok(Vec::new());
        }
        let mut connection = self.commands.clone();
        let ids: Vec<String> = redis::cmd(order)
            .arg(format!("{KEY_PREFIX}tenant:{tenant}"))
            .arg(0)
            .arg(limit.min(isize::MAX as usize) as i64 - 1)
            .query_async(&mut connection)
            .await
            .map_err(failed)?;
        Ok(ids.iter().filter_map(|id| JobId::parse(id)).collect())
    }

    fn flag(reply: &Value, what: &str) -> Result<bool, QueueError> {
        match reply {
            Value::Int(1) => Ok(true),
            Value::Int(0) => Ok(false),
            other => Err(unexpected(what, other)),
        }
    }
}

impl JobQueue for RedisQueue {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn submit<'a>(&'a self, job: &'a NewJob) -> QueueFuture<'a, Submitted> {
        Box::pin(async move {
            if !valid_tenant(&job.tenant) {
                return Err(QueueError::Invalid(format!("tenant {:?}: 1 to 64 letters, digits, . _ -", job.tenant)));
            }
            if job.platform_id.len() > MAX_PLATFORM_ID_BYTES {
                return Err(QueueError::Invalid(format!("a platform id of at most {MAX_PLATFORM_ID_BYTES} bytes")));
            }
            let reply = self
                .run(
                    &self.scripts.submit,
                    &[
                        job.id.as_str().as_bytes(),
                        job.tenant.as_bytes(),
                        job.kind.as_str().as_bytes(),
                        &job.request,
                        self.config.max_open.to_string().as_bytes(),
                        self.ttl_ms().to_string().as_bytes(),
                        job.platform_id.as_bytes(),
                    ],
                )
                .await?;
            let parts = items(&reply);
            match (parts.first().and_then(text).as_deref(), parts.get(1).and_then(text)) {
                (Some("queued"), _) => {
                    metrics::counter!("chuhe_jobs_submitted_total", "kind" => job.kind.as_str()).increment(1);
                    Ok(Submitted::Queued)
                }
                (Some("exists"), Some(state)) => {
                    JobState::from_name(&state).map(Submitted::Existing).ok_or_else(|| unexpected("submit", &reply))
                }
                (Some("full"), _) => {
                    metrics::counter!("chuhe_jobs_refused_total").increment(1);
                    Err(QueueError::Full { bound: self.config.max_open })
                }
                _ => Err(unexpected("submit", &reply)),
            }
        })
    }

    fn take<'a>(&'a self, worker: &'a str, wait: Duration) -> QueueFuture<'a, Taken> {
        Box::pin(async move {
            match self.reclaim(worker).await {
                Err(QueueError::Unreachable(e)) if e.contains("NOGROUP") => self.ensure_group().await?,
                Ok(Taken::Nothing) => {}
                other => return other,
            }
            match self.read(worker, wait).await? {
                Some((entry, id)) => self.lease_entry(worker, entry, id).await,
                None => Ok(Taken::Nothing),
            }
        })
    }

    fn renew<'a>(&'a self, lease: &'a Lease) -> QueueFuture<'a, bool> {
        Box::pin(async move {
            let reply = self
                .run(
                    &self.scripts.renew,
                    &[lease.id.as_str().as_bytes(), lease.token.as_bytes(), lease.worker.as_bytes()],
                )
                .await?;
            Self::flag(&reply, "renew")
        })
    }

    fn save_part<'a>(&'a self, lease: &'a Lease, index: u32, part: &'a [u8]) -> QueueFuture<'a, bool> {
        Box::pin(async move {
            let index = index.to_string();
            let reply = self
                .run(
                    &self.scripts.save_part,
                    &[lease.id.as_str().as_bytes(), lease.token.as_bytes(), index.as_bytes(), part],
                )
                .await?;
            Self::flag(&reply, "save_part")
        })
    }

    fn finish<'a>(&'a self, lease: &'a Lease, result: &'a [u8]) -> QueueFuture<'a, bool> {
        Box::pin(async move {
            let ttl = self.ttl_ms().to_string();
            let reply = self
                .run(
                    &self.scripts.finish,
                    &[lease.id.as_str().as_bytes(), lease.token.as_bytes(), result, ttl.as_bytes()],
                )
                .await?;
            let done = Self::flag(&reply, "finish")?;
            if done {
                metrics::counter!("chuhe_jobs_done_total", "kind" => lease.kind.as_str()).increment(1);
            }
            Ok(done)
        })
    }

    fn fail<'a>(&'a self, lease: &'a Lease, error: &'a str) -> QueueFuture<'a, Failed> {
        Box::pin(async move {
            let reply = self
                .run(
                    &self.scripts.fail,
                    &[
                        lease.id.as_str().as_bytes(),
                        lease.token.as_bytes(),
                        error.as_bytes(),
                        self.config.max_deliveries.to_string().as_bytes(),
                        self.ttl_ms().to_string().as_bytes(),
                    ],
                )
                .await?;
            metrics::counter!("chuhe_jobs_failed_total", "kind" => lease.kind.as_str()).increment(1);
            match text(&reply).as_deref() {
                Some("requeued") => Ok(Failed::Requeued),
                Some("dead") => {
                    metrics::counter!("chuhe_jobs_dead_lettered_total").increment(1);
                    Ok(Failed::DeadLettered)
                }
                Some("lost") => Ok(Failed::LeaseLost),
                _ => Err(unexpected("fail", &reply)),
            }
        })
    }

    fn release<'a>(&'a self, lease: &'a Lease) -> QueueFuture<'a, bool> {
        Box::pin(async move {
            let reply =
                self.run(&self.scripts.release, &[lease.id.as_str().as_bytes(), lease.token.as_bytes()]).await?;
            Self::flag(&reply, "release")
        })
    }

    fn get<'a>(&'a self, tenant: &'a str, id: &'a JobId) -> QueueFuture<'a, Option<JobRecord>> {
        Box::pin(async move {
            let mut connection = self.commands.clone();
            let fields: Vec<Option<Vec<u8>>> = redis::cmd("HMGET")
                .arg(format!("{KEY_PREFIX}job:{id}"))
                .arg(&["tenant", "kind", "state", "deliveries", "error", "result", "worker", "platform_id"])
                .query_async(&mut connection)
                .await
                .map_err(failed)?;
            let field = |i: usize| fields.get(i).cloned().flatten();
            let text = |i: usize| field(i).map(|b| String::from_utf8_lossy(&b).into_owned());
            if text(0).as_deref() != Some(tenant) {
                return Ok(None);
            }
            let bad = || QueueError::Unreachable(format!("job {id}: a record this version does not read"));
            Ok(Some(JobRecord {
                id: id.clone(),
                platform_id: text(7).unwrap_or_default(),
                kind: text(1).and_then(|k| JobKind::from_name(&k)).ok_or_else(bad)?,
                state: text(2).and_then(|s| JobState::from_name(&s)).ok_or_else(bad)?,
                deliveries: text(3).and_then(|d| d.parse().ok()).unwrap_or(0),
                error: text(4),
                result: field(5),
                worker: text(6),
            }))
        })
    }

    fn cancel<'a>(&'a self, tenant: &'a str, id: &'a JobId) -> QueueFuture<'a, Cancelled> {
        Box::pin(async move {
            let ttl = self.ttl_ms().to_string();
            let reply =
                self.run(&self.scripts.cancel, &[id.as_str().as_bytes(), tenant.as_bytes(), ttl.as_bytes()]).await?;
            match text(&reply).as_deref() {
                Some("cancelled") => Ok(Cancelled::Cancelled),
                Some("unknown") => Ok(Cancelled::Unknown),
                Some(state) => {
                    JobState::from_name(state).map(Cancelled::AlreadyFinal).ok_or_else(|| unexpected("cancel", &reply))
                }
                None => Err(unexpected("cancel", &reply)),
            }
        })
    }

    fn standings<'a>(&'a self, tenant: &'a str, ids: &'a [JobId]) -> QueueFuture<'a, Vec<Option<JobStanding>>> {
        Box::pin(async move {
            if ids.is_empty() {
                return Ok(Vec::new());
            }
            let mut pipe = redis::pipe();
            for id in ids {
                pipe.cmd("HMGET").arg(format!("{KEY_PREFIX}job:{id}")).arg(&["tenant", "state", "deliveries"]);
            }
            let mut connection = self.commands.clone();
            let rows: Vec<Vec<Option<String>>> = pipe.query_async(&mut connection).await.map_err(failed)?;
            Ok(rows
                .into_iter()
                .map(|row| match &row[..] {
                    [Some(t), Some(state), deliveries] if t == tenant => Some(JobStanding {
                        state: JobState::from_name(state)?,
                        deliveries: deliveries.as_deref().and_then(|d| d.parse().ok()).unwrap_or(0),
                    }),
                    _ => None,
                })
                .collect())
        })
    }

    fn list<'a>(&'a self, tenant: &'a str, limit: usize) -> QueueFuture<'a, Vec<JobId>> {
        Box::pin(self.ids(tenant, limit, "ZRANGE"))
    }

    fn recent<'a>(&'a self, tenant: &'a str, limit: usize) -> QueueFuture<'a, Vec<JobId>> {
        Box::pin(self.ids(tenant, limit, "ZREVRANGE"))
    }

    fn stats(&self) -> QueueFuture<'_, QueueStats> {
        Box::pin(async move {
            let mut connection = self.commands.clone();
            let work = format!("{KEY_PREFIX}work");
            let (open, dead, oldest): (u64, u64, Value) = redis::pipe()
                .cmd("XLEN")
                .arg(&work)
                .cmd("XLEN")
                .arg(format!("{KEY_PREFIX}dead"))
                .cmd("XRANGE")
                .arg(&work)
                .arg("-")
                .arg("+")
                .arg("COUNT")
                .arg(1)
                .query_async(&mut connection)
                .await
                .map_err(failed)?;
            // No stream yet (nothing submitted, no worker started) is no group.
            let groups: Value = match redis::cmd("XINFO").arg("GROUPS").arg(&work).query_async(&mut connection).await {
                Err(e) if e.code() == Some("ERR") => Value::Nil,
                other => other.map_err(failed)?,
            };
            let oldest_ms = items(&oldest)
                .first()
                .and_then(|e| items(e).first())
                .and_then(text)
                .and_then(|id| id.split('-').next().and_then(|ms| ms.parse::<u64>().ok()));
            let mut stats = QueueStats {
                open,
                dead_lettered: dead,
                oldest_age_ms: oldest_ms.map(|ms| now_ms().saturating_sub(ms)),
                ..QueueStats::default()
            };
            for group in items(&groups) {
                let fields: Vec<(String, &Value)> = match group {
                    Value::Map(pairs) => pairs.iter().filter_map(|(k, v)| Some((text(k)?, v))).collect(),
                    other => items(other).chunks(2).filter_map(|p| Some((text(&p[0])?, p.get(1)?))).collect(),
                };
                let field = |name: &str| {
                    fields.iter().find(|(k, _)| k == name).and_then(|(_, v)| text(v)).and_then(|v| v.parse().ok())
                };
                if fields.iter().any(|(k, v)| k == "name" && text(v).as_deref() == Some(GROUP)) {
                    stats.pending = field("pending").unwrap_or(0);
                    stats.lag = field("lag").unwrap_or(0);
                }
            }
            Ok(stats)
        })
    }
}
