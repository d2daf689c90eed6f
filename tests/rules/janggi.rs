//! Janggi positions: validation errors, start setups, passes and status, and property
//! tests over random games against a slow legality checker written plainly here.

use std::collections::BTreeSet;

use chuhe::notation::fen::{self, PositionTextError};
use chuhe::rules::Status;
use chuhe::rules::board::Board;
use chuhe::rules::janggi::{Position, PositionError, PositionProblem, Setup4, start_position};
use chuhe::rules::types::{Color, Move, MoveList, Piece, PieceKind, Square};
use proptest::prelude::*;

fn invalid(text: &str) -> PositionError {
    match fen::janggi(text) {
        Err(PositionTextError::Invalid(e)) => e,
        other => panic!("{text}: expected an invalid position, got {other:?}"),
    }
}

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap()
}

fn mv(text: &str) -> Move {
    Move::parse_iccs(text).unwrap()
}

// ---------------------------------------------------------------------------
// Validation

#[test]
fn rejects_a_missing_general() {
    let e = invalid("3a1a3/9/9/9/9/9/9/9/4K4/9 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::GeneralCount { color: Color::Black, count: 0 });
}

#[test]
fn rejects_two_generals() {
    let e = invalid("4k4/9/9/9/9/9/9/9/3KK4/9 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::GeneralCount { color: Color::Red, count: 2 });
}

#[test]
fn rejects_too_many_pieces_of_a_kind() {
    let e = invalid("4k4/9/9/9/9/9/9/RRR6/4K4/9 w - - 0 1");
    let chariot = Piece::new(Color::Red, PieceKind::Chariot);
    assert_eq!(e.problem, PositionProblem::TooManyPieces { piece: chariot, count: 3, max: 2 });
    let e = invalid("4k4/9/9/pp1pp1pp1/9/9/9/9/4K4/9 w - - 0 1");
    let soldier = Piece::new(Color::Black, PieceKind::Soldier);
    assert_eq!(e.problem, PositionProblem::TooManyPieces { piece: soldier, count: 6, max: 5 });
    for (text, kind) in [
        ("4k4/9/9/9/9/9/9/9/3AKA3/4A4 w - - 0 1", PieceKind::Advisor),
        ("4k4/9/9/9/9/BBB6/9/9/4K4/9 w - - 0 1", PieceKind::Elephant),
        ("4k4/9/9/9/9/NNN6/9/9/4K4/9 w - - 0 1", PieceKind::Horse),
        ("4k4/9/9/9/9/CCC6/9/9/4K4/9 w - - 0 1", PieceKind::Cannon),
    ] {
        assert!(
            matches!(invalid(text).problem, PositionProblem::TooManyPieces { piece, count: 3, max: 2 } if piece.kind() == kind),
            "{text}"
        );
    }
}

#[test]
fn rejects_a_general_or_guard_outside_its_palace() {
    let e = invalid("4k4/9/9/9/9/9/9/9/9/2K6 w - - 0 1");
    let general = Piece::new(Color::Red, PieceKind::General);
    assert_eq!(e.problem, PositionProblem::OutsidePalace { piece: general, square: sq("c0") });
    // Han's guard in Cho's palace.
    let e = invalid("4k4/9/9/9/9/9/9/9/4K4/3a5 w - - 0 1");
    let guard = Piece::new(Color::Black, PieceKind::Advisor);
    assert_eq!(e.problem, PositionProblem::OutsidePalace { piece: guard, square: sq("d0") });
    let e = invalid("4k4/9/9/9/9/9/9/9/4K1A2/9 w - - 0 1");
    assert_eq!(
        e.problem,
        PositionProblem::OutsidePalace { piece: Piece::new(Color::Red, PieceKind::Advisor), square: sq("g1") }
    );
}

#[test]
fn rejects_a_soldier_behind_its_start_rank() {
    let e = invalid("4k4/9/9/9/9/9/9/P8/4K4/9 w - - 0 1");
    assert_eq!(
        e.problem,
        PositionProblem::UnreachablePoint { piece: Piece::new(Color::Red, PieceKind::Soldier), square: sq("a2") }
    );
    let e = invalid("4k4/8p/9/9/9/9/9/9/4K4/9 w - - 0 1");
    assert_eq!(
        e.problem,
        PositionProblem::UnreachablePoint { piece: Piece::new(Color::Black, PieceKind::Soldier), square: sq("i8") }
    );
    // On the start ranks and anywhere forward is fine, sideways included.
    fen::janggi("4k4/9/9/P7p/9/9/p7P/9/4K4/9 w - - 0 1").unwrap();
}

#[test]
fn rejects_the_side_not_to_move_in_check() {
    // Cho's chariot attacks Han's general and Cho is to move.
    let e = invalid("4k4/9/9/9/4R4/9/9/9/4K4/9 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::OpponentInCheck { checkers: vec![sq("e5")] });
    // With Han to move it is Han's check, and a position.
    assert!(fen::janggi("4k4/9/9/9/4R4/9/9/9/4K4/9 b - - 0 1").unwrap().in_check());
    // A cannon over a screen, and along a palace diagonal.
    let e = invalid("4k4/9/9/9/4P4/9/9/9/4C4/3K5 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::OpponentInCheck { checkers: vec![sq("e1")] });
    let e = invalid("5k3/4a4/3C5/9/9/9/9/9/9/4K4 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::OpponentInCheck { checkers: vec![sq("d7")] });
    // A cannon does not jump another cannon.
    fen::janggi("4k4/9/9/9/4c4/9/9/9/4C4/3K5 w - - 0 1").unwrap();
    // An elephant's check.
    let e = invalid("4k4/9/9/6B2/9/9/9/9/9/4K4 w - - 0 1");
    assert_eq!(e.problem, PositionProblem::OpponentInCheck { checkers: vec![sq("g6")] });
    // Blocked on its way: no check.
    fen::janggi("4k4/5P3/9/6B2/9/9/9/9/9/4K4 w - - 0 1").unwrap();
}

#[test]
fn accepts_facing_generals() {
    let pos = fen::janggi("4k4/9/9/9/9/9/9/9/4K4/9 w - - 0 1").unwrap();
    assert_eq!(pos.board().generals_facing(), Some(4));
    assert!(!pos.in_check());
    // Bikjang restricts nothing: the general may stay on the file or leave it.
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    assert!(list.contains(mv("e1e2")) && list.contains(mv("e1d1")) && list.contains(Move::PASS));
}

#[test]
fn errors_read_well() {
    let e = invalid("4k4/9/9/9/9/9/9/P8/4K4/9 w - - 0 1");
    assert_eq!(e.to_string(), "cho soldier on a2 stands behind its start rank");
}

// ---------------------------------------------------------------------------
// Start setups

#[test]
fn usual_start_matches_the_fen() {
    let from_fen = fen::janggi("startpos").unwrap();
    assert_eq!(from_fen, Position::startpos());
    assert_eq!(fen::format(&Position::startpos().to_setup()), fen::JANGGI_START);
}

#[test]
fn start_setups_read_from_each_sides_own_left() {
    let fen_of = |cho, han| fen::format(&start_position(cho, han).to_setup());
    use Setup4::*;
    assert_eq!(
        fen_of(ElephantHorseHorseElephant, ElephantHorseHorseElephant),
        "rbna1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"
    );
    // Cho reads b, c, g, h; Han, facing Cho, reads h, g, c, b.
    assert_eq!(
        fen_of(HorseElephantHorseElephant, HorseElephantHorseElephant),
        "rbna1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RNBA1ANBR w - - 0 1"
    );
    assert_eq!(
        fen_of(ElephantHorseElephantHorse, HorseElephantElephantHorse),
        "rnba1abnr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ABNR w - - 0 1"
    );
    for cho in Setup4::ALL {
        for han in Setup4::ALL {
            let pos = start_position(cho, han);
            let again = fen::janggi(&fen::format(&pos.to_setup())).unwrap();
            assert_eq!(again, pos);
            assert!(pos.legal_move_count() > 20);
        }
    }
}

// ---------------------------------------------------------------------------
// Passes and status

#[test]
fn two_passes_in_a_row_end_the_game() {
    let mut pos = Position::startpos();
    let key = pos.key();
    let first = pos.play(Move::PASS).unwrap();
    assert_eq!(pos.consecutive_passes(), 1);
    assert_eq!(pos.key(), key ^ chuhe::rules::board::ZOBRIST_BLACK_TO_MOVE, "a pass flips the side only");
    assert_eq!(pos.status(), Status::Ongoing);
    let second = pos.play(Move::PASS).unwrap();
    assert_eq!(pos.status(), Status::Ended);
    assert_eq!(pos.legal_move_count(), 0);
    assert!(pos.play(mv("a0a1")).is_err() && pos.play(Move::PASS).is_err());
    pos.undo(Move::PASS, second);
    pos.undo(Move::PASS, first);
    assert_eq!(pos, Position::startpos());
    // A move between the passes resets the count.
    for m in ["pass", "a9a8", "pass"] {
        pos.play(mv(m)).unwrap();
    }
    assert_eq!(pos.consecutive_passes(), 1);
    assert_eq!(pos.status(), Status::Ongoing);
}

#[test]
fn no_pass_in_check_and_checkmate_is_a_loss() {
    // Han's chariot checks along the file; Cho may not pass.
    let pos = fen::janggi("4k4/4r4/9/9/9/9/9/9/4K4/9 w - - 0 1").unwrap();
    assert!(pos.in_check());
    assert!(!pos.is_legal(Move::PASS));
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    assert!(!list.contains(Move::PASS) && !list.is_empty());
    assert_eq!(pos.status(), Status::Ongoing);
    // One chariot checks along the back rank and guards f0; the other, in the palace
    // corner, holds d0 along its file and e1 along the diagonal: mate.
    let pos = fen::janggi("4k4/9/9/9/9/9/9/3r5/9/4K1r2 w - - 0 1").unwrap();
    assert!(pos.in_check());
    assert_eq!(pos.legal_move_count(), 0);
    assert_eq!(pos.status(), Status::Checkmate);
}

#[test]
fn palace_moves_of_the_general_chariot_cannon_and_soldier() {
    let moves = |text: &str| {
        let pos = fen::janggi(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut list = MoveList::new();
        pos.legal_moves(&mut list);
        list.iter().map(|m| m.to_string()).collect::<BTreeSet<_>>()
    };
    // The general on a palace side point has no diagonal.
    let m = moves("4k4/9/9/9/9/9/9/9/3K5/9 w - - 0 1");
    let general: BTreeSet<_> = m.iter().filter(|s| s.starts_with("d1")).cloned().collect();
    assert_eq!(general, ["d1d0", "d1d2", "d1e1"].iter().map(|s| s.to_string()).collect());
    // A chariot in the corner slides along the diagonal through the empty centre.
    let m = moves("4k4/9/9/9/9/9/9/9/9/3RK4 w - - 0 1");
    assert!(m.contains("d0e1") && m.contains("d0f2"));
    // A cannon jumps the centre (not a cannon) to the far corner, and takes there.
    let m = moves("3k1r3/4a4/3C5/9/9/9/9/9/4K4/9 w - - 0 1");
    assert!(m.contains("d7f9"), "cannon takes the chariot over the guard: {m:?}");
    let m = moves("3k1c3/4a4/3C5/9/9/9/9/9/4K4/9 w - - 0 1");
    assert!(!m.contains("d7f9"), "a cannon never takes a cannon");
    // A soldier goes diagonally forward along the enemy palace's diagonals only.
    let m = moves("3k5/9/3P1P3/9/9/9/9/9/4K4/9 w - - 0 1");
    assert!(m.contains("d7e8") && m.contains("f7e8"));
    let m = moves("9/4P4/4k4/9/9/9/9/9/4K4/9 w - - 0 1");
    assert!(m.contains("e8d9") && m.contains("e8f9"));
}

// ---------------------------------------------------------------------------
// A slow legality checker, written from the rules with coordinates only.

fn palace_of(f: i32, r: i32) -> Option<Color> {
    if !(3..=5).contains(&f) {
        None
    } else if (0..=2).contains(&r) {
        Some(Color::Red)
    } else if (7..=9).contains(&r) {
        Some(Color::Black)
    } else {
        None
    }
}

/// A corner or the centre of a palace: the points the diagonals join.
fn on_palace_diagonal(f: i32, r: i32) -> bool {
    palace_of(f, r).is_some() && (f - 4).abs() == (r - if r <= 2 { 1 } else { 8 }).abs()
}

fn at(board: &Board, f: i32, r: i32) -> Option<Piece> {
    board.piece_at(Square::new(f as u8, r as u8))
}

fn is_cannon(p: Option<Piece>) -> bool {
    p.is_some_and(|p| p.kind() == PieceKind::Cannon)
}

/// The pieces strictly between two points of one rank, file or palace diagonal.
fn between(board: &Board, (f0, r0): (i32, i32), (f1, r1): (i32, i32)) -> Vec<Piece> {
    let (df, dr) = ((f1 - f0).signum(), (r1 - r0).signum());
    let mut out = Vec::new();
    let (mut f, mut r) = (f0 + df, r0 + dr);
    while (f, r) != (f1, r1) {
        out.extend(at(board, f, r));
        f += df;
        r += dr;
    }
    out
}

/// Could the piece on `from` go to `to` by its own rules (ignoring its general's
/// safety)? `to` must not hold a piece of the same side.
fn reaches(board: &Board, from: Square, to: Square) -> bool {
    let Some(p) = board.piece_at(from) else { return false };
    if from == to || board.piece_at(to).is_some_and(|q| q.color() == p.color()) {
        return false;
    }
    let (f0, r0, f1, r1) = (from.file() as i32, from.rank() as i32, to.file() as i32, to.rank() as i32);
    let (df, dr) = (f1 - f0, r1 - r0);
    let same_palace = palace_of(f0, r0).is_some() && palace_of(f0, r0) == palace_of(f1, r1);
    // Along a drawn palace diagonal: corner to centre, centre to corner, corner to corner.
    let diagonal = same_palace && df.abs() == dr.abs() && on_palace_diagonal(f0, r0) && on_palace_diagonal(f1, r1);
    let straight = df == 0 || dr == 0;
    match p.kind() {
        PieceKind::General | PieceKind::Advisor => {
            palace_of(f1, r1) == Some(p.color()) && df.abs() <= 1 && dr.abs() <= 1 && (straight || diagonal)
        }
        PieceKind::Horse => {
            let leg = match (df.abs(), dr.abs()) {
                (1, 2) => (f0, r0 + dr / 2),
                (2, 1) => (f0 + df / 2, r0),
                _ => return false,
            };
            at(board, leg.0, leg.1).is_none()
        }
        PieceKind::Elephant => {
            let (a, b) = match (df.abs(), dr.abs()) {
                (2, 3) => ((f0, r0 + dr.signum()), (f0 + df.signum(), r0 + 2 * dr.signum())),
                (3, 2) => ((f0 + df.signum(), r0), (f0 + 2 * df.signum(), r0 + dr.signum())),
                _ => return false,
            };
            at(board, a.0, a.1).is_none() && at(board, b.0, b.1).is_none()
        }
        PieceKind::Chariot => (straight || diagonal) && between(board, (f0, r0), (f1, r1)).is_empty(),
        PieceKind::Cannon => {
            if is_cannon(board.piece_at(to)) || !(straight || diagonal) {
                return false;
            }
            let screens = between(board, (f0, r0), (f1, r1));
            screens.len() == 1 && screens[0].kind() != PieceKind::Cannon
        }
        PieceKind::Soldier => {
            let forward = if p.color() == Color::Red { 1 } else { -1 };
            let enemy_palace = palace_of(f0, r0) == Some(p.color().other());
            (df == 0 && dr == forward)
                || (dr == 0 && df.abs() == 1)
                || (dr == forward && df.abs() == 1 && enemy_palace && diagonal)
        }
    }
}

/// Is the general of `color` attacked: could any enemy piece go to its point?
fn general_attacked(board: &Board, color: Color) -> bool {
    let general = board.general(color).expect("a general");
    board.iter().any(|(from, p)| p.color() != color && reaches(board, from, general))
}

/// The enemy pieces that could go to the point of the general of the side to move.
fn slow_checkers(pos: &Position) -> BTreeSet<Square> {
    let b = pos.board();
    let general = b.general(pos.turn()).expect("a general");
    b.iter().filter(|&(from, p)| p.color() != pos.turn() && reaches(b, from, general)).map(|(from, _)| from).collect()
}

/// Every legal move by brute force over all pairs of points, then the pass.
fn slow_legal_moves(pos: &Position) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if pos.consecutive_passes() >= 2 {
        return out;
    }
    let us = pos.turn();
    for from in Square::all() {
        if pos.board().piece_at(from).is_none_or(|p| p.color() != us) {
            continue;
        }
        for to in Square::all() {
            if !reaches(pos.board(), from, to) {
                continue;
            }
            let mut after = pos.board().clone();
            let p = after.remove(from).unwrap();
            after.put(to, p);
            if !general_attacked(&after, us) {
                out.insert(Move::new(from, to).to_string());
            }
        }
    }
    if !general_attacked(pos.board(), us) {
        out.insert(Move::PASS.to_string());
    }
    out
}

/// The generated moves, and the same as text (checked free of duplicates).
fn fast_legal_moves(pos: &Position) -> (Vec<Move>, BTreeSet<String>) {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    let set: BTreeSet<String> = list.iter().map(|m| m.to_string()).collect();
    assert_eq!(set.len(), list.len(), "duplicate moves in {list:?}");
    (list.as_slice().to_vec(), set)
}

// ---------------------------------------------------------------------------
// Property tests over random games.

/// Start points of the random games: the usual start, every horse and elephant setup,
/// and each position of the perft table.
fn starts() -> Vec<Position> {
    let mut out = vec![Position::startpos()];
    for cho in Setup4::ALL {
        for han in Setup4::ALL {
            out.push(start_position(cho, han));
        }
    }
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.tsv")).unwrap();
    let fens: BTreeSet<&str> =
        table.lines().filter(|l| l.starts_with("janggi\t")).map(|l| l.split('\t').nth(2).unwrap()).collect();
    out.extend(fens.into_iter().map(|f| fen::janggi(f).unwrap()));
    out
}

/// Small deterministic generator for the moves of a game (proptest picks the seed).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

fn setup_eq(a: &Position, b: &Position) -> bool {
    a.to_setup() == b.to_setup()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_games_agree_with_the_slow_checker(start in 0usize..32, seed in 1u64.., plies in 1usize..120) {
        let starts = starts();
        let mut pos = starts[start % starts.len()].clone();
        let mut rng = Rng(seed);
        for _ in 0..plies {
            let (moves, fast) = fast_legal_moves(&pos);
            let slow = slow_legal_moves(&pos);
            prop_assert_eq!(&fast, &slow, "legal moves differ in\n{:?}", pos);
            // is_legal agrees with the slow checker on every move of every own piece.
            for from in Square::all() {
                if pos.board().piece_at(from).is_none_or(|p| p.color() != pos.turn()) {
                    continue;
                }
                for to in Square::all().filter(|&to| to != from) {
                    let m = Move::new(from, to);
                    prop_assert_eq!(pos.is_legal(m), slow.contains(&m.to_string()), "is_legal({}) in\n{:?}", m, pos);
                }
            }
            prop_assert_eq!(pos.is_legal(Move::PASS), slow.contains("pass"));
            prop_assert_eq!(pos.has_piece_move(), moves.iter().any(|m| !m.is_pass()));
            // The captures are the legal moves onto an enemy piece, in the same order.
            let mut captures = MoveList::new();
            pos.legal_captures(&mut captures);
            let onto_enemy: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| !m.is_pass() && pos.board().piece_at(m.to()).is_some_and(|p| p.color() != pos.turn()))
                .collect();
            prop_assert_eq!(captures.as_slice(), &onto_enemy[..], "legal_captures in\n{:?}", pos);
            // The rest, the pass last where legal, in the same order: the quiet moves.
            let mut quiets = MoveList::new();
            pos.legal_quiets(&mut quiets);
            let rest: Vec<Move> = moves.iter().copied().filter(|m| !onto_enemy.contains(m)).collect();
            prop_assert_eq!(quiets.as_slice(), &rest[..], "legal_quiets in\n{:?}", pos);
            prop_assert_eq!(pos.key(), pos.key_from_scratch());
            let checkers: BTreeSet<Square> = chuhe::rules::board::squares(pos.checkers()).collect();
            prop_assert_eq!(&checkers, &slow_checkers(&pos));
            prop_assert_eq!(pos.in_check(), !checkers.is_empty());
            // FEN round trip (the passes just played are not part of FEN).
            let again = fen::janggi(&fen::format(&pos.to_setup())).unwrap();
            prop_assert!(setup_eq(&again, &pos));
            if moves.is_empty() {
                break;
            }
            // Every move made and unmade restores the position and its key, and gives
            // check exactly when the slow checker finds the enemy general attacked.
            for &m in &moves {
                if !m.is_pass() {
                    let mut after = pos.board().clone();
                    let p = after.remove(m.from()).unwrap();
                    after.put(m.to(), p);
                    prop_assert_eq!(pos.gives_check(m), general_attacked(&after, pos.turn().other()), "gives_check({})", m);
                } else {
                    prop_assert!(!pos.gives_check(m));
                }
                let before = pos.clone();
                let key_after = pos.key_after(m);
                let undo = pos.play_unchecked(m);
                prop_assert_eq!(pos.key(), pos.key_from_scratch(), "after {}", m);
                prop_assert_eq!(pos.key(), key_after, "key_after({})", m);
                pos.undo(m, undo);
                prop_assert!(pos == before, "{} did not unmake", m);
                prop_assert_eq!(pos.key(), before.key());
            }
            // Prefer real moves so that games go somewhere; passes still happen.
            let m = moves[rng.below(moves.len())];
            let m = if m.is_pass() && rng.below(3) != 0 { moves[rng.below(moves.len())] } else { m };
            pos.play(m).unwrap();
        }
    }
}
