//! Fitting the float model ([`super::model`]) to labelled positions: the logistic
//! scale fitted to the data, Adam over shuffled minibatches, the batch's gradient
//! computed on several threads (each over its share of the batch, then summed), the
//! weights clipped after each step as the net file's quantisation needs, and the loss
//! on held-out games printed after each epoch.

use super::data::Record;
use super::model::{LossShape, Model, Sample, Scratch, SplitMix, sigmoid};

/// Weights are kept within this (both layers), so that the quantised net fits i16.
pub const CLIP: f32 = 1.98;

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainSettings {
    /// Hidden width H.
    pub hidden: usize,
    /// Output buckets B.
    pub buckets: usize,
    /// Evaluation units per unit of the float output.
    pub scale: f32,
    /// The weight of the search's score in the target (the rest is the result's).
    pub lambda: f32,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Positions per step.
    pub batch: usize,
    /// Adam's step size at the start; it falls along a cosine to a tenth of it.
    pub learning_rate: f32,
    /// Threads computing each batch's gradient.
    pub threads: usize,
    /// Seed of the initial weights and the shuffles.
    pub seed: u64,
}

/// The losses after one epoch.
#[derive(Clone, Copy, Debug)]
pub struct EpochLoss {
    /// The epoch, from 1.
    pub epoch: usize,
    /// Mean loss over the epoch's training steps.
    pub train: f64,
    /// Mean loss on the held-out positions at the epoch's end.
    pub validation: f64,
}

/// The sample of a record, if it may be trained on (its score within `max_score`).
pub fn sample_of(record: &Record, buckets: usize, max_score: i32) -> Option<Sample> {
    (i32::from(record.score).abs() <= max_score)
        .then(|| Sample::new(record.pieces(), record.turn, buckets, f32::from(record.score), record.result_for_mover()))
}

/// The logistic scale `k` that best predicts the results from the scores (least
/// squares of `sigmoid(score / k)` against the result), searched between 20 and 5000.
pub fn fit_k(samples: &[Sample]) -> f32 {
    let error = |k: f64| -> f64 {
        samples
            .iter()
            .map(|s| {
                let e = 1.0 / (1.0 + (-(s.score as f64) / k).exp()) - s.result as f64;
                e * e
            })
            .sum()
    };
    // Golden-section search on ln k: the error is unimodal in practice.
    let (mut lo, mut hi) = (20f64.ln(), 5000f64.ln());
    let phi = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..60 {
        let a = hi - phi * (hi - lo);
        let b = lo + phi * (hi - lo);
        if error(a.exp()) < error(b.exp()) {
            hi = b;
        } else {
            lo = a;
        }
    }
    ((lo + hi) / 2.0).exp() as f32
}

/// Adam's moments of every parameter.
struct Adam {
    m: Vec<f32>,
    v: Vec<f32>,
    t: i32,
}

impl Adam {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const EPSILON: f32 = 1e-8;

    fn new(len: usize) -> Adam {
        Adam { m: vec![0.0; len], v: vec![0.0; len], t: 0 }
    }

    /// One step of `model` down `grad` (a mean over the batch), then the clip.
    fn step(&mut self, model: &mut Model, grad: &Model, rate: f32) {
        self.t += 1;
        let c1 = 1.0 - Self::BETA1.powi(self.t);
        let c2 = 1.0 - Self::BETA2.powi(self.t);
        let grads = [&grad.w, &grad.bias, &grad.v, &grad.c];
        let mut offset = 0;
        for (part, g) in model.params_mut().into_iter().zip(grads) {
            let m = &mut self.m[offset..offset + part.len()];
            let v = &mut self.v[offset..offset + part.len()];
            for i in 0..part.len() {
                m[i] = Self::BETA1 * m[i] + (1.0 - Self::BETA1) * g[i];
                v[i] = Self::BETA2 * v[i] + (1.0 - Self::BETA2) * g[i] * g[i];
                let update = rate * (m[i] / c1) / ((v[i] / c2).sqrt() + Self::EPSILON);
                part[i] = (part[i] - update).clamp(-CLIP, CLIP);
            }
            offset += part.len();
        }
    }
}

/// The mean loss of `model` on `samples`, over `threads` threads.
pub fn mean_loss(model: &Model, samples: &[Sample], shape: &LossShape, threads: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let chunk = samples.len().div_ceil(threads.max(1));
    let total: f64 = std::thread::scope(|scope| {
        let parts: Vec<_> = samples
            .chunks(chunk)
            .map(|part| {
                scope.spawn(move || {
                    let mut scratch = Scratch::new(model.hidden);
                    part.iter().map(|s| model.loss(s, shape, &mut scratch) as f64).sum::<f64>()
                })
            })
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or(f64::NAN)).sum()
    });
    total / samples.len() as f64
}

