//! The learned evaluation in the search: the incrementally kept accumulators equal a
//! refresh from scratch along random games, the SIMD (AVX2, SSE2) and scalar kernels
//! agree bit for bit, and a fixed-node search with a net is deterministic.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use chuhe::notation::fen;
use chuhe::rules::types::{Move, MoveList};
use chuhe::rules::{janggi, xiangqi};
use chuhe::search::nnue::random::{self, Ranges};

use chuhe::search::nnue::{Accumulator, AccumulatorStack, Kernel, NetProblem, NetVariant, Network, embedded};
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Outcome, Params, SearchGame, Searchable, search};
use common::rng::Rng;
use common::scratch::Scratch;
use proptest::prelude::*;

use crate::common;

const XIANGQI_STARTS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
];
const JANGGI_STARTS: &[&str] = &[
    "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1",
    "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1",
];

/// A random legal move, captures preferred half of the time; `None` at the game's end.
fn random_move<P: Searchable>(pos: &P, rng: &mut Rng) -> Option<Move> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let r = rng.next();
    let pick = if r & 1 == 0 && !captures.is_empty() { captures } else { moves };
    (!pick.is_empty()).then(|| pick.as_slice()[(r >> 1) as usize % pick.len()])
}

/// Plays a random game from `start` with the accumulators kept move by move, taking
/// moves back now and then, and checks the kept ones against a refresh at random plies
/// (so that some catch up over several moves and some refresh).
fn incremental_equals_refresh<P: Searchable>(start: P, net: Arc<Network>, seed: u64, plies: usize) {
    let mut rng = Rng(seed | 1);
    let mut pos = start;
    let mut stack = AccumulatorStack::new(net.clone(), pos.board());
    let mut path: Vec<(Move, P::Undo)> = Vec::new();
    for _ in 0..plies {
        if rng.next() % 3 == 0 {
            let kept = stack.top(pos.board()).clone();
            assert_eq!(kept, Accumulator::refresh(&net, pos.board()), "after {} plies", path.len());
        }
        if rng.next() % 5 == 0
            && let Some((m, undo)) = path.pop()
        {
            pos.undo(m, undo);
            stack.pop();
            continue;
        }
        let Some(m) = random_move(&pos, &mut rng) else { break };
        stack.push(pos.net_change(m));
        path.push((m, pos.play_unchecked(m)));
    }
    assert_eq!(stack.top(pos.board()).clone(), Accumulator::refresh(&net, pos.board()));
    let eval = stack.evaluate(pos.board(), pos.turn());
    assert_eq!(eval, net.evaluate_board(pos.board(), pos.turn()));
}

fn random_net(variant: NetVariant, seed: u64) -> Arc<Network> {
    Arc::new(random::network(variant, 32, 4, seed, Ranges::TYPICAL))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn xiangqi_incremental_accumulators_equal_a_refresh(start in 0..XIANGQI_STARTS.len(), seed in 1u64.., plies in 0usize..150) {
        let pos = fen::xiangqi(XIANGQI_STARTS[start]).unwrap();
        incremental_equals_refresh(pos, random_net(NetVariant::Xiangqi, seed), seed, plies);
    }

    #[test]
    fn janggi_incremental_accumulators_equal_a_refresh(start in 0..JANGGI_STARTS.len(), seed in 1u64.., plies in 0usize..150) {
        let pos = fen::janggi(JANGGI_STARTS[start]).unwrap();
        incremental_equals_refresh(pos, random_net(NetVariant::Janggi, seed), seed, plies);
    }
}

/// Positions along a random game from `start`.
fn positions<P: Searchable>(start: P, seed: u64, plies: usize) -> Vec<P> {
    let mut rng = Rng(seed | 1);
    let mut pos = start;
    let mut out = vec![pos.clone()];
    for _ in 0..plies {
        let Some(m) = random_move(&pos, &mut rng) else { break };
        pos.play_unchecked(m);
        out.push(pos.clone());
    }
    out
}

/// Both kernels give the same accumulators and evaluations, on nets of every width
/// and bucket count, with weights of a trained net's size and with weights so large
/// that the sums wrap.
fn kernels_agree<P: Searchable>(variant: NetVariant, starts: Vec<P>) {
    let simd: Vec<Kernel> = Kernel::ALL.into_iter().filter(|&k| k != Kernel::Scalar && k.available()).collect();
    if simd.len() < 2 {
        eprintln!("kernels on this processor: scalar and {simd:?}");
    }
    let huge = Ranges { feature: 16_000, output: 32_767, bias: 1 << 30 };
    for (i, (hidden, buckets, ranges)) in
        [(16, 1, Ranges::TYPICAL), (48, 5, Ranges::TYPICAL), (256, 8, Ranges::TYPICAL), (64, 16, huge)]
            .into_iter()
            .enumerate()
    {
        let net = random::network(variant, hidden, buckets, 1000 + i as u64, ranges);
        let scalar = net.clone().with_kernel(Kernel::Scalar);
        for &kernel in &simd {
            let fast = net.clone().with_kernel(kernel);
            for (j, start) in starts.iter().enumerate() {
                for pos in positions(start.clone(), 77 + j as u64, 120) {
                    let (b, turn) = (pos.board(), pos.turn());
                    let acc = Accumulator::refresh(&scalar, b);
                    assert_eq!(acc, Accumulator::refresh(&fast, b), "{kernel:?} H={hidden} B={buckets}");
                    let eval = scalar.evaluate_board(b, turn);
                    assert_eq!(eval, fast.evaluate_board(b, turn), "{kernel:?} H={hidden} B={buckets}");
                }
            }
        }
    }
}

