//! Search speed: nodes per second to a fixed depth over a set of positions, one thread.
//! Run with `cargo bench --bench search`.

use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::history::Game;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, search};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const POSITIONS: &[&str] = &[
    "startpos",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
];

const DEPTH: u32 = 8;

fn run_all() -> u64 {
    let mut nodes = 0;
    for f in POSITIONS {
        let game = Game::new(fen::xiangqi(f).expect("valid FEN"));
        let tt = TranspositionTable::new(16);
        let params = Params { limits: Limits { depth: Some(DEPTH), ..Limits::default() }, ..Params::default() };
        nodes += search(&game, &params, &tt, &AtomicBool::new(false), None, &mut |_| {}).report.nodes;
    }
    nodes
}

fn bench(c: &mut Criterion) {
    // The node count is fixed (one thread, fresh tables): report it as throughput.
    let nodes = run_all();
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("depth {DEPTH}, {} positions, {nodes} nodes", POSITIONS.len()), |b| b.iter(run_all));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