/// Trains a model on `train`, printing (through `report`) each epoch's losses with
/// `validation`'s. `k` is the logistic scale of the scores. The model returned is the
/// one of the epoch with the lowest validation loss (the last without held-out
/// positions): past it the net learns the training games, not the game.
pub fn train(
    settings: &TrainSettings,
    k: f32,
    train: &mut [Sample],
    validation: &[Sample],
    report: &mut dyn FnMut(&EpochLoss),
) -> Model {
    let shape = LossShape { scale: settings.scale, k, lambda: settings.lambda };
    let mut model = Model::new(settings.hidden, settings.buckets, settings.seed);
    let mut adam = Adam::new(model.parameters());
    let mut rng = SplitMix(settings.seed ^ 0x5EED);
    let threads = settings.threads.max(1);
    let mut grads: Vec<Model> = (0..threads).map(|_| model.zeros_like()).collect();
    let batch = settings.batch.max(1);
    let steps_per_epoch = train.len().div_ceil(batch);
    let total_steps = (steps_per_epoch * settings.epochs).max(1);
    let mut step = 0;
    let mut best: Option<(f64, Model)> = None;
    for epoch in 1..=settings.epochs {
        shuffle(train, &mut rng);
        let mut epoch_loss = 0.0f64;
        for chunk in train.chunks(batch) {
            let progress = step as f32 / total_steps as f32;
            let rate = settings.learning_rate * (0.1 + 0.9 * 0.5 * (1.0 + (std::f32::consts::PI * progress).cos()));
            epoch_loss += batch_gradient(&model, chunk, &shape, &mut grads);
            let (sum, rest) = grads.split_first_mut().expect("one gradient per thread");
            for other in rest.iter() {
                for (into, from) in sum.params_mut().into_iter().zip([&other.w, &other.bias, &other.v, &other.c]) {
                    for (a, b) in into.iter_mut().zip(from) {
                        *a += b;
                    }
                }
            }
            let n = chunk.len() as f32;
            for part in sum.params_mut() {
                for g in part.iter_mut() {
                    *g /= n;
                }
            }
            adam.step(&mut model, sum, rate);
            step += 1;
        }
        let loss = EpochLoss {
            epoch,
            train: epoch_loss / train.len().max(1) as f64,
            validation: mean_loss(&model, validation, &shape, threads),
        };
        report(&loss);
        if !validation.is_empty() && best.as_ref().is_none_or(|(lowest, _)| loss.validation < *lowest) {
            best = Some((loss.validation, model.clone()));
        }
    }
    best.map_or(model, |(_, kept)| kept)
}

/// Fills `grads` (one per thread, zeroed first) with the summed gradient of each
/// thread's share of `batch`; the batch's summed loss.
fn batch_gradient(model: &Model, batch: &[Sample], shape: &LossShape, grads: &mut [Model]) -> f64 {
    for grad in grads.iter_mut() {
        for p in grad.params_mut() {
            p.fill(0.0);
        }
    }
    let share = batch.len().div_ceil(grads.len());
    std::thread::scope(|scope| {
        let parts: Vec<_> = batch
            .chunks(share)
            .zip(grads.iter_mut())
            .map(|(part, grad)| {
                scope.spawn(move || {
                    let mut scratch = Scratch::new(model.hidden);
                    part.iter().map(|s| model.backward(s, shape, grad, &mut scratch) as f64).sum::<f64>()
                })
            })
            .collect();
        parts.into_iter().map(|p| p.join().unwrap_or(f64::NAN)).sum()
    })
}

/// Fisher-Yates.
fn shuffle<T>(items: &mut [T], rng: &mut SplitMix) {
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// The share of `samples` whose prediction is on the same side of one half as the
/// result's (draws left out): a plain check that a net has learnt something.
pub fn agreement(model: &Model, samples: &[Sample], scale: f32, k: f32) -> f64 {
    let decided: Vec<&Sample> = samples.iter().filter(|s| s.result != 0.5).collect();
    let right = decided.iter().filter(|s| (sigmoid(model.output(s) * scale / k) > 0.5) == (s.result > 0.5)).count();
    right as f64 / decided.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::{Color, Piece, PieceKind};

    /// `n` positions of the two generals and a few random pieces, with random scores and
    /// results: nothing to learn, so the held-out loss wanders from epoch to epoch.
    fn noise(n: usize, seed: u64) -> Vec<Sample> {
        let mut rng = SplitMix(seed);
        let kinds = [PieceKind::Chariot, PieceKind::Horse, PieceKind::Cannon, PieceKind::Soldier];
        (0..n)
            .map(|_| {
                let mut pieces = vec![
                    (4, Piece::new(Color::Red, PieceKind::General)),
                    (85, Piece::new(Color::Black, PieceKind::General)),
                ];
                for _ in 0..4 {
                    let colour = if rng.next_u64().is_multiple_of(2) { Color::Red } else { Color::Black };
                    let kind = kinds[(rng.next_u64() % 4) as usize];
                    pieces.push((18 + (rng.next_u64() % 54) as usize, Piece::new(colour, kind)));
                }
                pieces.sort_by_key(|&(point, _)| point);
                pieces.dedup_by_key(|&mut (point, _)| point);
                let score = (rng.next_f32() - 0.5) * 1200.0;
                let result = (rng.next_u64() % 3) as f32 / 2.0;
                Sample::new(pieces.into_iter(), Color::Red, 2, score, result)
            })
            .collect()
    }

    #[test]
    fn the_net_of_the_epoch_with_the_lowest_held_out_loss_is_kept() {
        let settings = TrainSettings {
            hidden: 16,
            buckets: 2,
            scale: 400.0,
            lambda: 0.5,
            epochs: 8,
            batch: 16,
            learning_rate: 0.05,
            threads: 1,
            seed: 3,
        };
        let (mut training, validation) = (noise(256, 1), noise(64, 2));
        let mut losses = Vec::new();
        let model = train(&settings, 400.0, &mut training, &validation, &mut |e| losses.push(e.validation));
        let lowest = losses.iter().copied().fold(f64::INFINITY, f64::min);
        assert_ne!(losses.last(), Some(&lowest), "the last epoch is not the best here: {losses:?}");
        let shape = LossShape { scale: 400.0, k: 400.0, lambda: 0.5 };
        assert_eq!(mean_loss(&model, &validation, &shape, 1), lowest, "{losses:?}");
    }
}
