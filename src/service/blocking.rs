//! Where a request's work runs: a short record on the request's own task, a long one
//! on the blocking pool. Handing a job to the pool and back costs some 20-30 us; a
//! record of a hundred plies is judged in about that time, and a long one (up to the
//! configured limit, milliseconds) must not hold an async worker.

use tonic::Status;

/// Records of up to this many plies run on the request's task.
pub const INLINE_PLIES: usize = 100;

/// Runs `job`, for a request of `plies` plies, where its size says; `what` names the
/// job in the error of a pool task that failed.
pub async fn run_sized<T: Send + 'static>(
    plies: usize,
    what: &str,
    job: impl FnOnce() -> Result<T, Status> + Send + 'static,
) -> Result<T, Status> {
    if plies <= INLINE_PLIES {
        return job();
    }
    tokio::task::spawn_blocking(job).await.map_err(|e| Status::internal(format!("{what} task failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread() -> Result<std::thread::ThreadId, Status> {
        Ok(std::thread::current().id())
    }

    #[tokio::test]
    async fn short_jobs_run_here_and_long_ones_on_the_pool() {
        let here = std::thread::current().id();
        assert_eq!(run_sized(INLINE_PLIES, "short", thread).await.ok(), Some(here));
        let pool = run_sized(INLINE_PLIES + 1, "long", thread).await.ok();
        assert!(pool.is_some_and(|id| id != here), "{pool:?}");
        // A pool task that fails is an error, not a crash.
        let failed = run_sized(usize::MAX, "failing", || -> Result<(), Status> { panic!("job failed") }).await;
        assert_eq!(failed.err().map(|s| s.code()), Some(tonic::Code::Internal));
    }
}
