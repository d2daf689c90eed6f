//! A circuit breaker for the store: after a few failures in a row the store is skipped
//! for a while (every call goes on without it at no cost), then one operation probes
//! it; an answer closes the breaker again, a failure keeps it open.

use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failures in a row that open the breaker.
pub const FAILURES_TO_OPEN: u32 = 3;
/// How long an open breaker skips the store before it lets one operation probe it.
pub const OPEN_FOR: Duration = Duration::from_secs(5);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    /// The store is used; `failures` in a row so far.
    Closed { failures: u32 },
    /// The store is skipped until then.
    Open { until: Instant },
    /// One operation probes the store; the others skip it. A probe whose caller went
    /// away without an answer is given up after [`OPEN_FOR`].
    Probing { since: Instant },
}

/// What a call to [`Breaker::succeeded`] or [`Breaker::failed`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing to report.
    None,
    /// The breaker opened: the store is skipped.
    Opened,
    /// The breaker closed: the store answers again.
    Closed,
}

/// The breaker of one store.
pub struct Breaker {
    state: Mutex<State>,
}

impl Default for Breaker {
    fn default() -> Breaker {
        Breaker { state: Mutex::new(State::Closed { failures: 0 }) }
    }
}

impl Breaker {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// May an operation use the store now? While open, no; once open long enough,
    /// yes for one operation (the probe).
    pub fn admit(&self, now: Instant) -> bool {
        let mut state = self.state();
        match *state {
            State::Closed { .. } => true,
            State::Open { until } | State::Probing { since: until } if now < until => false,
            State::Open { .. } | State::Probing { .. } => {
                *state = State::Probing { since: now + OPEN_FOR };
                true
            }
        }
    }

    /// The store answered.
    pub fn succeeded(&self) -> Change {
        let mut state = self.state();
        let was_open = !matches!(*state, State::Closed { .. });
        *state = State::Closed { failures: 0 };
        if was_open { Change::Closed } else { Change::None }
    }

    /// The store failed or did not answer in time.
    pub fn failed(&self, now: Instant) -> Change {
        let mut state = self.state();
        match *state {
            State::Closed { failures } if failures + 1 < FAILURES_TO_OPEN => {
                *state = State::Closed { failures: failures + 1 };
                Change::None
            }
            State::Closed { .. } => {
                *state = State::Open { until: now + OPEN_FOR };
                Change::Opened
            }
            // A failed probe, or an operation admitted before the breaker opened.
            State::Open { .. } | State::Probing { .. } => {
                *state = State::Open { until: now + OPEN_FOR };
                Change::None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_opens_after_failures_in_a_row_and_one_probe_closes_it() {
        let breaker = Breaker::default();
        let t0 = Instant::now();
        for _ in 1..FAILURES_TO_OPEN {
            assert_eq!(breaker.failed(t0), Change::None);
            assert!(breaker.admit(t0));
        }
        // An answer in between starts the count again.
        assert_eq!(breaker.succeeded(), Change::None);
        for _ in 1..FAILURES_TO_OPEN {
            breaker.failed(t0);
        }
        assert_eq!(breaker.failed(t0), Change::Opened);
        assert!(!breaker.admit(t0));
        assert!(!breaker.admit(t0 + OPEN_FOR - Duration::from_millis(1)));
        // One probe, and no other operation while it is out.
        let later = t0 + OPEN_FOR;
        assert!(breaker.admit(later));
        assert!(!breaker.admit(later));
        // A failed probe keeps it open for another while.
        assert_eq!(breaker.failed(later), Change::None);
        assert!(!breaker.admit(later + OPEN_FOR - Duration::from_millis(1)));
        let again = later + OPEN_FOR;
        assert!(breaker.admit(again));
        assert_eq!(breaker.succeeded(), Change::Closed);
        assert!(breaker.admit(again) && breaker.admit(again));
    }

    #[test]
    fn a_probe_that_never_answers_is_given_up() {
        let breaker = Breaker::default();
        let t0 = Instant::now();
        for _ in 0..FAILURES_TO_OPEN {
            breaker.failed(t0);
        }
        let probe = t0 + OPEN_FOR;
        assert!(breaker.admit(probe));
        assert!(!breaker.admit(probe + OPEN_FOR - Duration::from_millis(1)));
        assert!(breaker.admit(probe + OPEN_FOR), "another probe once the first is given up");
    }
}
