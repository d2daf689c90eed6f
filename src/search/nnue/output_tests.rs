//! The evaluation worked by hand on a net with a few weights set, with both kernels:
//! the numbers the file format's definition gives.

use super::kernel::Kernel;
use super::net::{INPUTS, NetVariant, Network, file_len, seal};
use crate::notation::fen;

const H: usize = 16;
const B: usize = 2;

/// A Xiangqi net of 16 lanes and 2 buckets, scale 400, all weights zero but these:
/// `(feature, lane, weight)`, the bias of lane 2 at -5, and bucket 0's output weights
/// 2 (our lane 0), 1 (their lane 0), -3 (their lane 1) and bias 1000.
fn hand_made(rows: &[(usize, usize, i16)]) -> Vec<u8> {
    let mut feature_weights = vec![0i16; INPUTS * H];
    for &(f, lane, w) in rows {
        feature_weights[f * H + lane] = w;
    }
    let mut bias = vec![0i16; H];
    bias[2] = -5;
    let mut output = vec![0i16; B * 2 * H];
    output[0] = 2;
    output[H] = 1;
    output[H + 1] = -3;
    let mut bytes = b"CHUHENN1".to_vec();
    for v in [2u32, 0, INPUTS as u32, H as u32, B as u32] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    for v in [255i32, 64, 400] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    for w in feature_weights.iter().chain(&bias).chain(&output) {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    for b in [1000i32, 0] {
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    let bytes = seal(bytes);
    assert_eq!(bytes.len(), file_len(H, B));
    bytes
}

#[test]
fn the_evaluation_follows_the_definition() {
    // Red general e0, Red chariot a0, Black general d9.
    // Red's view: general e0 = 4, chariot a0 = (0 * 7 + 4) * 90 + 0 = 360, their
    // general d9 = 7 * 90 + 84 = 714. Black's view (ranks mirrored): its general
    // d0 = 3, their general e9 = 7 * 90 + 85 = 715, their chariot a9 = 11 * 90 + 81 =
    // 1071.
    let bytes = hand_made(&[(4, 0, 50), (3, 0, 50), (360, 0, 100), (1071, 1, 300), (714, 3, 7)]);
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        let net = Network::from_bytes(&bytes, NetVariant::Xiangqi, "hand").unwrap().with_kernel(kernel);
        // Red's lanes: 150, 0, -5, 7; Black's: 50, 300 (clamped to 255), -5, 0. One
        // piece besides the generals: bucket min(1, 1 * 2 / 30) = 0.
        // Red to move: sum = 2 * 150^2 + 1 * 50^2 - 3 * 255^2 = -147575;
        // (-147575 / 255 + 1000) * 400 / (255 * 64) = (-578 + 1000) * 400 / 16320 = 10.
        let red = fen::xiangqi("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1").unwrap();
        assert_eq!(net.evaluate_board(red.board(), red.turn()), 10, "{kernel:?}");
        // Black to move: sum = 2 * 50^2 + 1 * 150^2 = 27500;
        // (107 + 1000) * 400 / 16320 = 27.
        let black = fen::xiangqi("3k5/9/9/9/9/9/9/9/9/R3K4 b - - 0 1").unwrap();
        assert_eq!(net.evaluate_board(black.board(), black.turn()), 27, "{kernel:?}");
    }
}

#[test]
fn buckets_follow_the_pieces_besides_the_generals() {
    let bytes = super::random::net_file(NetVariant::Xiangqi, 16, 8, 400, 1, super::random::Ranges::TYPICAL);
    let net = Network::from_bytes(&bytes, NetVariant::Xiangqi, "eight").unwrap();
    let buckets: Vec<usize> = [0, 3, 4, 14, 15, 29, 30].iter().map(|&n| net.bucket(n)).collect();
    assert_eq!(buckets, [0, 0, 1, 3, 4, 7, 7]);
    let start = fen::xiangqi("startpos").unwrap();
    assert_eq!(super::pieces_besides_generals(start.board()), 30);
}
