//! Move notations and game records: round trips over every legal move of the reference
//! positions and of random games, the tandem conventions, the examples of the rules
//! texts, and real opening lines replayed from Chinese records.

use chuhe::notation::record::{self, Comment};
use chuhe::notation::{Notation, NotationErrorKind, fen, format_move, parse_move};
use chuhe::rules::BoardPosition;
use chuhe::rules::outcome::GameResult;
use chuhe::rules::types::{Color, Move, MoveList};
use chuhe::rules::xiangqi::{IllegalReason, Position};

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap_or_else(|| panic!("bad ICCS {text}"))
}

fn position(fen_text: &str) -> Position {
    fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"))
}

/// Every legal move of `pos`, written and read back in every notation of its variant
/// (for Janggi those of [`Notation::applies_to_janggi`]).
fn round_trip_all<P: BoardPosition + std::fmt::Debug>(pos: &P, label: &str) -> usize {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    for &m in &list {
        for n in Notation::ALL.into_iter().filter(|n| !P::PALACE_DIAGONALS || n.applies_to_janggi()) {
            let text = format_move(pos, m, n);
            match parse_move(pos, &text, n) {
                Ok(back) => assert_eq!(back, m, "{label}: {m} written {text:?} in {n} reads back as {back}"),
                Err(e) => panic!("{label}: {m} written {text:?} in {n} does not read back: {e}\n{pos:?}"),
            }
        }
    }
    list.len()
}

/// The positions of a variant in tests/data/perft.tsv, as `(label, FEN)`.
fn reference_fens(variant: &str) -> Vec<(String, String)> {
    let table = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.tsv")).unwrap();
    let mut fens: Vec<(String, String)> = table
        .lines()
        .filter_map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            (cols.first() == Some(&variant)).then(|| (cols[1].to_string(), cols[2].to_string()))
        })
        .collect();
    fens.dedup();
    assert!(fens.len() >= 5, "only {} {variant} positions", fens.len());
    fens
}

/// [`round_trip_all`] of `pos` and of every position one ply later (where tandem pieces
/// often appear); `play` plays a legal move.
fn round_trip_around<P: BoardPosition + Clone + std::fmt::Debug>(
    pos: &P,
    label: &str,
    play: fn(&mut P, Move),
) -> usize {
    let mut moves = round_trip_all(pos, label);
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    for &m in &list {
        let mut next = pos.clone();
        play(&mut next, m);
        moves += round_trip_all(&next, label);
    }
    moves
}

#[test]
fn every_move_of_the_reference_positions_round_trips() {
    let mut moves = 0;
    for (label, fen_text) in reference_fens("xiangqi") {
        moves += round_trip_around(&position(&fen_text), &label, |p, m| {
            p.play_unchecked(m);
        });
    }
    assert!(moves > 5_000, "{moves}");
}

#[test]
fn every_move_of_the_janggi_reference_positions_round_trips() {
    use chuhe::rules::janggi;
    let mut moves = 0;
    for (label, fen_text) in reference_fens("janggi") {
        let pos = fen::janggi(&fen_text).unwrap_or_else(|e| panic!("{label}: {e}"));
        moves += round_trip_around(&pos, &label, |p: &mut janggi::Position, m| {
            p.play_unchecked(m);
        });
    }
    assert!(moves > 3_000, "{moves}");
    // A pass in each notation.
    let pos = janggi::Position::startpos();
    let texts: Vec<String> =
        Notation::ALL.iter().filter(|n| n.applies_to_janggi()).map(|&n| format_move(&pos, Move::PASS, n)).collect();
    assert_eq!(texts, ["pass", "pass", "pass", "한수쉼"]);
    // The descriptive notations do not read Janggi moves, whatever the text.
    for (n, text) in [(Notation::Wxf, "H2+3"), (Notation::Chinese, "马二进三"), (Notation::Italian, "C2+3")] {
        assert!(!n.applies_to_janggi());
        let e = parse_move(&pos, text, n).unwrap_err();
        assert_eq!(e.kind, NotationErrorKind::Inapplicable { variant: "Janggi" });
        assert_eq!(e.to_string(), format!("{text:?}: {n} notation does not apply to Janggi"));
        assert!(e.is_syntax());
        // Written, they fall back to ICCS.
        assert_eq!(format_move(&pos, iccs("h0g2"), n), "h0g2");
    }
}

