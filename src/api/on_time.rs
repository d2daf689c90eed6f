//! A search answered on its time. The time limit is kept by the search thread, which
//! can look at its clock only while it runs, and beside busy processes it may not run
//! for tens of milliseconds. So the call watches the time too: once the search is more
//! than [`LATE`] past its time, the call answers with the last depth the search finished
//! (the search stops when the call lets go of it). Every search RPC of every variant
//! runs its search through [`on_time`] or [`stream_on_time`], and `chuhe analyze`
//! through [`search_here`].

use std::pin::Pin;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use tokio_stream::Stream;

use super::proto;
use crate::engine::priority::thread_cpu_time;
use crate::engine::{Budget, Engine, EngineError, SearchStream};
use crate::search::{Outcome, Report, StopReason};

/// How far past its time a search may answer before the call answers for it.
pub const LATE: Duration = Duration::from_millis(3);

/// A search's answer, and how it came.
#[derive(Clone, Debug)]
pub struct Searched<M, S> {
    /// What the search found.
    pub outcome: Outcome<M, S>,
    /// Whether a move time (not the server's cap or the call's deadline) bounded it.
    pub movetime: bool,
    /// The CPU time the search thread got (up to its last finished depth when the call
    /// answered for it); none where it cannot be measured.
    pub cpu: Option<Duration>,
    /// The call answered from the last depth, the search thread being late.
    pub late: bool,
}

impl<M, S> Searched<M, S> {
    /// Whether the search's time ran out while it got much less CPU than that time:
    /// late, or less than half of a search of 20 ms or more that its time stopped. A
    /// search that reached its depth or nodes is as deep as asked, whatever its CPU.
    pub fn starved(&self) -> bool {
        let time = self.outcome.report.elapsed;
        let timed = self.outcome.stop_reason == StopReason::Time;
        self.late || (timed && self.cpu.is_some_and(|cpu| time >= Duration::from_millis(20) && cpu * 2 < time))
    }

    /// Writes the CPU the search got, and whether it was starved, into its answer.
    pub fn mark(&self, answer: &mut proto::AnalyzeResponse) {
        answer.cpu_ms = self.cpu.map_or(0, |cpu| cpu.as_millis() as u32);
        answer.starved = self.starved();
    }
}

/// What a running search tells its call: when its time is up, and its last depth.
struct Watch<M, S>(Arc<Mutex<Progress<M, S>>>);

impl<M, S> Clone for Watch<M, S> {
    fn clone(&self) -> Self {
        Self(self.0.clone())
    }
}

struct Progress<M, S> {
    /// When the search started, when its time is up (none: no time limit), and whether
    /// a move time bounds it.
    started: Option<(Instant, Option<Instant>, bool)>,
    /// The last finished depth, with the CPU the search thread had used by then.
    last: Option<(Report<M, S>, Option<Duration>)>,
}

impl<M: Clone, S: Copy> Watch<M, S> {
    fn new() -> Self {
        Self(Arc::new(Mutex::new(Progress { started: None, last: None })))
    }

    fn progress(&self) -> MutexGuard<'_, Progress<M, S>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// When the call should look again whether the search is late: [`LATE`] past its
    /// time, soon while it has not started, never (in practice) without a time limit.
    fn wake(&self) -> Instant {
        match self.progress().started {
            None => Instant::now() + Duration::from_millis(5),
            Some((_, Some(due), _)) => due + LATE,
            Some((_, None, _)) => Instant::now() + Duration::from_secs(3600),
        }
    }

    /// The answer of a search more than [`LATE`] past its time, from its last depth, if
    /// it is that late and has one.
    fn late_answer(&self) -> Option<Searched<M, S>> {
        let progress = self.progress();
        let (started, Some(due), movetime) = progress.started? else { return None };
        if Instant::now() < due + LATE {
            return None;
        }
        let (mut report, cpu) = progress.last.clone()?;
        report.elapsed = started.elapsed();
        let pv = report.lines.first().map(|l| l.pv.clone()).unwrap_or_default();
        let outcome =
            Outcome { best: pv.first().cloned(), ponder: pv.get(1).cloned(), report, stop_reason: StopReason::Time };
        metrics::counter!("chuhe_searches_answered_late_total").increment(1);
        Some(Searched { outcome, movetime, cpu, late: true })
    }

