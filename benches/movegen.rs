//! Move generation speed: perft from the initial position and from a middlegame, in
//! nodes per second, and listing the legal moves of a set of positions.
//!
//! `cargo bench --bench movegen` (a couple of minutes; perft 5 dominates).

#[path = "../tests/common/mod.rs"]
mod common;

use std::hint::black_box;
use std::time::Duration;

use chuhe::notation::fen;
use chuhe::rules::perft::perft;
use chuhe::rules::types::MoveList;
use chuhe::rules::xiangqi::Position;
use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

const MID1: &str = "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1";

fn bench_perft(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10).sampling_mode(SamplingMode::Flat).warm_up_time(Duration::from_secs(1));
    let cases: [(&str, &str, u32, u64, u64); 3] = [
        // label, FEN, depth, expected nodes, measurement seconds
        ("startpos", fen::XIANGQI_START, 4, 3_290_240, 5),
        ("startpos", fen::XIANGQI_START, 5, 133_312_995, 20),
        ("pika-bench-mid1", MID1, 4, 1_339_047, 5),
    ];
    for (label, text, depth, nodes, secs) in cases {
        let start = fen::xiangqi(text).expect("a valid FEN");
        // Checked once, outside the measurement: a fast wrong perft is worth nothing.
        assert_eq!(perft(&mut start.clone(), depth), nodes, "{label} depth {depth}");
        group.throughput(Throughput::Elements(nodes)).measurement_time(Duration::from_secs(secs));
        group.bench_with_input(BenchmarkId::new(label, depth), &depth, |b, &depth| {
            let mut pos = start.clone();
            b.iter(|| perft(black_box(&mut pos), depth))
        });
    }
    group.finish();
}

/// The Xiangqi positions of `tests/data/perft.tsv`, each also after 8 and 16 plies of a
/// fixed pseudo-random line: 24 positions from the opening to the ending.
fn positions() -> Vec<Position> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::new();
    for (label, text) in common::perft_positions("xiangqi") {
        let mut pos = fen::xiangqi(&text).unwrap_or_else(|e| panic!("{label}: {e}"));
        out.push(pos.clone());
        for ply in 1..=16 {
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos.play_unchecked(list.as_slice()[(seed % list.len() as u64) as usize]);
            if ply % 8 == 0 {
                out.push(pos.clone());
            }
        }
    }
    out
}

fn bench_legal_moves(c: &mut Criterion) {
    let positions = positions();
    let mut group = c.benchmark_group("legal_moves");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.bench_function(BenchmarkId::new("positions", positions.len()), |b| {
        let mut list = MoveList::new();
        b.iter(|| {
            let mut n = 0;
            for pos in &positions {
                list.clear();
                black_box(pos).legal_moves(&mut list);
                n += list.len();
            }
            n
        })
    });
    group.finish();
}

criterion_group!(benches, bench_perft, bench_legal_moves);
criterion_main!(benches);
