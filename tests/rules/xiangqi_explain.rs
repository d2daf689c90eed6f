//! Why a Xiangqi move is refused, piece by piece, in positions checked by hand: each
//! piece's shape, what blocks it (an elephant's eye, a horse's leg, the points between a
//! chariot or cannon and its target, a cannon's one screen), and moves whose only fault
//! is the general's safety, so that a wrong leg, eye or count shows as a wrong reason.

use chuhe::notation::fen;
use chuhe::rules::illegal::IllegalReason::{self, *};
use chuhe::rules::types::Move;

/// Checks the reason given for each move of `cases` in the position `fen_text`.
fn assert_reasons(fen_text: &str, cases: &[(&str, Option<IllegalReason>)]) {
    let pos = fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"));
    for (text, expected) in cases {
        let m = Move::parse_iccs(text).unwrap_or_else(|| panic!("bad ICCS {text}"));
        assert_eq!(pos.explain_illegal(m), *expected, "{text} in {fen_text}");
    }
}

/// Red: general e0, advisor f0, elephant e2, pawn a3; Black: general d9, chariot e8,
/// pawns d3 and f4. The elephant stands between its general and the chariot, so each
/// of its moves that is not blocked exposes the general; its eye towards c4 (d3) is
/// taken, the others (f3, d1, f1) are free.
#[test]
fn an_elephant_is_blocked_only_by_its_eye() {
    assert_reasons(
        "3k5/4r4/9/9/9/5p3/P2p5/4B4/9/4KA3 w - - 0 1",
        &[
            ("e2c4", Some(PathBlocked)),
            ("e2g4", Some(LeavesGeneralAttacked)),
            ("e2c0", Some(LeavesGeneralAttacked)),
            ("e2g0", Some(LeavesGeneralAttacked)),
            ("e2e4", Some(CannotMoveThatWay)),
            ("e2e3", Some(CannotMoveThatWay)),
            ("e2g3", Some(CannotMoveThatWay)),
        ],
    );
    // An elephant two points diagonally away but across the river.
    assert_reasons(
        "3k5/9/9/9/9/2B6/9/9/9/4K4 w - - 0 1",
        &[("c4e6", Some(CannotMoveThatWay)), ("c4a6", Some(CannotMoveThatWay)), ("c4e2", None)],
    );
}

/// Red: general f0 in check from Black's chariot f8 along the open f-file; advisor e1,
/// chariot c1, horses c2 and a1, cannons b2 and g2, pawn i3. Black also has its
/// general d9, pawns c6 and g6 and an elephant g9. Only a piece stepping onto the
/// f-file, or the general stepping off it, answers the check, so every other move
/// that the piece could make is refused for the general's safety.
const IN_CHECK: &str = "3k2b2/5r3/9/2p3p2/9/9/8P/1CN3C2/N1R1A4/5K3 w - - 0 1";

#[test]
fn the_moves_that_answer_a_check_and_the_general_own_steps() {
    assert_reasons(
        IN_CHECK,
        &[
            ("g2f2", None),
            ("e1f2", None),
            ("f0e0", None),
            ("f0f1", Some(LeavesGeneralAttacked)),
            ("f0f2", Some(CannotMoveThatWay)),
            ("f0g0", Some(CannotMoveThatWay)),
            ("e1d0", Some(LeavesGeneralAttacked)),
            ("e1d2", Some(LeavesGeneralAttacked)),
            ("e1e2", Some(CannotMoveThatWay)),
            ("i3i4", Some(LeavesGeneralAttacked)),
            ("i3h3", Some(CannotMoveThatWay)),
        ],
    );
}

/// The horse c2's legs: c3 (up) and d2 (right) are free, c1 (down, the chariot) and
/// b2 (left, a cannon) are taken.
#[test]
fn a_horse_is_blocked_only_by_the_leg_next_to_it() {
    assert_reasons(
        IN_CHECK,
        &[
            ("c2d4", Some(LeavesGeneralAttacked)),
            ("c2b4", Some(LeavesGeneralAttacked)),
            ("c2e3", Some(LeavesGeneralAttacked)),
            ("c2a3", Some(PathBlocked)),
            ("c2b0", Some(PathBlocked)),
            ("c2d0", Some(PathBlocked)),
            ("c2a1", Some(CapturesOwnPiece)),
            ("c2e1", Some(CapturesOwnPiece)),
            ("c2c4", Some(CannotMoveThatWay)),
            ("c2d3", Some(CannotMoveThatWay)),
            ("c2e2", Some(CannotMoveThatWay)),
            ("c2e4", Some(CannotMoveThatWay)),
        ],
    );
}

/// The chariot c1 is blocked upwards by its horse c2 and free along its rank and down
/// to c0 (with the horse a1 on its rank beyond b1); the cannon g2's file holds
/// Black's pawn g6 and elephant g9, so g6 has no screen, g7 is behind the pawn and
/// g9 has exactly one screen.
#[test]
fn chariots_and_cannons_count_the_points_between() {
    assert_reasons(
        IN_CHECK,
        &[
            ("c1d1", Some(LeavesGeneralAttacked)),
            ("c1b1", Some(LeavesGeneralAttacked)),
            ("c1c0", Some(LeavesGeneralAttacked)),
            ("c1c3", Some(PathBlocked)),
            ("c1c6", Some(PathBlocked)),
            ("c1d2", Some(CannotMoveThatWay)),
            ("g2g5", Some(LeavesGeneralAttacked)),
            ("g2h2", Some(LeavesGeneralAttacked)),
            ("g2e2", Some(LeavesGeneralAttacked)),
            ("g2g7", Some(PathBlocked)),
            ("g2g9", Some(LeavesGeneralAttacked)),
            ("g2g6", Some(CannonNeedsOneScreen)),
            ("g2h3", Some(CannotMoveThatWay)),
        ],
    );
}