/// A small deterministic generator (xorshift64*), so that failures reproduce.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// Random Janggi games (passes left out), every legal move of every position through
/// the notations of Janggi; the palace's diagonal moves come up among them.
#[test]
fn every_move_of_random_janggi_games_round_trips() {
    use chuhe::rules::types::PieceKind;
    let mut rng = Rng(0x5EED_CAFE_F00D_0002);
    let mut diagonal = 0;
    for game in 0..30 {
        let mut pos = chuhe::rules::janggi::Position::startpos();
        for ply in 0..150 {
            round_trip_all(&pos, &format!("Janggi game {game} ply {ply}"));
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            let moves: Vec<Move> = list.iter().copied().filter(|m| !m.is_pass()).collect();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.below(moves.len())];
            let kind = pos.board().piece_at(m.from()).map(|p| p.kind());
            let slanted = m.from().file() != m.to().file() && m.from().rank() != m.to().rank();
            if slanted && !matches!(kind, Some(PieceKind::Horse | PieceKind::Elephant)) {
                diagonal += 1;
            }
            pos.play_unchecked(m);
        }
    }
    assert!(diagonal > 50, "{diagonal} diagonal moves in the palace");
}

#[test]
fn every_move_of_random_games_round_trips() {
    let mut rng = Rng(0x5EED_CAFE_F00D_0001);
    let mut positions = 0;
    for game in 0..100 {
        let mut pos = Position::startpos();
        for ply in 0..200 {
            round_trip_all(&pos, &format!("game {game} ply {ply}"));
            positions += 1;
            let mut list = MoveList::new();
            pos.legal_moves(&mut list);
            if list.is_empty() {
                break;
            }
            // Prefer pawn pushes now and then, so that pawns pile up on files.
            let pawns: Vec<Move> = list
                .iter()
                .copied()
                .filter(|m| pos.board().piece_at(m.from()).is_some_and(|p| p.kind().letter() == 'P'))
                .collect();
            let m = if !pawns.is_empty() && rng.below(3) == 0 {
                pawns[rng.below(pawns.len())]
            } else {
                list.as_slice()[rng.below(list.len())]
            };
            pos.play_unchecked(m);
        }
    }
    assert!(positions > 2_000, "{positions}");
}

