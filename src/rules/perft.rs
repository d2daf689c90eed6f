//! Perft: the number of leaf nodes of the legal move tree to a fixed depth, the standard
//! test that move generation is exact.

use super::position::GamePosition;

/// Leaf count to `depth` (bulk-counted at the last ply).
pub fn perft<P: GamePosition>(pos: &mut P, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = P::Moves::default();
    pos.legal_moves(&mut list);
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
pub fn divide<P: GamePosition>(pos: &mut P, depth: u32) -> Vec<(P::Move, u64)> {
    let mut list = P::Moves::default();
    pos.legal_moves(&mut list);
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
