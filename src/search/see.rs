//! Static exchange evaluation for Xiangqi and Janggi: does a move, followed by the
//! best sequence of recaptures on its target point (each side taking with its least
//! valuable attacker, and free to stop), lose no more than a threshold?
//!
//! The exchange is played out on a copy of the board, so cannon screens that appear or
//! vanish as pieces come and go are seen as they are; pins and the generals' facing are
//! not, which makes the answer an estimate. A general takes last, and only when no
//! attacker is left to take it back. The two games share the exchange
//! (`exchange_ge`); they differ in their values and in who attacks a point.

use crate::rules::board::{Bitboard, Board, HORSE_ATTACKERS, bit, file_bits_to_board, rank_bits_to_board};
use crate::rules::board_position::Attacks;
use crate::rules::janggi;
use crate::rules::janggi::tables::PALACE_STEPS;
use crate::rules::types::{Color, Move, PieceKind, Square};
use crate::rules::xiangqi::tables::{ADVISOR_STEPS, ELEPHANT_POINTS, ELEPHANT_STEPS, GENERAL_STEPS, PAWN_ATTACKERS};

/// Exchange values by piece kind (general, advisor, elephant, horse, chariot, cannon,
/// pawn).
pub const SEE_VALUE: [i32; 7] = [20_000, 200, 200, 400, 900, 450, 100];

/// Janggi's exchange values by piece kind (general, guard, elephant, horse, chariot,
/// cannon, soldier): its evaluation's material.
pub const JANGGI_SEE_VALUE: [i32; 7] = [20_000, 300, 300, 500, 1300, 700, 200];

/// A pawn across the river is worth twice as much.
#[inline]
fn value_on(kind: PieceKind, color: Color, sq: Square) -> i32 {
    if kind == PieceKind::Pawn {
        let crossed = if color == Color::Red { sq.rank() >= 5 } else { sq.rank() <= 4 };
        if crossed { 200 } else { 100 }
    } else {
        SEE_VALUE[kind.index()]
    }
}

/// The pieces of `by` that can move to `target` on `b` (a general by one step only).
fn attackers(b: &Board, target: Square, by: Color) -> [Bitboard; 7] {
    let (f, r) = (target.file(), target.rank());
    let (rv, fv) = (b.rank_view(target), b.file_view(target));
    let first = rank_bits_to_board(rv.first, r) | file_bits_to_board(fv.first, f);
    let second = rank_bits_to_board(rv.second, r) | file_bits_to_board(fv.second, f);
    let c = by.index();
    let t = target.index();
    let mut out = [0; 7];
    out[PieceKind::General.index()] = GENERAL_STEPS[c][t] & b.pieces(by, PieceKind::General);
    out[PieceKind::Advisor.index()] = ADVISOR_STEPS[c][t] & b.pieces(by, PieceKind::Advisor);
    let elephants = b.pieces(by, PieceKind::Elephant);
    if elephants != 0 && ELEPHANT_POINTS[c] & bit(target) != 0 {
        for st in ELEPHANT_STEPS[c][t].as_slice() {
            if elephants & (1u128 << st.to) != 0 && b.code_at(st.block as usize) == 0 {
                out[PieceKind::Elephant.index()] |= 1u128 << st.to;
            }
        }
    }
    let horses = b.pieces(by, PieceKind::Horse);
    if horses != 0 {
        for st in HORSE_ATTACKERS[t].as_slice() {
            if horses & (1u128 << st.to) != 0 && b.code_at(st.block as usize) == 0 {
                out[PieceKind::Horse.index()] |= 1u128 << st.to;
            }
        }
    }
    out[PieceKind::Chariot.index()] = first & b.pieces(by, PieceKind::Chariot);
    out[PieceKind::Cannon.index()] = second & b.pieces(by, PieceKind::Cannon);
    out[PieceKind::Pawn.index()] = PAWN_ATTACKERS[c][t] & b.pieces(by, PieceKind::Pawn);
    out
}

/// Attacking kinds from the cheapest to the dearest.
const ORDER: [PieceKind; 7] = [
    PieceKind::Pawn,
    PieceKind::Advisor,
    PieceKind::Elephant,
    PieceKind::Horse,
    PieceKind::Cannon,
    PieceKind::Chariot,
    PieceKind::General,
];

/// The least valuable piece of `by` that can take on `target`, with its value.
fn least_valuable(b: &Board, target: Square, by: Color) -> Option<(Square, PieceKind)> {
    let all = attackers(b, target, by);
    cheapest(b, by, |kind| all[kind.index()])
}

/// The first piece of `by`, by [`ORDER`], among the points `of(kind)` gives.
#[inline]
fn cheapest(b: &Board, by: Color, of: impl Fn(PieceKind) -> Bitboard) -> Option<(Square, PieceKind)> {
    for kind in ORDER {
        let bb = of(kind) & b.pieces(by, kind);
        if bb != 0 {
            let sq = Square::from_index(bb.trailing_zeros() as usize)?;
            return Some((sq, kind));
        }
    }
    None
}