/// Random positions where pawns pile up on two or three files of the far half, and
/// alike pieces share files: every tandem case of the conventions appears.
#[test]
fn every_move_of_random_tandem_positions_round_trips() {
    use chuhe::rules::setup::Setup;
    use chuhe::rules::types::{Piece, PieceKind, Square};
    let mut rng = Rng(0x7A4D_E000_0000_0042);
    let (mut positions, mut four_or_five) = (0, 0);
    while positions < 400 {
        let mut setup = Setup { fullmove_number: 1, ..Setup::default() };
        setup
            .board
            .put(Square::new(3 + rng.below(3) as u8, rng.below(3) as u8), Piece::new(Color::Red, PieceKind::General));
        setup.board.put(
            Square::new(3 + rng.below(3) as u8, 7 + rng.below(3) as u8),
            Piece::new(Color::Black, PieceKind::General),
        );
        for color in Color::ALL {
            let files = [rng.below(9) as u8, rng.below(9) as u8, rng.below(9) as u8];
            let pawns = 2 + rng.below(4);
            for _ in 0..pawns {
                let spread = if rng.below(2) == 0 { 1 } else { 3 };
                let file = files[rng.below(spread)];
                let rank = rng.below(5) as u8;
                let rank = if color == Color::Red { 5 + rank } else { rank };
                let sq = Square::new(file, rank);
                if setup.board.is_empty(sq) {
                    setup.board.put(sq, Piece::new(color, PieceKind::Soldier));
                }
            }
            for kind in [PieceKind::Chariot, PieceKind::Horse, PieceKind::Cannon] {
                let file = rng.below(9) as u8;
                for _ in 0..2 {
                    let sq = Square::new(file, rng.below(10) as u8);
                    if setup.board.is_empty(sq) {
                        setup.board.put(sq, Piece::new(color, kind));
                    }
                }
            }
        }
        setup.turn = if rng.below(2) == 0 { Color::Red } else { Color::Black };
        let Ok(pos) = Position::from_setup(setup) else { continue };
        let piles = (0..9u8).map(|f| {
            (0..10u8)
                .filter(|&r| {
                    pos.board().piece_at(Square::new(f, r)) == Some(Piece::new(pos.turn(), PieceKind::Soldier))
                })
                .count()
        });
        if piles.max().unwrap_or(0) >= 4 {
            four_or_five += 1;
        }
        round_trip_all(&pos, &fen::format(&pos.to_setup()));
        positions += 1;
    }
    assert!(four_or_five >= 10, "only {four_or_five} positions with four or five pawns on a file");
}

/// `(move, WXF, Chinese, Italian)` in a position.
fn check_forms(fen_text: &str, cases: &[(&str, &str, &str, &str)]) {
    let pos = position(fen_text);
    for &(mv, wxf, chinese, italian) in cases {
        let m = iccs(mv);
        assert!(pos.is_legal(m), "{mv} is legal in {fen_text}");
        for (n, text) in [(Notation::Wxf, wxf), (Notation::Chinese, chinese), (Notation::Italian, italian)] {
            assert_eq!(format_move(&pos, m, n), text, "{mv} in {n}");
            assert_eq!(parse_move(&pos, text, n), Ok(m), "{text} in {n}");
        }
    }
    round_trip_all(&pos, fen_text);
}

#[test]
fn two_alike_pieces_on_a_file() {
    // Red chariots on e3 (front) and e1 (rear).
    check_forms(
        "5k3/9/9/9/9/9/4R4/9/4R4/3K5 w - - 0 1",
        &[
            ("e3c3", "R+.7", "前车平七", "TA5=7"),
            ("e3e5", "R++2", "前车进二", "TA5+2"),
            ("e1e0", "R--1", "后车退一", "TB5-1"),
            ("e1a1", "R-.9", "后车平九", "TB5=9"),
        ],
    );
    // Black chariots on a6 (front, nearer Red) and a8; Black counts files from its
    // right, so file a is its file 1.
    check_forms(
        "4k4/r8/9/r8/9/9/9/9/9/3K5 b - - 0 1",
        &[("a6b6", "R+.2", "前车平2", "TA1=2"), ("a8a9", "R--1", "后车退1", "TB1-1")],
    );
    // Horses and cannons.
    check_forms(
        "3k5/9/9/9/9/2N6/9/2N6/9/4K4 w - - 0 1",
        &[("c4d6", "H++6", "前马进六", "CA7+6"), ("c2a1", "H--9", "后马退九", "CB7-9")],
    );
    // Advisors and elephants keep their file: the direction tells them apart.
    check_forms(
        "4k4/9/9/9/9/9/9/3A5/5K3/3A5 w - - 0 1",
        &[("d0e1", "A6+5", "仕六进五", "M6+5"), ("d2e1", "A6-5", "仕六退五", "M6-5")],
    );
}

