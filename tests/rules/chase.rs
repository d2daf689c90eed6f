//! Chase detection, one hand-made position per rule: which (chaser, chased) pairs a single
//! move newly threatens under the Asian rules (chase) and the tournament rules (attack).

use chuhe::notation::fen;
use chuhe::rules::types::{Color, Move};
use chuhe::rules::xiangqi::chase::{ThreatRule, move_threats, threats};

/// The pairs `move` newly threatens from `fen`, as "chaser>chased" points.
fn pairs(fen_text: &str, mv: &str, rule: ThreatRule) -> Vec<String> {
    let pos = fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"));
    let m = Move::parse_iccs(mv).unwrap();
    assert!(pos.is_legal(m), "{mv} is illegal in {fen_text}");
    let mut found: Vec<String> =
        move_threats(&pos, m, rule).iter().map(|t| format!("{}>{}", t.chaser, t.chased)).collect();
    found.sort();
    found
}

fn chases(fen_text: &str, mv: &str) -> Vec<String> {
    pairs(fen_text, mv, ThreatRule::Chase)
}

fn attacks(fen_text: &str, mv: &str) -> Vec<String> {
    pairs(fen_text, mv, ThreatRule::Attack)
}

const NONE: [&str; 0] = [];

#[test]
fn an_unprotected_piece_is_chased_a_protected_one_is_not() {
    assert_eq!(chases("3k5/9/9/9/2n6/9/9/9/9/R3K4 w - - 0 1", "a0a5"), ["a5>c5"]);
    // The chariot on c9 protects the horse.
    assert_eq!(chases("2rk5/9/9/9/2n6/9/9/9/9/R3K4 w - - 0 1", "a0a5"), NONE);
}

#[test]
fn horse_and_cannon_chase_a_chariot_even_when_protected() {
    // The chariot on d6 is protected by the one on d9.
    assert_eq!(chases("3rk4/9/9/3r5/9/9/9/3N5/9/5K3 w - - 0 1", "d2e4"), ["e4>d6"]);
    assert_eq!(chases("3rk4/9/9/3r5/9/3N5/9/C8/9/5K3 w - - 0 1", "a2d2"), ["d2>d6"]);
}

#[test]
fn advisor_and_elephant_chase_the_bigger_pieces_even_when_protected() {
    // Elephant on a horse protected by the c9 chariot.
    assert_eq!(chases("2r1k4/9/9/9/9/2n6/9/9/9/2B2K3 w - - 0 1", "c0e2"), ["e2>c4"]);
    // Advisor on a cannon protected by the f9 chariot.
    assert_eq!(chases("3k1r3/9/9/9/9/9/9/5c3/9/3AK4 w - - 0 1", "d0e1"), ["e1>f2"]);
}

#[test]
fn a_pawn_is_chased_only_across_the_river() {
    assert_eq!(chases("3k5/9/9/2p6/9/9/9/9/9/R3K4 w - - 0 1", "a0a6"), NONE);
    assert_eq!(chases("3k5/9/9/9/9/2p6/9/9/9/R3K4 w - - 0 1", "a0a4"), ["a4>c4"]);
}

#[test]
fn the_general_and_the_pawns_do_not_chase() {
    // The pawn steps beside the lone horse and threatens it.
    assert_eq!(chases("4k4/9/2n6/1P7/9/9/9/9/9/3K5 w - - 0 1", "b6c6"), NONE);
    // The general steps beside the lone horse.
    assert_eq!(chases("3k5/9/9/9/9/9/9/9/3n5/4K4 w - - 0 1", "e0e1"), NONE);
}

#[test]
fn same_kinds_that_can_take_back_do_not_chase_each_other() {
    assert_eq!(chases("4k4/9/9/9/3r5/9/9/9/9/R4K3 w - - 0 1", "a0a5"), NONE);
    assert_eq!(chases("4k4/9/9/9/9/3n5/9/9/9/1N3K3 w - - 0 1", "b0c2"), NONE);
    // The red cannon on d3 stands on the black horse's leg: it cannot take back.
    assert_eq!(chases("4k4/9/9/9/9/3n5/3C5/9/9/1N3K3 w - - 0 1", "b0c2"), ["c2>d4"]);
    // A chariot pinned against its general cannot take back either: unprotected, chased.
    assert_eq!(chases("4k4/9/4r4/9/9/9/9/9/4R4/R4K3 w - - 0 1", "a0a7"), ["a7>e7"]);
}

