//! A worker: takes jobs from the queue one at a time and does each on a blocking
//! thread while it renews the job's lease, keeps each part of the result as it comes,
//! and ends the job with its result (or its error) under the lease. A lease lost to
//! another worker stops the work and nothing of it is written; a shutdown hands the job
//! back, its parts kept for the next worker.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use super::convert::ContentLimits;
use super::fairplay::Models;
use super::jobs::{WorkerContext, do_job};
use crate::engine::Engine;
use crate::engine::queue::{Failed, JobQueue, Lease, QueueError, Taken};

/// How a worker runs.
#[derive(Clone)]
pub struct WorkerSettings {
    /// Its name in the consumer group (unique among the workers).
    pub name: String,
    /// The lease's length, renewed every third of it.
    pub lease: Duration,
    /// The limits of a job's request.
    pub limits: ContentLimits,
    /// The fair-play models assessments use.
    pub models: Arc<Models>,
}

/// The longest wait for a new job before the queue is asked again (and lapsed leases
/// looked for).
const TAKE_WAIT: Duration = Duration::from_secs(2);
/// The pause after the queue failed, before it is asked again.
const RETRY_PAUSE: Duration = Duration::from_secs(1);

/// How one job ended for this worker.
enum Outcome {
    Finished(Result<Vec<u8>, String>),
    LeaseLost,
    HandedBack,
}

/// Takes and does jobs until `shutdown` turns true; the job under way then is handed
/// back.
pub async fn work(
    engine: Arc<Engine>,
    queue: Arc<dyn JobQueue>,
    settings: WorkerSettings,
    mut shutdown: watch::Receiver<bool>,
) {
    tracing::info!(worker = %settings.name, queue = queue.name(), "worker started");
    while !*shutdown.borrow() {
        let taken = tokio::select! {
            taken = queue.take(&settings.name, TAKE_WAIT) => taken,
            _ = shutdown.changed() => break,
        };
        match taken {
            Ok(Taken::Nothing) => {}
            Ok(Taken::DeadLettered(id)) => {
                metrics::counter!("chuhe_jobs_dead_lettered_total").increment(1);
                tracing::warn!(job = %id, "job dead-lettered: delivered too many times");
            }
            Ok(Taken::Job(lease)) => do_one(&engine, &queue, &settings, lease, &mut shutdown).await,
            Err(e) => {
                tracing::warn!(error = %e, "queue failed; asking again");
                tokio::select! {
                    _ = tokio::time::sleep(RETRY_PAUSE) => {}
                    _ = shutdown.changed() => break,
                }
            }
        }
    }
    tracing::info!(worker = %settings.name, "worker stopped");
}

async fn do_one(
    engine: &Arc<Engine>,
    queue: &Arc<dyn JobQueue>,
    settings: &WorkerSettings,
    lease: Lease,
    shutdown: &mut watch::Receiver<bool>,
) {
    let id = lease.id.clone();
    tracing::info!(job = %id, delivery = lease.delivery, kept_parts = lease.parts.len(), "job started");
    let stop = Arc::new(AtomicBool::new(false));
    // At most one part per ply of the game, bounded by the request's plies cap.
    let (parts_tx, mut parts) = mpsc::unbounded_channel::<(u32, Vec<u8>)>();
    let mut job = {
        let (engine, lease, stop, models) = (engine.clone(), lease.clone(), stop.clone(), settings.models.clone());
        let limits = settings.limits;
        tokio::task::spawn_blocking(move || {
            let context = WorkerContext { engine: &engine, models: &models, limits };
            do_job(&context, &lease, &stop, &mut |index, part| {
                let _ = parts_tx.send((index, part));
            })
        })
    };
    let mut renewal = tokio::time::interval(settings.lease / 3);
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    renewal.tick().await;
    let mut outcome = None;
    let mut parts_open = true;
    let joined = loop {
        tokio::select! {
            joined = &mut job => break joined,
            part = parts.recv(), if parts_open => match part {
                Some((index, part)) => match queue.save_part(&lease, index, &part).await {
                    Ok(true) => {}
                    Ok(false) => {
                        stop.store(true, Ordering::Relaxed);
                        outcome = Some(Outcome::LeaseLost);
                    }
                    // Not kept: a later delivery judges it again.
                    Err(e) => tracing::warn!(job = %id, error = %e, "a part of the result was not kept"),
                },
                None => parts_open = false,
            },
            _ = renewal.tick() => match queue.renew(&lease).await {
                Ok(true) => {}
                Ok(false) => {
                    stop.store(true, Ordering::Relaxed);
                    outcome = Some(Outcome::LeaseLost);
                }
                Err(e) => tracing::warn!(job = %id, error = %e, "lease not renewed; trying again"),
            },
            _ = shutdown.changed(), if outcome.is_none() => {
                stop.store(true, Ordering::Relaxed);
                outcome = Some(Outcome::HandedBack);
            },
        }
    };
    // The parts judged before the end are kept, so that a hand back loses none.
    while let Ok((index, part)) = parts.try_recv() {
        if !matches!(outcome, Some(Outcome::LeaseLost)) {
            let _ = queue.save_part(&lease, index, &part).await;
        }
    }
    let outcome = outcome.unwrap_or_else(|| {
        Outcome::Finished(joined.unwrap_or_else(|e| Err(format!("the worker's thread failed: {e}"))))
    });
    match outcome {
        Outcome::LeaseLost => lease_lost(&id, "work dropped"),
        Outcome::HandedBack => match queue.release(&lease).await {
            Ok(true) => tracing::info!(job = %id, "job handed back"),
            Ok(false) => lease_lost(&id, "nothing to hand back"),
            Err(e) => {
                tracing::warn!(job = %id, error = %e, "job not handed back: it is taken over once its lease lapses")
            }
        },
        Outcome::Finished(Ok(result)) => match settle(|| queue.finish(&lease, &result), settings.lease).await {
            Ok(true) => tracing::info!(job = %id, "job done"),
            Ok(false) => lease_lost(&id, "result discarded"),
            Err(e) => tracing::warn!(job = %id, error = %e, "result not written: the job is done again elsewhere"),
        },
        Outcome::Finished(Err(reason)) => match settle(|| queue.fail(&lease, &reason), settings.lease).await {
            Ok(Failed::Requeued) => tracing::warn!(job = %id, reason = %reason, "job failed; queued again"),
            Ok(Failed::DeadLettered) => tracing::warn!(job = %id, reason = %reason, "job failed; dead-lettered"),
            Ok(Failed::LeaseLost) => lease_lost(&id, "error discarded"),
            Err(e) => tracing::warn!(job = %id, error = %e, "failure not written"),
        },
    }
}