#[test]
fn tandem_pawns_follow_the_wxf_conventions() {
    // Three Red pawns on e5, e6, e7.
    check_forms(
        "3k5/9/4P4/4P4/4P4/9/9/9/9/5K3 w - - 0 1",
        &[
            ("e7f7", "P+.4", "前兵平四", "PA5=4"),
            ("e6f6", "P5.4", "中兵平四", "PM5=4"),
            ("e5d5", "P-.6", "后兵平六", "PB5=6"),
            ("e7e8", "P++1", "前兵进一", "PA5+1"),
        ],
    );
    // Four pawns on file c (Red's file 7).
    check_forms(
        "4k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1",
        &[
            ("c8d8", "++.6", "一兵平六", "PAA7=6"),
            ("c7d7", "P+.6", "二兵平六", "PA7=6"),
            ("c6d6", "P-.6", "三兵平六", "PB7=6"),
            ("c5d5", "--.6", "四兵平六", "PBB7=6"),
        ],
    );
    // Five pawns on file c.
    check_forms(
        "2P1k4/2P6/2P6/2P6/2P6/9/9/9/9/3K5 w - - 0 1",
        &[
            ("c9d9", "++.6", "一兵平六", "PAA7=6"),
            ("c8d8", "P+.6", "二兵平六", "PA7=6"),
            ("c7d7", "P7.6", "三兵平六", "PM7=6"),
            ("c6d6", "P-.6", "四兵平六", "PB7=6"),
            ("c5b5", "--.8", "五兵平八", "PBB7=8"),
        ],
    );
    // Three pawns on file c and two on file g: the file replaces the letter.
    check_forms(
        "3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1",
        &[
            ("c7d7", "7+.6", "前七平六", "PA7=6"),
            ("c6d6", "77.6", "中七平六", "PM7=6"),
            ("c5d5", "7-.6", "后七平六", "PB7=6"),
            ("g6f6", "3+.4", "前三平四", "PA3=4"),
            ("g5h5", "3-.2", "后三平二", "PB3=2"),
            ("c7c8", "7++1", "前七进一", "PA7+1"),
        ],
    );
    // Black: two pawns on its file 3 (c) and three on its file 7 (g), front nearest Red.
    check_forms(
        "4k4/9/9/9/9/2p3p2/2p3p2/6p2/9/3K5 b - - 0 1",
        &[
            ("c3d3", "3+.4", "前3平4", "PA3=4"),
            ("c4b4", "3-.2", "后3平2", "PB3=2"),
            ("g2f2", "7+.6", "前7平6", "PA7=6"),
            ("g3f3", "77.6", "中7平6", "PM7=6"),
            ("g4h4", "7-.8", "后7平8", "PB7=8"),
            ("g2g1", "7++1", "前7进1", "PA7+1"),
        ],
    );
}

#[test]
fn lenient_reading() {
    let pos = Position::startpos();
    let h2e2 = iccs("h2e2");
    let read = |text: &str, n: Notation| parse_move(&pos, text, n);
    for (text, n) in [
        ("h2e2", Notation::Iccs),
        ("H2-E2", Notation::Iccs),
        (" h2e2+ ", Notation::Iccs),
        ("h3-e3", Notation::Coordinate),
        ("H3E3", Notation::Coordinate),
        ("h3xe3#", Notation::Coordinate),
        ("C2.5", Notation::Wxf),
        ("C2=5", Notation::Wxf),
        ("c2 = 5", Notation::Wxf),
        ("C25", Notation::Wxf),
        ("C2.5+", Notation::Wxf),
        ("B2=5", Notation::Italian),
        ("b2.5", Notation::Italian),
        ("炮二平五", Notation::Chinese),
        ("砲二平五", Notation::Chinese),
        ("炮 二 平 五", Notation::Chinese),
        ("炮2平5", Notation::Chinese),
    ] {
        assert_eq!(read(text, n), Ok(h2e2), "{text:?} in {n}");
    }
    // Alternative English letters in WXF: N for the horse, B for the elephant.
    assert_eq!(read("N2+3", Notation::Wxf), Ok(iccs("h0g2")));
    assert_eq!(read("B3+5", Notation::Wxf), Ok(iccs("g0e2")));
    // Black's digits, full width too, and traditional characters.
    let mut after = pos.clone();
    after.play(h2e2).unwrap();
    for text in ["马8进7", "馬８進７", "马八进七"] {
        assert_eq!(parse_move(&after, text, Notation::Chinese), Ok(iccs("h9g7")), "{text}");
    }
    assert_eq!(parse_move(&after, "H8+7", Notation::Wxf), Ok(iccs("h9g7")));
    assert_eq!(parse_move(&after, "C8+7", Notation::Italian), Ok(iccs("h9g7")));
    assert_eq!(parse_move(&after, "h10-g8", Notation::Coordinate), Ok(iccs("h9g7")));
    // Canonical forms.
    assert_eq!(format_move(&after, iccs("h9g7"), Notation::Chinese), "马8进7");
    assert_eq!(format_move(&pos, iccs("f0e1"), Notation::Wxf), "A4+5");
    assert_eq!(format_move(&pos, iccs("h0g2"), Notation::Chinese), "马二进三");
    assert_eq!(format_move(&pos, iccs("e0e1"), Notation::Italian), "R5+1");
}

