//! A match's statistics: Elo from a score with its interval, and the sequential
//! probability ratio test on pairs of games.

/// Elo difference for a score fraction, and its rough 95% margin for `n` games.
pub fn elo(score: f64, n: usize) -> (f64, f64) {
    let s = score.clamp(0.001, 0.999);
    let diff = -400.0 * (1.0 / s - 1.0).log10();
    let sd = (s * (1.0 - s) / n.max(1) as f64).sqrt();
    let hi = (s + 1.96 * sd).clamp(0.001, 0.999);
    let margin = -400.0 * (1.0 / hi - 1.0).log10() - diff;
    (diff, margin)
}

/// The Elo difference of a score fraction.
pub fn elo_of(score: f64) -> f64 {
    let s = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score of an Elo difference.
pub fn score_of(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Elo from wins, draws and losses, with its 95 % interval `(low, high)`, from the
/// games' own variance (draws count).
pub fn elo_interval(wins: usize, draws: usize, losses: usize) -> (f64, f64, f64) {
    let n = (wins + draws + losses).max(1) as f64;
    let s = (wins as f64 + 0.5 * draws as f64) / n;
    let var = (wins as f64 + 0.25 * draws as f64) / n - s * s;
    let sd = (var.max(0.0) / n).sqrt();
    (elo_of(s), elo_of(s - 1.96 * sd), elo_of(s + 1.96 * sd))
}

/// A sequential probability ratio test of `elo0` against `elo1` (logistic Elo) at
/// alpha = beta = 0.05.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// The Elo difference of the null hypothesis.
    pub elo0: f64,
    /// The Elo difference of the alternative.
    pub elo1: f64,
}

/// What the test says so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtState {
    /// Neither hypothesis yet: play on.
    Continue,
    /// H1 (at least `elo1`) accepted.
    AcceptH1,
    /// H0 (at most `elo0`) accepted.
    AcceptH0,
}

impl Sprt {
    /// `(lower, upper)`: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
    pub fn bounds() -> (f64, f64) {
        let (alpha, beta) = (0.05f64, 0.05f64);
        ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
    }

    /// The log-likelihood ratio of samples with these frequencies (`counts[i]` samples
    /// scored `values[i]`, each in 0..=1), by the generalized SPRT's normal
    /// approximation: `N (s1 - s0) (2 m - s0 - s1) / (2 v)` with the samples' mean `m`
    /// and variance `v`, and `s0`, `s1` the scores the two Elo bounds expect.
    pub fn llr_of(&self, values: &[f64], counts: &[usize]) -> f64 {
        let n: usize = counts.iter().sum();
        if n == 0 {
            return 0.0;
        }
        let nf = n as f64;
        let mean: f64 = values.iter().zip(counts).map(|(v, &c)| v * c as f64).sum::<f64>() / nf;
        let var: f64 = values.iter().zip(counts).map(|(v, &c)| (v - mean).powi(2) * c as f64).sum::<f64>() / nf;
        if var <= 0.0 {
            return 0.0;
        }
        let (s0, s1) = (score_of(self.elo0), score_of(self.elo1));
        nf * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
    }

    /// The ratio from single games (the trinomial model).
    pub fn llr_trinomial(&self, wins: usize, draws: usize, losses: usize) -> f64 {
        self.llr_of(&[0.0, 0.5, 1.0], &[losses, draws, wins])
    }

    /// The ratio from pairs of games (the pentanomial model): `pairs[k]` pairs scored
    /// `k / 2` points of 2 (k = 0..=4).
    pub fn llr_pentanomial(&self, pairs: [usize; 5]) -> f64 {
        self.llr_of(&[0.0, 0.25, 0.5, 0.75, 1.0], &pairs)
    }

    /// What a log-likelihood ratio of `llr` decides.
    pub fn state(llr: f64) -> SprtState {
        let (lower, upper) = Sprt::bounds();
        if llr >= upper {
            SprtState::AcceptH1
        } else if llr <= lower {
            SprtState::AcceptH0
        } else {
            SprtState::Continue
        }
    }
}
