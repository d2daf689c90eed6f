//! A tenant's quotas (calls at once, calls per second, searches at once, search
//! milliseconds per minute), held for each admitted call until its response ends, and
//! the refusal of a call over one of them: RESOURCE_EXHAUSTED with a
//! `google.rpc.QuotaFailure` (the quota) and a `google.rpc.RetryInfo` (when to try
//! again).
//!
//! A refusal may be held back before it is answered, for as long as the call would
//! have waited in line for its quota (at most the server's longest hold, and half the
//! client's deadline). A client that retries at once, however many calls it keeps
//! going, is then slowed to about its quota's pace instead of costing the server a
//! refusal per round trip; that is what keeps a flooding tenant from taking the
//! machine from the others. The refusals a tenant has held at once are capped; past
//! the cap they are answered at once.

use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use http_body::Frame;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tonic::Status;
use tonic::body::Body;
use tonic_types::{ErrorDetails, StatusExt};

/// How long a tenant at its calls or searches at once is asked to wait: no time is
/// known, so a short one.
const RETRY_AT_ONCE: Duration = Duration::from_millis(250);

/// The most refusals of one tenant held back at once.
pub const MAX_HELD_REFUSALS: usize = 256;

/// A tenant's quotas and their state.
pub(super) struct Quotas {
    at_once: Option<Arc<Semaphore>>,
    pub(super) rate: Option<Mutex<Bucket>>,
    searches: Option<Arc<Semaphore>>,
    search_time: Option<Arc<Mutex<Bucket>>>,
    /// Refusals being held back.
    held_refusals: Arc<AtomicUsize>,
}

/// A call refused over one of its tenant's quotas.
pub(super) struct Refusal {
    /// Why, as a metric label.
    pub(super) reason: &'static str,
    /// The quota, as named in the keys file.
    pub(super) quota: &'static str,
    what: &'static str,
    /// When the tenant may try again, as of the refusal.
    retry: Duration,
    /// How long the call would have waited in line for its quota.
    in_line: Duration,
}

impl Refusal {
    /// The status of the refusal of `tenant`'s call, answered `held` after it was
    /// refused: the time to try again counts from the answer (at least a millisecond).
    pub(super) fn status(&self, tenant: &str, held: Duration) -> Status {
        let retry = self.retry.saturating_sub(held).max(Duration::from_millis(1));
        let mut details = ErrorDetails::new();
        details.add_quota_failure_violation(format!("tenant:{tenant}"), format!("{}: {}", self.quota, self.what));
        details.set_retry_info(Some(retry));
        let message = format!("tenant {tenant} is over its {}; retry in {} ms", self.quota, retry.as_millis());
        Status::with_error_details(tonic::Code::ResourceExhausted, message, details)
    }
}

/// One of a tenant's held-back refusals, counted until dropped.
pub(super) struct HeldRefusal(Arc<AtomicUsize>);

