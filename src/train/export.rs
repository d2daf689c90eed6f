//! The float model quantised into the net file the search loads (`CHUHENN1`, version
//! 2; the layout is the loader's, in `search::nnue`): feature weights and bias
//! `round(x * QA)` as i16, output weights `round(x * QB)` as i16, output bias
//! `round(x * QA * QB)` as i32, all little-endian after the header.

use super::data::{DataVariant, Record};
use super::model::{Model, Sample};
use crate::search::nnue::net::{QA, QB, header, seal};
use crate::search::nnue::{NetVariant, Network};

/// The bytes of the net file of `model` for `variant`, its float output read in
/// `scale` evaluation units.
pub fn net_file(model: &Model, variant: DataVariant, scale: i32) -> Vec<u8> {
    let mut bytes = header(net_variant(variant), model.hidden, model.buckets, scale);
    let i16_of = |x: f32, q: i32| (x * q as f32).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
    for &w in model.w.iter().chain(&model.bias) {
        bytes.extend_from_slice(&i16_of(w, QA).to_le_bytes());
    }
    for &v in &model.v {
        bytes.extend_from_slice(&i16_of(v, QB).to_le_bytes());
    }
    for &c in &model.c {
        bytes.extend_from_slice(&((c * (QA * QB) as f32).round() as i32).to_le_bytes());
    }
    seal(bytes)
}

/// The loader's name of a variant.
pub fn net_variant(variant: DataVariant) -> NetVariant {
    match variant {
        DataVariant::Xiangqi => NetVariant::Xiangqi,
        DataVariant::Janggi => NetVariant::Janggi,
    }
}

/// How far the quantised `net` evaluates from the float `model` it was made of on the
/// positions of `records` (its output read in `scale` units, as the file says): the
/// mean and the largest difference, in evaluation units.
pub fn quantisation_error(model: &Model, net: &Network, records: &[Record], scale: i32) -> (f64, f64) {
    let (mut sum, mut worst) = (0.0f64, 0.0f64);
    for r in records {
        let sample = Sample::new(r.pieces(), r.turn, model.buckets, 0.0, 0.5);
        let float = (model.output(&sample) * scale as f32) as f64;
        let quantised = net.evaluate_board(&r.to_board(), r.turn) as f64;
        sum += (float - quantised).abs();
        worst = worst.max((float - quantised).abs());
    }
    (sum / records.len().max(1) as f64, worst)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::nnue::net::INPUTS;

    #[test]
    fn the_file_has_the_specified_layout() {
        let mut model = Model::new(16, 2, 1);
        model.w[0] = 1.0;
        model.v[1] = -0.5;
        model.c[1] = 0.25;
        let bytes = net_file(&model, DataVariant::Janggi, 400);
        assert_eq!(bytes.len(), 40 + 2 * (INPUTS * 16 + 16) + 2 * 2 * 32 + 4 * 2 + 32);
        assert_eq!(&bytes[..8], b"CHUHENN1");
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        assert_eq!([u32_at(8), u32_at(12), u32_at(16), u32_at(20), u32_at(24)], [2, 1, 1260, 16, 2]);
        assert_eq!([u32_at(28), u32_at(32), u32_at(36)], [255, 64, 400]);
        assert_eq!(i16::from_le_bytes([bytes[40], bytes[41]]), 255);
        let v_at = 40 + 2 * (INPUTS * 16 + 16);
        assert_eq!(i16::from_le_bytes([bytes[v_at + 2], bytes[v_at + 3]]), -32);
        let (contents, checksum) = bytes.split_at(bytes.len() - 32);
        assert_eq!(checksum, ring::digest::digest(&ring::digest::SHA256, contents).as_ref());
        let c_at = contents.len() - 4;
        assert_eq!(i32::from_le_bytes(contents[c_at..].try_into().unwrap()), 4080);
    }
}
