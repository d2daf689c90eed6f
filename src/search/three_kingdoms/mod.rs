//! Search for Three Kingdoms: paranoid alpha-beta with iterative deepening.
//!
//! **Paranoid**: the kingdom to move at the root (the *root player*) maximises its
//! score, and both rivals are treated as one coalition that minimises it. Every score
//! is from the root player's view; a ply of a rival is a min node whoever the rival
//! is, so two rival plies in a row are two min plies.
//!
//! **Evaluation** (root player's view): each kingdom in play counts the material of
//! every piece it controls (its own army and any army it took over) plus small
//! placement terms (a soldier out of its own half, a horse or chariot on a rival's
//! half) plus [`GENERAL`] for its general. The score is own strength less the average
//! of the two rivals' (a defeated rival counting 0), so that defeating a rival is
//! worth half its strength plus the army taken over. The material of each original
//! army is kept move by move; a takeover only changes who counts it. The root
//! player left as the last kingdom scores [`WIN`] less the plies it took; the root
//! player defeated scores `-WIN` plus the plies. A repetition of a position since the
//! last capture or defeat (in the game or on the searched line) and the 180th quiet
//! ply score 0, a draw.
//!
//! **Nodes**: principal variation search (the first move with the full window, the
//! others with a null window, searched again when they beat it); late-move reductions
//! for the root player's quiet moves that come late and give no check, never for the
//! rivals' (a rival's quiet threat searched less deeply goes unseen; at a fixed node
//! budget, reducing rivals' moves too reached a ply deeper but lost more games); move
//! ordering by the table move, captures of generals, captures by value taken less a
//! tenth of the taker, two killer moves per ply and a history of quiet moves that cut.
//! **Quiescence** at the horizon: captures only, each side may stand pat (a min node
//! stands pat too: a rival need not capture), except a side in check, which tries
//! every move for its first plies.
//!
//! **Transposition table**: the engine's shared table, keyed by the position key (which
//! holds the pieces with their controllers, the side to move and the defeated
//! kingdoms) mixed with a Three Kingdoms salt and the root player. For a given root
//! player the paranoid value of a node is a function of the position, so scores are
//! stored with their bound (lower, upper or exact, from the window the node was
//! searched with, read the same way at min and max nodes) and trusted at non-PV nodes
//! searched no deeper, across searches too; win and loss scores are stored relative to
//! the node. The best move is packed into the entry's `eval` field (from and to point
//! indices), since the entry's move field holds a Xiangqi move; it is used only if it
//! is legal in the position.
//!
//! **Multi-PV**: the k best root moves get exact scores: each root move is searched
//! against the k-th best score so far, so the others are only shown to be worse.
//!
//! **Draw offers** ([`judge_draw_offer`]): the kingdom to move compares its paranoid
//! value with its strongest rival's, each searched as the root player to the same
//! depth.

mod draw;
mod eval;
mod searcher;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

pub use draw::{DrawVerdict, judge_draw_offer};
pub use eval::{GENERAL, evaluate, strength, value};
use searcher::{Searcher, pick};

use super::tt::TranspositionTable;
use crate::rules::three_kingdoms::outcome::Game;
use crate::rules::three_kingdoms::{Move, MoveList};

/// Score of a won game (the root player is the last kingdom), less the plies to it.
pub const WIN: i32 = crate::search::MATE;
/// Scores beyond this are wins or losses.
pub const WIN_BOUND: i32 = crate::search::MATE_BOUND;

const INF: i32 = 32_000;
const MAX_PLY: usize = 96;
/// Quiescence plies at most; in check, every move is tried in the first `QS_EVASIONS`.
const QS_PLIES: u32 = 6;
const QS_EVASIONS: u32 = 2;
const SALT: u64 = 0x7468_7265_656B_6467; // "threekdg"
const ROOT_SALT: [u64; 3] = [0x9E37_79B9_7F4A_7C15, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9];

pub use crate::search::{Limits, StopReason};

/// What to search (one thread; `threads` is not used).
pub type Params = crate::search::Params<Move>;
/// One line: its score from the root player's view (centipawns, or beyond
/// [`WIN_BOUND`] for a decided game) and its moves.
pub type Line = crate::search::Line<Move, i32>;
/// Progress after a completed depth, and the final answer.
pub type Report = crate::search::Report<Move, i32>;
/// The result of a search.
pub type Outcome = crate::search::Outcome<Move, i32>;

