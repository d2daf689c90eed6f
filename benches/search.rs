//! Search speed: nodes per second to a fixed depth over a set of positions, one thread,
//! for Xiangqi and for Three Kingdoms; and Xiangqi at a fixed node count with the
//! classical evaluation against the shipped net and a wide random one. Run with
//! `cargo bench --bench search`.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::three_kingdoms;
use chuhe::rules::xiangqi::Game;
use chuhe::search::nnue::random::{self, Ranges};
use chuhe::search::nnue::{Kernel, NetVariant, Network, embedded};
use chuhe::search::three_kingdoms as tk;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params, search};
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};

const POSITIONS: &[&str] = &[
    "startpos",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "3k1a3/2P1aP3/4b1n2/8C/6b2/1R5R1/9/9/1rcpr4/3c1K3 w - - 0 1",
    "5a3/3k5/3aR4/9/5r3/5n3/9/3A1A3/5K3/2BC2B2 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
];

/// Deep enough that the search, not the tables' allocation, takes the time (the
/// pruning keeps the trees small: about 10^5-10^6 nodes in all).
const DEPTH: u32 = 13;

fn run_all(tables: &[TranspositionTable]) -> u64 {
    let mut nodes = 0;
    for (f, tt) in POSITIONS.iter().zip(tables) {
        let game = Game::new(fen::xiangqi(f).expect("valid FEN"));
        let params = Params { limits: Limits { depth: Some(DEPTH), ..Limits::default() }, ..Params::default() };
        nodes += search(&game, &params, tt, &AtomicBool::new(false), None, &mut |_| {}).report.nodes;
    }
    nodes
}

/// A fresh 16 MiB table for each position: made before the timing starts, as a
/// session makes its table once (filling it with zeros is no part of a search).
fn fresh_tables(positions: usize) -> Vec<TranspositionTable> {
    (0..positions).map(|_| TranspositionTable::new(16)).collect()
}

/// Times `run` in the group `group`. The node count is fixed (one thread, fresh
/// tables): it is reported as throughput.
fn nodes_per_second(
    c: &mut Criterion,
    group: &str,
    depth: u32,
    positions: usize,
    run: fn(&[TranspositionTable]) -> u64,
) {
    let nodes = run(&fresh_tables(positions));
    let mut group = c.benchmark_group(group);
    group.sample_size(10);
    group.throughput(Throughput::Elements(nodes));
    group.bench_function(format!("depth {depth}, {positions} positions, {nodes} nodes"), |b| {
        b.iter_batched_ref(|| fresh_tables(positions), |tables| run(tables), BatchSize::PerIteration)
    });
    group.finish();
}

fn bench(c: &mut Criterion) {
    nodes_per_second(c, "search", DEPTH, POSITIONS.len(), run_all);
}

/// Three Kingdoms: the start and two positions of a game the engine played against
/// itself (after 30 and 60 plies).
const THREE_KINGDOMS: &[&str] = &[
    three_kingdoms::text::START,
    "R1BAKAB2/9/N2F1F2N/P1P1P1P1P/9 R3KA2R/4A4/NrR1FBFN1B/P3rC1P2/7C1 \
     2BA1AR2/R4K3/N2FBF1CN/PCP1P1PrCP/9 R RGB F 5 11",
    "2B1KA3/R3A4/N2FBF2N/P1P1P1P1P/5gN3 R3KA3/4A4/NrR1FB1R1B/P2rC2P2/2C4bP1 \
     2B2A2R/2R1AK3/N2F1F1CN/C1P1P1PrCP/2B6 R RGB F 24 21",
];

const THREE_KINGDOMS_DEPTH: u32 = 5;

fn run_three_kingdoms(tables: &[TranspositionTable]) -> u64 {
    let mut nodes = 0;
    for (text, tt) in THREE_KINGDOMS.iter().zip(tables) {
        let pos = three_kingdoms::Position::from_text(text).expect("valid position text");
        let game = three_kingdoms::outcome::Game::new(pos);
        let limits = tk::Limits { depth: Some(THREE_KINGDOMS_DEPTH), ..Default::default() };
        let params = tk::Params { limits, ..tk::Params::default() };
        nodes += tk::search(&game, &params, tt, &AtomicBool::new(false), None, &mut |_| {}).report.nodes;
    }
    nodes
}

fn bench_three_kingdoms(c: &mut Criterion) {
    nodes_per_second(c, "search three kingdoms", THREE_KINGDOMS_DEPTH, THREE_KINGDOMS.len(), run_three_kingdoms);
}

/// Nodes searched from each position when comparing evaluations.
const EVALUATION_NODES: u64 = 200_000;

/// The embedded Xiangqi net on `kernel`.
fn shipped(kernel: Kernel) -> Arc<Network> {
    Arc::new((*embedded::network(NetVariant::Xiangqi)).clone().with_kernel(kernel))
}

/// A net of 256 lanes and 8 buckets with random weights: the per-node cost of the
/// width more data will want (a trained net of that shape searches other trees).
fn wide(kernel: Kernel) -> Arc<Network> {
    Arc::new(random::network(NetVariant::Xiangqi, 256, 8, 42, Ranges::TYPICAL).with_kernel(kernel))
}

fn run_fixed_nodes(tables: &[TranspositionTable], nnue: &Option<Arc<Network>>) -> u64 {
    let mut nodes = 0;
    for (f, tt) in POSITIONS.iter().zip(tables) {
        let game = Game::new(fen::xiangqi(f).expect("valid FEN"));
        let limits = Limits { nodes: Some(EVALUATION_NODES), ..Limits::default() };
        let params = Params { limits, nnue: nnue.clone(), ..Params::default() };
        nodes += search(&game, &params, tt, &AtomicBool::new(false), None, &mut |_| {}).report.nodes;
    }
    nodes
}

/// Nodes per second with the classical evaluation and with a net (each kernel this
/// processor runs), at a fixed node count per position.
fn bench_evaluations(c: &mut Criterion) {
    let mut group = c.benchmark_group("search by evaluation");
    group.sample_size(10);
    let mut evaluations = vec![("classical".to_string(), None)];
    for kernel in Kernel::ALL.into_iter().filter(|k| k.available()) {
        let net = shipped(kernel);
        evaluations.push((format!("shipped net {}x{} {kernel:?}", net.hidden(), net.buckets()), Some(net)));
    }
    if let Some(best) = Kernel::ALL.into_iter().rfind(|k| k.available()) {
        evaluations.push((format!("random 256x8 {best:?}"), Some(wide(best))));
    }
    for (name, nnue) in evaluations {
        let nodes = run_fixed_nodes(&fresh_tables(POSITIONS.len()), &nnue);
        group.throughput(Throughput::Elements(nodes));
        group.bench_function(format!("{name}, {} positions, {nodes} nodes", POSITIONS.len()), |b| {
            b.iter_batched_ref(
                || fresh_tables(POSITIONS.len()),
                |tables| run_fixed_nodes(tables, &nnue),
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_three_kingdoms, bench_evaluations);
criterion_main!(benches);
