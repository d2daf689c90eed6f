//! The score conversions: internal scores to the reported ones and back, and the
//! table's mate scores, which are stored relative to the node and read back relative to
//! the root.

use super::types::*;

/// Mate in `plies` plies for the side to move, as the search scores it at the root.
fn mating(plies: i32) -> i32 {
    MATE - plies
}

/// Mated in `plies` plies.
fn mated(plies: i32) -> i32 {
    -MATE + plies
}

#[test]
fn mates_are_reported_in_moves_of_the_side_that_mates() {
    // Mating on ply 1, 3 or 5 is mate in 1, 2 or 3 moves; mated on ply 0, 2 or 4 is
    // mated now, in 1 or in 2 moves.
    for (plies, moves) in [(1, 1), (3, 2), (5, 3), (59, 30)] {
        assert_eq!(Score::from_internal(mating(plies)), Score::Mate(moves), "mating on ply {plies}");
    }
    for (plies, moves) in [(0, 0), (2, -1), (4, -2), (60, -30)] {
        assert_eq!(Score::from_internal(mated(plies)), Score::Mate(moves), "mated on ply {plies}");
    }
    // Scores up to the bound are centipawns, rule wins and losses among them.
    for v in [0, 1, -1, 350, -350, RULED_WIN - 7, -(RULED_WIN - 7), MATE_BOUND, -MATE_BOUND] {
        assert_eq!(Score::from_internal(v), Score::Centipawns(v));
    }
}

#[test]
fn a_reported_score_converts_back_to_the_internal_one() {
    for plies in 0..MAX_PLY as i32 {
        let v = if plies % 2 == 1 { mating(plies) } else { mated(plies) };
        assert_eq!(internal(Score::from_internal(v)), v, "{plies} plies to mate");
    }
    for v in [0, 5, -5, 1_234, -1_234, MATE_BOUND, -MATE_BOUND] {
        assert_eq!(internal(Score::Centipawns(v)), v);
    }
}

#[test]
fn the_table_keeps_mates_as_distances_from_the_node() {
    for ply in [0usize, 1, 2, 7] {
        let p = ply as i32;
        // A mate 9 plies from the root seen at `ply` is 9 - ply plies from the node.
        assert_eq!(to_tt(mating(9), ply), mating(9 - p), "mating at ply {ply}");
        assert_eq!(to_tt(mated(10), ply), mated(10 - p), "mated at ply {ply}");
        // Read back at another ply, it is as far from that node.
        for read in [0usize, 3, 12] {
            let r = read as i32;
            assert_eq!(from_tt(to_tt(mating(9), ply), read), mating(9 - p + r), "{ply} -> {read}");
            assert_eq!(from_tt(to_tt(mated(10), ply), read), mated(10 - p + r), "{ply} -> {read}");
        }
        // Other scores, the bounds included, are stored and read as they are.
        for v in [0, 77, -77, RULED_WIN - 3, -(RULED_WIN - 3), MATE_BOUND, -MATE_BOUND] {
            assert_eq!(to_tt(v, ply), v, "{v} at ply {ply}");
            assert_eq!(from_tt(v, ply), v, "{v} at ply {ply}");
        }
    }
}

#[test]
fn table_fields_are_clamped_to_sixteen_bits() {
    for (v, stored) in
        [(0, 0i16), (-77, -77), (32_767, 32_767), (32_768, 32_767), (-32_768, -32_768), (-40_000, -32_768)]
    {
        assert_eq!(clamp16(v), stored, "{v}");
    }
}
