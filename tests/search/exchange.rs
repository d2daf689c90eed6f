//! The static exchange of the search (`see_ge`) against the exchange worked out by its
//! definition on the slow rules of `tests/common/slow_xiangqi.rs`: each side takes
//! back on the target point with its least valuable piece (by kind: soldier, advisor,
//! elephant, horse, cannon, chariot, general; the lowest point first among pieces of one
//! kind) or stops, whichever is better for it; a general takes only where nothing takes
//! it back. Pins and the generals' facing are not looked at, as in the search.

use chuhe::notation::fen;
use chuhe::rules::board::Board;
use chuhe::rules::types::{Color, Move, MoveList, PieceKind, Square};
use chuhe::rules::xiangqi::Position;
use chuhe::search::see::{SEE_VALUE, see_ge};
use proptest::prelude::*;

use crate::common::slow_xiangqi as slow;

/// Kinds from the cheapest taker to the dearest.
const CHEAPEST_FIRST: [PieceKind; 7] = [
    PieceKind::Soldier,
    PieceKind::Advisor,
    PieceKind::Elephant,
    PieceKind::Horse,
    PieceKind::Cannon,
    PieceKind::Chariot,
    PieceKind::General,
];

/// What the piece standing on `sq` is worth in the exchange: a soldier across the
/// river twice as much as at home.
fn value_at(b: &Board, sq: Square) -> i32 {
    let Some(p) = b.piece_at(sq) else { return 0 };
    if p.kind() == PieceKind::Soldier {
        let crossed = !slow::own_side(p.color(), sq.rank() as i32);
        if crossed { 200 } else { 100 }
    } else {
        SEE_VALUE[p.kind().index()]
    }
}

/// The least valuable piece of `by` that can move onto `target` by its movement rule.
fn least_valuable(b: &Board, target: Square, by: Color) -> Option<Square> {
    CHEAPEST_FIRST.iter().find_map(|&kind| {
        Square::all().find(|&sq| {
            b.piece_at(sq).is_some_and(|p| p.color() == by && p.kind() == kind) && slow::can_reach(b, sq, target)
        })
    })
}

/// The most `by`, to move, wins by taking on `target` (and what follows), or 0 by not.
fn gain(b: &Board, target: Square, by: Color) -> i32 {
    let Some(taker) = least_valuable(b, target, by) else { return 0 };
    let after = slow::after(b, taker, target);
    if b.piece_at(taker).is_some_and(|p| p.kind() == PieceKind::General) {
        // Only where nothing takes the general back.
        return if least_valuable(&after, target, by.other()).is_some() { 0 } else { value_at(b, target) };
    }
    (value_at(b, target) - gain(&after, target, by.other())).max(0)
}

/// What `m` wins by the exchange on its target point.
fn exchange_value(b: &Board, m: Move) -> i32 {
    let us = b.piece_at(m.from()).expect("a piece to move").color();
    value_at(b, m.to()) - gain(&slow::after(b, m.from(), m.to()), m.to(), us.other())
}

/// `see_ge` agrees with the exchange's value at it, one above it, and at 0, for every
/// legal move of `pos`.
fn check_every_move(pos: &Position) -> Result<(), TestCaseError> {
    let mut moves = MoveList::new();
    pos.legal_moves(&mut moves);
    let b = pos.board();
    for &m in moves.iter() {
        let value = exchange_value(b, m);
        let text = fen::format(&pos.to_setup());
        prop_assert!(see_ge(b, m, value), "{m} in {text}: not at least its value {value}");
        prop_assert!(!see_ge(b, m, value + 1), "{m} in {text}: more than its value {value}");
        prop_assert_eq!(see_ge(b, m, 0), value >= 0, "{} in {}: value {}", m, text, value);
    }
    Ok(())
}

#[test]
fn the_definition_knows_the_basics() {
    let pos = |text| fen::xiangqi(text).unwrap();
    let m = |text| Move::parse_iccs(text).unwrap();
    // A chariot takes a soldier across the river guarded by a horse: 200 won, 900 lost.
    let guarded = pos("4k4/9/9/3n5/9/4p4/9/9/4R4/3K5 w - - 0 1");
    assert_eq!(exchange_value(guarded.board(), m("e1e4")), 200 - 900);
    // The cannon takes it back over the horse on e7, not without a screen.
    let screened = pos("3kc4/9/4n4/9/9/4n4/9/9/4R4/5K3 w - - 0 1");
    assert_eq!(exchange_value(screened.board(), m("e1e4")), 400 - 900);
    let open = pos("3kc4/9/9/9/9/4n4/9/9/4R4/5K3 w - - 0 1");
    assert_eq!(exchange_value(open.board(), m("e1e4")), 400);
}

/// Positions with pieces on both sides of the river: the start and two middlegames.
const STARTS: &[&str] = &[
    "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1",
    "r1ba1a3/4kn3/2n1b4/pNp1p1p1p/4c4/6P2/P1P2R2P/1CcC5/9/2BAKAB2 w - - 0 1",
    "1rbaka2R/5r3/6n2/2p1p1p2/4P1bP1/PpC3Bc1/1nPR2P2/2N2AN2/1c2K1p2/2BAC4 w - - 0 1",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random games, captures preferred half of the time so that exchanges come up,
    /// checked every fifth ply and at their end.
    #[test]
    fn the_exchange_is_the_one_the_rules_give(start in 0..STARTS.len(), seed in 1u64.., plies in 0usize..120) {
        let mut pos = fen::xiangqi(STARTS[start]).unwrap();
        let mut rng = seed;
        for ply in 0..plies {
            if ply % 5 == 0 {
                check_every_move(&pos)?;
            }
            let mut moves = MoveList::new();
            pos.legal_moves(&mut moves);
            let mut captures = MoveList::new();
            pos.legal_captures(&mut captures);
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            let pick = if rng & 1 == 0 && !captures.is_empty() { captures } else { moves };
            if pick.is_empty() {
                break;
            }
            pos.play_unchecked(pick.as_slice()[(rng >> 1) as usize % pick.len()]);
        }
        check_every_move(&pos)?;
    }
}