#[test]
fn the_examples_of_the_rules_texts() {
    let pos = Position::startpos();
    // xiangqi-kawu-rules-it.txt: 炮二平五 and h3-e3 are both the central cannon.
    assert_eq!(parse_move(&pos, "炮二平五", Notation::Chinese), Ok(iccs("h2e2")));
    assert_eq!(parse_move(&pos, "h3-e3", Notation::Coordinate), Ok(iccs("h2e2")));
    // xiangqi-rules-it.txt: files from the mover's right, Italian letters.
    assert_eq!(parse_move(&pos, "M4+5", Notation::Italian), Ok(iccs("f0e1")));
    assert_eq!(parse_move(&pos, "T1+1", Notation::Italian), Ok(iccs("i0i1")));
    assert_eq!(parse_move(&pos, "E3+5", Notation::Italian), Ok(iccs("g0e2")));
    // A chariot moving back: R1-2 from i3.
    let pos = position("4k4/9/9/9/9/9/8R/9/9/3K5 w - - 0 1");
    assert_eq!(parse_move(&pos, "R1-2", Notation::Wxf), Ok(iccs("i3i1")));
}

#[test]
fn letter_clashes_are_resolved_by_the_notation() {
    let pos = Position::startpos();
    // R is the chariot in WXF, the general (re) in Italian.
    assert_eq!(parse_move(&pos, "R1+1", Notation::Wxf), Ok(iccs("i0i1")));
    assert_eq!(parse_move(&pos, "R5+1", Notation::Italian), Ok(iccs("e0e1")));
    // C is the cannon in WXF, the horse (cavallo) in Italian.
    assert_eq!(parse_move(&pos, "C2+3", Notation::Italian), Ok(iccs("h0g2")));
    assert_eq!(parse_move(&pos, "C2.5", Notation::Wxf), Ok(iccs("h2e2")));
    // B is an elephant in WXF, the cannon (bombarda) in Italian.
    assert_eq!(parse_move(&pos, "B7+5", Notation::Wxf), Ok(iccs("c0e2")));
    assert_eq!(parse_move(&pos, "B8.5", Notation::Italian), Ok(iccs("b2e2")));
    // G is the advisor or the cannon in English texts: refused, with the reason.
    let e = parse_move(&pos, "G4+5", Notation::Wxf).unwrap_err();
    assert!(matches!(e.kind, NotationErrorKind::AmbiguousLetter { letter: 'G', .. }), "{e}");
    assert!(e.to_string().contains("G4+5"), "{e}");
}

