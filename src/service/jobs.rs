//! JobService over tonic: the caller's tenant's jobs on the server's queue
//! ([`crate::engine::queue`]), made and read by [`crate::api::jobs`].

use std::sync::Arc;
use std::time::Duration;

use tonic::{Request, Response, Status};

use super::call::Tenant;
use crate::api::convert::ContentLimits;
use crate::api::fairplay::Models;
use crate::api::jobs::{self, DEFAULT_TENANT, Submitter};
use crate::api::proto::{self, job_service_server::JobService};
use crate::engine::Deadline;
use crate::engine::queue::{Cancelled, JobId, JobQueue, JobRecord, QueueError, Submitted, valid_tenant};
use crate::search::nnue::Evaluation;

/// Most jobs of one SubmitJobs call, and most jobs one WatchJobs call watches.
pub const MAX_BATCH: usize = 1000;

/// How often a watch looks at its jobs.
const WATCH_POLL: Duration = Duration::from_millis(250);

/// JobService: the queue, and what a submission's id depends on.
pub struct Jobs {
    /// The queue; none: every call answers FAILED_PRECONDITION.
    pub queue: Option<Arc<dyn JobQueue>>,
    /// The limits of request contents.
    pub limits: ContentLimits,
    /// What evaluates the workers' searches (the server's own).
    pub evaluation: Evaluation,
    /// The fair-play models (the workers' must be the same).
    pub models: Arc<Models>,
}

fn queue_status(e: QueueError) -> Status {
    match e {
        QueueError::Full { bound } => Status::resource_exhausted(format!(
            "the job queue holds its bound of {bound} open jobs; submit again later"
        )),
        QueueError::Unreachable(e) => Status::unavailable(format!("the job queue does not answer: {e}")),
        QueueError::Invalid(e) => Status::invalid_argument(e),
        QueueError::Config(e) => Status::failed_precondition(e),
    }
}

impl Jobs {
    fn queue(&self) -> Result<&Arc<dyn JobQueue>, Status> {
        self.queue.as_ref().ok_or_else(|| Status::failed_precondition("this server has no job queue (--queue)"))
    }

    /// The caller's tenant: its API key's, or `default` when the server asks for none.
    fn tenant<T>(request: &Request<T>) -> Result<String, Status> {
        let tenant = request.extensions().get::<Tenant>().map_or(DEFAULT_TENANT, |t| &t.0);
        if !valid_tenant(tenant) {
            return Err(Status::failed_precondition(format!(
                "tenant {tenant:?} cannot own jobs: its name must be 1 to 64 letters, digits, '.', '_' or '-'"
            )));
        }
        Ok(tenant.to_owned())
    }

    async fn record(&self, tenant: &str, id: &JobId) -> Result<JobRecord, Status> {
        self.queue()?
            .get(tenant, id)
            .await
            .map_err(queue_status)?
            .ok_or_else(|| Status::not_found(format!("no job {}{id} of this tenant", jobs::NAME_PREFIX)))
    }
}

fn answer(record: &JobRecord, with_result: bool) -> Result<proto::Job, Status> {
    jobs::job_message(record, with_result).map_err(Status::internal)
}

/// The messages of WatchJobs as tonic sends them.
pub type WatchStream = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = Result<proto::Job, Status>> + Send>>;

#[tonic::async_trait]
impl JobService for Jobs {
    async fn submit_jobs(
        &self,
        request: Request<proto::SubmitJobsRequest>,
    ) -> Result<Response<proto::SubmitJobsResponse>, Status> {
        let queue = self.queue()?;
        let tenant = Self::tenant(&request)?;
        let batch = &request.get_ref().jobs;
        if batch.is_empty() || batch.len() > MAX_BATCH {
            return Err(super::errors::bad_request("jobs", format!("1 to {MAX_BATCH} jobs a call")));
        }
        let submitter = Submitter { limits: self.limits, evaluation: &self.evaluation, models: &self.models };
        let mut new = Vec::with_capacity(batch.len());
        for (i, job) in batch.iter().enumerate() {
            let work =
                job.work.as_ref().ok_or_else(|| super::errors::bad_request(format!("jobs[{i}].work"), "required"))?;
            let made = jobs::submission(&tenant, &job.platform_id, work, &submitter).map_err(|e| {
                // A bad field is named from the submission: `jobs[i].work.…`, `jobs[i].platform_id`.
                let within = if matches!(&e, crate::api::Error::BadField { field, .. } if field == "platform_id") {
                    format!("jobs[{i}]")
                } else {
                    format!("jobs[{i}].work")
                };
                Status::from(e.within(&within))
            })?;
            new.push(made);
        }
        let mut answers = Vec::with_capacity(new.len());
        for job in &new {
            let (created, state) = match queue.submit(job).await.map_err(queue_status)? {
                Submitted::Queued => (true, crate::engine::queue::JobState::Queued),
                Submitted::Existing(state) => (false, state),
            };
            answers.push(proto::SubmittedJob {
                name: format!("{}{}", jobs::NAME_PREFIX, job.id),
                created,
                state: jobs::proto_state(state) as i32,
            });
        }
        Ok(Response::new(proto::SubmitJobsResponse { jobs: answers }))
    }

