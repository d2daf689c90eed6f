//! The float model quantised into the net file the search loads (`CHUHENN1`, version
//! 1; the layout is the loader's, in `search::nnue`): feature weights and bias
//! `round(x * QA)` as i16, output weights `round(x * QB)` as i16, output bias
//! `round(x * QA * QB)` as i32, all little-endian after the header.

use super::data::DataVariant;
use super::model::{INPUTS, Model};

/// The first layer's quantisation: 1.0 is this.
pub const QA: i32 = 255;
/// The output layer's quantisation.
pub const QB: i32 = 64;

/// The bytes of the net file of `model` for `variant`, its float output read in
/// `scale` evaluation units.
pub fn net_file(model: &Model, variant: DataVariant, scale: i32) -> Vec<u8> {
    let mut bytes =
        Vec::with_capacity(40 + 2 * model.w.len() + 2 * model.bias.len() + 2 * model.v.len() + 4 * model.c.len());
    bytes.extend_from_slice(b"CHUHENN1");
    let variant = match variant {
        DataVariant::Xiangqi => 0,
        DataVariant::Janggi => 1,
    };
    for field in [1u32, variant, INPUTS as u32, model.hidden as u32, model.buckets as u32] {
        bytes.extend_from_slice(&field.to_le_bytes());
    }
    for field in [QA, QB, scale] {
        bytes.extend_from_slice(&field.to_le_bytes());
    }
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
    bytes
}

/// The net's identity: `nnue-` and the first 16 hex digits of the file's SHA-256.
pub fn identity(bytes: &[u8]) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let hex: String = digest.as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("nnue-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_has_the_specified_layout() {
        let mut model = Model::new(16, 2, 1);
        model.w[0] = 1.0;
        model.v[1] = -0.5;
        model.c[1] = 0.25;
        let bytes = net_file(&model, DataVariant::Janggi, 400);
        assert_eq!(bytes.len(), 40 + 2 * (INPUTS * 16 + 16) + 2 * 2 * 32 + 4 * 2);
        assert_eq!(&bytes[..8], b"CHUHENN1");
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
        assert_eq!([u32_at(8), u32_at(12), u32_at(16), u32_at(20), u32_at(24)], [1, 1, 1260, 16, 2]);
        assert_eq!([u32_at(28), u32_at(32), u32_at(36)], [255, 64, 400]);
        assert_eq!(i16::from_le_bytes([bytes[40], bytes[41]]), 255);
        let v_at = 40 + 2 * (INPUTS * 16 + 16);
        assert_eq!(i16::from_le_bytes([bytes[v_at + 2], bytes[v_at + 3]]), -32);
        let c_at = bytes.len() - 4;
        assert_eq!(i32::from_le_bytes(bytes[c_at..].try_into().unwrap()), 4080);
        assert!(identity(&bytes).starts_with("nnue-") && identity(&bytes).len() == 21);
    }
}