#[test]
fn errors_name_the_token_and_the_reason() {
    let pos = Position::startpos();
    let kind = |text: &str, n: Notation| parse_move(&pos, text, n).unwrap_err().kind;
    assert!(matches!(kind("X2.5", Notation::Wxf), NotationErrorKind::UnknownPiece { letter: 'X' }));
    assert!(matches!(kind("K2.5", Notation::Italian), NotationErrorKind::UnknownPiece { letter: 'K' }));
    assert!(matches!(kind("车二平五", Notation::Chinese), NotationErrorKind::NoPiece { file: 2, .. }));
    assert!(matches!(kind("R5.4", Notation::Wxf), NotationErrorKind::NoPiece { file: 5, .. }));
    assert!(matches!(kind("R+.3", Notation::Wxf), NotationErrorKind::NoTandem { .. }));
    assert!(matches!(kind("H2.5", Notation::Wxf), NotationErrorKind::CannotMove { .. }));
    assert!(matches!(kind("H2+5", Notation::Wxf), NotationErrorKind::CannotMove { .. }));
    assert!(matches!(
        kind("C2+6", Notation::Wxf),
        NotationErrorKind::Illegal { reason: IllegalReason::PathBlocked, .. }
    ));
    assert!(matches!(kind("e5e6", Notation::Iccs), NotationErrorKind::Illegal { reason: IllegalReason::NoPiece, .. }));
    assert!(matches!(kind("h2", Notation::Iccs), NotationErrorKind::Syntax { .. }));
    assert!(matches!(kind("j1-e3", Notation::Coordinate), NotationErrorKind::Syntax { .. }));
    assert!(matches!(kind("h0-e3", Notation::Coordinate), NotationErrorKind::Syntax { .. }));
    assert!(matches!(kind("C2?5", Notation::Wxf), NotationErrorKind::Syntax { .. }));
    assert!(matches!(kind("  ", Notation::Chinese), NotationErrorKind::Empty));
    assert!(matches!(kind("炮二走五", Notation::Chinese), NotationErrorKind::Syntax { .. }));
    let e = parse_move(&pos, "Q2.5", Notation::Wxf).unwrap_err();
    assert_eq!(e.token, "Q2.5");
    assert!(e.to_string().starts_with("\"Q2.5\": unknown piece"), "{e}");

    // Two chariots on a file that can both reach file 4: the plain file is ambiguous.
    let pos = position("5k3/9/9/9/9/9/4R4/9/4R4/3K5 w - - 0 1");
    assert!(matches!(
        parse_move(&pos, "R5.4", Notation::Wxf).unwrap_err().kind,
        NotationErrorKind::Ambiguous { ref moves } if moves.len() == 2
    ));
    // ... but not when only one of them can make the move.
    assert_eq!(parse_move(&pos, "R5+2", Notation::Wxf), Ok(iccs("e3e5")));
    // Pawns in tandem on two files: the marker alone does not say which file.
    let pos = position("3k5/9/2P6/2P3P2/2P3P2/9/9/9/9/4K4 w - - 0 1");
    assert!(matches!(parse_move(&pos, "P+.6", Notation::Wxf).unwrap_err().kind, NotationErrorKind::TandemFiles { .. }));
    assert!(matches!(parse_move(&pos, "++.6", Notation::Wxf).unwrap_err().kind, NotationErrorKind::TandemFiles { .. }));
}

/// A main line of the central cannon against the screen horses, with the chariot
/// crossing the river (中炮过河车对屏风马平炮兑车), in Chinese notation.
const CENTRAL_CANNON: &str = r#"[Event "Opening study"]
[Red "Red"]
[Black "Black"]
[Result "*"]
[Format "Chinese"]

1. 炮二平五 马8进7 2. 马二进三 车9平8 3. 车一平二 卒7进1 4. 车二进六 马2进3
5. 兵七进一 炮8平9 6. 车二平三 炮9退1 7. 马八进七 士4进5 {the usual defence}
8. 马七进六 炮9平7 9. 车三平四 马7进8 10. 炮八平七 车1平2 11. 车九平八 炮2进4
12. 马六进七 *
"#;