fn lease_lost(id: &crate::engine::queue::JobId, what: &str) {
    metrics::counter!("chuhe_jobs_lease_lost_total").increment(1);
    tracing::warn!(job = %id, "lease lost to another worker: {what}");
}

/// Runs `step` until the queue answers, for up to about one lease (a Redis restarting):
/// past that the lease has lapsed and another worker does the job again.
async fn settle<T, F>(mut step: impl FnMut() -> F, lease: Duration) -> Result<T, QueueError>
where
    F: std::future::Future<Output = Result<T, QueueError>>,
{
    let deadline = tokio::time::Instant::now() + lease;
    loop {
        match step().await {
            Err(e) if tokio::time::Instant::now() < deadline => {
                tracing::warn!(error = %e, "queue failed; trying again");
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            other => return other,
        }
    }
}

/// How often the queue's figures are read for the metrics and health checks.
pub const STATS_INTERVAL: Duration = Duration::from_secs(5);

/// Keeps the queue's gauges (open, pending and never-delivered jobs, the oldest open
/// job's age, dead letters) current until `shutdown` turns true, and `up` telling
/// whether the queue answered the last look (what health checks report).
pub async fn export_queue_metrics(
    queue: Arc<dyn JobQueue>,
    up: watch::Sender<bool>,
    mut shutdown: watch::Receiver<bool>,
) {
    describe_metrics();
    let mut ticks = tokio::time::interval(STATS_INTERVAL);
    loop {
        tokio::select! {
            _ = ticks.tick() => {}
            _ = shutdown.changed() => return,
        }
        match queue.stats().await {
            Ok(stats) => {
                metrics::gauge!("chuhe_jobs_open").set(stats.open as f64);
                metrics::gauge!("chuhe_jobs_pending").set(stats.pending as f64);
                metrics::gauge!("chuhe_jobs_lag").set(stats.lag as f64);
                metrics::gauge!("chuhe_jobs_dead_letters").set(stats.dead_lettered as f64);
                let age = stats.oldest_age_ms.map_or(0.0, |ms| ms as f64 / 1000.0);
                metrics::gauge!("chuhe_jobs_oldest_age_seconds").set(age);
                metrics::gauge!("chuhe_jobs_queue_up").set(1.0);
                up.send_if_modified(|was| !std::mem::replace(was, true));
            }
            Err(e) => {
                metrics::gauge!("chuhe_jobs_queue_up").set(0.0);
                up.send_if_modified(|was| std::mem::replace(was, false));
                tracing::debug!(error = %e, "queue figures not read");
            }
        }
    }
}

fn describe_metrics() {
    metrics::describe_counter!(
        "chuhe_jobs_submitted_total",
        "jobs queued, by kind (a job there already is not counted)"
    );
    metrics::describe_counter!("chuhe_jobs_refused_total", "submits refused at the queue's bound");
    metrics::describe_counter!("chuhe_jobs_done_total", "jobs this worker finished with their result, by kind");
    metrics::describe_counter!("chuhe_jobs_failed_total", "deliveries this worker ended with an error, by kind");
    metrics::describe_counter!("chuhe_jobs_reclaimed_total", "jobs this worker took over from a lapsed lease");
    metrics::describe_counter!("chuhe_jobs_dead_lettered_total", "jobs this worker moved to the dead-letter stream");
    metrics::describe_counter!("chuhe_jobs_lease_lost_total", "jobs this worker lost to another (its work dropped)");
    metrics::describe_gauge!("chuhe_jobs_open", "jobs queued or running (what the bound counts)");
    metrics::describe_gauge!("chuhe_jobs_pending", "jobs delivered to a worker and not ended");
    metrics::describe_gauge!("chuhe_jobs_lag", "jobs never delivered yet (the consumer group's lag)");
    metrics::describe_gauge!("chuhe_jobs_oldest_age_seconds", "age of the oldest open job");
    metrics::describe_gauge!("chuhe_jobs_dead_letters", "entries of the dead-letter stream");
    metrics::describe_gauge!("chuhe_jobs_queue_up", "1 when the queue answered the last look, 0 when it did not");
}
