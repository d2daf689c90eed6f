//! When a search must stop: the earliest of the caller's deadline, the move time and
//! the clock's part of the move's budget, each counted from the search's start.

use std::time::{Duration, Instant};

use chuhe::search::Limits;
use chuhe::search::time::{Budget, Clock};

/// The clock's part under test: a fixed time whatever the budget, so that the expected
/// deadline does not depend on how the budget is computed.
fn three_hundred_ms(_: Budget) -> Duration {
    Duration::from_millis(300)
}

const CLOCK: Clock = Clock { time: Duration::from_secs(60), increment: Duration::ZERO, moves_to_go: None };

#[test]
fn without_limits_there_is_no_deadline_but_the_callers() {
    let start = Instant::now();
    let none = Limits::default();
    assert_eq!(none.deadline(start, None, three_hundred_ms), None);
    let callers = start + Duration::from_millis(50);
    assert_eq!(none.deadline(start, Some(callers), three_hundred_ms), Some(callers));
}

#[test]
fn the_move_time_and_the_clock_count_from_the_start() {
    let start = Instant::now();
    let movetime = Limits { movetime: Some(Duration::from_millis(200)), ..Limits::default() };
    assert_eq!(movetime.deadline(start, None, three_hundred_ms), Some(start + Duration::from_millis(200)));
    let clock = Limits { clock: Some(CLOCK), ..Limits::default() };
    assert_eq!(clock.deadline(start, None, three_hundred_ms), Some(start + Duration::from_millis(300)));
    // Depth and node limits set no time.
    let counted = Limits { depth: Some(3), nodes: Some(1_000), ..Limits::default() };
    assert_eq!(counted.deadline(start, None, three_hundred_ms), None);
}

#[test]
fn the_earliest_of_the_three_applies() {
    let start = Instant::now();
    let at = |ms: u64| start + Duration::from_millis(ms);
    let all = |movetime: u64| Limits {
        movetime: Some(Duration::from_millis(movetime)),
        clock: Some(CLOCK),
        ..Limits::default()
    };
    // The clock's 300 ms against a move time of 200 or 400 ms and a caller's 100 or 500.
    assert_eq!(all(200).deadline(start, Some(at(500)), three_hundred_ms), Some(at(200)));
    assert_eq!(all(400).deadline(start, Some(at(500)), three_hundred_ms), Some(at(300)));
    assert_eq!(all(400).deadline(start, Some(at(100)), three_hundred_ms), Some(at(100)));
}