#[test]
fn a_pinned_defender_is_no_protection() {
    // The e7 chariot guards the horse, but the e1 chariot pins it to its general.
    assert_eq!(chases("4k4/9/2n1r4/9/9/9/9/9/4R4/R4K3 w - - 0 1", "a0a7"), ["a7>c7"]);
    assert_eq!(chases("4k4/9/2n1r4/9/9/9/9/9/9/R4K3 w - - 0 1", "a0a7"), NONE);
}

#[test]
fn a_general_whose_recapture_would_face_the_other_is_no_protection() {
    // Taking back on d8 would leave the generals facing on the open d-file.
    assert_eq!(chases("3k5/3n5/9/9/9/9/9/9/9/R2K5 w - - 0 1", "a0a8"), ["a8>d8"]);
    // With the red advisor on d2 between them the general protects.
    assert_eq!(chases("3k5/3n5/9/9/9/9/9/3A5/9/R2K5 w - - 0 1", "a0a8"), NONE);
}

#[test]
fn pinning_a_defender_makes_a_chase() {
    // The horse already attacked the cannon, which the e7 chariot protected; the chariot
    // move to e1 pins that defender, so the horse's threat is new.
    assert_eq!(chases("4k4/9/2c1r4/9/1N7/9/9/9/R8/5K3 w - - 0 1", "a1e1"), ["b5>c7"]);
}

#[test]
fn a_threat_behind_a_discovered_check_is_a_chase() {
    // With the chariot behind it on the e-file, the horse would take the protected
    // cannon with a discovered check: the d9 chariot could not take back.
    assert_eq!(chases("3rk4/9/9/3c5/9/4N4/9/9/R8/5K3 w - - 0 1", "a1e1"), ["e4>d6"]);
}

#[test]
fn tournament_attacks_any_piece_but_the_six_exceptions() {
    // A chariot on a protected horse is an attack (no exception covers it).
    assert_eq!(attacks("2rk5/9/9/9/2n6/9/9/9/9/R3K4 w - - 0 1", "a0a5"), ["a5>c5"]);
    // Only a horse, a chariot or a cannon attacks.
    assert_eq!(attacks("2r1k4/9/9/9/9/2n6/9/9/9/2B2K3 w - - 0 1", "c0e2"), NONE);
    // 1. A horse on a horse that could take it back; not when its leg is blocked.
    assert_eq!(attacks("4k4/9/9/9/9/3n5/9/9/9/1N3K3 w - - 0 1", "b0c2"), NONE);
    assert_eq!(attacks("4k4/9/9/9/9/3n5/3C5/9/9/1N3K3 w - - 0 1", "b0c2"), ["c2>d4"]);
    // 2. A cannon on a protected cannon; not on a lone one.
    assert_eq!(attacks("3rk4/9/9/3c5/9/3N5/9/C8/9/5K3 w - - 0 1", "a2d2"), NONE);
    assert_eq!(attacks("4k4/9/9/3c5/9/3N5/9/C8/9/5K3 w - - 0 1", "a2d2"), ["d2>d6"]);
    // 3. A cannon on a pawn that has not crossed the river; not on one that has.
    assert_eq!(attacks("3k5/9/9/2p6/9/9/2P6/C8/9/4K4 w - - 0 1", "a2c2"), NONE);
    assert_eq!(attacks("3k5/9/9/9/9/2p6/2P6/C8/9/4K4 w - - 0 1", "a2c2"), ["c2>c4"]);
    // 4. A chariot on a protected cannon; not on a lone one.
    assert_eq!(attacks("2rk5/9/9/9/2c6/9/9/9/9/R3K4 w - - 0 1", "a0a5"), NONE);
    assert_eq!(attacks("3k5/9/9/9/2c6/9/9/9/9/R3K4 w - - 0 1", "a0a5"), ["a5>c5"]);
    // 5. A chariot on a chariot that is not blocked.
    assert_eq!(attacks("4k4/9/9/9/3r5/9/9/9/9/R4K3 w - - 0 1", "a0a5"), NONE);
    // 6. A chariot on a blocked (pinned) chariot protected by the g8 horse; not when
    //    nothing protects it.
    assert_eq!(attacks("4k4/6n2/4r4/9/9/9/9/9/4R4/R4K3 w - - 0 1", "a0a7"), NONE);
    assert_eq!(attacks("4k4/9/4r4/9/9/9/9/9/4R4/R4K3 w - - 0 1", "a0a7"), ["a7>e7"]);
}

