//! The Three Kingdoms evaluation: material and placement of each original army, who
//! controls it, and the generals in play (see the module above for the terms).

use super::WIN;
use crate::rules::three_kingdoms::{Kind, Kingdom, Piece, Point, Position};

/// What a kingdom's own general is worth to it in the evaluation.
pub const GENERAL: i32 = 1_000;

/// Material of a piece kind, in centipawns (the general counts as [`GENERAL`] through
/// [`strength`]).
pub const fn value(kind: Kind) -> i32 {
    match kind {
        Kind::General => 0,
        Kind::Advisor => 200,
        Kind::Elephant => 200,
        Kind::Horse => 400,
        Kind::Chariot => 900,
        Kind::Cannon => 450,
        Kind::Soldier => 100,
        Kind::FlagBearer => 300,
    }
}

/// Material and placement of `piece` on `p` (0 for a general).
pub(super) fn piece_score(piece: Piece, p: Point) -> i32 {
    let away = p.kingdom() != piece.origin();
    let bonus = match piece.kind() {
        Kind::Soldier if away => 60 + 10 * (5 - p.rank() as i32),
        Kind::Horse | Kind::Chariot if away => 20,
        _ => 0,
    };
    value(piece.kind()) + bonus
}

/// Material and placement of the pieces of each original army (index by kingdom),
/// generals apart.
pub(super) fn armies(pos: &Position) -> [i32; 3] {
    let mut a = [0i32; 3];
    for p in Point::all() {
        if let Some(piece) = pos.piece_at(p) {
            a[piece.origin().index()] += piece_score(piece, p);
        }
    }
    a
}

/// Each kingdom's strength from the material of the armies: the armies it controls,
/// and its general while it is in play.
pub(super) fn strength_of(pos: &Position, armies: &[i32; 3]) -> [i32; 3] {
    let mut s = [0i32; 3];
    for origin in Kingdom::ALL {
        s[pos.controller(origin).index()] += armies[origin.index()];
    }
    for k in pos.kingdoms_in_play() {
        s[k.index()] += GENERAL;
    }
    s
}

/// Material plus placement of every kingdom's pieces (index by kingdom); defeated
/// kingdoms have nothing.
pub fn strength(pos: &Position) -> [i32; 3] {
    strength_of(pos, &armies(pos))
}

/// Own strength less the average of the rivals' (a defeated rival has none).
pub(super) fn compare(s: &[i32; 3], root: Kingdom) -> i32 {
    let rivals: i32 = Kingdom::ALL.into_iter().filter(|&k| k != root).map(|k| s[k.index()]).sum();
    s[root.index()] - rivals / 2
}

/// Static evaluation for `root`: own strength minus the average of the two rivals'
/// (a defeated rival has none).
pub fn evaluate(pos: &Position, root: Kingdom) -> i32 {
    if pos.is_defeated(root) {
        return -WIN;
    }
    if pos.winner() == Some(root) {
        return WIN;
    }
    compare(&strength(pos), root)
}
