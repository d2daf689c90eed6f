//! Chases: the enemy pieces a move newly threatens to capture, as the repetition rules of
//! the Asian rule set (a chase, 捉) and of the tournament rule set (an attack) count them.
//!
//! ```
//! use chuhe::notation::fen;
//! use chuhe::rules::types::{Move, PieceKind, Square};
//! use chuhe::rules::xiangqi::chase::{ThreatRule, move_threats};
//!
//! // The red cannon swings to the a-file and, over the a5 pawn, threatens the chariot.
//! let pos = fen::xiangqi("2bakabnr/9/r1n1c4/2p1p1p1p/PP7/9/4P1P1P/2C3NC1/9/1NBAKAB1R w - - 0 1").unwrap();
//! let chases = move_threats(&pos, Move::parse_iccs("c2a2").unwrap(), ThreatRule::Chase);
//! assert_eq!(chases.len(), 1);
//! assert_eq!((chases[0].chaser, chases[0].chased), (Square::parse("a2").unwrap(), Square::parse("a7").unwrap()));
//! assert_eq!(chases[0].chased_kind, PieceKind::Chariot);
//! ```
//!
//! # Threats
//!
//! A side *threatens* an enemy piece (never the general: that is a check) when one of its
//! pieces could capture it if that side were to move now, and the capture counts under
//! the rule:
//!
//! - [`ThreatRule::Chase`] (Asian rules). The general and the pawns never chase, and a
//!   pawn that has not crossed the river is never chased. A horse or a cannon chases a
//!   chariot, and an advisor or an elephant chases a chariot, a horse or a cannon, even
//!   when the victim is protected. Two pieces of the same kind that can take each other
//!   back do not chase each other. Otherwise the threat is a chase when the victim is not
//!   protected. "The general and pawn moves do not chase" is read by the attacker: a
//!   general or a pawn never chases, while a move of either can still uncover the chase of
//!   another piece.
//! - [`ThreatRule::Attack`] (tournament rules, the Italian rules text of the project's
//!   seeds). Only a horse, a chariot or a cannon attacks, and it attacks any piece but the
//!   general, protected or not, with six exceptions: a horse on a horse that could take it
//!   back; a cannon on a cannon protected by another piece; a cannon on a pawn that has not
//!   crossed the river; a chariot on a protected cannon; a chariot on a chariot that is
//!   not blocked (it could take back); a chariot on a blocked chariot that is protected.
//!
//! A capture, a recapture or a taking back *could* be made when the piece reaches the
//! point by the way it moves and the move leaves its own general safe: a general must
//! not step onto an attacked point or face the other general, any other piece must not
//! expose its general. Checks that already stand when the exchange begins are set aside
//! (the side in check would answer them first), but the exchange's own checks are not.
//!
//! *Protected* means that once the capture is made, the victim's side could take back on
//! that point. This carries every subtlety of protection: a defender pinned against its
//! general (by a chariot, a cannon, a horse's leg or the facing generals) does not
//! protect; nor does the general when its recapture would leave the generals facing or
//! step onto an attacked point; nor a cannon whose screen was the capturing piece; and
//! when the capture uncovers a check, a recapture that does not meet it does not
//! protect, so capture threats behind a discovered check count.
//!
//! # New threats
//!
//! A ply makes the threats that stand after it and were not threats before it, for the
//! same attacking piece (followed from its old point to its new one when it is the piece
//! that moved) on the same victim, where either
//!
//! - the attack itself is new: the piece that moved attacks from its new point, or the
//!   move opened a line (or gave a cannon its screen) for another piece; or
//! - the attack stood before and now counts through a pin or a check only: the move
//!   pinned a defender, or set up a discovered check so that the victim's side could not
//!   take back. Judged by the lines of the board alone (pins and checks set aside) it
//!   would not count.
//!
//! So a chariot sliding along a line on which it already attacked a piece makes no new
//! threat, nor does a move that merely blocks a defender's line or takes away a
//! defending cannon's screen, while a move that pins a defender or lines up a discovered
//! check makes the threats it enables. Threats before and after the ply are both judged
//! as if the mover were to move.
//!
//! The repetition rules call this only for the plies of a repeating cycle.

