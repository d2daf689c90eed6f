//! The tuning itself: each position becomes a sparse vector of term counts, tapered by
//! its phase, so that the evaluation is linear in the weights; the error is the mean
//! squared difference between the game results and a logistic of the evaluation, and
//! the weights follow its gradient (Adam steps over the whole data set).

use crate::rules::xiangqi::Position;
use crate::search::eval::{self, FULL_PHASE, PLACEMENT, TERMS, TermSink};

/// The number of tuned values: an opening and an endgame weight per term.
pub const PARAMS: usize = 2 * TERMS;

/// Positions as term counts, with their results: the input of the tuning.
#[derive(Clone, Debug, Default)]
pub struct DataSet {
    /// Where each position's terms start in `params` and `coefs` (one more than positions).
    starts: Vec<u32>,
    params: Vec<u32>,
    coefs: Vec<f32>,
    results: Vec<f32>,
}

/// Records the terms of one evaluation.
#[derive(Default)]
pub struct TermCounts(Vec<(usize, i32)>);

impl TermSink for TermCounts {
    fn add(&mut self, term: usize, count: i32) {
        if count != 0 {
            self.0.push((term, count));
        }
    }
}

/// The term that stands for `term` in the tuning: placements on the right half of the
/// board share the weight of their mirror image on the left.
pub fn tied_term(term: usize) -> usize {
    if !(PLACEMENT..PLACEMENT + 7 * 90).contains(&term) {
        return term;
    }
    let file = (term - PLACEMENT) % 9;
    if file > 4 { term - file + (8 - file) } else { term }
}

/// The evaluation of `pos` for Red as `(parameter, coefficient)` pairs: the evaluation
/// is the sum of each weight times its coefficient (opening weights scaled by the phase,
/// endgame weights by what the phase lacks of a full board).
pub fn features(pos: &Position) -> Vec<(usize, f64)> {
    tapered_features(FULL_PHASE, |counts| {
        let phase = eval::material_terms(pos, counts);
        eval::positional_terms(pos, counts);
        phase
    })
}

/// The features of the terms `count` records (it returns the game phase), tapered
/// between a full board at `full_phase` and a bare one.
pub fn tapered_features(full_phase: i32, count: impl FnOnce(&mut TermCounts) -> i32) -> Vec<(usize, f64)> {
    let mut counts = TermCounts::default();
    let phase = count(&mut counts).min(full_phase);
    let (opening, endgame) = (phase as f64 / full_phase as f64, (full_phase - phase) as f64 / full_phase as f64);
    let mut tied: Vec<(usize, i32)> = counts.0.into_iter().map(|(t, c)| (tied_term(t), c)).collect();
    tied.sort_unstable();
    let mut out: Vec<(usize, f64)> = Vec::with_capacity(2 * tied.len());
    let mut i = 0;
    while i < tied.len() {
        let term = tied[i].0;
        let mut count = 0;
        while i < tied.len() && tied[i].0 == term {
            count += tied[i].1;
            i += 1;
        }
        if count != 0 {
            out.push((2 * term, count as f64 * opening));
            out.push((2 * term + 1, count as f64 * endgame));
        }
    }
    out.retain(|&(_, c)| c != 0.0);
    out
}

impl DataSet {
    /// Adds a position (evaluated as it stands) with its game's result for Red.
    pub fn push(&mut self, pos: &Position, result: f64) {
        self.push_features(&features(pos), result);
    }

    /// Adds a position given as its features.
    pub fn push_features(&mut self, features: &[(usize, f64)], result: f64) {
        if self.starts.is_empty() {
            self.starts.push(0);
        }
        for &(p, c) in features {
            self.params.push(p as u32);
            self.coefs.push(c as f32);
        }
        self.starts.push(self.params.len() as u32);
        self.results.push(result as f32);
    }

    /// The number of positions.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Whether it holds no position.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }

    fn position(&self, i: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.starts[i] as usize, self.starts[i + 1] as usize);
        self.params[a..b].iter().zip(&self.coefs[a..b]).map(|(&p, &c)| (p as usize, c as f64))
    }

    /// Position `i`'s evaluation for Red under `weights`.
    pub fn evaluation(&self, i: usize, weights: &[f64]) -> f64 {
        self.position(i).map(|(p, c)| weights[p] * c).sum()
    }
}