    /// Runs `search` on the calling (search) thread with the time `budget` gives from
    /// now, reporting each finished depth here and to `on_depth`.
    fn search(
        &self,
        budget: &Budget,
        on_depth: &mut dyn FnMut(&Report<M, S>),
        search: impl FnOnce(Option<Duration>, &mut dyn FnMut(&Report<M, S>)) -> Outcome<M, S>,
    ) -> Searched<M, S> {
        let before = thread_cpu_time();
        let used = move || thread_cpu_time().zip(before).map(|(now, before)| now.saturating_sub(before));
        let (time, movetime) = budget.from_now();
        let now = Instant::now();
        self.progress().started = Some((now, time.map(|t| now + t), movetime));
        let outcome = search(time, &mut |report| {
            self.progress().last = Some((report.clone(), used()));
            on_depth(report);
        });
        if budget.until.is_some_and(|until| Instant::now() > until) {
            // Its answer leaves after the point its call's deadline left for it.
            metrics::counter!("chuhe_searches_past_deadline_total").increment(1);
        }
        Searched { outcome, movetime, cpu: used(), late: false }
    }
}

/// The search a call runs on a search thread: given the engine, the stop flag, the time
/// from its start (none: no time limit) and what sees each finished depth.
pub trait SearchWork<M, S>:
    FnOnce(&Engine, &AtomicBool, Option<Duration>, &mut dyn FnMut(&Report<M, S>)) -> Outcome<M, S> + Send + 'static
{
}

impl<M, S, F> SearchWork<M, S> for F where
    F: FnOnce(&Engine, &AtomicBool, Option<Duration>, &mut dyn FnMut(&Report<M, S>)) -> Outcome<M, S> + Send + 'static
{
}

/// Runs `work` on a search thread (admitted as [`Engine::run`] admits it) within
/// `budget`, and answers from its last depth when it is more than [`LATE`] past its time.
pub async fn on_time<M, S>(
    engine: &Arc<Engine>,
    budget: Budget,
    work: impl SearchWork<M, S>,
) -> Result<Searched<M, S>, EngineError>
where
    M: Clone + Send + 'static,
    S: Copy + Send + 'static,
{
    let watch = Watch::new();
    let reports = watch.clone();
    let run = engine.run(budget.until, move |engine, stop| {
        reports.search(&budget, &mut |_| {}, |time, on_depth| work(engine, stop, time, on_depth))
    });
    tokio::pin!(run);
    loop {
        let wake = tokio::time::Instant::from_std(watch.wake());
        tokio::select! {
            biased;
            done = &mut run => return done,
            _ = tokio::time::sleep_until(wake) => {
                if let Some(late) = watch.late_answer() {
                    return Ok(late);
                }
            }
        }
    }
}

/// Runs `work` on the calling thread within `budget` (no call waits for it: `chuhe
/// analyze`), `on_depth` seeing each finished depth; the answer gives its CPU as
/// [`on_time`]'s does.
pub fn search_here<M: Clone, S: Copy>(
    engine: &Engine,
    budget: Budget,
    on_depth: &mut dyn FnMut(&Report<M, S>),
    work: impl SearchWork<M, S>,
) -> Searched<M, S> {
    let stop = AtomicBool::new(false);
    Watch::new().search(&budget, on_depth, |time, on_depth| work(engine, &stop, time, on_depth))
}

/// What a streamed search's call does with it: one message per finished depth, and the
/// final message of its answer (made on the search thread, or by the call when the
/// search is late).
pub struct StreamMessages<M, S, T> {
    /// The message of a finished depth.
    pub progress: Message<Report<M, S>, T>,
    /// The final message of the answer.
    pub last: Message<Searched<M, S>, T>,
}

/// How a stream's message `T` is made from what the search told of itself.
pub type Message<From, T> = Box<dyn Fn(&Engine, &From) -> T + Send + Sync>;

/// [`on_time`] as a stream: a message per finished depth, then the final one. When the
/// search thread is more than [`LATE`] past its time, the stream ends with the final
/// message of its last depth (and the search stops).
pub async fn stream_on_time<M, S, T>(
    engine: &Arc<Engine>,
    budget: Budget,
    messages: StreamMessages<M, S, T>,
    work: impl SearchWork<M, S>,
) -> Result<SearchStream<T>, EngineError>
where
    M: Clone + Send + 'static,
    S: Copy + Send + 'static,
    T: Send + 'static,
{
    let watch = Watch::new();
    let reports = watch.clone();
    let messages = Arc::new(messages);
    let on_thread = messages.clone();
    let inner = engine
        .stream(budget.until, move |engine, stop, send: &mut dyn FnMut(Sent<T>)| {
            let mut on_depth = |report: &Report<M, S>| send(Sent::Progress((on_thread.progress)(engine, report)));
            let searched = reports.search(&budget, &mut on_depth, |time, on_depth| work(engine, stop, time, on_depth));
            send(Sent::Last((on_thread.last)(engine, &searched)));
        })
        .await?;
    let timer = Box::pin(tokio::time::sleep_until(tokio::time::Instant::from_std(watch.wake())));
    Ok(Box::pin(OnTimeStream { inner, watch, messages, engine: engine.clone(), timer, ended: false }))
}

