//! The small value types of the 9x10 games, each answer written out by hand: colours,
//! piece kinds and their letters, points and their ICCS names, moves and their text,
//! and the fixed-capacity list the move generators fill.

use chuhe::rules::types::{Color, FixedList, Move, MoveList, Piece, PieceKind, Square};

fn sq(name: &str) -> Square {
    Square::parse(name).unwrap_or_else(|| panic!("bad point {name}"))
}

#[test]
fn colours_alternate_index_and_name() {
    assert_eq!(Color::Red.other(), Color::Black);
    assert_eq!(Color::Black.other(), Color::Red);
    assert_eq!(!Color::Red, Color::Black);
    assert_eq!(!Color::Black, Color::Red);
    assert_eq!((Color::Red.index(), Color::Black.index()), (0, 1));
    assert_eq!((Color::Red.name(), Color::Black.name()), ("red", "black"));
    assert_eq!(Color::ALL, [Color::Red, Color::Black]);
    assert_eq!(Color::default(), Color::Red);
}

#[test]
fn piece_kinds_have_their_index_letter_and_name() {
    let table = [
        (PieceKind::General, 0, 'K', "general"),
        (PieceKind::Advisor, 1, 'A', "advisor"),
        (PieceKind::Elephant, 2, 'B', "elephant"),
        (PieceKind::Horse, 3, 'N', "horse"),
        (PieceKind::Chariot, 4, 'R', "chariot"),
        (PieceKind::Cannon, 5, 'C', "cannon"),
        (PieceKind::Soldier, 6, 'P', "pawn"),
    ];
    for (kind, index, letter, name) in table {
        assert_eq!(kind.index(), index, "{name}");
        assert_eq!(PieceKind::ALL[index], kind, "{name}");
        assert_eq!(kind.letter(), letter, "{name}");
        assert_eq!(kind.name(), name);
        assert_eq!(PieceKind::from_letter(letter), Some(kind), "{letter}");
        assert_eq!(PieceKind::from_letter(letter.to_ascii_lowercase()), Some(kind), "{letter} in lower case");
    }
    // The aliases of the horse and the elephant, of either case.
    for (c, kind) in
        [('H', PieceKind::Horse), ('h', PieceKind::Horse), ('E', PieceKind::Elephant), ('e', PieceKind::Elephant)]
    {
        assert_eq!(PieceKind::from_letter(c), Some(kind), "{c}");
    }
    for c in ['G', 'x', 'q', '1', ' ', '/'] {
        assert_eq!(PieceKind::from_letter(c), None, "{c:?}");
    }
}

#[test]
fn pieces_pack_colour_and_kind_and_read_their_fen_letters() {
    // The table index is colour * 7 + kind; the FEN letter is upper case for Red.
    let letters = ['K', 'A', 'B', 'N', 'R', 'C', 'P', 'k', 'a', 'b', 'n', 'r', 'c', 'p'];
    for (index, &letter) in letters.iter().enumerate() {
        let color = if index < 7 { Color::Red } else { Color::Black };
        let kind = PieceKind::ALL[index % 7];
        let piece = Piece::new(color, kind);
        assert_eq!(piece.index(), index, "{letter}");
        assert_eq!(piece.color(), color, "{letter}");
        assert_eq!(piece.kind(), kind, "{letter}");
        assert_eq!(piece.fen_char(), letter);
        assert_eq!(Piece::from_fen_char(letter), Some(piece), "{letter}");
    }
    // A few by hand: the Black horse is 7 + 3, the Red pawn 6, the Black general 7.
    assert_eq!(Piece::new(Color::Black, PieceKind::Horse).index(), 10);
    assert_eq!(Piece::new(Color::Red, PieceKind::Soldier).index(), 6);
    assert_eq!(Piece::new(Color::Black, PieceKind::General).color(), Color::Black);
    assert_eq!(Piece::new(Color::Black, PieceKind::General).kind(), PieceKind::General);
    assert_eq!(Piece::new(Color::Red, PieceKind::Soldier).color(), Color::Red);
    assert_eq!(Piece::from_fen_char('h'), Some(Piece::new(Color::Black, PieceKind::Horse)));
    assert_eq!(Piece::from_fen_char('E'), Some(Piece::new(Color::Red, PieceKind::Elephant)));
    assert_eq!(Piece::from_fen_char('x'), None);
    assert_eq!(Piece::from_fen_char('9'), None);
}