use super::Position;
use super::Xiangqi;
use super::tables::{ADVISOR_STEPS, ELEPHANT_STEPS, GENERAL_STEPS, PALACE, own_side};
use crate::rules::board::{Bitboard, bit, squares};
use crate::rules::board_position::Attacks;
use crate::rules::types::{Color, Move, Piece, PieceKind, Square};

/// Which capture threats count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ThreatRule {
    /// A chase under the Asian (AXF/WXF) rules.
    Chase,
    /// A perpetual-attack threat under the tournament rules.
    Attack,
}

/// One capture threat: the piece on `chaser` could take the piece on `chased`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Threat {
    /// Where the chasing piece stands after the ply.
    pub chaser: Square,
    /// The chasing piece's kind.
    pub chaser_kind: PieceKind,
    /// Where the chased piece stands.
    pub chased: Square,
    /// The chased piece's kind.
    pub chased_kind: PieceKind,
}

/// Every threat that `by` holds in `pos`, judged as if `by` were to move.
pub fn threats(pos: &Position, by: Color, rule: ThreatRule) -> Vec<Threat> {
    assess(pos, by, rule).into_iter().filter(|a| a.counts).map(|a| a.threat).collect()
}

/// The threats that the move `m` (legal in `before`) makes. See the module
/// documentation.
pub fn move_threats(before: &Position, m: Move, rule: ThreatRule) -> Vec<Threat> {
    let by = before.turn();
    let mut after = before.clone();
    after.play_unchecked(m);
    let old = assess(before, by, rule);
    let followed = |sq: Square| if sq == m.from() { m.to() } else { sq };
    assess(&after, by, rule)
        .into_iter()
        .filter(|a| {
            let t = &a.threat;
            let was = old.iter().find(|o| followed(o.threat.chaser) == t.chaser && o.threat.chased == t.chased);
            a.counts
                && match was {
                    // A new attack.
                    None => true,
                    // An old attack that newly counts through a pin or a check, not through
                    // the lines alone.
                    Some(o) => !o.counts && !a.counts_by_lines,
                }
        })
        .map(|a| a.threat)
        .collect()
}

/// One attack (a capture that the attacker could make by the way its piece moves, pins
/// and checks aside) and whether it counts as a threat.
struct Assessed {
    threat: Threat,
    /// It counts: every capture and recapture judged is legal.
    counts: bool,
    /// It would count if pins and checks were no matter, by the lines of the board alone.
    counts_by_lines: bool,
}

/// Every attack of `by` on an enemy piece other than the general in `pos`, assessed as
/// if `by` were to move.
fn assess(pos: &Position, by: Color, rule: ThreatRule) -> Vec<Assessed> {
    let mut p = pos.clone();
    p.turn = by;
    let victims = p.board().by_color(by.other()) & !p.board().pieces(by.other(), PieceKind::General);
    let ignored = checkers_of(&p, by);
    let mut found = Vec::new();
    for chased in squares(victims) {
        for chaser in squares(attackers_to(&p, chased, by)) {
            let m = Move::new(chaser, chased);
            let b = p.board();
            let (Some(attacker), Some(victim)) = (b.piece_at(chaser), b.piece_at(chased)) else {
                continue;
            };
            found.push(Assessed {
                threat: Threat { chaser, chaser_kind: attacker.kind(), chased, chased_kind: victim.kind() },
                counts: safe_after(&p, m, ignored) && counts(&p, m, attacker.kind(), victim, rule, Judge::Legal),
                counts_by_lines: counts(&p, m, attacker.kind(), victim, rule, Judge::Lines),
            });
        }
    }
    found
}

/// How captures and recaptures are judged: legal, or by the lines of the board alone.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Judge {
    Legal,
    Lines,
}

