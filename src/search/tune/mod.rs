//! Tuning the Xiangqi evaluation's weights on game records (Texel's method).
//!
//! The positions of recorded games (`chuhe match --pgn`: self-play and games against
//! other engines) are labelled with their game's result for Red. Each is resolved to a
//! quiet position by a capture search (the leaf of its principal variation), and the
//! weights are moved to lower the mean squared difference between the results and a
//! logistic of the static evaluation of those quiet positions. The evaluation is linear
//! in the weights ([`texel::features`]), so the gradient is exact and cheap; the
//! logistic's scale is fitted first to the starting weights and then held. `chuhe tune`
//! runs it and writes `src/search/eval_weights.rs`.

pub mod janggi;
pub mod labels;
pub mod records;
pub mod texel;

use std::collections::HashSet;

use crate::rules::position::BoardPosition;
use crate::rules::types::{MoveList, PieceKind};
use crate::rules::xiangqi::Position;
use crate::search::eval;
use crate::search::see::SEE_VALUE;

pub use records::{ReadSummary, RecordedPosition, ReplayPosition, read_records, read_records_of};
pub use texel::{DataSet, Tuner, error, fit_scale, weights_source};

/// Which recorded positions go into the data set.
#[derive(Clone, Copy, Debug)]
pub struct Selection {
    /// Positions before this ply of their game are left out (the opening book's).
    pub skip_plies: usize,
    /// Positions whose quiet score is further from zero than this are left out (the
    /// game is decided there; they teach the logistic nothing).
    pub max_score: i32,
}

impl Default for Selection {
    fn default() -> Self {
        Selection { skip_plies: 8, max_score: 2000 }
    }
}

/// What [`build_data_set`] kept and left out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selected {
    /// Positions in the data set.
    pub kept: usize,
    /// Positions seen before (the same position and side to move).
    pub repeated: usize,
    /// Positions in check, in the opening, or with a decided score.
    pub left_out: usize,
}

/// The data set of the recorded positions chosen by `selection`, each resolved to its
/// quiet leaf; a position seen twice counts once.
pub fn build_data_set(
    positions: impl IntoIterator<Item = RecordedPosition>,
    selection: Selection,
) -> (DataSet, Selected) {
    select_data_set(positions, selection, Position::in_check, Position::key, |pos| {
        let (score, leaf) = quiet_leaf(pos, -crate::search::MATE, crate::search::MATE, 8);
        (score, texel::features(&leaf))
    })
}

/// The data set of the recorded positions (of any variant) chosen by `selection`: each
/// not in check (`in_check`) and not seen before (`key`) is resolved by `resolve` to its
/// quiet score and the features of its quiet leaf.
pub fn select_data_set<P>(
    positions: impl IntoIterator<Item = RecordedPosition<P>>,
    selection: Selection,
    in_check: impl Fn(&P) -> bool,
    key: impl Fn(&P) -> u64,
    resolve: impl Fn(&P) -> (i32, Vec<(usize, f64)>),
) -> (DataSet, Selected) {
    let mut data = DataSet::default();
    let mut seen = HashSet::new();
    let mut counts = Selected::default();
    for p in positions {
        if p.ply < selection.skip_plies || in_check(&p.position) {
            counts.left_out += 1;
            continue;
        }
        if !seen.insert(key(&p.position)) {
            counts.repeated += 1;
            continue;
        }
        let (score, features) = resolve(&p.position);
        if score.abs() > selection.max_score {
            counts.left_out += 1;
            continue;
        }
        data.push_features(&features, p.result);
        counts.kept += 1;
    }
    (data, counts)
}

/// A capture search from the Xiangqi position `pos` (side to move's view, standing pat
/// on the static evaluation): its score and the position at the end of its principal
/// variation.
pub fn quiet_leaf(pos: &Position, alpha: i32, beta: i32, depth: u32) -> (i32, Position) {
    capture_leaf(pos, alpha, beta, depth, eval::evaluate, |kind| SEE_VALUE[kind.index()])
}

/// A capture search from `pos` standing pat on `evaluate` (side to move's view), the
/// captures tried most valuable victim first and then least valuable attacker, by
/// `value` of each kind: its score and the position at the end of its principal
/// variation. What resolves a recorded position of either 9x10 game to a quiet one.
pub fn capture_leaf<P: BoardPosition>(
    pos: &P,
    mut alpha: i32,
    beta: i32,
    depth: u32,
    evaluate: fn(&P) -> i32,
    value: fn(PieceKind) -> i32,
) -> (i32, P) {
    let stand = evaluate(pos);
    let mut leaf = pos.clone();
    if stand >= beta || depth == 0 {
        return (stand, leaf);
    }
    alpha = alpha.max(stand);
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let board = pos.board();
    let worth = |sq| board.piece_at(sq).map_or(0, |p| value(p.kind()));
    let mut order: Vec<_> = captures.as_slice().to_vec();
    order.sort_by_key(|m| (-worth(m.to()), worth(m.from())));
    for m in order {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let (score, child_leaf) = capture_leaf(&child, -beta, -alpha, depth - 1, evaluate, value);
        if -score > alpha {
            alpha = -score;
            leaf = child_leaf;
            if alpha >= beta {
                break;
            }
        }
    }
    (alpha, leaf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quiet_leaf_takes_the_hanging_piece() {
        // Red's chariot takes the undefended black horse; nothing is left to capture.
        let pos = crate::notation::fen::xiangqi("3k5/9/9/9/4n4/9/9/9/4R4/5K3 w - - 0 1").unwrap();
        let (score, leaf) = quiet_leaf(&pos, -30_000, 30_000, 8);
        assert!(leaf.board().pieces(crate::rules::types::Color::Black, crate::rules::types::PieceKind::Horse) == 0);
        assert_eq!(score, -eval::evaluate(&leaf), "the leaf is Black to move");
    }

    #[test]
    fn the_data_set_leaves_out_the_opening_repeats_and_checks() {
        let text = "[Result \"1-0\"]\n\n1. h2e2 h9g7 2. h0g2 i9h9 3. i0h0 b9c7 4. b0c2 a9b9 5. h0h6 1-0\n\n\
                    [Result \"1-0\"]\n\n1. h2e2 h9g7 1-0\n";
        let (positions, _) = read_records(text);
        let (data, counts) = build_data_set(positions, Selection { skip_plies: 2, max_score: 2000 });
        // Game one: plies 2..=9 (8 positions); game two: ply 2 repeats game one's.
        assert_eq!(counts, Selected { kept: 8, repeated: 1, left_out: 4 });
        assert_eq!(data.len(), 8);
    }
}