#[test]
fn points_number_files_and_ranks_from_reds_left_and_back() {
    // (name, index = rank * 9 + file, file, rank)
    let table = [
        ("a0", 0, 0, 0),
        ("e0", 4, 4, 0),
        ("i0", 8, 8, 0),
        ("a1", 9, 0, 1),
        ("h2", 25, 7, 2),
        ("c7", 65, 2, 7),
        ("a9", 81, 0, 9),
        ("i9", 89, 8, 9),
    ];
    for (name, index, file, rank) in table {
        let s = sq(name);
        assert_eq!(s.index(), index, "{name}");
        assert_eq!((s.file(), s.rank()), (file, rank), "{name}");
        assert_eq!(Square::new(file, rank), s, "{name}");
        assert_eq!(Square::from_index(index), Some(s), "{name}");
        assert_eq!(s.name(), name);
        assert_eq!(s.to_string(), name);
        assert_eq!(format!("{s:?}"), name);
    }
    assert_eq!(Square::from_index(90), None);
    assert_eq!(Square::from_index(1000), None);
    assert_eq!(Square::COUNT, 90);
    // Mirrored across the river: the rank r goes to 9 - r, the file stays.
    for (from, to) in [("e0", "e9"), ("c3", "c6"), ("a4", "a5"), ("i9", "i0")] {
        assert_eq!(sq(from).flip_rank(), sq(to), "{from}");
    }
}

#[test]
fn every_point_once_in_index_order_with_its_own_name() {
    let all: Vec<Square> = Square::all().collect();
    assert_eq!(all.len(), 90);
    for (i, s) in all.iter().enumerate() {
        assert_eq!(s.index(), i);
        // The name is the file letter then the rank digit, written here apart from the table.
        let name: String = [(b'a' + (i % 9) as u8) as char, (b'0' + (i / 9) as u8) as char].iter().collect();
        assert_eq!(s.name(), name);
        assert_eq!(Square::parse(&name), Some(*s));
    }
}

#[test]
fn an_offset_stays_on_the_board() {
    let cases = [
        ("e4", 2, 3, Some("g7")),
        ("e4", -3, -2, Some("b2")),
        ("e4", 4, 0, Some("i4")),
        ("e4", 5, 0, None),
        ("e4", -4, 0, Some("a4")),
        ("e4", -5, 0, None),
        ("e4", 0, 5, Some("e9")),
        ("e4", 0, 6, None),
        ("e4", 0, -4, Some("e0")),
        ("e4", 0, -5, None),
        ("e0", 1, 1, Some("f1")),
        ("a0", 8, 9, Some("i9")),
        ("a0", -1, 0, None),
        ("a0", 0, -1, None),
        ("i9", 1, 0, None),
        ("i9", 0, 1, None),
        ("i9", -8, -9, Some("a0")),
        ("c7", 0, 0, Some("c7")),
    ];
    for (from, df, dr, to) in cases {
        assert_eq!(sq(from).offset(df, dr), to.map(sq), "{from} by ({df}, {dr})");
    }
}

#[test]
fn points_parse_from_iccs_only_on_the_board() {
    assert_eq!(Square::parse("E0"), Some(sq("e0")));
    assert_eq!(Square::parse("I9").map(Square::index), Some(89));
    // j is the tenth file, ':' the digit after 9, '`' the letter before a, '/' the
    // character before 0.
    for bad in ["j0", "e:", "`0", "a/", "e", "e10", "", "0e", "ee"] {
        assert_eq!(Square::parse(bad), None, "{bad:?}");
    }
}