/// The keys of the positions of `game` since its last capture or defeat, oldest first,
/// the current one last.
fn game_keys(game: &Game) -> Vec<u64> {
    let n = game.plies().len();
    let from = n.saturating_sub(game.position().quiet_plies() as usize);
    (from..=n).map(|i| game.key_before(i)).collect()
}

/// Searches the current position of `game` for its side to move by iterative
/// deepening until a limit, the stop flag or the deadline; the game's positions since
/// its last capture or defeat count for repetitions. `on_depth` sees each completed
/// depth. A record that has ended (won, or drawn by repetition or the quiet-ply limit)
/// has no move to search, as it lists none.
pub fn search(
    game: &Game,
    params: &Params,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
    on_depth: &mut dyn FnMut(&Report),
) -> Outcome {
    let started = Instant::now();
    tt.new_search();
    // On a clock, the move's soft budget ends the search (this search does not pace
    // itself by depth).
    let deadline = params.limits.deadline(started, deadline, |b| b.soft);
    let pos = game.position();
    let mut all = MoveList::new();
    if game.ending().is_none() {
        pos.legal_moves(&mut all);
    }
    let roots: Vec<Move> = all
        .iter()
        .copied()
        .filter(|m| params.search_moves.is_empty() || params.search_moves.contains(m))
        .filter(|m| !params.exclude_moves.contains(m))
        .collect();
    let mut s = Searcher::new(game, pos.side_to_move(), params.limits.nodes, tt, stop, deadline);
    let report = |s: &Searcher, depth: u32, lines: Vec<Line>| Report {
        depth,
        seldepth: s.seldepth.max(depth),
        nodes: s.nodes,
        elapsed: started.elapsed(),
        lines,
        hashfull: tt.hashfull(),
    };
    if roots.is_empty() {
        return Outcome {
            best: None,
            ponder: None,
            report: report(&s, 0, Vec::new()),
            stop_reason: StopReason::NoLegalMoves,
        };
    }
    let mut work = pos.clone();
    let mut ordered = {
        let mut list = MoveList::new();
        roots.iter().for_each(|&m| list.push(m));
        let mut scores = [0i32; MoveList::CAPACITY];
        s.order(pos, &list, &mut scores, None, 0);
        (0..list.len()).map(|i| pick(&mut list, &mut scores, i)).collect::<Vec<Move>>()
    };
    let k = params.multipv.clamp(1, roots.len());
    let max_depth = params.limits.depth.unwrap_or(MAX_PLY as u32).clamp(1, (MAX_PLY - 8) as u32);
    let mut lines = vec![Line { score: s.evaluate(pos), pv: vec![ordered[0]] }];
    let mut completed = 0;
    let mut stop_reason = StopReason::Depth;
    for depth in 1..=max_depth {
        let found = s.root(&mut work, &ordered, depth as i32, k);
        if let Some(reason) = s.aborted {
            // The first root move (the last best) was searched fully at this depth:
            // the best line found so far is the better informed.
            if !found.is_empty() && (completed == 0 || k == 1) {
                lines = found;
            }
            stop_reason = reason;
            break;
        }
        lines = found;
        completed = depth;
        let firsts: Vec<Move> = lines.iter().map(|l| l.pv[0]).collect();
        ordered.retain(|m| !firsts.contains(m));
        ordered.splice(0..0, firsts);
        on_depth(&report(&s, completed, lines.clone()));
        let top = lines[0].score;
        if k == 1 && top > WIN_BOUND && WIN - top <= depth as i32 {
            stop_reason = StopReason::MateFound;
            break;
        }
        if all.len() == 1 && params.limits.depth.is_none() {
            stop_reason = StopReason::SingleMove;
            break;
        }
    }
    let best = lines.first().map(|l| l.pv[0]);
    let ponder = lines.first().and_then(|l| l.pv.get(1).copied());
    Outcome { best, ponder, report: report(&s, completed, lines), stop_reason }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::types::{from_tt, to_tt};

    #[test]
    fn win_scores_are_stored_relative_to_the_node() {
        assert_eq!(from_tt(to_tt(WIN - 7, 3), 5), WIN - 9);
        assert_eq!(from_tt(to_tt(-WIN + 7, 3), 1), -WIN + 5);
        assert_eq!(from_tt(to_tt(-120, 3), 9), -120);
    }
}
