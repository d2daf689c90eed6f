//! A game as people play one, for the benches that judge played moves: the engine at
//! 2,000 nodes against itself, every fifth move a random legal one, so that some moves
//! are far from any engine's lines.

use std::sync::atomic::AtomicBool;

use chuhe::engine::Engine;
use chuhe::game::{BoardGame, Variant};
use chuhe::rules::types::{Move, MoveList};
use chuhe::search::{Limits, Params};

/// A Xiangqi game of at most `plies` plies from `seed` (it stops early at a mate).
pub fn play(engine: &Engine, mut seed: u64, plies: usize) -> Vec<Move> {
    let mut game = BoardGame::startpos(Variant::Xiangqi);
    let mut moves = Vec::new();
    let params = Params { limits: Limits { nodes: Some(2_000), ..Limits::default() }, ..Params::default() };
    while moves.len() < plies {
        let mut legal = MoveList::new();
        game.legal_moves(&mut legal);
        if legal.is_empty() {
            break;
        }
        let m = if moves.len() % 5 == 4 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            legal.as_slice()[(seed % legal.len() as u64) as usize]
        } else {
            let stop = AtomicBool::new(false);
            engine.search(&game, &params, None, &stop, &mut |_| {}).best.unwrap_or(legal.as_slice()[0])
        };
        moves.push(m);
        game.play_unchecked(m);
    }
    moves
}
