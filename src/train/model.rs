//! The float model the trainer optimises, as the net file's specification states it:
//! for each perspective `acc = bias + sum of the active features' rows of W`,
//! `h = clamp(acc, 0, 1)^2`, and `out = V[b] . [h_us, h_them] + c[b]` for the output
//! bucket `b` of the material on the board; the evaluation is `out * scale`.
//!
//! The gradient is written by hand and sparse in the first layer: a position touches
//! only the rows of its active features.

use crate::rules::types::{Color, Piece, PieceKind, Square};

pub use crate::search::nnue::net::INPUTS;
/// Pieces on the board at most (16 a side).
pub const MAX_PIECES: usize = 32;

/// The feature of `piece` on `point` from the perspective of `perspective`, as the
/// search's net reads it ([`crate::search::nnue::features::index`]).
pub fn feature(perspective: Color, point: usize, piece: Piece) -> u16 {
    crate::search::nnue::features::index(perspective, piece, Square::from_index_unchecked(point)) as u16
}

/// The output bucket of a position with `pieces` pieces (generals included) among `buckets`.
pub fn bucket(pieces: usize, generals: usize, buckets: usize) -> usize {
    ((pieces - generals) * buckets / 30).min(buckets - 1)
}

/// One training position: its active features from each side's view, its bucket and
/// the target the loss compares the prediction with.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Active features from the side to move's view, then (the same pieces) from the
    /// other side's; `len` of each.
    pub us: [u16; MAX_PIECES],
    /// See `us`.
    pub them: [u16; MAX_PIECES],
    /// The number of active features of each perspective.
    pub len: u8,
    /// The output bucket.
    pub bucket: u8,
    /// The search's score, side to move's view, centipawns.
    pub score: f32,
    /// The game's result for the side to move (1, 0.5, 0).
    pub result: f32,
}

impl Sample {
    /// The sample of `pieces` (point and piece) with `turn` to move, bucketed among `buckets`.
    pub fn new(
        pieces: impl Iterator<Item = (usize, Piece)>,
        turn: Color,
        buckets: usize,
        score: f32,
        result: f32,
    ) -> Sample {
        let mut s = Sample { us: [0; MAX_PIECES], them: [0; MAX_PIECES], len: 0, bucket: 0, score, result };
        let mut generals = 0;
        for (point, piece) in pieces.take(MAX_PIECES) {
            let i = s.len as usize;
            s.us[i] = feature(turn, point, piece);
            s.them[i] = feature(turn.other(), point, piece);
            s.len += 1;
            generals += (piece.kind() == PieceKind::General) as usize;
        }
        s.bucket = bucket(s.len as usize, generals, buckets) as u8;
        s
    }
}

/// The float net: `w` is `INPUTS x hidden` row-major (a feature's row contiguous),
/// `v` is `buckets x 2 hidden` (each bucket's weights for us, then them).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Hidden width H.
    pub hidden: usize,
    /// Output buckets B.
    pub buckets: usize,
    /// First layer weights.
    pub w: Vec<f32>,
    /// First layer bias.
    pub bias: Vec<f32>,
    /// Output weights.
    pub v: Vec<f32>,
    /// Output bias per bucket.
    pub c: Vec<f32>,
}

/// What the loss compares a prediction with, and how outputs are read.
#[derive(Clone, Copy, Debug)]
pub struct LossShape {
    /// Evaluation units per unit of the float output.
    pub scale: f32,
    /// The logistic's scale: a score `s` stands for `sigmoid(s / k)`.
    pub k: f32,
    /// The weight of the score in the target (the rest is the result's).
    pub lambda: f32,
}

impl LossShape {
    /// The target of `s`: `lambda * sigmoid(score / k) + (1 - lambda) * result`.
    pub fn target(&self, s: &Sample) -> f32 {
        self.lambda * sigmoid(s.score / self.k) + (1.0 - self.lambda) * s.result
    }
}

/// The logistic.
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

impl Model {
    /// A net of the given shape with small random weights from `seed`.
    pub fn new(hidden: usize, buckets: usize, seed: u64) -> Model {
        let mut rng = SplitMix(seed);
        let mut uniform = |n: usize, a: f32| (0..n).map(|_| (rng.next_f32() * 2.0 - 1.0) * a).collect::<Vec<f32>>();
        let w = uniform(INPUTS * hidden, 0.1);
        let v = uniform(buckets * 2 * hidden, 1.0 / (2.0 * hidden as f32).sqrt());
        Model { hidden, buckets, w, bias: vec![0.05; hidden], v, c: vec![0.0; buckets] }
    }

