//! The search of a game of any variant, the one thing the engine runs: each variant's
//! game says which search it takes and under which rules.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::BoardGame;
use crate::rules::three_kingdoms;
use crate::search::tt::TranspositionTable;
use crate::search::{self, Outcome, Params, Report, UnderRules};

/// A game the engine searches (see [`crate::engine::Engine::search`]): its move and
/// score types, and its search on the calling thread.
pub trait SearchedGame {
    /// The move the search answers with.
    type Move: Copy;
    /// The score of a line: centipawns or mate for the 9x10 games, one number for Three
    /// Kingdoms.
    type Score: Copy;

    /// Searches the game on the calling thread with `tt`, until `stop` is raised, the
    /// `deadline` passes or `params`' limits are met; `on_depth` sees each finished depth.
    fn search(
        &self,
        params: &Params<Self::Move>,
        tt: &TranspositionTable,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        on_depth: &mut dyn FnMut(&Report<Self::Move, Self::Score>),
    ) -> Outcome<Self::Move, Self::Score>;
}

impl SearchedGame for BoardGame {
    type Move = crate::rules::types::Move;
    type Score = search::Score;

    /// The search under the game's rule set (none named: the variant's own judgement of
    /// cycles).
    fn search(
        &self,
        params: &Params,
        tt: &TranspositionTable,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        on_depth: &mut dyn FnMut(&Report),
    ) -> Outcome {
        match self {
            BoardGame::Xiangqi(game, Some(rules)) => {
                search::search(&UnderRules { game, rules: *rules }, params, tt, stop, deadline, on_depth)
            }
            BoardGame::Janggi(game, Some(rules)) => {
                search::search(&UnderRules { game, rules: *rules }, params, tt, stop, deadline, on_depth)
            }
            BoardGame::Xiangqi(g, None) => search::search(g, params, tt, stop, deadline, on_depth),
            BoardGame::Janggi(g, None) => search::search(g, params, tt, stop, deadline, on_depth),
        }
    }
}

impl SearchedGame for three_kingdoms::Game {
    type Move = three_kingdoms::Move;
    type Score = i32;

    fn search(
        &self,
        params: &search::three_kingdoms::Params,
        tt: &TranspositionTable,
        stop: &AtomicBool,
        deadline: Option<Instant>,
        on_depth: &mut dyn FnMut(&search::three_kingdoms::Report),
    ) -> search::three_kingdoms::Outcome {
        search::three_kingdoms::search(self, params, tt, stop, deadline, on_depth)
    }
}
