//! The move-choice model: how likely a player of given skill is to play each
//! candidate of a position, from how much worse than the best it is.
//!
//! A candidate whose value is `v` where the best is `v0` (centipawns, mover's view) has
//! the scaled deficit `d = S(v0) - S(v)`, `S(v) = 100 sign(v) ln(1 + |v|/100)`: a
//! centipawn counts less the more one side is ahead (Regan's scaling, the integral of
//! `1 / (1 + |v|/100)`), values clamped to ±[`VALUE_CLAMP`] first. A player of
//! sensitivity `s` and consistency `c` plays candidate i with probability
//!
//! ```text
//! p_i = w_i / Σ_j w_j,   w_i = exp(-(d_i / s)^c)
//! ```
//!
//! so the best move (d = 0) has the largest weight, a small `s` is a sharper player
//! and `c` says how fast a worse move becomes unthinkable. The candidates are the
//! engine's lines; the legal moves beyond them count once each at the last line's
//! deficit (a lower bound of theirs), and a played move beyond the lines is observed at
//! that deficit too, so that the model and what it is compared with agree.

/// Values beyond this many centipawns either way count as this (mates included).
pub const VALUE_CLAMP: i32 = 2000;

/// The scale `S` of a value.
fn scaled(cp: i32) -> f64 {
    let v = f64::from(cp.clamp(-VALUE_CLAMP, VALUE_CLAMP));
    100.0 * v.signum() * (1.0 + v.abs() / 100.0).ln()
}

/// The scaled deficit of a candidate valued `cp` where the best is `best`.
pub fn scaled_deficit(best: i32, cp: i32) -> f64 {
    (scaled(best) - scaled(cp)).max(0.0)
}

/// What one counted position offers: the lines' deficits and the played slot.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// Scaled deficit of each line, best first (the first is 0).
    pub deficits: Vec<f64>,
    /// Raw centipawn loss of each line (capped as the audit caps it).
    pub losses: Vec<f64>,
    /// Legal moves beyond the lines, each at the last line's deficit and loss.
    pub tail: u32,
    /// The slot played: a line's index, or `deficits.len()` for a move beyond them.
    pub played: usize,
}

/// Model parameters: sensitivity `s` (scaled centipawns) and consistency `c`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Params {
    /// Sensitivity: the deficit at which a move's weight is 1/e.
    pub s: f64,
    /// Consistency: the exponent of the deficit.
    pub c: f64,
}

/// The statistics a position is judged by, per slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Statistic {
    /// 1 when the engine's first line is played.
    Top1,
    /// 1 when one of its first three lines is played.
    Top3,
    /// The scaled deficit of the move played.
    ScaledError,
    /// Its centipawn loss.
    Loss,
}

impl Statistic {
    /// Every statistic.
    pub const ALL: [Statistic; 4] = [Statistic::Top1, Statistic::Top3, Statistic::ScaledError, Statistic::Loss];
}

impl Choice {
    /// The position from its lines' values (centipawns, best first), the legal move
    /// count, and the played move's rank among the lines (`None`: beyond them).
    /// `None` without lines.
    pub fn new(values: &[i32], legal: usize, played_rank: Option<usize>) -> Option<Choice> {
        let best = *values.first()?;
        let deficits: Vec<f64> = values.iter().map(|&v| scaled_deficit(best, v)).collect();
        let losses = values.iter().map(|&v| f64::from(super::judge::cp_loss(best, v))).collect();
        let n = deficits.len();
        let played = played_rank.filter(|&r| (1..=n).contains(&r)).map_or(n, |r| r - 1);
        Some(Choice { deficits, losses, tail: legal.saturating_sub(n) as u32, played })
    }

    /// Number of slots: the lines, and the tail when there is one.
    fn slots(&self) -> usize {
        self.deficits.len() + usize::from(self.tail > 0)
    }

    /// A slot's deficit (the tail's is the last line's).
    fn deficit(&self, slot: usize) -> f64 {
        self.deficits[slot.min(self.deficits.len() - 1)]
    }

    /// The value of a statistic if `slot` is played.
    pub fn value(&self, slot: usize, what: Statistic) -> f64 {
        match what {
            Statistic::Top1 => f64::from(u8::from(slot == 0)),
            Statistic::Top3 => f64::from(u8::from(slot < 3 && slot < self.deficits.len())),
            Statistic::ScaledError => self.deficit(slot),
            Statistic::Loss => self.losses[slot.min(self.losses.len() - 1)],
        }
    }

    /// The probability of each slot under `p` (the tail's is that of all its moves).
    pub fn probabilities(&self, p: Params) -> Vec<f64> {
        let weight = |d: f64| (-(d / p.s).powf(p.c)).exp();
        let mut w: Vec<f64> = self.deficits.iter().map(|&d| weight(d)).collect();
        if self.tail > 0 {
            w.push(f64::from(self.tail) * weight(self.deficit(self.deficits.len())));
        }
        let total: f64 = w.iter().sum();
        w.iter_mut().for_each(|x| *x /= total);
        w
    }

    /// Mean and variance of a statistic under probabilities `probs`.
    pub fn moments(&self, probs: &[f64], what: Statistic) -> (f64, f64) {
        let mean: f64 = probs.iter().enumerate().map(|(i, p)| p * self.value(i, what)).sum();
        let square: f64 = probs.iter().enumerate().map(|(i, p)| p * self.value(i, what).powi(2)).sum();
        (mean, (square - mean * mean).max(0.0))
    }

    /// Draws a slot from `probs` with a uniform `u` in [0, 1).
    pub fn draw(&self, probs: &[f64], u: f64) -> usize {
        let mut acc = 0.0;
        for (i, p) in probs.iter().enumerate() {
            acc += p;
            if u < acc {
                return i;
            }
        }
        self.slots() - 1
    }
}