/// The expected score for Red of an evaluation: `1 / (1 + e^(-k·eval))`.
pub fn expected(k: f64, evaluation: f64) -> f64 {
    1.0 / (1.0 + (-k * evaluation).exp())
}

/// The mean squared difference between results and expected scores.
pub fn error(data: &DataSet, weights: &[f64], k: f64) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let sum: f64 = (0..data.len())
        .map(|i| {
            let e = expected(k, data.evaluation(i, weights)) - data.results[i] as f64;
            e * e
        })
        .sum();
    sum / data.len() as f64
}

/// The error's gradient with respect to every weight.
pub fn gradient(data: &DataSet, weights: &[f64], k: f64) -> Vec<f64> {
    let mut g = vec![0.0; weights.len()];
    if data.is_empty() {
        return g;
    }
    let scale = 2.0 * k / data.len() as f64;
    for i in 0..data.len() {
        let s = expected(k, data.evaluation(i, weights));
        let d = (s - data.results[i] as f64) * s * (1.0 - s) * scale;
        for (p, c) in data.position(i) {
            g[p] += d * c;
        }
    }
    g
}

/// The scale `k` of the logistic that fits the results best under `weights` (a search
/// over its logarithm: the error is unimodal in it).
pub fn fit_scale(data: &DataSet, weights: &[f64]) -> f64 {
    let (mut low, mut high) = ((1e-5f64).ln(), (1e-1f64).ln());
    for _ in 0..60 {
        let (a, b) = (low + (high - low) / 3.0, high - (high - low) / 3.0);
        if error(data, weights, a.exp()) < error(data, weights, b.exp()) {
            high = b;
        } else {
            low = a;
        }
    }
    ((low + high) / 2.0).exp()
}

/// Adam steps over the whole data set.
pub struct Tuner {
    /// The weights, as floating-point values.
    pub weights: Vec<f64>,
    /// The logistic's scale.
    pub k: f64,
    /// The step size, in centipawns.
    pub rate: f64,
    /// The weight of the penalty on each weight's squared distance from its start (a
    /// weight seen in few positions then stays near its start).
    pub anchor_weight: f64,
    anchor: Vec<f64>,
    first: Vec<f64>,
    second: Vec<f64>,
    steps: i32,
}

impl Tuner {
    /// Starts from `weights` (`[opening, endgame]` per term).
    pub fn new(weights: &[[i32; 2]], k: f64, rate: f64) -> Tuner {
        let weights: Vec<f64> = weights.iter().flat_map(|w| [w[0] as f64, w[1] as f64]).collect();
        let n = weights.len();
        let anchor = weights.clone();
        Tuner { weights, k, rate, anchor_weight: 0.0, anchor, first: vec![0.0; n], second: vec![0.0; n], steps: 0 }
    }

    /// One step down the gradient of the error plus the anchor's penalty; returns the
    /// error (without the penalty) before it.
    pub fn step(&mut self, data: &DataSet) -> f64 {
        let before = error(data, &self.weights, self.k);
        let mut g = gradient(data, &self.weights, self.k);
        for (j, gj) in g.iter_mut().enumerate() {
            *gj += 2.0 * self.anchor_weight * (self.weights[j] - self.anchor[j]);
        }
        let (beta1, beta2) = (0.9f64, 0.999f64);
        self.steps += 1;
        let (c1, c2) = (1.0 - beta1.powi(self.steps), 1.0 - beta2.powi(self.steps));
        for (j, gj) in g.iter().enumerate() {
            self.first[j] = beta1 * self.first[j] + (1.0 - beta1) * gj;
            self.second[j] = beta2 * self.second[j] + (1.0 - beta2) * gj * gj;
            let (m, v) = (self.first[j] / c1, self.second[j] / c2);
            self.weights[j] -= self.rate * m / (v.sqrt() + 1e-12);
        }
        before
    }

    /// The weights rounded to centipawns, each mirrored placement given its tied value.
    pub fn rounded(&self) -> Vec<[i32; 2]> {
        self.rounded_terms(TERMS)
    }

    /// [`Tuner::rounded`] for an evaluation of `terms` terms laid out as Xiangqi's
    /// (Janggi's: material, then placement by kind and point, then the rest).
    pub fn rounded_terms(&self, terms: usize) -> Vec<[i32; 2]> {
        (0..terms)
            .map(|t| {
                let s = tied_term(t);
                [self.weights[2 * s].round() as i32, self.weights[2 * s + 1].round() as i32]
            })
            .collect()
    }
}

