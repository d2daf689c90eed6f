//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard
//! test that move generation is exact.

use std::fmt::Display;

use super::types::{Move, MoveList};
use super::{janggi, xiangqi};

/// What perft needs from a variant's position.
pub trait Node {
    type Move: Copy + Display;
    type Moves: Default + AsRef<[Self::Move]>;
    type Undo;
    fn legal_moves_into(&self, list: &mut Self::Moves);
    fn play_unchecked(&mut self, m: Self::Move) -> Self::Undo;
    fn undo(&mut self, m: Self::Move, undo: Self::Undo);
}

impl Node for xiangqi::Position {
    type Move = Move;
    type Moves = MoveList;
    type Undo = xiangqi::Undo;
    #[inline(always)]
    fn legal_moves_into(&self, list: &mut MoveList) {
        self.legal_moves(list)
    }
    #[inline(always)]
    fn play_unchecked(&mut self, m: Move) -> xiangqi::Undo {
        xiangqi::Position::play_unchecked(self, m)
    }
    #[inline(always)]
    fn undo(&mut self, m: Move, undo: xiangqi::Undo) {
        xiangqi::Position::undo(self, m, undo)
    }
}

impl Node for janggi::Position {
    type Move = Move;
    type Moves = MoveList;
    type Undo = janggi::Undo;
    #[inline(always)]
    fn legal_moves_into(&self, list: &mut MoveList) {
        self.legal_moves(list)
    }
    #[inline(always)]
    fn play_unchecked(&mut self, m: Move) -> janggi::Undo {
        janggi::Position::play_unchecked(self, m)
    }
    #[inline(always)]
    fn undo(&mut self, m: Move, undo: janggi::Undo) {
        janggi::Position::undo(self, m, undo)
    }
}

/// Leaf count to `depth` (bulk-counted at the last ply).
pub fn perft<N: Node>(pos: &mut N, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = N::Moves::default();
    pos.legal_moves_into(&mut list);
    if depth == 1 {
        return list.as_ref().len() as u64;
    }
    let mut nodes = 0;
    for &m in list.as_ref() {
        let undo = pos.play_unchecked(m);
        nodes += perft(pos, depth - 1);
        pos.undo(m, undo);
    }
    nodes
}

/// Leaf count to `depth` under each root move, in generation order.
pub fn divide<N: Node>(pos: &mut N, depth: u32) -> Vec<(N::Move, u64)> {
    let mut list = N::Moves::default();
    pos.legal_moves_into(&mut list);
    list.as_ref()
        .iter()
        .map(|&m| {
            let undo = pos.play_unchecked(m);
            let n = perft(pos, depth.saturating_sub(1));
            pos.undo(m, undo);
            (m, n)
        })
        .collect()
}
