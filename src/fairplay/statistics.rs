//! A player's positions against the model: observed and projected figures, z-scores,
//! p-values (raw and for a family of screened players).
//!
//! Over positions t with slot probabilities p_t (the model at the player's rating),
//! each statistic X (top-1, top-3, scaled error, loss) has an observed sum Σ x_t and a
//! projected one Σ E[x_t] with variance Σ Var[x_t] (positions independent). Then
//!
//! - agreement: `z_a = (Σ top1 - Σ p0) / sqrt(Σ p0 (1 - p0))`;
//! - error: `z_e = (Σ E[d] - Σ d) / sqrt(Σ Var d)` (positive: fewer errors than
//!   projected);
//! - combined: `(z_a + z_e) / sqrt(2 + 2ρ)`, ρ their correlation under the model,
//!   `Σ p0 E[d] / (σ_a σ_e)` (the best move has deficit 0), so that it too has spread
//!   1 under the model.
//!
//! Each z is divided by its calibration's inflation (at least 1) before its p-value.

use super::choice::{Choice, Params, Statistic};

/// One-sided tail of the standard normal: P(Z > z).
pub fn normal_tail(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// The complementary error function (Chebyshev fit, relative error below 1.2e-7).
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// The chance that at least one of `family` honest players reaches a p-value of `p`
/// (Šidák): `1 - (1 - p)^family`.
pub fn family_p(p: f64, family: u64) -> f64 {
    (-(family as f64 * (-p).ln_1p()).exp_m1()).clamp(0.0, 1.0)
}

/// Sums of one statistic: observed, projected and the projection's variance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    /// Σ x_t.
    pub observed: f64,
    /// Σ E[x_t].
    pub projected: f64,
    /// Σ Var[x_t].
    pub variance: f64,
}

/// What one position adds: each statistic's (observed, mean, variance), and p0 E[d].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PositionTerms {
    /// Per statistic of [`Statistic::ALL`]: observed, mean, variance.
    pub terms: [(f64, f64, f64); 4],
    /// p0 times the mean scaled error (the covariance term).
    pub covariance: f64,
}

impl PositionTerms {
    /// The terms of a position under `p`.
    pub fn of(c: &Choice, p: Params) -> PositionTerms {
        let probs = c.probabilities(p);
        let terms = Statistic::ALL.map(|s| {
            let (mean, var) = c.moments(&probs, s);
            (c.value(c.played, s), mean, var)
        });
        PositionTerms { terms, covariance: probs[0] * terms[2].1 }
    }
}

/// The z-scores of a set of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Zs {
    /// Top-1 agreement.
    pub agreement: f64,
    /// Scaled error (positive: fewer errors than projected).
    pub error: f64,
    /// The two combined.
    pub combined: f64,
}

/// The inflation of each z (at least 1), from the calibration.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Inflation {
    /// Of the agreement z.
    pub agreement: f64,
    /// Of the error z.
    pub error: f64,
    /// Of the combined z.
    pub combined: f64,
}

impl Inflation {
    /// No inflation.
    pub const NONE: Inflation = Inflation { agreement: 1.0, error: 1.0, combined: 1.0 };
}

/// The running sums over a player's positions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Positions added.
    pub positions: usize,
    /// Per statistic of [`Statistic::ALL`].
    pub sums: [Sums; 4],
    /// Σ p0 E[d].
    pub covariance: f64,
}

impl Tally {
    /// Adds one position.
    pub fn add(&mut self, t: &PositionTerms) {
        self.positions += 1;
        for (s, &(obs, mean, var)) in self.sums.iter_mut().zip(&t.terms) {
            s.observed += obs;
            s.projected += mean;
            s.variance += var;
        }
        self.covariance += t.covariance;
    }

    /// The sums of one statistic.
    pub fn of(&self, s: Statistic) -> Sums {
        self.sums[Statistic::ALL.iter().position(|&x| x == s).unwrap_or(0)]
    }

    fn sds(&self) -> (f64, f64, f64) {
        let sa = self.of(Statistic::Top1).variance.sqrt();
        let se = self.of(Statistic::ScaledError).variance.sqrt();
        let rho = if sa > 0.0 && se > 0.0 { (self.covariance / (sa * se)).clamp(-1.0, 1.0) } else { 0.0 };
        (sa, se, (2.0 + 2.0 * rho).sqrt())
    }

    /// The raw z-scores (0 where a statistic has no spread).
    pub fn zs(&self) -> Zs {
        let (sa, se, norm) = self.sds();
        let a = self.of(Statistic::Top1);
        let e = self.of(Statistic::ScaledError);
        let agreement = if sa > 0.0 { (a.observed - a.projected) / sa } else { 0.0 };
        let error = if se > 0.0 { (e.projected - e.observed) / se } else { 0.0 };
        Zs { agreement, error, combined: (agreement + error) / norm }
    }

    /// What one position adds to this tally's combined z (the terms of all its
    /// positions add up to it).
    pub fn contribution(&self, t: &PositionTerms) -> f64 {
        let (sa, se, norm) = self.sds();
        let part = |(obs, mean, _): (f64, f64, f64), sd: f64, sign: f64| {
            if sd > 0.0 { sign * (obs - mean) / sd } else { 0.0 }
        };
        (part(t.terms[0], sa, 1.0) + part(t.terms[2], se, -1.0)) / norm
    }
}

impl Zs {
    /// Each z divided by its inflation.
    pub fn deflated(self, by: Inflation) -> Zs {
        Zs {
            agreement: self.agreement / by.agreement,
            error: self.error / by.error,
            combined: self.combined / by.combined,
        }
    }
}

/// Mean and standard deviation (n - 1) of a sample; (0, 0) for fewer than two.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    if xs.len() < 2 {
        return (xs.first().copied().unwrap_or(0.0), 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_normal_tail_matches_its_table() {
        for (z, p) in [(0.0, 0.5), (1.644_853_6, 0.05), (2.326_347_9, 0.01), (2.75, 0.002_979_8), (4.0, 3.167_1e-5)] {
            assert!((normal_tail(z) / p - 1.0).abs() < 1e-4, "{z}: {}", normal_tail(z));
        }
        assert!((normal_tail(5.0) / 2.866_5e-7 - 1.0).abs() < 1e-3);
        assert!((normal_tail(-1.0) - (1.0 - normal_tail(1.0))).abs() < 1e-9);
    }

    #[test]
    fn a_family_raises_the_chance_of_a_false_alarm() {
        assert!((family_p(0.01, 1) - 0.01).abs() < 1e-15);
        assert!((family_p(0.01, 100) - (1.0 - 0.99f64.powi(100))).abs() < 1e-12);
        assert!((family_p(1e-9, 1000) - 1e-6).abs() < 1e-9);
        assert_eq!(family_p(1.0, 5), 1.0);
    }

    #[test]
    fn contributions_add_up_to_the_combined_z() {
        let p = Params { s: 50.0, c: 1.0 };
        let choices: Vec<Choice> = (0..20)
            .map(|i| Choice::new(&[0, -10 * i, -30 - 10 * i, -200], 12, Some(1 + (i as usize % 5))).unwrap())
            .collect();
        let terms: Vec<PositionTerms> = choices.iter().map(|c| PositionTerms::of(c, p)).collect();
        let mut tally = Tally::default();
        terms.iter().for_each(|t| tally.add(t));
        let sum: f64 = terms.iter().map(|t| tally.contribution(t)).sum();
        assert!((sum - tally.zs().combined).abs() < 1e-9);
    }
}
