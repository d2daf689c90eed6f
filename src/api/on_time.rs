//! A search answered on its time. The time limit is kept by the search thread, which
//! can look at its clock only while it runs, and beside busy processes it may not run
//! for tens of milliseconds. So the call watches the time too: once the search is more
//! than [`LATE`] past its time, the call answers with the last depth the search finished
//! (the search stops when the call lets go of it).

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::engine::{Engine, EngineError};
use crate::search::{Outcome, Report, StopReason};

/// How far past its time a search may answer before the call answers for it.
pub const LATE: Duration = Duration::from_millis(3);

/// What a running search tells its call: when its time is up, and its last depth.
#[derive(Clone, Default)]
pub struct Watch(Arc<Mutex<Progress>>);

#[derive(Default)]
struct Progress {
    /// When the search started, and when its time is up (none: no time limit).
    started: Option<(Instant, Option<Instant>)>,
    last: Option<Report>,
}

/// How a search was answered.
pub enum Answer<T> {
    /// By the search thread.
    Searched(T),
    /// By the call, from the last depth of a search past its time.
    Late(Outcome),
}

impl Watch {
    fn progress(&self) -> MutexGuard<'_, Progress> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The search starts now with `time` to run (none: no time limit).
    pub fn started(&self, time: Option<Duration>) {
        let now = Instant::now();
        self.progress().started = Some((now, time.map(|t| now + t)));
    }

    /// The search finished a depth.
    pub fn finished(&self, report: &Report) {
        self.progress().last = Some(report.clone());
    }

    /// The answer of a search past its time, from its last depth, if it has one.
    fn late_answer(&self) -> Option<Outcome> {
        let progress = self.progress();
        let (started, _) = progress.started?;
        let mut report = progress.last.clone()?;
        report.elapsed = started.elapsed();
        let pv = report.lines.first().map(|l| l.pv.clone()).unwrap_or_default();
        Some(Outcome { best: pv.first().copied(), ponder: pv.get(1).copied(), report, stop_reason: StopReason::Time })
    }
}

/// Runs `work` on a search thread (see [`Engine::run`]), which reports to `watch`, and
/// answers from its last depth when it is more than [`LATE`] past its time.
pub async fn on_time<T: Send + 'static>(
    engine: &Arc<Engine>,
    until: Option<Instant>,
    watch: &Watch,
    work: impl FnOnce(&Engine, &AtomicBool) -> T + Send + 'static,
) -> Result<Answer<T>, EngineError> {
    let run = engine.run(until, work);
    tokio::pin!(run);
    loop {
        let started = watch.progress().started;
        let wake = match started {
            // Not started: look again soon.
            None => tokio::time::Instant::now() + Duration::from_millis(5),
            Some((_, Some(due))) => tokio::time::Instant::from_std(due + LATE),
            Some((_, None)) => tokio::time::Instant::now() + Duration::from_secs(3600),
        };
        tokio::select! {
            biased;
            done = &mut run => return done.map(Answer::Searched),
            _ = tokio::time::sleep_until(wake) => {
                if let Some((_, Some(due))) = started
                    && Instant::now() >= due + LATE
                    && let Some(outcome) = watch.late_answer()
                {
                    metrics::counter!("chuhe_searches_answered_late_total").increment(1);
                    return Ok(Answer::Late(outcome));
                }
            }
        }
    }
}
