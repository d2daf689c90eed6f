//! The cost of a game audit against plain searches: a 120-ply Xiangqi game audited at
//! 50,000 nodes per ply (three lines, the played move searched again when it is not
//! among them), against one plain search of 50,000 nodes (one line, the shared table)
//! per ply of the same game. Run with `cargo bench --bench audit`; it prints the ratio of
//! the two times (the aim: at most 1.5) before criterion's figures.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use chuhe::api::audit;
use chuhe::api::convert::ContentLimits;
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig};
use chuhe::game::{BoardGame, Variant};
use chuhe::rules::types::Move;
use chuhe::search::{Limits, Params};
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "common/people.rs"]
mod people;

const PLIES: usize = 120;
const NODES: u64 = 50_000;

fn engine() -> std::sync::Arc<Engine> {
    Engine::new(EngineConfig { hash_mb: 64, workers: 1, max_analysis: Duration::from_secs(3600), ..Default::default() })
}

/// A game of 120 plies: the engine at 2,000 nodes against itself, every fifth ply a
/// random legal move, so that some played moves are far from the audit's lines, as in
/// games of people. The first seed whose game lasts 120 plies.
fn game() -> Vec<Move> {
    (1..)
        .map(|seed| people::play(&engine(), 0x2545_F491_4F6C_DD1D ^ seed, PLIES))
        .find(|moves| moves.len() == PLIES)
        .expect("some game lasts")
}

/// One plain search of `NODES` per ply, as Analyze would run them; the nodes searched.
fn plain(engine: &Engine, moves: &[Move]) -> u64 {
    let params = Params { limits: Limits { nodes: Some(NODES), ..Limits::default() }, ..Params::default() };
    let mut game = BoardGame::startpos(Variant::Xiangqi);
    let mut nodes = 0;
    for &m in moves {
        let stop = AtomicBool::new(false);
        nodes += engine.search(&game, &params, None, &stop, &mut |_| {}).report.nodes;
        game.play_unchecked(m);
    }
    nodes
}

fn request(moves: &[Move]) -> proto::AuditGameRequest {
    proto::AuditGameRequest {
        position: Some(proto::Position {
            variant: proto::Variant::Xiangqi as i32,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            ..Default::default()
        }),
        nodes_per_ply: NODES,
        ..Default::default()
    }
}

/// The audit of the game; the nodes searched and the plies whose move needed its own
/// search.
fn audit(engine: &Engine, request: &proto::AuditGameRequest) -> (u64, usize) {
    let limits = ContentLimits { max_game_plies: usize::MAX };
    let r = audit::audit_here(engine, request, limits, &mut |_| {}).expect("a legal game");
    let extra = r.plies.iter().filter(|p| p.played_rank == 0).count();
    (r.summary.map_or(0, |s| s.nodes), extra)
}

fn bench(c: &mut Criterion) {
    let moves = game();
    let request = request(&moves);
    let engine = engine();
    // The two in turn, three times: the ratio of the medians.
    let (mut plain_times, mut audit_times) = (Vec::new(), Vec::new());
    let (mut plain_nodes, mut audit_nodes, mut extra) = (0, 0, 0);
    for _ in 0..3 {
        let t = Instant::now();
        plain_nodes = plain(&engine, &moves);
        plain_times.push(t.elapsed());
        let t = Instant::now();
        (audit_nodes, extra) = audit(&engine, &request);
        audit_times.push(t.elapsed());
    }
    plain_times.sort();
    audit_times.sort();
    let (p, a) = (plain_times[1], audit_times[1]);
    println!(
        "{} plies at {NODES} nodes: plain searches {p:.2?} ({plain_nodes} nodes), audit {a:.2?} ({audit_nodes} \
         nodes, {extra} played moves searched on their own): audit/plain {:.2}",
        moves.len(),
        a.as_secs_f64() / p.as_secs_f64()
    );
    let mut group = c.benchmark_group("audit");
    group.sample_size(10);
    group.warm_up_time(Duration::from_millis(500));
    group.bench_function(format!("{} plain searches of {NODES} nodes", moves.len()), |b| {
        b.iter(|| plain(&engine, &moves))
    });
    group.bench_function(format!("audit of {} plies at {NODES} nodes", moves.len()), |b| {
        b.iter(|| audit(&engine, &request))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