/// The source of `src/search/eval_weights.rs` holding `weights`.
pub fn weights_source(weights: &[[i32; 2]]) -> String {
    use crate::search::eval::*;
    const KINDS: [&str; 7] = ["general", "advisor", "elephant", "horse", "chariot", "cannon", "soldier"];
    let attackers = "per enemy chariot, horse, cannon, soldier across the river";
    let mut sections: Vec<(String, usize, usize, usize)> = vec![(
        "material: general, advisor, elephant, horse, chariot, cannon, soldier (before the river)".into(),
        MATERIAL,
        7,
        7,
    )];
    for (k, name) in KINDS.iter().enumerate() {
        sections.push((format!("{name} placement, from its own back rank, files a..i"), PLACEMENT + k * 90, 90, 9));
    }
    sections.push(("chariot mobility, per point it reaches".into(), CHARIOT_MOBILITY, 1, 1));
    sections.push(("horse mobility, per move its leg leaves free".into(), HORSE_MOBILITY, 1, 1));
    sections.push((format!("a missing advisor, {attackers}"), MISSING_ADVISOR, 4, 4));
    sections.push((format!("a missing elephant, {attackers}"), MISSING_ELEPHANT, 4, 4));
    sections.push(("a cannon on the enemy general's file with nothing between".into(), HOLLOW_CANNON, 1, 1));
    sections.push(("a cannon on the enemy general's file behind two screens".into(), CANNON_BEHIND_SCREENS, 1, 1));
    sections.push(("the side to move".into(), TEMPO, 1, 1));
    let palace = "an enemy piece attacking the own palace: chariot, horse, cannon, soldier";
    sections.push((palace.into(), PALACE_ATTACKER, 4, 4));
    let pressure = "two, three, four or more enemy pieces attacking the own palace";
    sections.push((pressure.into(), PALACE_PRESSURE, 3, 3));
    sections.push(("a pair of soldiers across the river side by side".into(), CONNECTED_SOLDIERS, 1, 1));
    let header = "//! The Xiangqi evaluation's weights, `[opening, endgame]` in centipawns, one per term of\n\
         //! [`super::eval`] (see its term indices). Written by `chuhe tune` (docs/engine.md, \"Tuning\n\
         //! the evaluation\"); edit by retuning, or by hand with the same layout.\n\n\
         /// The weight of each evaluation term, `[opening, endgame]`.\n\
         #[rustfmt::skip]\n\
         pub const WEIGHTS: [[i32; 2]; {terms}] = [\n";
    weights_text(&header.replace("{terms}", &weights.len().to_string()), sections, weights)
}

