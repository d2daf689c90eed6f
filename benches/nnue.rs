//! The learned evaluation's cost: one evaluation (output layer), one refresh of both
//! accumulators, one incremental update (a move with a capture), each with the scalar,
//! SSE2 and AVX2 kernels, on the shipped Xiangqi net and on a net of 256 lanes and 8
//! buckets with random weights (the width more data will want). Run with
//! `cargo bench --bench nnue`; search speed with the net is in the `search` bench.

use std::hint::black_box;

use chuhe::notation::fen;
use chuhe::rules::types::{Move, MoveList};
use chuhe::search::Searchable;
use chuhe::search::nnue::random::{self, Ranges};
use chuhe::search::nnue::{Accumulator, Kernel, NetVariant, Network, embedded, pieces_besides_generals};
use criterion::{Criterion, criterion_group, criterion_main};

/// A middlegame with 27 pieces.
const MIDDLEGAME: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

/// The nets measured, by name: the embedded Xiangqi net and a wide random one.
fn nets(kernel: Kernel) -> [(String, Network); 2] {
    let shipped = embedded::network(NetVariant::Xiangqi);
    [
        (format!("shipped {}x{}", shipped.hidden(), shipped.buckets()), (*shipped).clone().with_kernel(kernel)),
        (
            "random 256x8".to_string(),
            random::network(NetVariant::Xiangqi, 256, 8, 42, Ranges::TYPICAL).with_kernel(kernel),
        ),
    ]
}

fn evaluation(c: &mut Criterion) {
    let pos = fen::xiangqi(MIDDLEGAME).expect("valid FEN");
    let b = pos.board();
    // A capture: three rows per perspective.
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let capture: Move = captures.as_slice()[0];
    let change = pos.net_change(capture);
    let mut group = c.benchmark_group("nnue");
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        for (name, net) in nets(kernel) {
            let acc = Accumulator::refresh(&net, b);
            let pieces = pieces_besides_generals(b);
            group.bench_function(format!("{name} {kernel:?}: evaluate (output layer)"), |bench| {
                bench.iter(|| net.evaluate(black_box(&acc), pos.turn(), pieces))
            });
            group.bench_function(format!("{name} {kernel:?}: refresh both accumulators"), |bench| {
                let mut out = acc.clone();
                bench.iter(|| out.refresh_from(&net, black_box(b)))
            });
            group.bench_function(format!("{name} {kernel:?}: incremental update (capture)"), |bench| {
                let mut out = acc.clone();
                bench.iter(|| out.update_from(&net, black_box(&acc), black_box(&change)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, evaluation);
criterion_main!(benches);
