//! Synchronous game-tree search with a stop flag and a deadline.
//!
//! Iterative deepening principal-variation search with aspiration windows; quiescence
//! over captures (all evasions when in check); move ordering by the table move, MVV-LVA,
//! killers and history; null-move pruning, late-move reductions, check extensions,
//! mate-distance scores; Lazy SMP over several threads sharing one
//! [`tt::TranspositionTable`]. Repetitions inside the search follow the game's rule set
//! ([`SearchGame::rules`]): the first return to a position on the search path is judged
//! as if the cycle went on, by the same judgement the adjudication gives a third
//! occurrence ([`crate::rules::repetition`]): a side that would lose by it (perpetual
//! check; perpetual chase under the Asian rules, perpetual attack under the tournament
//! rules; perpetual check under Janggi's tournament rules) scores a loss, any other
//! repetition a draw.
//!
//! The search is generic over the variant through [`Searchable`] (a position with its
//! moves, null move, key and incremental evaluation) and [`SearchGame`] (the history it
//! starts from); each variant gets its own monomorphized copy, so Xiangqi pays nothing
//! for Janggi's passes.

pub mod draw_offer;
pub mod eval;
mod eval_weights;
pub mod janggi_eval;
pub mod janggi_weights;
pub mod nnue;
mod searchable;
pub mod see;
pub mod terms;
pub mod three_kingdoms;
pub mod time;
pub mod tt;
pub mod tune;
mod types;
mod worker;

pub use searchable::{SearchGame, Searchable, UnderRules};
pub use types::{Limits, Line, MATE, MATE_BOUND, MAX_PLY, Outcome, Params, Report, Score, StopReason};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use tt::TranspositionTable;
use worker::Worker;

struct Shared<'a> {
    tt: &'a TranspositionTable,
    stop: &'a AtomicBool,
    /// Set by the main thread when it is done, to release the helpers.
    done: AtomicBool,
    nodes: AtomicU64,
    deadline: Option<Instant>,
    node_limit: u64,
}

/// Searches the current position of `game` (its history counts for repetitions).
/// Blocks until a limit, the stop flag or the deadline ends it; `on_depth` sees each
/// completed depth of the main thread.
pub fn search<G: SearchGame>(
    game: &G,
    params: &Params,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    let start = Instant::now();
    tt.new_search();
    // On a clock, the hard budget is a deadline; the soft one ends the deepening.
    let deadline = params.limits.deadline(start, deadline, |b| b.hard);
    // An exact node limit needs one thread counting every node.
    let threads = if params.limits.nodes.is_some() { 1 } else { params.threads.max(1) };
    let shared = Shared {
        tt,
        stop,
        done: AtomicBool::new(false),
        nodes: AtomicU64::new(0),
        deadline,
        node_limit: params.limits.nodes.unwrap_or(u64::MAX),
    };
    let mut outcome = None;
    std::thread::scope(|scope| {
        for id in 1..threads {
            let shared = &shared;
            scope.spawn(move || {
                let mut worker = Worker::new(game, params, shared, id);
                worker.iterate(start, &mut |_| {});
            });
        }
        let mut worker = Worker::new(game, params, &shared, 0);
        outcome = Some(worker.iterate(start, on_depth));
        shared.done.store(true, Ordering::Relaxed);
    });
    let mut outcome = outcome.expect("the main worker always answers");
    outcome.report.nodes = shared.nodes.load(Ordering::Relaxed);
    outcome.report.elapsed = start.elapsed();
    outcome
}

#[cfg(test)]
mod score_tests;