/// A weights file: `header`, then each section `(comment, first term, terms, terms per
/// line)` of `weights`, then the closing bracket.
pub fn weights_text(header: &str, sections: Vec<(String, usize, usize, usize)>, weights: &[[i32; 2]]) -> String {
    let mut text = String::from(header);
    for (name, start, count, per_line) in sections {
        text.push_str(&format!("    // {name}\n"));
        for line in (start..start + count).step_by(per_line) {
            let cells: Vec<String> =
                (line..line + per_line).map(|t| format!("[{}, {}],", weights[t][0], weights[t][1])).collect();
            text.push_str(&format!("    {}\n", cells.join(" ")));
        }
    }
    text.push_str("];\n");
    text
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::rules::BoardPosition;
    use crate::rules::types::MoveList;
    use crate::search::eval::WEIGHTS;
    use crate::search::terms::for_red;

    fn tiny() -> DataSet {
        // Two parameters; three positions: (+1, 0) won, (0, +2) lost, (+1, -1) drawn.
        let mut d = DataSet::default();
        d.push_features(&[(0, 1.0)], 1.0);
        d.push_features(&[(1, 2.0)], 0.0);
        d.push_features(&[(0, 1.0), (1, -1.0)], 0.5);
        d
    }

    #[test]
    fn the_error_is_the_mean_squared_miss_of_the_logistic() {
        let d = tiny();
        // All evaluations 0: every expectation is one half, misses 1/2, 1/2, 0.
        assert!((error(&d, &[0.0, 0.0], 0.01) - (0.25 + 0.25) / 3.0).abs() < 1e-12);
        // Weights (100, 0), k = ln 3 / 100: the first position expects 3/4.
        let k = 3f64.ln() / 100.0;
        let want = ((0.75f64 - 1.0).powi(2) + 0.25 + (0.75f64 - 0.5).powi(2)) / 3.0;
        assert!((error(&d, &[100.0, 0.0], k) - want).abs() < 1e-12);
    }

    #[test]
    fn the_gradient_is_the_error_s_slope() {
        let d = tiny();
        let (w, k) = ([30.0, -20.0], 0.01);
        let g = gradient(&d, &w, k);
        for j in 0..2 {
            let h = 1e-4;
            let mut up = w;
            up[j] += h;
            let mut down = w;
            down[j] -= h;
            let slope = (error(&d, &up, k) - error(&d, &down, k)) / (2.0 * h);
            assert!((g[j] - slope).abs() < 1e-9, "parameter {j}: {} vs {slope}", g[j]);
        }
    }

    #[test]
    fn steps_lower_the_error() {
        let d = tiny();
        let mut weights = vec![[0, 0]; TERMS];
        weights[0] = [0, 0];
        let mut t = Tuner::new(&weights, 0.01, 5.0);
        let first = t.step(&d);
        let mut last = first;
        for _ in 0..50 {
            last = t.step(&d);
        }
        assert!(last < first * 0.5, "{first} -> {last}");
        // The won position's parameter rises, the lost one's falls.
        assert!(t.weights[0] > 0.0 && t.weights[1] < 0.0);
    }

    #[test]
    fn the_anchor_holds_the_weights_near_their_start() {
        let d = tiny();
        let weights = vec![[0, 0]; TERMS];
        let (mut free, mut held) = (Tuner::new(&weights, 0.01, 5.0), Tuner::new(&weights, 0.01, 5.0));
        held.anchor_weight = 1e-3;
        for _ in 0..200 {
            free.step(&d);
            held.step(&d);
        }
        assert!(held.weights[0].abs() < free.weights[0].abs() / 2.0, "{} vs {}", held.weights[0], free.weights[0]);
        assert!(held.weights[0] > 0.0, "the data still pulls it up");
    }

    #[test]
    fn the_scale_fit_finds_the_best_logistic() {
        // A position at +100 won three times in four: k = ln 3 / 100 fits it exactly.
        let mut d = DataSet::default();
        for r in [1.0, 1.0, 1.0, 0.0] {
            d.push_features(&[(0, 1.0)], r);
        }
        let k = fit_scale(&d, &[100.0]);
        assert!((k - 3f64.ln() / 100.0).abs() < 1e-6, "{k}");
    }

    /// Along one line of `plies` moves from `pos` (played as long as there is a move),
    /// the features `push` writes for each position, weighted by `weights` (mid- and
    /// end-game weight of each term), add up to `evaluate`'s score for the side to move
    /// to within the rounding of the engine's one division by the phase.
    pub(in crate::search::tune) fn assert_features_add_up<P: BoardPosition + std::fmt::Debug>(
        mut pos: P,
        plies: usize,
        weights: &[f64],
        push: impl Fn(&mut DataSet, &P),
        evaluate: impl Fn(&P) -> i32,
    ) {
        let mut checked = 0;
        for i in 0..plies {
            let mut data = DataSet::default();
            push(&mut data, &pos);
            let sign = for_red(pos.turn());
            let engine = (sign * evaluate(&pos)) as f64;
            let features = data.evaluation(0, weights);
            assert!((features - engine).abs() < 1.0, "ply {i}: {features} vs {engine} in {pos:?}");
            checked += 1;
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            let mv = list.as_slice()[(i * 7 + 3) % list.len()];
            pos.play_unchecked(mv);
        }
        assert!(checked > 50);
    }

    #[test]
    fn the_features_add_up_to_the_evaluation() {
        let weights: Vec<f64> = WEIGHTS.iter().flat_map(|w| [w[0] as f64, w[1] as f64]).collect();
        assert_features_add_up(Position::startpos(), 160, &weights, |d, p| d.push(p, 0.5), eval::evaluate);
    }

    #[test]
    fn the_written_weights_read_back_as_the_current_ones() {
        let current = include_str!("../eval_weights.rs");
        assert_eq!(weights_source(&WEIGHTS), current);
    }
}