/// How far the projected top-1 agreement and scaled error under `p` are from the
/// played ones: the sum of the two squared z-scores.
pub fn discrepancy(positions: &[Choice], p: Params) -> f64 {
    let (mut agree, mut error) = ([0.0; 3], [0.0; 3]);
    for c in positions {
        let probs = c.probabilities(p);
        for (sums, what) in [(&mut agree, Statistic::Top1), (&mut error, Statistic::ScaledError)] {
            let (mean, var) = c.moments(&probs, what);
            sums[0] += c.value(c.played, what);
            sums[1] += mean;
            sums[2] += var;
        }
    }
    let z = |s: [f64; 3]| if s[2] > 0.0 { (s[0] - s[1]) / s[2].sqrt() } else { 0.0 };
    z(agree).powi(2) + z(error).powi(2)
}

/// Bounds of the fit: sensitivity in scaled centipawns, consistency.
const S_RANGE: (f64, f64) = (0.01, 5000.0);
const C_RANGE: (f64, f64) = (0.05, 8.0);

/// The parameters whose projections match the played top-1 agreement and scaled
/// error (as Regan fits his: the method of moments, so that the honest players fitted
/// have z-scores of mean 0 on both), found by a grid over ln s and c and a pattern
/// search from its best point (deterministic); at a bound of the ranges when the
/// moves cannot be matched inside them.
pub fn fit(positions: &[Choice]) -> Params {
    let at = |u: f64, c: f64| Params { s: u.exp(), c };
    let (u_lo, u_hi) = (S_RANGE.0.ln(), S_RANGE.1.ln());
    let mut best = (f64::NEG_INFINITY, 0.0, 1.0);
    const STEPS: usize = 16;
    for i in 0..=STEPS {
        for j in 0..=STEPS {
            let u = u_lo + (u_hi - u_lo) * i as f64 / STEPS as f64;
            let c = C_RANGE.0 + (C_RANGE.1 - C_RANGE.0) * j as f64 / STEPS as f64;
            let ll = -discrepancy(positions, at(u, c));
            if ll > best.0 {
                best = (ll, u, c);
            }
        }
    }
    let (mut ll, mut u, mut c) = best;
    let start = ((u_hi - u_lo) / STEPS as f64, (C_RANGE.1 - C_RANGE.0) / STEPS as f64);
    let (mut du, mut dc) = start;
    // A step that pays doubles (along a valley the search speeds up), one that does not
    // halves; at most a few hundred rounds.
    for _ in 0..400 {
        if du < 1e-4 && dc < 1e-4 {
            break;
        }
        let mut moved = false;
        for (eu, ec) in [(du, 0.0), (-du, 0.0), (0.0, dc), (0.0, -dc)] {
            let (nu, nc) = ((u + eu).clamp(u_lo, u_hi), (c + ec).clamp(C_RANGE.0, C_RANGE.1));
            let nll = -discrepancy(positions, at(nu, nc));
            if nll > ll {
                (ll, u, c, moved) = (nll, nu, nc, true);
            }
        }
        (du, dc) = if moved { ((du * 2.0).min(start.0), (dc * 2.0).min(start.1)) } else { (du / 2.0, dc / 2.0) };
    }
    at(u, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deficits_shrink_when_one_side_is_far_ahead() {
        assert_eq!(scaled_deficit(0, 0), 0.0);
        assert!((scaled_deficit(100, 0) - 100.0 * 2f64.ln()).abs() < 1e-9);
        assert!(scaled_deficit(900, 800) < scaled_deficit(100, 0));
        assert_eq!(scaled_deficit(50, 80), 0.0);
        assert_eq!(scaled_deficit(9_990, 5_000), 0.0);
    }

    #[test]
    fn probabilities_sum_to_one_and_favour_the_best() {
        let c = Choice::new(&[30, 10, -40], 10, Some(2)).unwrap();
        assert_eq!((c.tail, c.played), (7, 1));
        let p = c.probabilities(Params { s: 60.0, c: 1.2 });
        assert_eq!(p.len(), 4);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p[0] > p[1] && p[1] > p[2]);
        assert_eq!(Choice::new(&[30], 1, None).unwrap().probabilities(Params { s: 1.0, c: 1.0 }), vec![1.0]);
        // A move beyond the lines is observed in the tail, at the last line's figures.
        let beyond = Choice::new(&[30, 10], 5, None).unwrap();
        assert_eq!(beyond.played, 2);
        assert_eq!(beyond.value(2, Statistic::ScaledError), beyond.deficits[1]);
        assert_eq!(beyond.value(2, Statistic::Top3), 0.0);
    }

    #[test]
    fn the_fit_finds_the_parameters_the_moves_were_drawn_from() {
        let truth = Params { s: 40.0, c: 0.9 };
        let mut rng = crate::fairplay::Rng::new(7);
        let mut positions = Vec::new();
        for _ in 0..6000 {
            let mut values = vec![rng.below(400) as i32 - 200];
            for _ in 0..4 {
                let last = *values.last().unwrap();
                values.push(last - rng.below(120) as i32);
            }
            let mut c = Choice::new(&values, 5 + rng.below(30) as usize, Some(1)).unwrap();
            c.played = c.draw(&c.probabilities(truth), rng.unit());
            positions.push(c);
        }
        let got = fit(&positions);
        assert!((got.s / truth.s - 1.0).abs() < 0.15, "{got:?}");
        assert!((got.c - truth.c).abs() < 0.15, "{got:?}");
    }
}