/// Does `m` (a legal move on `b`) win at least `threshold` by the exchange on its
/// target point?
pub fn see_ge(b: &Board, m: Move, threshold: i32) -> bool {
    exchange_ge(b, m, threshold, value_on, least_valuable)
}

/// The least valuable piece of `by` that can take on `target` in Janggi: the
/// pieces that attack it, a general or guard one palace step away, and no cannon
/// where a cannon stands on `target` (a cannon never takes a cannon).
fn janggi_least_valuable(b: &Board, target: Square, by: Color) -> Option<(Square, PieceKind)> {
    let palace_pieces = b.pieces(by, PieceKind::General) | b.pieces(by, PieceKind::Advisor);
    let mut all =
        <janggi::Janggi as Attacks>::attackers_of(b, target, by) | (PALACE_STEPS[target.index()] & palace_pieces);
    if b.piece_at(target).is_some_and(|p| p.kind() == PieceKind::Cannon) {
        all &= !b.pieces(by, PieceKind::Cannon);
    }
    cheapest(b, by, |_| all)
}

/// [`see_ge`] for Janggi: its values ([`JANGGI_SEE_VALUE`]) and its attackers (the
/// cannon over exactly one screen that is not a cannon, the palace diagonals, the
/// horse's leg and the elephant's two points). A pass wins nothing and loses nothing.
pub fn janggi_see_ge(b: &Board, m: Move, threshold: i32) -> bool {
    if m.is_pass() {
        return threshold <= 0;
    }
    exchange_ge(b, m, threshold, |kind, _, _| JANGGI_SEE_VALUE[kind.index()], janggi_least_valuable)
}

