//! Static exchange evaluation for Xiangqi and Janggi: does a move, followed by the
//! best sequence of recaptures on its target point (each side taking with its least
//! valuable attacker, and free to stop), lose no more than a threshold?
//!
//! The exchange is played out on a copy of the board, so cannon screens that appear or
//! vanish as pieces come and go are seen as they are; pins and the generals' facing are
//! not, which makes the answer an estimate. A general takes last, and only when no
//! attacker is left to take it back. The two games share the exchange
//! (`exchange_ge`); they differ in their values and in who attacks a point.

use crate::rules::board::{
    Bitboard, Board, FILE_LINES, PALACE, RANK_LINES, bit, bit_at, file_bits_to_board, horse_attackers,
    rank_bits_to_board,
};
use crate::rules::board_position::Attacks;
use crate::rules::janggi;
use crate::rules::janggi::tables::PALACE_STEPS;
use crate::rules::types::{Color, Move, PieceKind, Square};
use crate::rules::xiangqi::tables::{ADVISOR_STEPS, ELEPHANT_POINTS, ELEPHANT_STEPS, GENERAL_STEPS, SOLDIER_ATTACKERS};

/// Exchange values by piece kind (general, advisor, elephant, horse, chariot, cannon,
/// pawn).
pub const SEE_VALUE: [i32; 7] = [20_000, 200, 200, 400, 900, 450, 100];

/// Janggi's exchange values by piece kind (general, guard, elephant, horse, chariot,
/// cannon, soldier): its evaluation's material.
pub const JANGGI_SEE_VALUE: [i32; 7] = [20_000, 300, 300, 500, 1300, 700, 200];

/// A pawn across the river is worth twice as much.
#[inline]
fn value_on(kind: PieceKind, color: Color, sq: Square) -> i32 {
    if kind == PieceKind::Soldier {
        let crossed = if color == Color::Red { sq.rank() >= 5 } else { sq.rank() <= 4 };
        if crossed { 200 } else { 100 }
    } else {
        SEE_VALUE[kind.index()]
    }
}

/// The board as an exchange on one point leaves it, read through the board before the
/// exchange rather than a copy of it: the points the pieces that took have left, and
/// the occupancy of the target's rank and file, the only lines along which a chariot
/// or a cannon takes on it. (The target itself stays occupied throughout.)
struct XiangqiExchange<'a> {
    board: &'a Board,
    target: Square,
    left: Bitboard,
    rank_occ: u16,
    file_occ: u16,
}

impl<'a> XiangqiExchange<'a> {
    fn new(board: &'a Board, target: Square) -> Self {
        XiangqiExchange {
            board,
            target,
            left: 0,
            rank_occ: board.rank_occupancy(target.rank()),
            file_occ: board.file_occupancy(target.file()),
        }
    }

    /// The pieces of `by` of one kind still on their points.
    #[inline]
    fn pieces(&self, by: Color, kind: PieceKind) -> Bitboard {
        self.board.pieces(by, kind) & !self.left
    }

    /// Is the point of index `i` empty now?
    #[inline]
    fn empty(&self, i: usize) -> bool {
        self.board.code_at(i) == 0 || self.left & bit_at(i) != 0
    }
}

impl Exchange for XiangqiExchange<'_> {
    /// The pieces of `by` that can move to the target (a general by one step only), by
    /// kind from the cheapest, each kind looked at only when no cheaper one takes: the
    /// kinds of [`ORDER`], written out one after the other (a loop over it with a
    /// match per kind cost about 4 % more instructions in the whole search).
    fn least_valuable(&self, by: Color) -> Option<(Square, PieceKind)> {
        let (c, t) = (by.index(), self.target.index());
        let lowest = |found: Bitboard, kind: PieceKind| {
            (found != 0).then(|| (Square::from_index_unchecked(found.trailing_zeros() as usize), kind))
        };
        let pawns = SOLDIER_ATTACKERS[c][t] & self.pieces(by, PieceKind::Soldier);
        if pawns != 0 {
            return lowest(pawns, PieceKind::Soldier);
        }
        // Advisors and the general step inside their palace only (their step tables
        // also list the palace points next to a point outside it).
        let in_palace = PALACE[c] & bit(self.target) != 0;
        let advisors = ADVISOR_STEPS[c][t] & self.pieces(by, PieceKind::Advisor);
        if in_palace && advisors != 0 {
            return lowest(advisors, PieceKind::Advisor);
        }
        if ELEPHANT_POINTS[c] & bit(self.target) != 0 {
            let elephants = self.pieces(by, PieceKind::Elephant);
            if elephants != 0 {
                let mut found = 0;
                for st in ELEPHANT_STEPS[c][t].as_slice() {
                    if elephants & bit_at(st.to as usize) != 0 && self.empty(st.block as usize) {
                        found |= bit_at(st.to as usize);
                    }
                }
                if found != 0 {
                    return lowest(found, PieceKind::Elephant);
                }
            }
        }
        let horses = self.pieces(by, PieceKind::Horse);
        if horses != 0 {
            let found = horse_attackers(horses, t, |i| self.empty(i));
            if found != 0 {
                return lowest(found, PieceKind::Horse);
            }
        }
        let (f, r) = (self.target.file(), self.target.rank());
        let rank = &RANK_LINES[f as usize][self.rank_occ as usize];
        let file = &FILE_LINES[r as usize][self.file_occ as usize];
        let cannons = (rank_bits_to_board(rank.second, r) | file_bits_to_board(file.second, f))
            & self.pieces(by, PieceKind::Cannon);
        if cannons != 0 {
            return lowest(cannons, PieceKind::Cannon);
        }
        let chariots = (rank_bits_to_board(rank.first, r) | file_bits_to_board(file.first, f))
            & self.pieces(by, PieceKind::Chariot);
        if chariots != 0 {
            return lowest(chariots, PieceKind::Chariot);
        }
        if !in_palace {
            return None;
        }
        lowest(GENERAL_STEPS[c][t] & self.pieces(by, PieceKind::General), PieceKind::General)
    }

    fn take_from(&mut self, from: Square) {
        self.left |= bit(from);
        if from.rank() == self.target.rank() {
            self.rank_occ &= !(1 << from.file());
        }
        if from.file() == self.target.file() {
            self.file_occ &= !(1 << from.rank());
        }
    }
}

