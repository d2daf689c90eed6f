//! Draw offers in Three Kingdoms: each kingdom in play searched as the root player,
//! the kingdom to move's value compared with its strongest rival's.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::searcher::Searcher;
use super::{INF, Limits, MAX_PLY, WIN, WIN_BOUND};
use crate::rules::three_kingdoms::outcome::Game;
use crate::rules::three_kingdoms::{Kingdom, MoveList};
use crate::search::draw_offer::{self, DrawAnswer, Standing};
use crate::search::tt::TranspositionTable;

/// The answer to a draw offer, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawVerdict {
    /// Accept or decline.
    pub answer: DrawAnswer,
    /// The kingdom to move's score less its strongest rival's, in centipawns, or beyond
    /// [`WIN_BOUND`] when the game is decided (a win for the kingdom to move, or a loss
    /// when it or a rival is shown to lose or win).
    pub score: i32,
    /// The depth the scores were compared at.
    pub depth: u32,
}

/// The paranoid value of `game`'s position for `root` (to move or not) at depths 0,
/// `step`, `2 * step`, ... up to `max_depth`, until a limit, the stop flag or the
/// deadline: the values of the depths completed.
fn values_by_depth(
    game: &Game,
    root: Kingdom,
    step: u32,
    limits: Limits,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> Vec<(u32, i32)> {
    let mut s = Searcher::new(game, root, limits.nodes, tt, stop, deadline);
    let mut pos = game.position().clone();
    let max_depth = limits.depth.unwrap_or(MAX_PLY as u32).min((MAX_PLY - 8) as u32);
    let mut out = Vec::new();
    for depth in (0..=max_depth).step_by(step as usize) {
        let v = s.node(&mut pos, depth as i32, -INF, INF, 0);
        if s.aborted.is_some() {
            break;
        }
        out.push((depth, v));
        if v.abs() > WIN_BOUND {
            break;
        }
    }
    out
}

/// Answers a draw offer for the kingdom to move in `game`. In Three Kingdoms a draw
/// needs every kingdom in play to agree; this is one kingdom's answer.
///
/// Each kingdom in play is searched in turn (the kingdom to move first) with an equal
/// share of the time and the nodes, each as the root player of a paranoid search, to
/// depths that are multiples of the number of kingdoms in play (so that each of them
/// has moved as often). At the deepest depth all completed, the kingdom to move
/// compares its value with its strongest rival's: both carry the same pessimism of
/// the paranoid search, which cancels out. A game shown won for the kingdom to move
/// declines; one shown lost for it, or won for a rival, accepts. Otherwise it accepts
/// when more than [`draw_offer::LEVEL_MARGIN`] below, declines when more than that above, and when
/// level accepts only if no general is attacked and it has no capture to make.
pub fn judge_draw_offer(
    game: &Game,
    limits: Limits,
    tt: &TranspositionTable,
    stop: &AtomicBool,
    deadline: Option<Instant>,
) -> DrawVerdict {
    tt.new_search();
    let pos = game.position();
    let me = pos.side_to_move();
    let kingdoms: Vec<Kingdom> = std::iter::once(me).chain(pos.kingdoms_in_play().filter(|&k| k != me)).collect();
    let n = kingdoms.len() as u32;
    let mut values = Vec::new();
    for (i, &k) in kingdoms.iter().enumerate() {
        // Each search gets an equal share of the time left and of the nodes.
        let now = Instant::now();
        let until = deadline.map(|d| now + d.saturating_duration_since(now) / (n - i as u32));
        let limits = Limits { nodes: limits.nodes.map(|x| x / u64::from(n)), ..limits };
        values.push(values_by_depth(game, k, n.max(1), limits, tt, stop, until));
    }
    // Depth 0 (quiescence) completes unless the search was stopped at once.
    let depth = values.iter().map(|v| v.last().map_or(0, |&(d, _)| d)).min().unwrap_or(0);
    let at = |v: &Vec<(u32, i32)>| v.iter().find(|&&(d, _)| d == depth).map_or(0, |&(_, x)| x);
    let mine = values.first().map_or(0, at);
    let rival = values.iter().skip(1).map(at).max().unwrap_or(-WIN);
    let (standing, score) = if mine > WIN_BOUND {
        (Standing::Won, mine)
    } else if mine < -WIN_BOUND {
        (Standing::Lost, mine)
    } else if rival > WIN_BOUND {
        (Standing::Lost, -rival)
    } else {
        let score = (mine - rival).clamp(-WIN_BOUND, WIN_BOUND);
        (Standing::Margin(score), score)
    };
    let quiet = || {
        let mut captures = MoveList::new();
        pos.legal_captures(&mut captures);
        pos.kingdoms_in_play().all(|k| pos.attackers_of_general(k).is_empty()) && captures.is_empty()
    };
    let answer = draw_offer::answer(standing, quiet);
    DrawVerdict { answer, score, depth }
}
