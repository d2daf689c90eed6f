//! Fair play: the evidence of each ply ([`judge`]), a move-choice model calibrated on
//! a platform's honest games ([`choice`], [`calibrate`], [`model`]), and a player's
//! games assessed against it ([`assess`], [`statistics`]).
//!
//! Nothing here knows the API's messages: the command line, the RPCs and background
//! workers share it. The games come from records ([`games`]), or with their plies
//! already judged (an audit passed in); [`screen`] judges the rest over threads.

pub mod assess;
pub mod calibrate;
pub mod choice;
pub mod games;
pub mod judge;
pub mod model;
pub mod screen;
pub mod sides;
pub mod statistics;

/// A small deterministic generator (SplitMix64), for sampling from the model.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from its seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 bits.
    pub fn next_u64(&mut self) -> u64 {
        let (state, bits) = crate::rules::board::splitmix(self.0);
        self.0 = state;
        bits
    }

    /// A uniform draw in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform integer below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::choice::{Choice, Params};
    use super::statistics::{PositionTerms, Tally, mean_sd};
    use super::*;

    /// A position like an audit's: five lines falling away from a best value, and
    /// some more legal moves.
    fn position(rng: &mut Rng) -> Choice {
        let mut values = vec![rng.below(600) as i32 - 300];
        for _ in 0..4 {
            let last = *values.last().unwrap_or(&0);
            values.push(last - rng.below(150) as i32);
        }
        Choice::new(&values, 5 + rng.below(40) as usize, Some(1)).unwrap_or_else(|| unreachable!())
    }

    /// Honest players drawn from the model itself: the combined z is standard normal.
    #[test]
    fn players_drawn_from_the_model_have_standard_z_scores() {
        for (seed, params) in [(11, Params { s: 35.0, c: 0.8 }), (12, Params { s: 80.0, c: 1.4 })] {
            let mut rng = Rng::new(seed);
            let zs: Vec<f64> = (0..200)
                .map(|_| {
                    let mut tally = Tally::default();
                    for _ in 0..300 {
                        let mut c = position(&mut rng);
                        c.played = c.draw(&c.probabilities(params), rng.unit());
                        tally.add(&PositionTerms::of(&c, params));
                    }
                    tally.zs().combined
                })
                .collect();
            let (mean, sd) = mean_sd(&zs);
            let above = zs.iter().filter(|&&z| z > 2.33).count();
            assert!(mean.abs() <= 0.15, "mean {mean}");
            assert!((0.85..=1.15).contains(&sd), "spread {sd}");
            assert!(above <= 2, "{above} of 200 above 2.33");
        }
    }
}