    /// The number of parameters, in the order of [`Model::params_mut`].
    pub fn parameters(&self) -> usize {
        self.w.len() + self.bias.len() + self.v.len() + self.c.len()
    }

    /// Every parameter as one list of slices (W, bias, V, c).
    pub fn params_mut(&mut self) -> [&mut [f32]; 4] {
        [&mut self.w, &mut self.bias, &mut self.v, &mut self.c]
    }

    /// A model of the same shape with every parameter zero (a gradient).
    pub fn zeros_like(&self) -> Model {
        Model {
            hidden: self.hidden,
            buckets: self.buckets,
            w: vec![0.0; self.w.len()],
            bias: vec![0.0; self.bias.len()],
            v: vec![0.0; self.v.len()],
            c: vec![0.0; self.c.len()],
        }
    }

    /// The accumulator of `features` into `acc`.
    fn accumulate(&self, features: &[u16], acc: &mut [f32]) {
        acc.copy_from_slice(&self.bias);
        for &f in features {
            let row = &self.w[f as usize * self.hidden..][..self.hidden];
            for (a, w) in acc.iter_mut().zip(row) {
                *a += w;
            }
        }
    }

    /// The float output of `s` (multiply by the scale for evaluation units).
    pub fn output(&self, s: &Sample) -> f32 {
        let mut scratch = Scratch::new(self.hidden);
        self.forward(s, &mut scratch)
    }

    fn forward(&self, s: &Sample, scratch: &mut Scratch) -> f32 {
        let n = s.len as usize;
        self.accumulate(&s.us[..n], &mut scratch.acc_us);
        self.accumulate(&s.them[..n], &mut scratch.acc_them);
        let v = &self.v[s.bucket as usize * 2 * self.hidden..][..2 * self.hidden];
        let (v_us, v_them) = v.split_at(self.hidden);
        let mut out = self.c[s.bucket as usize];
        for (a, w) in scratch.acc_us.iter().zip(v_us) {
            out += screlu(*a) * w;
        }
        for (a, w) in scratch.acc_them.iter().zip(v_them) {
            out += screlu(*a) * w;
        }
        out
    }

    /// The loss of `s`, `(sigmoid(out * scale / k) - target)^2`, and its gradient added
    /// to `grad` (only the active features' rows of W are touched).
    pub fn backward(&self, s: &Sample, shape: &LossShape, grad: &mut Model, scratch: &mut Scratch) -> f32 {
        let out = self.forward(s, scratch);
        let p = sigmoid(out * shape.scale / shape.k);
        let err = p - shape.target(s);
        let g = 2.0 * err * p * (1.0 - p) * shape.scale / shape.k;
        let h = self.hidden;
        let b = s.bucket as usize;
        grad.c[b] += g;
        let v = &self.v[b * 2 * h..][..2 * h];
        let gv = &mut grad.v[b * 2 * h..][..2 * h];
        for (half, acc, dacc) in
            [(0, &scratch.acc_us, &mut scratch.dacc_us), (h, &scratch.acc_them, &mut scratch.dacc_them)]
        {
            for i in 0..h {
                let a = acc[i];
                gv[half + i] += g * screlu(a);
                dacc[i] = if a > 0.0 && a < 1.0 { g * v[half + i] * 2.0 * a } else { 0.0 };
            }
        }
        let n = s.len as usize;
        for (features, dacc) in [(&s.us[..n], &scratch.dacc_us), (&s.them[..n], &scratch.dacc_them)] {
            for (gb, d) in grad.bias.iter_mut().zip(dacc.iter()) {
                *gb += d;
            }
            for &f in features {
                let row = &mut grad.w[f as usize * h..][..h];
                for (gw, d) in row.iter_mut().zip(dacc.iter()) {
                    *gw += d;
                }
            }
        }
        err * err
    }

    /// The loss of `s` without its gradient.
    pub fn loss(&self, s: &Sample, shape: &LossShape, scratch: &mut Scratch) -> f32 {
        let out = self.forward(s, scratch);
        let err = sigmoid(out * shape.scale / shape.k) - shape.target(s);
        err * err
    }
}