    async fn get_job(&self, request: Request<proto::GetJobRequest>) -> Result<Response<proto::Job>, Status> {
        self.queue()?;
        let tenant = Self::tenant(&request)?;
        let id = jobs::parse_name(&request.get_ref().name, "name")?;
        Ok(Response::new(answer(&self.record(&tenant, &id).await?, true)?))
    }

    type WatchJobsStream = WatchStream;

    async fn watch_jobs(&self, request: Request<proto::WatchJobsRequest>) -> Result<Response<WatchStream>, Status> {
        let queue = self.queue()?.clone();
        let tenant = Self::tenant(&request)?;
        let r = request.get_ref();
        if r.names.len() > MAX_BATCH {
            return Err(super::errors::bad_request("names", format!("at most {MAX_BATCH} jobs a watch")));
        }
        let ids: Vec<JobId> = r
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| jobs::parse_name(name, &format!("names[{i}]")))
            .collect::<Result<_, _>>()?;
        let ids = if ids.is_empty() {
            let recent = queue.recent(&tenant, MAX_BATCH).await.map_err(queue_status)?;
            let standings = queue.standings(&tenant, &recent).await.map_err(queue_status)?;
            recent
                .into_iter()
                .zip(standings)
                .filter(|(_, s)| s.is_some_and(|s| !s.state.is_final()))
                .map(|(id, _)| id)
                .collect()
        } else {
            ids
        };
        for (i, id) in ids.iter().enumerate() {
            if queue.get(&tenant, id).await.map_err(queue_status)?.is_none() {
                return Err(Status::not_found(format!("names[{i}]: no job {}{id} of this tenant", jobs::NAME_PREFIX)));
            }
        }
        let with_results = !r.without_results;
        // The watch ends at the call's deadline (the client's, or the server's limit on a
        // call), so that a watch of jobs that take hours holds no place that long.
        let deadline =
            request.extensions().get::<Deadline>().map(|d| tokio::time::Instant::from_std(d.arrived + d.timeout));
        let (tx, rx) = tokio::sync::mpsc::channel(16);
        tokio::spawn(async move {
            let mut last = vec![None; ids.len()];
            loop {
                let standings = match queue.standings(&tenant, &ids).await {
                    Ok(s) => s,
                    Err(e) => {
                        let _ = tx.send(Err(queue_status(e))).await;
                        return;
                    }
                };
                for (i, standing) in standings.iter().enumerate() {
                    if *standing == last[i] {
                        continue;
                    }
                    last[i] = *standing;
                    // A job that expired while watched has ended for the watcher.
                    let Some(_) = standing else { continue };
                    let message = match queue.get(&tenant, &ids[i]).await {
                        Ok(Some(record)) => answer(&record, with_results),
                        Ok(None) => continue,
                        Err(e) => Err(queue_status(e)),
                    };
                    if tx.send(message).await.is_err() {
                        return;
                    }
                }
                if last.iter().all(|s| s.is_none_or(|s| s.state.is_final())) {
                    return;
                }
                let next = tokio::time::Instant::now() + WATCH_POLL;
                if deadline.is_some_and(|d| d <= next) {
                    let _ = tx.send(Err(Status::deadline_exceeded("the watch's deadline: watch again"))).await;
                    return;
                }
                tokio::select! {
                    _ = tokio::time::sleep_until(next) => {}
                    _ = tx.closed() => return,
                }
            }
        });
        Ok(Response::new(Box::pin(tokio_stream::wrappers::ReceiverStream::new(rx))))
    }

    async fn cancel_job(&self, request: Request<proto::CancelJobRequest>) -> Result<Response<proto::Job>, Status> {
        self.queue()?;
        let tenant = Self::tenant(&request)?;
        let id = jobs::parse_name(&request.get_ref().name, "name")?;
        match self.queue()?.cancel(&tenant, &id).await.map_err(queue_status)? {
            Cancelled::Unknown => Err(Status::not_found(format!("no job {}{id} of this tenant", jobs::NAME_PREFIX))),
            Cancelled::Cancelled | Cancelled::AlreadyFinal(_) => {
                Ok(Response::new(answer(&self.record(&tenant, &id).await?, true)?))
            }
        }
    }
}
