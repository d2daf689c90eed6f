//! The exported net, read by the search's loader, against the float model it came from.

use super::data::{DataVariant, Record};
use super::export::{net_file, quantisation_error};
use super::model::{Model, SplitMix};
use crate::rules::types::{Color, MoveList, Square};
use crate::rules::xiangqi::Position;
use crate::search::nnue::{NetVariant, Network};

/// The tolerance of the quantised evaluation against the float model's, in evaluation
/// units (centipawns at a scale of 400), on average and at worst: each feature
/// weight's rounding (up to 1/510 of a unit of the accumulator) adds up over about 30
/// active features, is doubled by the square and spread over 2H output terms; with
/// output weights near the clip this is several units, and tens at worst.
pub const TOLERANCE: (f64, f64) = (16.0, 64.0);

/// Records of positions of random games from the start.
fn positions(count: usize, seed: u64) -> Vec<Record> {
    let mut rng = SplitMix(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let mut pos = Position::startpos();
        for _ in 0..(rng.next_u64() % 120) {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            pos.play_unchecked(list.as_slice()[(rng.next_u64() % list.len() as u64) as usize]);
        }
        let mut board = [None; Square::COUNT];
        for (sq, piece) in pos.board().iter() {
            board[sq.index()] = Some(piece);
        }
        let turn = pos.turn();
        out.push(Record { board, turn, score: 0, red_result: 1, variant: DataVariant::Xiangqi, game: 0 });
    }
    out
}

#[test]
fn the_quantised_net_evaluates_within_the_tolerance_of_the_float_model() {
    let scale = 400;
    let mut model = Model::new(64, 4, 11);
    // Output weights near the clip and a spread of biases, as a trained net's, so that
    // the rounding of every weight shows.
    for v in &mut model.v {
        *v *= 12.0;
    }
    for (i, b) in model.bias.iter_mut().enumerate() {
        *b = (i % 7) as f32 * 0.1;
    }
    let bytes = net_file(&model, DataVariant::Xiangqi, scale);
    let net = Network::from_bytes(&bytes, NetVariant::Xiangqi, "exported").expect("the loader reads the export");
    let records = positions(300, 3);
    let (mean, worst) = quantisation_error(&model, &net, &records, scale);
    assert!(mean <= TOLERANCE.0 && worst <= TOLERANCE.1, "the quantised net is up to {worst} units off (mean {mean})");
    // The evaluations span hundreds of units, so the tolerance is a real bound.
    let spread = records.iter().map(|r| net.evaluate_board(&r.to_board(), r.turn).abs()).max().unwrap_or(0);
    assert!(spread > 200, "{spread}");
    // Both colours to move are among the positions.
    assert!(records.iter().any(|r| r.turn == Color::Black) && records.iter().any(|r| r.turn == Color::Red));
}