/// The squared clipped ReLU.
#[inline(always)]
fn screlu(x: f32) -> f32 {
    let c = x.clamp(0.0, 1.0);
    c * c
}

/// The per-thread buffers of a forward and backward pass.
pub struct Scratch {
    acc_us: Vec<f32>,
    acc_them: Vec<f32>,
    dacc_us: Vec<f32>,
    dacc_them: Vec<f32>,
}

impl Scratch {
    /// Buffers for a net `hidden` wide.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            acc_us: vec![0.0; hidden],
            acc_them: vec![0.0; hidden],
            dacc_us: vec![0.0; hidden],
            dacc_them: vec![0.0; hidden],
        }
    }
}

/// SplitMix64: the trainer's reproducible random numbers (initial weights, shuffles).
pub struct SplitMix(pub u64);

impl SplitMix {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples(buckets: usize) -> Vec<Sample> {
        use crate::rules::types::Color::{Black, Red};
        let p = |c, k| Piece::new(c, k);
        let sets: [&[(usize, Piece)]; 3] = [
            &[(4, p(Red, PieceKind::General)), (85, p(Black, PieceKind::General)), (0, p(Red, PieceKind::Chariot))],
            &[
                (3, p(Red, PieceKind::General)),
                (84, p(Black, PieceKind::General)),
                (40, p(Black, PieceKind::Horse)),
                (20, p(Red, PieceKind::Cannon)),
                (55, p(Black, PieceKind::Soldier)),
            ],
            &[(4, p(Red, PieceKind::General)), (86, p(Black, PieceKind::General)), (77, p(Black, PieceKind::Chariot))],
        ];
        sets.iter()
            .zip([(Red, 120.0, 1.0), (Black, -40.0, 0.5), (Red, -300.0, 0.0)])
            .map(|(set, (turn, score, result))| Sample::new(set.iter().copied(), turn, buckets, score, result))
            .collect()
    }

    #[test]
    fn features_follow_the_specification() {
        let horse = Piece::new(Color::Black, PieceKind::Horse);
        // b7 (rank 7, file 1) = point 64: theirs for Red, ours (rank 2) for Black.
        assert_eq!(feature(Color::Red, 64, horse), ((7 + 3) * 90 + 64) as u16);
        assert_eq!(feature(Color::Black, 64, horse), (3 * 90 + 2 * 9 + 1) as u16);
        assert_eq!(bucket(32, 2, 8), 7);
        assert_eq!(bucket(2, 2, 8), 0);
        assert_eq!(bucket(17, 2, 8), 4);
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let shape = LossShape { scale: 400.0, k: 300.0, lambda: 0.7 };
        let mut model = Model::new(8, 2, 3);
        // Bigger output weights than the initial ones, so every term matters.
        for v in &mut model.v {
            *v *= 4.0;
        }
        let data = samples(2);
        let total = |m: &Model| -> f64 {
            let mut scratch = Scratch::new(m.hidden);
            data.iter().map(|s| m.loss(s, &shape, &mut scratch) as f64).sum()
        };
        let mut grad = model.zeros_like();
        let mut scratch = Scratch::new(model.hidden);
        for s in &data {
            model.backward(s, &shape, &mut grad, &mut scratch);
        }
        let analytic: Vec<f32> = [&grad.w, &grad.bias, &grad.v, &grad.c].into_iter().flatten().copied().collect();
        let mut checked = 0;
        for i in 0..model.parameters() {
            if analytic[i] == 0.0 && i % 97 != 0 {
                continue;
            }
            let eps = 1e-3f32;
            let nudged = |delta: f32| {
                let mut m = model.clone();
                let mut k = i;
                for part in m.params_mut() {
                    if k < part.len() {
                        part[k] += delta;
                        break;
                    }
                    k -= part.len();
                }
                total(&m)
            };
            let numeric = ((nudged(eps) - nudged(-eps)) / (2.0 * eps as f64)) as f32;
            let tolerance = 1e-4 + 0.03 * numeric.abs().max(analytic[i].abs());
            assert!((numeric - analytic[i]).abs() <= tolerance, "parameter {i}: {numeric} vs {}", analytic[i]);
            checked += 1;
        }
        // Three positions of three to five pieces touch a few dozen rows' weights.
        assert!(checked > 100, "{checked}");
    }
}