/// Does the capture `m` (by `attacker`, of `victim`, in `p` with the attacker's side to
/// move) count as a threat under `rule`?
fn counts(p: &Position, m: Move, attacker: PieceKind, victim: Piece, rule: ThreatRule, judge: Judge) -> bool {
    use PieceKind::*;
    let crossed = victim.kind() != Soldier || !own_side(victim.color().index(), m.to().rank() as i32);
    let take_back = || can_take_back(p, m, judge);
    let protected = || protected(p, m, judge);
    match rule {
        ThreatRule::Chase => match (attacker, victim.kind()) {
            (General | Soldier, _) => false,
            _ if !crossed => false,
            (Horse | Cannon, Chariot) => true,
            (Advisor | Elephant, Chariot | Horse | Cannon) => true,
            (a, v) if a == v && take_back() => false,
            _ => !protected(),
        },
        ThreatRule::Attack => match (attacker, victim.kind()) {
            (Horse, Horse) => !take_back(),
            (Cannon, Cannon) => !protected(),
            (Cannon, Soldier) => crossed,
            (Chariot, Cannon) => !protected(),
            (Chariot, Chariot) => !take_back() && !protected(),
            (Horse | Chariot | Cannon, _) => true,
            _ => false,
        },
    }
}

/// Could the victim of `m`, with its side to move, take the attacker back?
fn can_take_back(p: &Position, m: Move, judge: Judge) -> bool {
    let victim_side = p.turn.other();
    let mut q = p.clone();
    q.turn = victim_side;
    attackers_to(&q, m.from(), victim_side) & bit(m.to()) != 0
        && (judge == Judge::Lines || safe_after(&q, Move::new(m.to(), m.from()), checkers_of(p, victim_side)))
}

/// After the capture `m`, can the victim's side take back on its point?
fn protected(p: &Position, m: Move, judge: Judge) -> bool {
    let victim_side = p.turn.other();
    let ignored = checkers_of(p, victim_side);
    let mut q = p.clone();
    q.play_unchecked(m);
    squares(attackers_to(&q, m.to(), victim_side))
        .any(|d| judge == Judge::Lines || safe_after(&q, Move::new(d, m.to()), ignored))
}

/// The pieces that give check to `side`'s general in `p`.
fn checkers_of(p: &Position, side: Color) -> Bitboard {
    p.board().general(side).map_or(0, |k| Xiangqi::attackers_of(p.board(), k, side.other()))
}

/// Would the move `r` (the side to move in `q` takes on `r.to()`) leave its general safe?
/// A general must not step onto an attacked point or face the other general; any other
/// piece must not expose its general to an attack, counting only attackers outside
/// `ignored`: the checks that stood before the exchange being judged, which the side
/// would answer first, do not make a capture or a recapture illegal.
fn safe_after(q: &Position, r: Move, ignored: Bitboard) -> bool {
    let side = q.turn();
    let general_moves = q.board().general(side) == Some(r.from());
    let mut after = q.clone();
    after.play_unchecked(r);
    let Some(king) = after.board().general(side) else {
        return false;
    };
    let attackers = Xiangqi::attackers_of(after.board(), king, side.other());
    if general_moves { attackers == 0 } else { attackers & !ignored == 0 }
}

/// Every piece of `by` that could move onto `target`, taking what stands there (pins and
/// checks aside).
fn attackers_to(pos: &Position, target: Square, by: Color) -> Bitboard {
    let b = pos.board();
    let c = by.index();
    // `attackers_of` counts the generals' facing as an attack; a general takes only by
    // stepping, added below.
    let mut found = Xiangqi::attackers_of(pos.board(), target, by) & !b.pieces(by, PieceKind::General);
    if bit(target) & PALACE[c] != 0 {
        found |= ADVISOR_STEPS[c][target.index()] & b.pieces(by, PieceKind::Advisor);
        found |= GENERAL_STEPS[c][target.index()] & b.pieces(by, PieceKind::General);
    }
    for e in squares(b.pieces(by, PieceKind::Elephant)) {
        for st in ELEPHANT_STEPS[c][e.index()].as_slice() {
            if st.to as usize == target.index() && b.code_at(st.block as usize) == 0 {
                found |= bit(e);
            }
        }
    }
    found
}