/// Same-direction cannons (顺炮直车对横车), traditional characters.
const SAME_DIRECTION_CANNONS: &str = r#"[Event "順炮"]
[Result "*"]

1. 炮二平五 炮8平5 2. 馬二進三 馬8進7 3. 俥一平二 車9進1 4. 馬八進七 車9平4
5. 仕四進五 馬2進3 6. 俥九平八 車1平2 7. 炮八進四 卒3進1 8. 兵三進一 車4進5 *
"#;

#[test]
fn opening_lines_replay_legally() {
    let (rec, n) = record::import(CENTRAL_CANNON, None).unwrap();
    assert_eq!(n, Notation::Chinese);
    assert_eq!(rec.moves.len(), 23);
    assert_eq!(rec.moves[0], iccs("h2e2"));
    assert_eq!(rec.moves[1], iccs("h9g7"));
    assert_eq!(rec.comments, vec![Comment { ply: 14, text: "the usual defence".into() }]);
    assert_eq!(rec.tag("Red"), Some("Red"));
    let mut game = rec.new_game();
    for &m in &rec.moves {
        game.play(m).unwrap();
    }
    let (rec, n) = record::import(SAME_DIRECTION_CANNONS, None).unwrap();
    assert_eq!(n, Notation::Chinese);
    assert_eq!(rec.moves.len(), 16);
    assert_eq!(rec.moves[5], iccs("i9i8"));
}

#[test]
fn records_convert_between_notations() {
    let (rec, _) = record::import(CENTRAL_CANNON, None).unwrap();
    for n in Notation::ALL {
        let text = record::export(&rec, n);
        assert!(text.contains(&format!("[Format \"{}\"]", n.name())), "{text}");
        let (back, read_as) = record::import(&text, None).unwrap();
        assert_eq!(read_as, n, "{text}");
        assert_eq!(back.moves, rec.moves, "{n}");
        assert_eq!(back.comments, rec.comments, "{n}");
        // And detected without the Format tag.
        let untagged: String = text.lines().filter(|l| !l.starts_with("[Format")).collect::<Vec<_>>().join("\n");
        let (detected, _) = record::import(&untagged, None).unwrap();
        assert_eq!(detected.moves, rec.moves, "{n} without Format");
    }
    let wxf = record::export(&rec, Notation::Wxf);
    assert!(wxf.contains("1. C2.5 H8+7 2. H2+3 R9.8"), "{wxf}");
    assert!(wxf.contains("{the usual defence} 8. H7+6"), "{wxf}");
}

/// Both kinds of comment fold their spaces alike, so a record reads back from its
/// export with the same comments.
#[test]
fn comments_fold_spaces_and_survive_export() {
    let text = "1. h2e2 ; a  line\tcomment \n h9g7 {a   braced\n comment} 2. h0g2 *";
    let (rec, _) = record::import(text, Some(Notation::Iccs)).unwrap();
    assert_eq!(
        rec.comments,
        vec![Comment { ply: 1, text: "a line comment".into() }, Comment { ply: 2, text: "a braced comment".into() }]
    );
    for n in Notation::ALL {
        let (back, _) = record::import(&record::export(&rec, n), None).unwrap();
        assert_eq!(back.comments, rec.comments, "{n}");
    }
    // Braces inside a comment: a line comment carries them.
    let (rec, _) = record::import("{a} 1. h2e2 ; b}c {d}\n h9g7 {e} *", Some(Notation::Iccs)).unwrap();
    let texts: Vec<&str> = rec.comments.iter().map(|c| c.text.as_str()).collect();
    assert_eq!((texts, rec.moves.len()), (vec!["a", "b}c {d}", "e"], 2));
    for n in Notation::ALL {
        let written = record::export(&rec, n);
        let (back, _) = record::import(&written, None).unwrap();
        assert_eq!((&back.comments, &back.moves), (&rec.comments, &rec.moves), "{n}: {written}");
    }
}