#[test]
fn the_simd_and_scalar_kernels_agree_bit_for_bit() {
    kernels_agree(NetVariant::Xiangqi, XIANGQI_STARTS.iter().map(|t| fen::xiangqi(t).unwrap()).collect());
    kernels_agree(NetVariant::Janggi, JANGGI_STARTS.iter().map(|t| fen::janggi(t).unwrap()).collect());
}

#[test]
fn the_evaluation_is_from_the_side_to_moves_view() {
    // The same pieces mirrored with the other side to move: each side sees itself the
    // same way, so the evaluation is the same.
    let net = random::network(NetVariant::Xiangqi, 32, 4, 5, Ranges::TYPICAL);
    let red = fen::xiangqi("3k5/9/9/9/9/2p6/9/9/4R4/4K4 w - - 0 1").unwrap();
    let mirrored = fen::xiangqi("4k4/4r4/9/9/2P6/9/9/9/9/3K5 b - - 0 1").unwrap();
    assert_eq!(net.evaluate_board(red.board(), red.turn()), net.evaluate_board(mirrored.board(), mirrored.turn()));
}

fn fixed_nodes<G: SearchGame>(game: &G, net: Arc<Network>, nodes: u64) -> Outcome {
    let params =
        Params { limits: Limits { nodes: Some(nodes), ..Limits::default() }, nnue: Some(net), ..Params::default() };
    let tt = TranspositionTable::new(16);
    search(game, &params, &tt, &AtomicBool::new(false), None, &mut |_| {})
}

fn assert_deterministic<G: SearchGame>(game: &G, net: Arc<Network>) {
    let a = fixed_nodes(game, net.clone(), 40_000);
    let b = fixed_nodes(game, net, 40_000);
    assert_eq!(a.best, b.best);
    assert_eq!(a.report.nodes, b.report.nodes);
    assert_eq!(a.report.depth, b.report.depth);
    assert_eq!(a.report.lines, b.report.lines);
}

#[test]
fn a_fixed_node_search_with_a_net_is_deterministic() {
    let game = xiangqi::Game::new(fen::xiangqi(XIANGQI_STARTS[1]).unwrap());
    assert_deterministic(&game, embedded::network(NetVariant::Xiangqi));
    assert_deterministic(&game, random_net(NetVariant::Xiangqi, 9));
    let game = janggi::Game::new(fen::janggi(JANGGI_STARTS[0]).unwrap());
    assert_deterministic(&game, embedded::network(NetVariant::Janggi));
}

#[test]
fn the_net_changes_what_the_search_sees() {
    // The search scores the root by the net it is given: two different nets (or none)
    // give different scores at depth 1 from a middlegame.
    let game = xiangqi::Game::new(fen::xiangqi(XIANGQI_STARTS[1]).unwrap());
    let depth1 = |nnue: Option<Arc<Network>>| {
        let params = Params { limits: Limits { depth: Some(1), ..Limits::default() }, nnue, ..Params::default() };
        let tt = TranspositionTable::new(1);
        search(&game, &params, &tt, &AtomicBool::new(false), None, &mut |_| {}).report.lines[0].score
    };
    let (a, b, classical) = (
        depth1(Some(random_net(NetVariant::Xiangqi, 1))),
        depth1(Some(random_net(NetVariant::Xiangqi, 2))),
        depth1(None),
    );
    assert!(a != b || a != classical, "{a:?} {b:?} {classical:?}");
    // A net of another variant is not used: the classical evaluation answers.
    assert_eq!(depth1(Some(random_net(NetVariant::Janggi, 1))), classical);
}

/// A good Xiangqi net file.
fn good() -> Vec<u8> {
    random::net_file(NetVariant::Xiangqi, 32, 3, 400, 7, Ranges::TYPICAL)
}

fn file_problem(path: &std::path::Path) -> NetProblem {
    let e = Network::from_file(path, NetVariant::Xiangqi).unwrap_err();
    assert_eq!(e.file, path.display().to_string());
    e.problem
}

#[test]
fn a_file_is_read_only_as_far_as_its_header_allows() {
    let dir = Scratch::new("net-files");
    let path = dir.0.join("good.nnue");
    std::fs::write(&path, good()).unwrap();
    let net = Network::from_file(&path, NetVariant::Xiangqi).unwrap();
    assert_eq!(net.to_bytes(), good());
    // Devices and pipes are refused before they are opened: /dev/zero never ends, and
    // opening a FIFO would wait for a writer.
    assert_eq!(file_problem(std::path::Path::new("/dev/zero")), NetProblem::NotAFile);
    assert_eq!(file_problem(&dir.0), NetProblem::NotAFile);
    let fifo = dir.0.join("fifo.nnue");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    assert_eq!(file_problem(&fifo), NetProblem::NotAFile);
    // A sparse file of 2 GB is refused from its size, unread.
    let huge = dir.0.join("huge.nnue");
    std::fs::File::create(&huge).unwrap().set_len(2 << 30).unwrap();
    assert_eq!(file_problem(&huge), NetProblem::TooLong { len: 2 << 30 });
    // Below the bound, a file longer than its header implies is refused after the header.
    let mut bytes = good();
    let n = bytes.len();
    bytes.resize(n + 1000, 0);
    let long = dir.0.join("long.nnue");
    std::fs::write(&long, &bytes).unwrap();
    assert_eq!(file_problem(&long), NetProblem::BadLength { expected: n, found: n + 1000 });
    let e = Network::from_file(&huge, NetVariant::Xiangqi).unwrap_err().to_string();
    assert!(e.contains("too long: 2147483648 bytes, the largest net file is 2648200"), "{e}");
}
