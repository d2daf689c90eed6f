//! Nets of random weights from a seed: the placeholders shipped until trained nets
//! replace them, and the nets the tests compare the kernels on. The same seed gives
//! the same bytes on every machine (SplitMix64).

use super::net::{INPUTS, NetVariant, Network, header, seal};

/// SplitMix64: small, fast, and the same everywhere.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `-bound..=bound`.
    fn within(&mut self, bound: i32) -> i32 {
        (self.next() % (2 * bound as u64 + 1)) as i32 - bound
    }
}

/// How large the random weights may be.
#[derive(Clone, Copy, Debug)]
pub struct Ranges {
    /// Feature weights and bias: within ±this (small enough that 40 rows never wrap an
    /// i16, as a trainer's clipped weights).
    pub feature: i32,
    /// Output weights: within ±this.
    pub output: i32,
    /// Output bias: within ±this.
    pub bias: i32,
}

impl Ranges {
    /// Weights of a trained net's size: a feature 0.1 of `qa`, an output weight up to
    /// the SIMD shortcut's ±128.
    pub const TYPICAL: Ranges = Ranges { feature: 25, output: 128, bias: 20_000 };
}

/// The bytes of a net file for `variant` of `hidden` lanes and `buckets` buckets with
/// weights from `seed`, and `scale` units per output unit.
pub fn net_file(variant: NetVariant, hidden: usize, buckets: usize, scale: i32, seed: u64, ranges: Ranges) -> Vec<u8> {
    let mut rng = SplitMix(seed);
    let mut out = header(variant, hidden, buckets, scale);
    for _ in 0..INPUTS * hidden + hidden {
        out.extend_from_slice(&(rng.within(ranges.feature) as i16).to_le_bytes());
    }
    for _ in 0..buckets * 2 * hidden {
        out.extend_from_slice(&(rng.within(ranges.output) as i16).to_le_bytes());
    }
    for _ in 0..buckets {
        out.extend_from_slice(&rng.within(ranges.bias).to_le_bytes());
    }
    seal(out)
}

/// A random net, loaded.
pub fn network(variant: NetVariant, hidden: usize, buckets: usize, seed: u64, ranges: Ranges) -> Network {
    let bytes = net_file(variant, hidden, buckets, 400, seed, ranges);
    Network::from_bytes(&bytes, variant, "<random>").expect("a generated net has the right shape")
}
