//! Tuning the Janggi evaluation ([`crate::search::janggi_eval`]) as the Xiangqi one is
//! tuned: Janggi game records (`chuhe match --janggi --pgn`), each position resolved to
//! its quiet leaf by a capture search and described by its term counts.

use super::texel::{DataSet, tapered_features, weights_text};
use super::{RecordedPosition, Selected, Selection, select_data_set};
use crate::rules::janggi::Position;
use crate::search::janggi_eval::{self, FULL_PHASE, WEIGHTS};

/// The evaluation of `pos` for Cho as `(parameter, coefficient)` pairs, as
/// [`super::texel::features`] gives Xiangqi's.
pub fn janggi_features(pos: &Position) -> Vec<(usize, f64)> {
    tapered_features(FULL_PHASE, |counts| {
        let phase = janggi_eval::material_terms(pos, counts);
        janggi_eval::positional_terms(pos, counts);
        phase
    })
}

/// The data set of the recorded Janggi positions chosen by `selection`, each resolved
/// to its quiet leaf; a position seen twice counts once.
pub fn build_janggi_data_set(
    positions: impl IntoIterator<Item = RecordedPosition<Position>>,
    selection: Selection,
) -> (DataSet, Selected) {
    select_data_set(positions, selection, Position::in_check, Position::key, |pos| {
        let (score, leaf) = janggi_quiet_leaf(pos, -crate::search::MATE, crate::search::MATE, 8);
        (score, janggi_features(&leaf))
    })
}

/// A capture search from the Janggi position `pos` (side to move's view, standing pat
/// on the static evaluation), captures ordered by the opening material weights: its
/// score and the position at the end of its principal variation.
pub fn janggi_quiet_leaf(pos: &Position, alpha: i32, beta: i32, depth: u32) -> (i32, Position) {
    super::capture_leaf(pos, alpha, beta, depth, janggi_eval::evaluate, |kind| WEIGHTS[kind.index()][0])
}

/// The source of `src/search/janggi_weights.rs` holding `weights`.
pub fn janggi_weights_source(weights: &[[i32; 2]]) -> String {
    use crate::search::janggi_eval::*;
    const KINDS: [&str; 7] = ["general", "guard", "elephant", "horse", "chariot", "cannon", "soldier"];
    let mut sections: Vec<(String, usize, usize, usize)> =
        vec![("material: general, guard, elephant, horse, chariot, cannon, soldier".into(), MATERIAL, 7, 7)];
    for (k, name) in KINDS.iter().enumerate() {
        sections.push((format!("{name} placement, from its own back rank, files a..i"), PLACEMENT + k * 90, 90, 9));
    }
    sections.push(("chariot mobility, per point it reaches on its rank and file".into(), CHARIOT_MOBILITY, 1, 1));
    sections.push(("horse mobility, per move its leg leaves free".into(), HORSE_MOBILITY, 1, 1));
    sections.push(("elephant mobility, per move its path leaves free".into(), ELEPHANT_MOBILITY, 1, 1));
    sections.push((
        "a missing guard, per enemy chariot, horse, cannon, soldier in the own half".into(),
        MISSING_GUARD,
        4,
        4,
    ));
    sections.push(("the side to move".into(), TEMPO, 1, 1));
    sections.push((
        "an enemy piece attacking the own palace: chariot, cannon, horse, elephant, soldier".into(),
        PALACE_ATTACKER,
        5,
        5,
    ));
    sections.push(("two, three, four or more enemy pieces attacking the own palace".into(), PALACE_PRESSURE, 3, 3));
    sections.push((
        "enemy moves that would give check: chariot, horse, cannon; from an unguarded point: chariot, horse, cannon"
            .into(),
        CHECK_THREATS,
        6,
        6,
    ));
    sections.push((
        "an attacked piece: guard, elephant, horse, chariot, cannon, soldier; unguarded, by a lesser piece; of the side to move, of the side that moved".into(),
        THREATS,
        24,
        6,
    ));
    sections.push(("cannon mobility, per point it could move to or take on".into(), CANNON_MOBILITY, 1, 1));
    sections.push(("two soldiers side by side".into(), SOLDIER_PAIR, 1, 1));
    let header = "//! The Janggi evaluation's weights, `[opening, endgame]` in centipawns, one per term of\n\
         //! [`super::janggi_eval`] (see its term indices). Written by `chuhe tune --janggi`\n\
         //! (docs/engine.md, \"Tuning the evaluation\"); edit by retuning, or by hand with the same layout.\n\n\
         /// The weight of each Janggi evaluation term, `[opening, endgame]`.\n\
         #[rustfmt::skip]\n\
         pub const WEIGHTS: [[i32; 2]; {terms}] = [\n";
    weights_text(&header.replace("{terms}", &weights.len().to_string()), sections, weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::types::Color;
    use crate::search::tune::read_records_of;
    use crate::search::tune::texel::tests::assert_features_add_up;

    #[test]
    fn the_features_add_up_to_the_evaluation() {
        let weights: Vec<f64> = WEIGHTS.iter().flat_map(|w| [w[0] as f64, w[1] as f64]).collect();
        let push = |d: &mut DataSet, p: &Position| d.push_features(&janggi_features(p), 0.5);
        assert_features_add_up(Position::startpos(), 200, &weights, push, janggi_eval::evaluate);
    }

    #[test]
    fn the_written_weights_read_back_as_the_current_ones() {
        let current = include_str!("../janggi_weights.rs");
        assert_eq!(janggi_weights_source(&WEIGHTS), current);
    }

    #[test]
    fn janggi_records_read_with_passes_and_the_quiet_leaf_takes_the_hanging_piece() {
        let text = "[Result \"0-1\"]\n\n1. b0c2 pass 2. c3d3 b9c7 0-1\n\n[Result \"1-0\"]\n\n1. a0a5 1-0\n";
        let (positions, summary) = read_records_of::<Position>(text);
        // The second game's chariot jumps its own soldier: left out.
        assert_eq!((summary.games, summary.skipped), (1, 1));
        assert_eq!(positions.iter().filter(|p| p.game == 0).count(), 5);
        assert!(positions.iter().filter(|p| p.game == 0).all(|p| p.result == 0.0));
        let (data, counts) = build_janggi_data_set(
            positions.into_iter().filter(|p| p.game == 0),
            Selection { skip_plies: 1, max_score: 2000 },
        );
        assert_eq!(counts.kept + counts.repeated + counts.left_out, 5);
        assert_eq!(counts.left_out, 1, "the first ply is the opening's");
        assert_eq!(data.len(), counts.kept);
        // Cho's chariot takes Han's undefended horse; nothing is left to capture.
        let pos = crate::notation::fen::janggi("3k5/9/9/9/4n4/9/9/9/4R4/5K3 w - - 0 1").unwrap();
        let (score, leaf) = janggi_quiet_leaf(&pos, -30_000, 30_000, 8);
        assert_eq!(leaf.board().pieces(Color::Black, crate::rules::types::PieceKind::Horse), 0);
        assert_eq!(score, -janggi_eval::evaluate(&leaf), "the leaf is Han to move");
    }
}