#[test]
fn moves_keep_their_points_and_read_and_write_iccs() {
    let m = Move::new(sq("h2"), sq("e2"));
    assert_eq!((m.from(), m.to()), (sq("h2"), sq("e2")));
    assert!(!m.is_pass());
    // The far corners: every bit of both points used.
    let corner = Move::new(sq("i9"), sq("a0"));
    assert_eq!((corner.from(), corner.to()), (sq("i9"), sq("a0")));
    let back = Move::new(sq("a0"), sq("i9"));
    assert_eq!((back.from(), back.to()), (sq("a0"), sq("i9")));
    assert!(!corner.is_pass() && !back.is_pass());
    // A pass is the same point twice; the named one is a0 twice.
    assert!(Move::PASS.is_pass());
    assert!(Move::new(sq("e4"), sq("e4")).is_pass());
    assert!(Move::new(sq("i9"), sq("i9")).is_pass());
    assert_eq!(Move::default(), Move::PASS);
    assert_eq!((Move::PASS.from(), Move::PASS.to()), (sq("a0"), sq("a0")));
    assert_eq!(m.to_string(), "h2e2");
    assert_eq!(format!("{m:?}"), "h2e2");
    assert_eq!(Move::PASS.to_string(), "pass");
    assert_eq!(format!("{:?}", Move::PASS), "pass");
    assert_eq!(corner.to_string(), "i9a0");

    for text in ["h2e2", "H2E2", "h2-e2", "H2-E2", "  h2e2 "] {
        assert_eq!(Move::parse_iccs(text), Some(m), "{text:?}");
    }
    for text in ["pass", "PASS", "Pass", "@@@@", "0000"] {
        assert_eq!(Move::parse_iccs(text), Some(Move::PASS), "{text:?}");
    }
    for text in ["h2h2", "h2xe2", "h2+e2", "h2e", "h2e2e", "j2e2", "h2e:", "", "000", "@@@"] {
        assert_eq!(Move::parse_iccs(text), None, "{text:?}");
    }
}

#[test]
fn a_fixed_list_holds_what_was_pushed_in_order() {
    let (a, b, c) = (Move::new(sq("h2"), sq("e2")), Move::new(sq("b0"), sq("c2")), Move::PASS);
    let mut list = MoveList::new();
    assert_eq!(MoveList::CAPACITY, 192);
    assert!(list.is_empty());
    assert_eq!(list.len(), 0);
    assert_eq!(list.as_slice(), &[] as &[Move]);
    assert!(!list.contains(Move::PASS), "an empty list holds nothing, not even the default item");
    list.push(a);
    assert!(!list.is_empty());
    assert_eq!(list.len(), 1);
    list.extend([b, c]);
    assert_eq!(list.len(), 3);
    assert_eq!(list.as_slice(), &[a, b, c]);
    assert_eq!(list.as_ref(), &[a, b, c]);
    assert_eq!(list.iter().copied().collect::<Vec<_>>(), vec![a, b, c]);
    assert_eq!((&list).into_iter().copied().collect::<Vec<_>>(), vec![a, b, c]);
    assert!(list.contains(b));
    assert!(!list.contains(Move::new(sq("a0"), sq("a1"))));
    assert_eq!(format!("{list:?}"), "[h2e2, b0c2, pass]");
    list.swap(0, 2);
    assert_eq!(list.as_slice(), &[c, b, a]);
    list.as_mut_slice()[1] = a;
    assert_eq!(list.as_slice(), &[c, a, a]);
    list.clear();
    assert!(list.is_empty());
    assert_eq!(list.iter().count(), 0);
    assert_eq!(format!("{list:?}"), "[]");

    // Any item type: a list of numbers, default-built.
    let mut numbers: FixedList<u32, 4> = FixedList::default();
    numbers.extend([7, 0, 9]);
    assert_eq!(numbers.as_slice(), &[7, 0, 9]);
    assert!(numbers.contains(0));
    assert!(!numbers.contains(1));
}