/// A record that names the standard start (as `standard`, or as the odds of one move or
/// none) says so again when written back.
#[test]
fn a_named_standard_start_survives_export() {
    for name in ["standard", "1-moves", "0-moves", "01-moves"] {
        let (rec, _) = record::import(&format!("[Preset \"{name}\"]\n1. h2e2 *"), None).unwrap();
        assert!(rec.named_start.is_some(), "{name}");
        for n in Notation::ALL {
            let written = record::export(&rec, n);
            let (back, _) = record::import(&written, None).unwrap();
            assert_eq!((back.named_start, &back.moves), (rec.named_start, &rec.moves), "{name} in {n}: {written}");
        }
    }
}

#[test]
fn record_syntax() {
    let text = "[Event \"A \\\"quoted\\\" name\"]\n[FEN \"4k4/9/9/9/9/9/9/9/4A4/3K5 b - - 0 30\"]\n\n\
                30... e9f9 ; black steps aside\n31.e1f2 (31. e1d2 f9e9) $1 0-1\n";
    let (rec, n) = record::import(text, Some(Notation::Iccs)).unwrap();
    assert_eq!(n, Notation::Iccs);
    assert_eq!(rec.tag("Event"), Some("A \"quoted\" name"));
    assert_eq!(rec.moves, vec![iccs("e9f9"), iccs("e1f2")]);
    assert_eq!(rec.comments, vec![Comment { ply: 1, text: "black steps aside".into() }]);
    assert_eq!(rec.result, GameResult::Win(Color::Black));
    let out = record::export(&rec, Notation::Wxf);
    assert!(out.contains("[FEN \"4k4/9/9/9/9/9/9/9/4A4/3K5 b - - 0 30\"]"), "{out}");
    assert!(out.contains("30... K5.6 {black steps aside} 31. A5+4 0-1"), "{out}");
    assert!(out.contains("[Result \"0-1\"]"), "{out}");

    let bad = |text: &str| record::import(text, None).unwrap_err();
    assert!(matches!(bad("[Event \"x\"\n1. h2e2"), record::RecordError::Tag { line: 1 }));
    assert!(matches!(bad("[Result \"1-0\"]\n1. h2e2 0-1"), record::RecordError::ResultMismatch { .. }));
    // "*" states no result: the other statement stands.
    assert_eq!(record::import("[Result \"*\"]\n1. h2e2 1-0", None).unwrap().0.result, GameResult::Win(Color::Red));
    assert!(matches!(bad("1. h2e2 {open"), record::RecordError::Unclosed { .. }));
    assert!(matches!(bad("[FEN \"bad\"]\n"), record::RecordError::Fen { .. }));
    let e = bad("1. h2e2 h9g7 2. h2e2");
    assert!(matches!(e, record::RecordError::Move { index: 2, .. }), "{e}");
    assert!(e.to_string().contains("h2e2"), "{e}");
    let e = record::import("1. 炮二平五 马8进7 2. 车二平五", None).unwrap_err();
    assert!(e.to_string().contains("车二平五"), "{e}");
}

/// Move texts of four or five bytes whose characters are not all one byte long: read as
/// no move in every notation, never sliced inside a character.
#[test]
fn move_texts_with_wide_characters_are_refused_not_split() {
    let pos = Position::startpos();
    for text in
        ["a\u{39e}b", "h\u{39e}e2", "\u{39e}h2e", "h2\u{39e}2", "a\u{39e}-", "h2-\u{39e}", "炮二平", "h2e\u{301}"]
    {
        assert!(Move::parse_iccs(text).is_none(), "{text:?}");
        for notation in Notation::ALL {
            assert!(parse_move(&pos, text, notation).is_err(), "{text:?} in {notation:?}");
        }
    }
}