#[test]
fn an_attack_that_stood_before_the_move_is_not_new() {
    // The chariot already attacked the lone horse on a9; sliding up the file it still
    // does, and that is no new chase. Stepping off the file and back would be.
    assert_eq!(chases("n2k5/9/9/9/9/R8/9/9/9/4K4 w - - 0 1", "a4a6"), NONE);
    assert_eq!(chases("n2k5/9/9/9/9/1R7/9/9/9/4K4 w - - 0 1", "b4a4"), ["a4>a9"]);
}

#[test]
fn a_move_elsewhere_renews_no_chase_that_stands_through_a_pin() {
    // The a7 chariot chases the c7 horse: its only defender, the e7 chariot, is pinned by
    // the e1 chariot. A pawn step far away changes nothing, so it makes no chase, though
    // the chase still stands after it.
    let fen_text = "4k4/9/R1n1r4/9/9/9/8P/9/4R4/5K3 w - - 0 1";
    assert_eq!(chases(fen_text, "i3i4"), NONE);
    let mut pos = fen::xiangqi(fen_text).unwrap();
    pos.play(Move::parse_iccs("i3i4").unwrap()).unwrap();
    let standing: Vec<String> =
        threats(&pos, Color::Red, ThreatRule::Chase).iter().map(|t| format!("{}>{}", t.chaser, t.chased)).collect();
    assert_eq!(standing, ["a7>c7"]);
}

#[test]
fn blocking_a_defender_makes_no_chase() {
    // The a5 chariot attacks the c5 horse, which the c9 chariot protects. The red horse
    // steps onto c6, between them: the horse is now unprotected, but the move only
    // blocked a defender's line.
    assert_eq!(chases("2rk5/9/9/9/R1n6/3N5/9/9/9/4K4 w - - 0 1", "d4c6"), NONE);
}

#[test]
fn a_piece_keeping_one_victim_chases_its_new_one() {
    // The chariot attacked the lone a7 horse from a0 and still does from a3, where it
    // also attacks the lone c3 horse: only that one is chased anew.
    assert_eq!(chases("3k5/9/n8/9/9/9/2n6/9/9/R3K4 w - - 0 1", "a0a3"), ["a3>c3"]);
}

#[test]
fn a_check_is_not_a_chase() {
    // The chariot checks the general along the d-file: the general is never chased.
    assert_eq!(chases("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", "a0d0"), NONE);
    assert_eq!(attacks("3k5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", "a0d0"), NONE);
}

#[test]
fn a_pinned_attacker_chases_nothing() {
    // The red chariot stays pinned on the e-file by the e8 chariot: taking the lone c3
    // horse would expose its general, so it is no chase and no attack.
    assert_eq!(chases("3k5/4r4/9/9/9/9/2n6/4R4/9/4K4 w - - 0 1", "e2e3"), NONE);
    assert_eq!(attacks("3k5/4r4/9/9/9/9/2n6/4R4/9/4K4 w - - 0 1", "e2e3"), NONE);
    // Unpinned (no e8 chariot), the same step chases the horse.
    assert_eq!(chases("3k5/9/9/9/9/9/2n6/4R4/9/4K4 w - - 0 1", "e2e3"), ["e3>c3"]);
}

#[test]
fn a_check_given_by_the_move_does_not_take_away_a_protection() {
    // The horse leaves b6 with check from c8 and opens the sixth rank: the a6 chariot
    // attacks the d6 horse, which the d9 chariot protects. Black, in check, would answer
    // the check first; the check the exchange found standing does not make the
    // recapture illegal, so the horse stays protected: no chase, but a tournament attack.
    let fen_text = "3rk4/9/9/RN1n5/9/9/9/9/9/3K5 w - - 0 1";
    assert_eq!(chases(fen_text, "b6c8"), NONE);
    assert_eq!(attacks(fen_text, "b6c8"), ["a6>d6"]);
}

#[test]
fn a_general_does_not_protect_a_point_outside_its_palace() {
    // The c9 horse stands beside the d9 general, but a general never leaves its palace:
    // the horse is unprotected, and the chariot arriving on a9 chases it.
    assert_eq!(chases("2nk5/9/9/9/9/9/9/9/9/R3K4 w - - 0 1", "a0a9"), ["a9>c9"]);
}