impl Drop for HeldRefusal {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Quotas {
    /// Quotas as a keys file's entry gives them (`None`: not applied).
    pub(super) fn new(
        max_concurrent_calls: Option<usize>,
        calls_per_second: Option<f64>,
        max_concurrent_searches: Option<usize>,
        search_ms_per_minute: Option<u64>,
    ) -> Quotas {
        Quotas {
            at_once: max_concurrent_calls.map(|n| Arc::new(Semaphore::new(n))),
            rate: calls_per_second.map(|per_second| Mutex::new(Bucket::new(per_second, per_second.max(1.0)))),
            searches: max_concurrent_searches.map(|n| Arc::new(Semaphore::new(n))),
            search_time: search_ms_per_minute.map(|ms| {
                let ms = ms as f64;
                Arc::new(Mutex::new(Bucket::new(ms / 60.0, ms)))
            }),
            held_refusals: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Holds the tenant to its quotas for one call (`search`: a call that runs a
    /// search), or says which one refuses it.
    pub(super) fn admit(&self, search: bool) -> Result<Held, Refusal> {
        if let Some(rate) = &self.rate
            && let Ok(mut bucket) = rate.lock()
            && let Err(retry) = bucket.take()
        {
            // Refusals already held stand before this one in the line.
            let ahead = self.held_refusals.load(Ordering::Relaxed) as f64;
            let in_line = bucket.until(1.0 + ahead);
            let (reason, quota, what) = ("rate", "calls_per_second", "no call left this second");
            return Err(Refusal { reason, quota, what, retry, in_line });
        }
        let mut held = Held { permits: Vec::new(), search_time: None };
        let at_once =
            |reason, quota, what| Refusal { reason, quota, what, retry: RETRY_AT_ONCE, in_line: RETRY_AT_ONCE };
        if let Some(calls) = &self.at_once {
            let permit = calls
                .clone()
                .try_acquire_owned()
                .map_err(|_| at_once("concurrency", "max_concurrent_calls", "all its calls at once are running"))?;
            held.permits.push(permit);
        }
        if !search {
            return Ok(held);
        }
        if let Some(time) = &self.search_time {
            if let Err(retry) = time.lock().map_or(Ok(()), |mut bucket| bucket.any_left()) {
                let (reason, quota, what) = ("search_time", "search_ms_per_minute", "no search time left this minute");
                return Err(Refusal { reason, quota, what, retry, in_line: retry });
            }
            held.search_time = Some((time.clone(), Instant::now()));
        }
        if let Some(searches) = &self.searches {
            let permit = searches
                .clone()
                .try_acquire_owned()
                .map_err(|_| at_once("searches", "max_concurrent_searches", "all its searches at once are running"))?;
            held.permits.push(permit);
        }
        Ok(held)
    }

    /// How long to hold `refusal` back before answering it: the time it would have
    /// waited in line, at most `longest` and half the client's deadline (`timeout`),
    /// so that the client reads the refusal, not its own deadline. `None`: answer at
    /// once (no wait, or the tenant's held refusals are at their cap).
    pub(super) fn hold(
        &self,
        refusal: &Refusal,
        longest: Duration,
        timeout: Option<Duration>,
    ) -> Option<(Duration, HeldRefusal)> {
        let hold = refusal.in_line.min(longest).min(timeout.map_or(Duration::MAX, |t| t / 2));
        if hold < Duration::from_millis(1) {
            return None;
        }
        let held = self.held_refusals.fetch_add(1, Ordering::Relaxed);
        let slot = HeldRefusal(self.held_refusals.clone());
        (held < MAX_HELD_REFUSALS).then_some((hold, slot))
    }
}

/// A token bucket: `per_second` tokens a second, up to `capacity`. Tokens may go below
/// zero when more is charged than there was (a search that ran longer than was left).
pub(super) struct Bucket {
    pub(super) per_second: f64,
    capacity: f64,
    tokens: f64,
    pub(super) last: Instant,
}

impl Bucket {
    /// A full bucket.
    pub(super) fn new(per_second: f64, capacity: f64) -> Bucket {
        Bucket { per_second, capacity, tokens: capacity, last: Instant::now() }
    }

    fn refill(&mut self) {
        let now = Instant::now();
        self.tokens = (self.tokens + now.duration_since(self.last).as_secs_f64() * self.per_second).min(self.capacity);
        self.last = now;
    }

    /// Takes one token, or says how long until there is one.
    fn take(&mut self) -> Result<(), Duration> {
        self.refill();
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            Ok(())
        } else {
            Err(self.until(1.0))
        }
    }

    /// Whether any token is left, or how long until one is.
    fn any_left(&mut self) -> Result<(), Duration> {
        self.refill();
        if self.tokens > 0.0 { Ok(()) } else { Err(self.until(1.0)) }
    }

    fn charge(&mut self, tokens: f64) {
        self.refill();
        self.tokens -= tokens;
    }

    /// The time until the bucket holds `tokens`.
    fn until(&self, tokens: f64) -> Duration {
        Duration::from_secs_f64(((tokens - self.tokens) / self.per_second).clamp(0.0, 3600.0))
    }
}

/// What a tenant's admitted call holds until its response ends.
pub(super) struct Held {
    permits: Vec<OwnedSemaphorePermit>,
    /// The tenant's search time, charged with the call's time when it ends.
    search_time: Option<(Arc<Mutex<Bucket>>, Instant)>,
}

impl Held {
    pub(super) fn is_empty(&self) -> bool {
        self.permits.is_empty() && self.search_time.is_none()
    }

    pub(super) fn around(self, inner: Body) -> HoldingBody {
        HoldingBody { inner, _held: self }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if let Some((bucket, started)) = self.search_time.take()
            && let Ok(mut bucket) = bucket.lock()
        {
            bucket.charge(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
}

/// A response body that holds what its tenant's call took until it is dropped.
pub(super) struct HoldingBody {
    inner: Body,
    _held: Held,
}

impl http_body::Body for HoldingBody {
    type Data = bytes::Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_refills_at_its_rate() {
        let mut bucket = Bucket::new(2.0, 2.0);
        assert!(bucket.take().is_ok() && bucket.take().is_ok());
        let retry = bucket.take().unwrap_err();
        assert!(retry > Duration::from_millis(400) && retry <= Duration::from_millis(500), "{retry:?}");
        bucket.last -= Duration::from_millis(600);
        assert!(bucket.take().is_ok());
    }

    #[test]
    fn search_time_may_be_overspent_and_is_then_waited_for() {
        // 60 s a minute: a millisecond a millisecond.
        let mut time = Bucket::new(1_000.0, 60_000.0);
        assert!(time.any_left().is_ok());
        time.charge(61_000.0);
        let retry = time.any_left().unwrap_err();
        assert!(retry > Duration::from_millis(900) && retry <= Duration::from_millis(1_001), "{retry:?}");
        time.last -= Duration::from_millis(1_100);
        assert!(time.any_left().is_ok());
    }

    #[test]
    fn a_refusal_is_held_as_long_as_its_place_in_line_and_no_longer_than_the_caps() {
        // A call every 100 s, and a burst of one: the second call is refused, and waits
        // in line behind the refusals already held.
        let quotas = Quotas::new(None, Some(0.01), None, None);
        assert!(quotas.admit(false).is_ok());
        let long = Duration::from_secs(3600);
        let mut slots = Vec::new();
        let mut last = Duration::ZERO;
        for ahead in 0..5 {
            let refusal = quotas.admit(false).err().expect("over the rate");
            assert_eq!(refusal.quota, "calls_per_second");
            let (hold, slot) = quotas.hold(&refusal, long, None).expect("held");
            // The (ahead + 1)th token comes (ahead + 1) x 100 s after the first call
            // (this test takes far less than the second allowed for).
            let expected = Duration::from_secs(100 * (ahead + 1));
            assert!(hold <= expected && hold + Duration::from_secs(1) > expected, "{ahead}: {hold:?}");
            assert!(hold > last, "each refusal stands behind the ones held before it");
            last = hold;
            slots.push(slot);
        }
        // Capped by the server's longest hold and by half the client's deadline.
        let refusal = quotas.admit(false).err().unwrap();
        assert_eq!(quotas.hold(&refusal, Duration::from_millis(50), None).unwrap().0, Duration::from_millis(50));
        let refusal = quotas.admit(false).err().unwrap();
        let by_deadline = quotas.hold(&refusal, long, Some(Duration::from_millis(60))).unwrap().0;
        assert_eq!(by_deadline, Duration::from_millis(30));
        // No hold at all when the server holds none.
        assert!(quotas.hold(&refusal, Duration::ZERO, None).is_none());
        // Dropped slots leave the line.
        assert_eq!(quotas.held_refusals.load(Ordering::Relaxed), 5);
        slots.clear();
        assert_eq!(quotas.held_refusals.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn past_the_cap_refusals_are_answered_at_once() {
        let quotas = Quotas::new(Some(0), None, None, None);
        let refusal = quotas.admit(false).err().expect("no call at once is allowed");
        assert_eq!(refusal.quota, "max_concurrent_calls");
        let slots: Vec<_> = (0..MAX_HELD_REFUSALS)
            .map(|_| quotas.hold(&refusal, Duration::from_secs(1), None).expect("held"))
            .collect();
        assert!(slots.iter().all(|(hold, _)| *hold == RETRY_AT_ONCE));
        assert!(quotas.hold(&refusal, Duration::from_secs(1), None).is_none(), "past the cap");
        assert_eq!(quotas.held_refusals.load(Ordering::Relaxed), MAX_HELD_REFUSALS);
        drop(slots);
        assert!(quotas.hold(&refusal, Duration::from_secs(1), None).is_some(), "room again");
    }

    #[test]
    fn the_time_to_try_again_counts_from_the_answer() {
        let quotas = Quotas::new(Some(0), None, None, None);
        let refusal = quotas.admit(false).err().unwrap();
        let retry = |status: Status| status.get_error_details().retry_info().and_then(|r| r.retry_delay).unwrap();
        assert_eq!(retry(refusal.status("t", Duration::ZERO)), RETRY_AT_ONCE);
        assert_eq!(retry(refusal.status("t", Duration::from_millis(200))), Duration::from_millis(50));
        assert_eq!(retry(refusal.status("t", RETRY_AT_ONCE)), Duration::from_millis(1));
        let status = refusal.status("t", Duration::ZERO);
        assert_eq!(status.code(), tonic::Code::ResourceExhausted);
        let failure = status.get_error_details().quota_failure().cloned().unwrap();
        assert_eq!(failure.violations[0].subject, "tenant:t");
        assert!(failure.violations[0].description.starts_with("max_concurrent_calls: "));
    }
}