/// The exchange on `m`'s target point, with the game's values (`value_on` a kind of a
/// side on a point) and its least valuable attacker of a point.
#[inline]
fn exchange_ge(
    b: &Board,
    m: Move,
    threshold: i32,
    value_on: impl Fn(PieceKind, Color, Square) -> i32,
    least_valuable: impl Fn(&Board, Square, Color) -> Option<(Square, PieceKind)>,
) -> bool {
    let (from, to) = (m.from(), m.to());
    let Some(mover) = b.piece_at(from) else { return true };
    let us = mover.color();
    let victim = b.piece_at(to).map_or(0, |p| value_on(p.kind(), p.color(), to));
    // What we stand to win if the opponent does not recapture.
    let mut swap = victim - threshold;
    if swap < 0 {
        return false;
    }
    // What is left if the mover is taken for nothing.
    swap = value_on(mover.kind(), us, to) - swap;
    if swap <= 0 {
        return true;
    }
    let mut board = b.clone();
    board.move_piece(from, to);
    let mut stm = us;
    // 1 while the side that made the last capture is ahead of the threshold.
    let mut res = 1;
    loop {
        stm = stm.other();
        let Some((sq, kind)) = least_valuable(&board, to, stm) else { break };
        if kind == PieceKind::General {
            // The general may take only where nothing takes it back.
            board.move_piece(sq, to);
            return if least_valuable(&board, to, stm.other()).is_some() { res != 0 } else { res == 0 };
        }
        res ^= 1;
        swap = value_on(kind, stm, to) - swap;
        if swap < res {
            break;
        }
        board.move_piece(sq, to);
    }
    res != 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::fen;

    fn mv(s: &str) -> Move {
        Move::parse_iccs(s).unwrap()
    }

    #[test]
    fn exchanges_are_counted() {
        // A chariot takes a pawn defended by a horse: it loses the exchange.
        let pos = fen::xiangqi("4k4/9/9/3n5/9/4p4/9/9/4R4/3K5 w - - 0 1").unwrap();
        assert!(!see_ge(pos.board(), mv("e1e4"), 0));
        assert!(see_ge(pos.board(), mv("e1e4"), -800));
        // An undefended pawn across the river is won, and worth two.
        let pos = fen::xiangqi("4k4/9/9/9/9/4p4/9/9/4R4/3K5 w - - 0 1").unwrap();
        assert!(see_ge(pos.board(), mv("e1e4"), 0));
        assert!(see_ge(pos.board(), mv("e1e4"), 200));
        assert!(!see_ge(pos.board(), mv("e1e4"), 201));
    }

    #[test]
    fn a_quiet_move_onto_a_guarded_point_loses_its_piece() {
        // The chariot steps to e4, which the horse on d6 guards: nothing to win, the
        // chariot (900) to lose.
        let pos = fen::xiangqi("5k3/9/9/3n5/9/9/9/9/4R4/3K5 w - - 0 1").unwrap();
        assert!(!see_ge(pos.board(), mv("e1e4"), 0));
        assert!(!see_ge(pos.board(), mv("e1e4"), -899));
        assert!(see_ge(pos.board(), mv("e1e4"), -900));
        // One point short of it, e3, is not guarded.
        assert!(see_ge(pos.board(), mv("e1e3"), 0));
    }

    #[test]
    fn a_cannon_screen_counts() {
        // The black cannon on e9 recaptures on e4 over the screen on e7 once the red
        // chariot stands on e4.
        let pos = fen::xiangqi("3kc4/9/4n4/9/9/4n4/9/9/4R4/5K3 w - - 0 1").unwrap();
        assert!(!see_ge(pos.board(), mv("e1e4"), 0), "the cannon takes back");
        // Without the screen the cannon does not.
        let pos = fen::xiangqi("3kc4/9/9/9/9/4n4/9/9/4R4/5K3 w - - 0 1").unwrap();
        assert!(see_ge(pos.board(), mv("e1e4"), 0));
    }

    /// `janggi_see_ge` of the ICCS move `m` on the Janggi position `fen_text`.
    fn janggi(fen_text: &str, m: &str, threshold: i32) -> bool {
        let pos = fen::janggi(fen_text).unwrap();
        janggi_see_ge(pos.board(), mv(m), threshold)
    }

    #[test]
    fn a_janggi_cannon_needs_a_screen_that_is_no_cannon() {
        // The chariot takes the soldier on e6; the cannon on e9 takes back over the
        // horse on e7, not over a cannon there.
        assert!(!janggi("4ck3/9/4n4/4p4/9/9/4R4/9/9/3K5 w - - 0 1", "e3e6", 0));
        assert!(janggi("4ck3/9/4n4/4p4/9/9/4R4/9/9/3K5 w - - 0 1", "e3e6", -1100));
        assert!(!janggi("4ck3/9/4n4/4p4/9/9/4R4/9/9/3K5 w - - 0 1", "e3e6", -1099));
        assert!(janggi("4ck3/9/4c4/4p4/9/9/4R4/9/9/3K5 w - - 0 1", "e3e6", 200));
        assert!(!janggi("4ck3/9/4c4/4p4/9/9/4R4/9/9/3K5 w - - 0 1", "e3e6", 201));
    }

    #[test]
    fn a_janggi_cannon_never_takes_a_cannon() {
        // Cho's cannon takes the horse on e6 over the soldier on e3: Han's cannon on e8
        // could take a chariot there over its horse on e7, but not a cannon.
        assert!(janggi("3k5/4c4/4n4/4n4/9/9/4P4/9/4C4/5K3 w - - 0 1", "e1e6", 500));
        assert!(!janggi("3k5/4c4/4n4/4n4/9/9/4P4/9/4C4/5K3 w - - 0 1", "e1e6", 501));
        assert!(!janggi("3k5/4c4/4n4/4n4/4R4/9/4P4/9/9/5K3 w - - 0 1", "e5e6", 0));
    }

    #[test]
    fn janggi_guards_defend_along_the_palace_lines() {
        // d8 is no diagonal point: the guard on e9 does not reach it, the one on e8 does.
        assert!(janggi("4a4/3n1k3/9/9/9/9/3R5/9/9/4K4 w - - 0 1", "d3d8", 500));
        assert!(!janggi("9/3nak3/9/9/9/9/3R5/9/9/4K4 w - - 0 1", "d3d8", 0));
        // The corner f7 is reached from the centre along the diagonal, not from e9.
        assert!(!janggi("3k5/4a4/5n3/9/9/9/5R3/9/9/4K4 w - - 0 1", "f3f7", 0));
        assert!(janggi("3ka4/9/5n3/9/9/9/5R3/9/9/4K4 w - - 0 1", "f3f7", 500));
    }

    #[test]
    fn janggi_horses_and_elephants_defend_through_free_points_only() {
        // The horse on d7 guards e5 over its leg d6; a soldier on d6 blocks it.
        assert!(!janggi("5k3/9/3n5/9/R3p4/9/9/9/9/4K4 w - - 0 1", "a5e5", 0));
        assert!(janggi("5k3/9/3n5/3p5/R3p4/9/9/9/9/4K4 w - - 0 1", "a5e5", 200));
        // The elephant on c8 guards e5 over c7 and d6; a piece on either blocks it.
        assert!(!janggi("5k3/2b6/9/9/R3p4/9/9/9/9/4K4 w - - 0 1", "a5e5", 0));
        assert!(janggi("5k3/2b6/9/3p5/R3p4/9/9/9/9/4K4 w - - 0 1", "a5e5", 200));
        assert!(janggi("5k3/2b6/2n6/9/R3p4/9/9/9/9/4K4 w - - 0 1", "a5e5", 200));
    }

    #[test]
    fn a_janggi_general_takes_only_what_nothing_takes_back() {
        // The chariot takes the horse in the palace centre: the general takes it back
        // unless the cannon on e0 (over the soldier on e4) would then take the general.
        assert!(!janggi("3k5/4n4/9/9/9/9/4R4/9/9/3K5 w - - 0 1", "e3e8", 0));
        assert!(janggi("3k5/4n4/9/9/9/4R4/4P4/9/9/3KC4 w - - 0 1", "e4e8", 500));
    }

    #[test]
    fn a_janggi_pass_wins_and_loses_nothing() {
        let start = "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ABNR w - - 0 1";
        let pos = fen::janggi(start).unwrap();
        assert!(janggi_see_ge(pos.board(), Move::PASS, 0));
        assert!(!janggi_see_ge(pos.board(), Move::PASS, 1));
    }
}
