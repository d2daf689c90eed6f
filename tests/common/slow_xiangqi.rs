//! The Xiangqi rules written out plainly: slow, obvious, and independent of the
//! library's move generation (they only read and edit the board through `piece_at`,
//! `put` and `remove`). The reference the fast code of the rules and the search is
//! checked against.

use std::collections::BTreeSet;

use chuhe::rules::board::Board;
use chuhe::rules::types::{Color, Move, Piece, PieceKind, Square};

fn coords(sq: Square) -> (i32, i32) {
    (sq.file() as i32, sq.rank() as i32)
}

fn piece_at(b: &Board, file: i32, rank: i32) -> Option<Piece> {
    assert!((0..9).contains(&file) && (0..10).contains(&rank), "({file}, {rank}) is off the board");
    b.piece_at(Square::new(file as u8, rank as u8))
}

/// Is the point inside `color`'s palace (files d-f, ranks 0-2 for Red, 7-9 for Black)?
pub fn in_palace(color: Color, sq: Square) -> bool {
    let (f, r) = coords(sq);
    (3..=5).contains(&f)
        && match color {
            Color::Red => (0..=2).contains(&r),
            Color::Black => (7..=9).contains(&r),
        }
}

/// Is the rank on `color`'s own side of the river (ranks 0-4 for Red, 5-9 for Black)?
pub fn own_side(color: Color, rank: i32) -> bool {
    match color {
        Color::Red => rank <= 4,
        Color::Black => rank >= 5,
    }
}

/// How many pieces stand strictly between two points of one rank or file; `None`
/// when they share neither.
fn pieces_between(b: &Board, from: Square, to: Square) -> Option<usize> {
    let ((f0, r0), (f1, r1)) = (coords(from), coords(to));
    if f0 != f1 && r0 != r1 {
        return None;
    }
    let (df, dr) = ((f1 - f0).signum(), (r1 - r0).signum());
    let (mut f, mut r) = (f0 + df, r0 + dr);
    let mut n = 0;
    while (f, r) != (f1, r1) {
        if piece_at(b, f, r).is_some() {
            n += 1;
        }
        f += df;
        r += dr;
    }
    Some(n)
}

/// Can the piece on `from` go to `to` by its own movement rule, whether or not that
/// leaves its general attacked? Never onto a piece of its own colour.
pub fn can_reach(b: &Board, from: Square, to: Square) -> bool {
    let Some(p) = b.piece_at(from) else { return false };
    if from == to {
        return false;
    }
    let target = b.piece_at(to);
    if target.is_some_and(|t| t.color() == p.color()) {
        return false;
    }
    let c = p.color();
    let ((f0, r0), (f1, r1)) = (coords(from), coords(to));
    let (df, dr) = (f1 - f0, r1 - r0);
    match p.kind() {
        PieceKind::General => df.abs() + dr.abs() == 1 && in_palace(c, to),
        PieceKind::Advisor => df.abs() == 1 && dr.abs() == 1 && in_palace(c, to),
        PieceKind::Elephant => {
            df.abs() == 2 && dr.abs() == 2 && own_side(c, r1) && piece_at(b, f0 + df / 2, r0 + dr / 2).is_none()
        }
        PieceKind::Horse => {
            let leg = if df.abs() == 1 && dr.abs() == 2 {
                Some((f0, r0 + dr / 2))
            } else if df.abs() == 2 && dr.abs() == 1 {
                Some((f0 + df / 2, r0))
            } else {
                None
            };
            leg.is_some_and(|(lf, lr)| piece_at(b, lf, lr).is_none())
        }
        PieceKind::Chariot => pieces_between(b, from, to) == Some(0),
        PieceKind::Cannon => pieces_between(b, from, to) == Some(if target.is_some() { 1 } else { 0 }),
        PieceKind::Soldier => {
            let forward = if c == Color::Red { 1 } else { -1 };
            let crossed = !own_side(c, r0);
            (df == 0 && dr == forward) || (crossed && dr == 0 && df.abs() == 1)
        }
    }
}

/// Where `color`'s general stands, found by looking at every point.
pub fn general(b: &Board, color: Color) -> Option<Square> {
    Square::all().find(|&sq| b.piece_at(sq) == Some(Piece::new(color, PieceKind::General)))
}

/// Do the two generals stand on one file with nothing between them?
pub fn generals_facing(b: &Board) -> bool {
    match (general(b, Color::Red), general(b, Color::Black)) {
        (Some(r), Some(k)) => r.file() == k.file() && pieces_between(b, r, k) == Some(0),
        _ => false,
    }
}

/// The pieces of `by` that could move onto `target` (the facing general included).
pub fn attackers(b: &Board, target: Square, by: Color) -> BTreeSet<Square> {
    let mut out: BTreeSet<Square> = Square::all()
        .filter(|&sq| b.piece_at(sq).is_some_and(|p| p.color() == by) && can_reach(b, sq, target))
        .collect();
    if b.piece_at(target) == Some(Piece::new(by.other(), PieceKind::General)) && generals_facing(b) {
        out.extend(general(b, by));
    }
    out
}

/// Is the general of `color` attacked on this board?
pub fn in_check(b: &Board, color: Color) -> bool {
    general(b, color).is_some_and(|g| !attackers(b, g, color.other()).is_empty())
}

/// The board after moving the piece on `from` to `to`, taking what stood there.
pub fn after(b: &Board, from: Square, to: Square) -> Board {
    let mut next = b.clone();
    next.remove(to);
    let p = next.remove(from).expect("a piece to move");
    next.put(to, p);
    next
}

/// Every move the side to move could make by the movement rules alone.
pub fn pseudo_moves(b: &Board, us: Color) -> Vec<Move> {
    let mut out = Vec::new();
    for from in Square::all() {
        if b.piece_at(from).is_none_or(|p| p.color() != us) {
            continue;
        }
        for to in Square::all() {
            if can_reach(b, from, to) {
                out.push(Move::new(from, to));
            }
        }
    }
    out
}

/// Is the pseudo-move `m` legal: afterwards the mover's general is not attacked and
/// the generals do not face each other?
pub fn keeps_general_safe(b: &Board, us: Color, m: Move) -> bool {
    let next = after(b, m.from(), m.to());
    !in_check(&next, us) && !generals_facing(&next)
}