/// Does `m` (a legal move on `b`) win at least `threshold` by the exchange on its
/// target point?
pub fn see_ge(b: &Board, m: Move, threshold: i32) -> bool {
    exchange_ge(b, m, threshold, value_on, || XiangqiExchange::new(b, m.to()))
}

/// A board on which an exchange on one point is played out.
trait Exchange {
    /// The least valuable piece of `by` that can take on the point now, with its kind.
    fn least_valuable(&self, by: Color) -> Option<(Square, PieceKind)>;
    /// The piece on `from` takes on the point.
    fn take_from(&mut self, from: Square);
}

/// The Janggi exchange, played out on a copy of the board.
struct JanggiExchange {
    board: Board,
    target: Square,
}

impl Exchange for JanggiExchange {
    fn least_valuable(&self, by: Color) -> Option<(Square, PieceKind)> {
        janggi_least_valuable(&self.board, self.target, by)
    }

    fn take_from(&mut self, from: Square) {
        self.board.move_piece(from, self.target);
    }
}

/// The first piece of `by`, by the kinds from the cheapest, among `all`.
#[inline]
fn cheapest(b: &Board, by: Color, all: Bitboard) -> Option<(Square, PieceKind)> {
    for kind in ORDER {
        let bb = all & b.pieces(by, kind);
        if bb != 0 {
            let sq = Square::from_index(bb.trailing_zeros() as usize)?;
            return Some((sq, kind));
        }
    }
    None
}

/// Attacking kinds from the cheapest to the dearest.
const ORDER: [PieceKind; 7] = [
    PieceKind::Soldier,
    PieceKind::Advisor,
    PieceKind::Elephant,
    PieceKind::Horse,
    PieceKind::Cannon,
    PieceKind::Chariot,
    PieceKind::General,
];

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
    cheapest(b, by, all)
}

/// [`see_ge`] for Janggi: its values ([`JANGGI_SEE_VALUE`]) and its attackers (the
/// cannon over exactly one screen that is not a cannon, the palace diagonals, the
/// horse's leg and the elephant's two points). A pass wins nothing and loses nothing.
pub fn janggi_see_ge(b: &Board, m: Move, threshold: i32) -> bool {
    if m.is_pass() {
        return threshold <= 0;
    }
    let start = || JanggiExchange { board: b.clone(), target: m.to() };
    exchange_ge(b, m, threshold, |kind, _, _| JANGGI_SEE_VALUE[kind.index()], start)
}

/// The exchange on `m`'s target point, with the game's values (`value_on` a kind of a
/// side on a point), played out on the exchange board `start` makes of `b` (only when
/// the first capture does not settle it).
#[inline]
fn exchange_ge<E: Exchange>(
    b: &Board,
    m: Move,
    threshold: i32,
    value_on: impl Fn(PieceKind, Color, Square) -> i32,
    start: impl FnOnce() -> E,
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
    let mut exchange = start();
    exchange.take_from(from);
    let mut stm = us;
    // 1 while the side that made the last capture is ahead of the threshold.
    let mut res = 1;
    loop {
        stm = stm.other();
        let Some((sq, kind)) = exchange.least_valuable(stm) else { break };
        if kind == PieceKind::General {
            // The general may take only where nothing takes it back.
            exchange.take_from(sq);
            return if exchange.least_valuable(stm.other()).is_some() { res != 0 } else { res == 0 };
        }
        res ^= 1;
        swap = value_on(kind, stm, to) - swap;
        if swap < res {
            break;
        }
        exchange.take_from(sq);
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