#[test]
fn a_fixed_list_drops_items_and_keeps_the_others_in_order() {
    let mut numbers: FixedList<u32, 8> = FixedList::new();
    numbers.extend([1, 2, 3, 4, 5, 6]);
    // From the second item on, only the odd ones: the first stays whatever it is.
    numbers.retain_from(1, |n| n % 2 == 1);
    assert_eq!(numbers.as_slice(), &[1, 3, 5]);
    numbers.retain_from(0, |n| n != 1);
    assert_eq!(numbers.as_slice(), &[3, 5]);
    numbers.retain_from(7, |_| false);
    assert_eq!(numbers.as_slice(), &[3, 5], "a start past the end keeps all");
    numbers.extend([7, 9]);
    numbers.remove(1);
    assert_eq!(numbers.as_slice(), &[3, 7, 9]);
    numbers.remove(2);
    assert_eq!(numbers.as_slice(), &[3, 7]);
    numbers.remove(5);
    assert_eq!(numbers.as_slice(), &[3, 7], "no item there, nothing removed");
    numbers.truncate(5);
    assert_eq!(numbers.as_slice(), &[3, 7]);
    numbers.truncate(1);
    assert_eq!(numbers.as_slice(), &[3]);
}

/// One change to a list, for the model test below.
#[derive(Clone, Debug)]
enum ListOp {
    Push(u32),
    Extend(Vec<u32>),
    Remove(usize),
    RetainFrom(usize, u32),
    Truncate(usize),
    Swap(usize, usize),
    Set(usize, u32),
    Clear,
}

fn arb_list_op() -> impl proptest::strategy::Strategy<Value = ListOp> {
    use proptest::prelude::*;
    prop_oneof![
        4 => any::<u32>().prop_map(ListOp::Push),
        2 => proptest::collection::vec(any::<u32>(), 0..6).prop_map(ListOp::Extend),
        1 => (0..10usize).prop_map(ListOp::Remove),
        1 => (0..10usize, 1..4u32).prop_map(|(s, m)| ListOp::RetainFrom(s, m)),
        1 => (0..10usize).prop_map(ListOp::Truncate),
        1 => (0..10usize, 0..10usize).prop_map(|(a, b)| ListOp::Swap(a, b)),
        1 => (0..10usize, any::<u32>()).prop_map(|(i, v)| ListOp::Set(i, v)),
        1 => Just(ListOp::Clear),
    ]
}

proptest::proptest! {
    /// The list's storage starts uninitialised: whatever the changes, it shows exactly
    /// the items a `Vec` given the same changes holds, never one beyond them.
    #[test]
    fn a_fixed_list_holds_what_a_vec_holds(ops in proptest::collection::vec(arb_list_op(), 0..60)) {
        const CAP: usize = 8;
        let mut list: FixedList<u32, CAP> = FixedList::new();
        let mut model: Vec<u32> = Vec::new();
        for op in ops {
            match op {
                ListOp::Push(v) if model.len() < CAP => {
                    list.push(v);
                    model.push(v);
                }
                ListOp::Push(_) => {}
                ListOp::Extend(items) => {
                    // Past the capacity the rest is dropped.
                    list.extend(items.iter().copied());
                    model.extend(items.iter().copied().take(CAP - model.len()));
                }
                ListOp::Remove(i) => {
                    list.remove(i);
                    if i < model.len() {
                        model.remove(i);
                    }
                }
                ListOp::RetainFrom(start, m) => {
                    list.retain_from(start, |v| v % m == 0);
                    let start = start.min(model.len());
                    let tail: Vec<u32> = model.drain(start..).filter(|v| v % m == 0).collect();
                    model.extend(tail);
                }
                ListOp::Truncate(n) => {
                    list.truncate(n);
                    model.truncate(n);
                }
                ListOp::Swap(a, b) if a < model.len() && b < model.len() => {
                    list.swap(a, b);
                    model.swap(a, b);
                }
                ListOp::Set(i, v) if i < model.len() => {
                    list.as_mut_slice()[i] = v;
                    model[i] = v;
                }
                ListOp::Swap(..) | ListOp::Set(..) => {}
                ListOp::Clear => {
                    list.clear();
                    model.clear();
                }
            }
            proptest::prop_assert_eq!(list.as_slice(), model.as_slice());
            proptest::prop_assert_eq!(list.len(), model.len());
            let copy = list.clone();
            proptest::prop_assert_eq!(copy.as_slice(), model.as_slice());
        }
    }
}