/// A message of a streamed search thread.
enum Sent<T> {
    Progress(T),
    Last(T),
}

/// The stream of [`stream_on_time`].
struct OnTimeStream<M, S, T> {
    inner: SearchStream<Sent<T>>,
    watch: Watch<M, S>,
    messages: Arc<StreamMessages<M, S, T>>,
    engine: Arc<Engine>,
    timer: Pin<Box<tokio::time::Sleep>>,
    ended: bool,
}

impl<M: Clone, S: Copy, T> Stream for OnTimeStream<M, S, T> {
    type Item = T;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        if self.ended {
            return Poll::Ready(None);
        }
        if let Poll::Ready(sent) = self.inner.as_mut().poll_next(cx) {
            return Poll::Ready(match sent {
                Some(Sent::Progress(message)) => Some(message),
                Some(Sent::Last(message)) => {
                    self.ended = true;
                    Some(message)
                }
                None => None,
            });
        }
        loop {
            ready!(self.timer.as_mut().poll(cx));
            if let Some(late) = self.watch.late_answer() {
                self.ended = true;
                return Poll::Ready(Some((self.messages.last)(&self.engine, &late)));
            }
            let wake = tokio::time::Instant::from_std(self.watch.wake());
            self.timer.as_mut().reset(wake);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::EngineConfig;
    use crate::rules::types::Move;
    use crate::search::{Line, Score};
    use tokio_stream::StreamExt;

    fn engine() -> Arc<Engine> {
        Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() })
    }

    fn report(depth: u32) -> Report {
        let pv = vec![Move::parse_iccs("h2e2").unwrap(), Move::parse_iccs("h9g7").unwrap()];
        let lines = vec![Line { score: Score::Centipawns(depth as i32), pv }];
        Report { depth, seldepth: depth, nodes: 100, elapsed: Duration::ZERO, lines, hashfull: 0 }
    }

    /// A search thread that finishes depth 1 and then gets no CPU (it sleeps until
    /// stopped), as beside busy processes: its time is 30 ms.
    fn starved_work(
        engine: &Engine,
        stop: &AtomicBool,
        time: Option<Duration>,
        on_depth: &mut dyn FnMut(&Report),
    ) -> Outcome {
        let _ = engine;
        assert_eq!(time, Some(Duration::from_millis(30)));
        on_depth(&report(1));
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(1));
        }
        Outcome { best: None, ponder: None, report: report(99), stop_reason: StopReason::Stopped }
    }

    fn budget() -> Budget {
        Budget { time: Some(Duration::from_millis(30)), movetime: true, until: None }
    }

    #[tokio::test]
    async fn a_late_search_is_answered_from_its_last_depth() {
        let searched = on_time(&engine(), budget(), starved_work).await.unwrap();
        assert!(searched.late && searched.starved());
        assert_eq!(searched.outcome.report.depth, 1);
        assert_eq!(searched.outcome.best, Move::parse_iccs("h2e2"));
        assert_eq!(searched.outcome.ponder, Move::parse_iccs("h9g7"));
        assert_eq!(searched.outcome.stop_reason, StopReason::Time);
        assert!(searched.outcome.report.elapsed >= Duration::from_millis(30) + LATE);
    }

    #[tokio::test]
    async fn a_search_on_time_is_answered_by_its_thread() {
        let work = |_: &Engine, _: &AtomicBool, _: Option<Duration>, on_depth: &mut dyn FnMut(&Report)| {
            on_depth(&report(1));
            Outcome { best: None, ponder: None, report: report(7), stop_reason: StopReason::Depth }
        };
        let searched = on_time(&engine(), budget(), work).await.unwrap();
        assert!(!searched.late);
        assert_eq!((searched.outcome.report.depth, searched.outcome.stop_reason), (7, StopReason::Depth));
    }

    #[tokio::test]
    async fn a_late_stream_ends_with_its_last_depth() {
        let messages = StreamMessages {
            progress: Box::new(|_: &Engine, r: &Report| (r.depth, false)),
            last: Box::new(|_: &Engine, s: &Searched<Move, Score>| (s.outcome.report.depth, s.late)),
        };
        let stream = stream_on_time(&engine(), budget(), messages, starved_work).await.unwrap();
        let sent: Vec<(u32, bool)> = stream.collect().await;
        assert_eq!(sent, [(1, false), (1, true)]);
    }
}
