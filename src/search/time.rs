//! Time management for a game on a clock: how long to think about one move.
//!
//! From the time left, the increment and the moves to the next time control, a move
//! gets a *soft* budget (the time it should normally take) and a *hard* one (never
//! more, whatever the position). The search stops deepening once the next depth would
//! likely end past the soft budget, scaled after each depth by how the search is going:
//! more time when the best move keeps changing or the score falls, less when the same
//! move has stood for several depths. The hard budget is a deadline the search obeys
//! in the middle of a depth.

use std::time::Duration;

/// A clock as the side to move sees it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    /// Time left on the clock.
    pub time: Duration,
    /// Added to the clock after each move.
    pub increment: Duration,
    /// Moves until the next time control (`None`: the rest of the game).
    pub moves_to_go: Option<u32>,
}

/// What the search may spend on one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// What a move normally takes.
    pub soft: Duration,
    /// Never more than this.
    pub hard: Duration,
}

/// Kept back from every move for the time it takes to answer (process, pipes, a
/// loaded machine).
const OVERHEAD: Duration = Duration::from_millis(30);
/// Moves the rest of the game is assumed to last without a `movestogo`.
const MOVES_LEFT: u32 = 30;
/// The hard budget: this many soft budgets, and at most this share of the clock.
const HARD_PER_SOFT: u32 = 4;
const HARD_SHARE: f64 = 0.4;

impl Clock {
    /// The budget of the next move.
    pub fn budget(&self) -> Budget {
        let usable = self.time.saturating_sub(OVERHEAD);
        let moves = self.moves_to_go.unwrap_or(MOVES_LEFT).clamp(1, MOVES_LEFT);
        // With one move to the control, all of what is usable may go.
        let share = if moves == 1 { 0.9 } else { HARD_SHARE };
        let ceiling = usable.mul_f64(share);
        let soft = (usable / moves + self.increment.mul_f64(0.75)).min(ceiling);
        let hard = (soft * HARD_PER_SOFT).min(ceiling);
        let floor = Duration::from_millis(1);
        Budget { soft: soft.max(floor), hard: hard.max(floor) }
    }
}

/// The soft budget after a completed depth, scaled by how the search is going.
#[derive(Clone, Debug)]
pub(crate) struct Pacer {
    soft: Duration,
    hard: Duration,
    last_best: Option<crate::rules::types::Move>,
    /// Depths in a row that ended on the same best move.
    stable: u32,
    last_score: Option<i32>,
}

impl Pacer {
    pub(crate) fn new(budget: Budget) -> Pacer {
        Pacer { soft: budget.soft, hard: budget.hard, last_best: None, stable: 0, last_score: None }
    }

    /// After a completed depth with this best move and score (centipawns from the
    /// side to move's view; mates are large): may the search start another depth,
    /// having spent `elapsed`?
    pub(crate) fn another_depth(
        &mut self,
        best: Option<crate::rules::types::Move>,
        score: i32,
        elapsed: Duration,
    ) -> bool {
        if best == self.last_best {
            self.stable += 1;
        } else {
            self.stable = 0;
        }
        self.last_best = best;
        // A changing best move needs more time; one that stands, less.
        let stability = match self.stable {
            0 => 1.6,
            1 => 1.2,
            2 => 1.0,
            3 => 0.85,
            _ => 0.7,
        };
        // A falling score: up to half as much again.
        let drop = self.last_score.map_or(0, |last| (last - score).clamp(0, 100));
        self.last_score = Some(score);
        let falling = 1.0 + drop as f64 / 200.0;
        let target = self.soft.mul_f64(stability * falling).min(self.hard);
        // The next depth takes about as long as all before it: do not start it if it
        // would end well past the target.
        elapsed.mul_f64(1.8) < target
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_budget_stays_within_the_clock() {
        for time in [0, 1, 10, 31, 50, 100, 1_000, 10_000, 600_000] {
            for inc in [0, 10, 100, 1_000] {
                for mtg in [None, Some(1), Some(2), Some(40)] {
                    let clock = Clock { time: ms(time), increment: ms(inc), moves_to_go: mtg };
                    let b = clock.budget();
                    assert!(b.soft <= b.hard, "{clock:?} {b:?}");
                    // Never more than the clock holds less the overhead (or 1 ms).
                    assert!(b.hard <= ms(time).saturating_sub(OVERHEAD).max(ms(1)), "{clock:?} {b:?}");
                }
            }
        }
    }

    #[test]
    fn more_time_and_increment_give_more_per_move() {
        let at = |time, inc, mtg| Clock { time: ms(time), increment: ms(inc), moves_to_go: mtg }.budget().soft;
        assert!(at(60_000, 0, None) > at(10_000, 0, None));
        assert!(at(10_000, 1_000, None) > at(10_000, 0, None));
        assert!(at(10_000, 0, Some(2)) > at(10_000, 0, Some(20)));
        // Sudden death with 60 s: about 2 s a move.
        assert_eq!(at(60_000, 0, None), ms(59_970) / 30);
    }

    #[test]
    fn a_changing_best_move_or_a_falling_score_gets_more_time() {
        let m = |s: &str| crate::rules::types::Move::parse_iccs(s);
        let budget = Budget { soft: ms(100), hard: ms(400) };
        // The same move at every depth: it stops sooner than when the move changes.
        let spent = |moves: &dyn Fn(usize) -> &'static str, score: &dyn Fn(usize) -> i32| {
            let mut pacer = Pacer::new(budget);
            let mut elapsed = ms(1);
            for depth in 0..20 {
                if !pacer.another_depth(m(moves(depth)), score(depth), elapsed) {
                    break;
                }
                elapsed = elapsed * 3 / 2;
            }
            elapsed
        };
        let same = |_| "h2e2";
        let changing = |d: usize| if d.is_multiple_of(2) { "h2e2" } else { "b2e2" };
        let flat = |_| 20;
        let falling = |d: usize| 1_000 - 100 * d as i32;
        assert!(spent(&changing, &flat) > spent(&same, &flat));
        assert!(spent(&same, &falling) > spent(&same, &flat));
        // Never a depth started past the hard budget.
        let mut pacer = Pacer::new(budget);
        assert!(!pacer.another_depth(m("h2e2"), 0, ms(400)));
    }
}
