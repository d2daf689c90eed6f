//! Why a move is illegal, in the words a player (or an anti-cheat report) needs.

use super::Position;
use super::tables::{ADVISOR_STEPS, GENERAL_STEPS, SOLDIER_STEPS, own_side};
use crate::rules::board::{FILE_MASKS, RANK_MASKS, bit};
use crate::rules::illegal::IllegalReason;
use crate::rules::types::{Move, PieceKind, Square};

/// `None` when `m` is legal, otherwise the reason it is not.
pub(super) fn explain_illegal(pos: &Position, m: Move) -> Option<IllegalReason> {
    if pos.is_legal(m) {
        return None;
    }
    if !pos.has_legal_move() {
        return Some(IllegalReason::GameOver);
    }
    if m.is_pass() {
        return Some(IllegalReason::PassNotAllowed);
    }
    let b = pos.board();
    let (from, to) = (m.from(), m.to());
    let piece = match b.piece_at(from) {
        None => return Some(IllegalReason::NoPiece),
        Some(p) if p.color() != pos.turn() => return Some(IllegalReason::NotYourPiece),
        Some(p) => p,
    };
    if b.piece_at(to).is_some_and(|p| p.color() == pos.turn()) {
        return Some(IllegalReason::CapturesOwnPiece);
    }
    let c = pos.turn().index();
    let (df, dr) = (to.file() as i32 - from.file() as i32, to.rank() as i32 - from.rank() as i32);
    let midpoint = || Square::new((from.file() + to.file()) / 2, (from.rank() + to.rank()) / 2);
    let shape_ok = match piece.kind() {
        PieceKind::General => GENERAL_STEPS[c][from.index()] & bit(to) != 0,
        PieceKind::Advisor => ADVISOR_STEPS[c][from.index()] & bit(to) != 0,
        PieceKind::Elephant => df.abs() == 2 && dr.abs() == 2 && own_side(c, to.rank() as i32),
        PieceKind::Horse => (df.abs() == 1 && dr.abs() == 2) || (df.abs() == 2 && dr.abs() == 1),
        PieceKind::Chariot | PieceKind::Cannon => df == 0 || dr == 0,
        PieceKind::Soldier => SOLDIER_STEPS[c][from.index()] & bit(to) != 0,
    };
    if !shape_ok {
        return Some(IllegalReason::CannotMoveThatWay);
    }
    let between = || {
        let line = if df == 0 { FILE_MASKS[from.file() as usize] } else { RANK_MASKS[from.rank() as usize] };
        let (lo, hi) = (from.index().min(to.index()), from.index().max(to.index()));
        let span = (bit(Square::from_index_unchecked(hi)) - 1) & !((bit(Square::from_index_unchecked(lo)) << 1) - 1);
        (b.occupied() & line & span).count_ones()
    };
    let blocked = match piece.kind() {
        PieceKind::Elephant => !b.is_empty(midpoint()),
        PieceKind::Horse => {
            let leg = if dr.abs() == 2 {
                Square::new(from.file(), (from.rank() as i32 + dr / 2) as u8)
            } else {
                Square::new((from.file() as i32 + df / 2) as u8, from.rank())
            };
            !b.is_empty(leg)
        }
        PieceKind::Chariot => between() > 0,
        PieceKind::Cannon if b.is_empty(to) => between() > 0,
        PieceKind::Cannon => {
            if between() != 1 {
                return Some(IllegalReason::CannonNeedsOneScreen);
            }
            false
        }
        _ => false,
    };
    if blocked {
        return Some(IllegalReason::PathBlocked);
    }
    let mut after = pos.clone();
    after.play_unchecked(m);
    if after.board().generals_facing().is_some() {
        return Some(IllegalReason::GeneralsFace);
    }
    Some(IllegalReason::LeavesGeneralAttacked)
}
