//! Game records made by walking from a start position, for tests that need a legal
//! record of a given length with nothing in it that ends the game early.

use std::collections::HashSet;

use chuhe::rules::types::MoveList;
use chuhe::rules::{janggi, three_kingdoms, xiangqi};

/// A position a walk can step through.
pub trait Walk: Clone {
    /// A move of the variant.
    type Move: Copy;
    /// The position's key (pieces and side to move).
    fn key(&self) -> u64;
    /// The legal moves, in the generator's order.
    fn moves(&self) -> Vec<Self::Move>;
    /// Plays a legal move.
    fn play(&mut self, m: Self::Move);
}

macro_rules! walk_for {
    ($position:ty, $move:ty, $list:ty) => {
        impl Walk for $position {
            type Move = $move;
            fn key(&self) -> u64 {
                <$position>::key(self)
            }
            fn moves(&self) -> Vec<$move> {
                let mut list = <$list>::new();
                self.legal_moves(&mut list);
                list.iter().copied().collect()
            }
            fn play(&mut self, m: $move) {
                self.play_unchecked(m);
            }
        }
    };
}

walk_for!(xiangqi::Position, chuhe::rules::types::Move, MoveList);
walk_for!(janggi::Position, chuhe::rules::types::Move, MoveList);
walk_for!(three_kingdoms::Position, three_kingdoms::Move, three_kingdoms::MoveList);

/// A record of `plies` moves from `start`, each the first legal move in the generator's
/// order that `keep` accepts (given the position before it, the move and the position
/// after it) and that leads to a position not seen before in the record; and the move
/// that would come next by the same choice.
pub fn walk<P: Walk>(start: &P, plies: usize, keep: impl Fn(&P, P::Move, &P) -> bool) -> (Vec<P::Move>, P::Move) {
    let mut pos = start.clone();
    let mut seen = HashSet::from([pos.key()]);
    let mut moves = Vec::new();
    loop {
        let next = pos
            .moves()
            .into_iter()
            .find(|&m| {
                let mut after = pos.clone();
                after.play(m);
                !seen.contains(&after.key()) && keep(&pos, m, &after)
            })
            .expect("a move to a new position");
        if moves.len() == plies {
            return (moves, next);
        }
        pos.play(next);
        seen.insert(pos.key());
        moves.push(next);
    }
}
