//! The board's point sets against their definitions: the zone a checking Janggi piece
//! must reach (the general's rank and file and the points within a radius of it).

use chuhe::rules::board::{
    ALL_SQUARES, Bitboard, FILE_MASKS, PALACE, RANK_MASKS, between, bit, lines_and_square_around, squares,
};
use chuhe::rules::types::Square;

fn point(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("{name} is not a point"))
}

/// The points on the rank or the file of `centre`, or at most `radius` files and
/// ranks from it, listed one by one.
fn zone_by_definition(centre: Square, radius: i32) -> Bitboard {
    let (cf, cr) = (i32::from(centre.file()), i32::from(centre.rank()));
    Square::all()
        .filter(|s| {
            let (f, r) = (i32::from(s.file()), i32::from(s.rank()));
            f == cf || r == cr || ((f - cf).abs() <= radius && (r - cr).abs() <= radius)
        })
        .fold(0, |set, s| set | bit(s))
}

fn names(set: Bitboard) -> Vec<String> {
    squares(set).map(|s| s.to_string()).collect()
}

/// Every point of both palaces and a few others, with the radii of both variants
/// (Xiangqi 2, Janggi 3) and the radii either side of them.
#[test]
fn the_check_zone_is_the_lines_and_the_square_around_the_point() {
    let palaces =
        ["d0", "e0", "f0", "d1", "e1", "f1", "d2", "e2", "f2", "d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9"];
    for centre in palaces.into_iter().chain(["a0", "i9", "e4"]) {
        for radius in 1..=4 {
            let got = lines_and_square_around(point(centre), radius as u8);
            let expected = zone_by_definition(point(centre), radius);
            assert_eq!(names(got), names(expected), "around {centre}, radius {radius}");
        }
    }
    // One worked by hand: around e9 with radius 2, ranks 7-9 of files c-g, the rest of
    // rank 9 and of the e-file.
    let e9 = lines_and_square_around(point("e9"), 2);
    assert_eq!(e9.count_ones(), 15 + 4 + 7);
}

/// The whole-board, rank, file and palace sets against the points listed one by one.
#[test]
fn the_named_point_sets_hold_their_points() {
    let set_of = |keep: &dyn Fn(u8, u8) -> bool| -> Bitboard {
        Square::all().filter(|s| keep(s.file(), s.rank())).fold(0, |set, s| set | bit(s))
    };
    assert_eq!(ALL_SQUARES, set_of(&|_, _| true));
    assert_eq!(ALL_SQUARES.count_ones(), 90);
    for rank in 0..10 {
        assert_eq!(RANK_MASKS[rank as usize], set_of(&|_, r| r == rank), "rank {rank}");
    }
    for file in 0..9 {
        assert_eq!(FILE_MASKS[file as usize], set_of(&|f, _| f == file), "file {file}");
    }
    assert_eq!(names(PALACE[0]), ["d0", "e0", "f0", "d1", "e1", "f1", "d2", "e2", "f2"]);
    assert_eq!(names(PALACE[1]), ["d7", "e7", "f7", "d8", "e8", "f8", "d9", "e9", "f9"]);
}

/// The points between two points of a rank or a file, against the points whose file
/// and rank lie strictly between theirs on that line; none for other pairs.
#[test]
fn between_holds_the_points_strictly_between_on_a_line() {
    for a in Square::all() {
        for b in Square::all() {
            let (af, ar, bf, br) = (a.file(), a.rank(), b.file(), b.rank());
            let inside = |x: u8, lo: u8, hi: u8| lo.min(hi) < x && x < lo.max(hi);
            let expected = Square::all()
                .filter(|s| {
                    (ar == br && s.rank() == ar && inside(s.file(), af, bf))
                        || (af == bf && s.file() == af && inside(s.rank(), ar, br))
                })
                .fold(0, |set, s| set | bit(s));
            assert_eq!(between(a, b), expected, "{a} {b}");
        }
    }
    assert_eq!(names(between(point("a0"), point("a4"))), ["a1", "a2", "a3"]);
    assert_eq!(names(between(point("i5"), point("e5"))), ["f5", "g5", "h5"]);
}
