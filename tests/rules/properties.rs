//! Property tests of the Xiangqi rules.
//!
//! Positions come from random legal move sequences, started from the initial position
//! and from every position of `tests/data/perft.tsv`, and from random arrangements of
//! pieces that pass validation. On each of them:
//!
//! - (a) playing any legal move and taking it back restores the position and its key,
//!   and a whole sequence taken back in reverse restores the start;
//! - (b) the incremental key equals the key computed from scratch after every move, and
//!   the board's mailbox, occupancies and bitboards agree with one another;
//! - (c) FEN out and back in gives the same position;
//! - (d) the legal moves are exactly those of a slow checker written from the rules
//!   alone (`tests/common/slow_xiangqi.rs`: no table, no code of the library's move
//!   generator);
//! - (e) the status is checkmate or stalemate exactly when there is no legal move, told
//!   apart by whether the side to move is in check (also checked the slow way).
//!
//! And (f): arbitrary text and mutations of valid FENs never make the FEN reader panic,
//! and whatever it accepts formats and reads back to the same thing.

use crate::common;

use std::collections::BTreeSet;
use std::sync::LazyLock;

use chuhe::notation::fen::{self, PositionTextError};
use chuhe::rules::Status;
use chuhe::rules::board::Board;
use chuhe::rules::setup::Setup;
use chuhe::rules::types::{Color, Move, MoveList, Piece, PieceKind, Square};
use chuhe::rules::xiangqi::Position;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::FileFailurePersistence;

// The rules written out plainly, independent of the library's move generation.
use crate::common::slow_xiangqi as slow;

// ---------------------------------------------------------------------------
// Helpers.

fn fen_of(pos: &Position) -> String {
    fen::format(&pos.to_setup())
}

fn legal_moves(pos: &Position) -> MoveList {
    let mut list = MoveList::new();
    pos.legal_moves(&mut list);
    list
}

fn iccs(moves: impl IntoIterator<Item = Move>) -> String {
    let list: Vec<String> = moves.into_iter().map(|m| m.to_string()).collect();
    if list.is_empty() { "(none)".to_string() } else { list.join(" ") }
}

/// Start positions of the random walks: every Xiangqi position of `perft.tsv` (the
/// initial position among them).
static STARTS: LazyLock<Vec<Position>> = LazyLock::new(|| {
    let mut starts = vec![Position::startpos()];
    for (label, text) in common::perft_positions("xiangqi") {
        let pos = fen::xiangqi(&text).unwrap_or_else(|e| panic!("{label}: {e}"));
        if !starts.contains(&pos) {
            starts.push(pos);
        }
    }
    assert!(starts.len() >= 8, "expected the eight Xiangqi perft positions");
    starts
});

/// Picks a move with one random number: the low 15 bits choose `choice % len`; with the
/// top bit set the choice is among the captures when there are any, which thins the
/// board out and reaches endings (and their checkmates and stalemates) sooner.
fn pick(pos: &Position, moves: &MoveList, choice: u16) -> Move {
    let n = (choice & 0x7fff) as usize;
    if choice & 0x8000 != 0 {
        let captures: Vec<Move> = moves.iter().copied().filter(|m| pos.board().piece_at(m.to()).is_some()).collect();
        if !captures.is_empty() {
            return captures[n % captures.len()];
        }
    }
    moves.as_slice()[n % moves.len()]
}

/// Walks from `start` along `choices` (stopping early when no move is left), calling
/// `check` on every position reached, the start included.
fn walk(
    start: &Position,
    choices: &[u16],
    mut check: impl FnMut(&Position) -> Result<(), TestCaseError>,
) -> Result<Position, TestCaseError> {
    let mut pos = start.clone();
    check(&pos)?;
    for &choice in choices {
        let moves = legal_moves(&pos);
        if moves.is_empty() {
            break;
        }
        pos.play_unchecked(pick(&pos, &moves, choice));
        check(&pos)?;
    }
    Ok(pos)
}

// ---------------------------------------------------------------------------
// The properties, each on one position.

/// The board's views of itself agree: mailbox, bitboards, line occupancies, generals,
/// iteration and the incremental key.
fn board_consistent(b: &Board) -> Result<(), TestCaseError> {
    let mut by_piece = [0u128; 14];
    let mut rank_occ = [0u16; 10];
    let mut file_occ = [0u16; 9];
    let mut listed = Vec::new();
    for sq in Square::all() {
        if let Some(p) = b.piece_at(sq) {
            by_piece[p.index()] |= 1u128 << sq.index();
            rank_occ[sq.rank() as usize] |= 1 << sq.file();
            file_occ[sq.file() as usize] |= 1 << sq.rank();
            listed.push((sq, p));
        }
        prop_assert_eq!(b.is_empty(sq), b.piece_at(sq).is_none());
    }
    for color in Color::ALL {
        let mut all = 0;
        for kind in PieceKind::ALL {
            let p = Piece::new(color, kind);
            prop_assert_eq!(b.by_piece(p), by_piece[p.index()], "bitboard of {:?}\n{:?}", p, b);
            prop_assert_eq!(b.pieces(color, kind), by_piece[p.index()]);
            prop_assert_eq!(b.count(p), by_piece[p.index()].count_ones());
            all |= by_piece[p.index()];
        }
        prop_assert_eq!(b.by_color(color), all, "{:?} pieces\n{:?}", color, b);
        prop_assert_eq!(b.general(color), slow::general(b, color));
    }
    prop_assert_eq!(b.occupied(), by_piece.iter().fold(0, |a, x| a | x));
    for r in 0..10u8 {
        prop_assert_eq!(b.rank_occupancy(r), rank_occ[r as usize], "rank {} occupancy\n{:?}", r, b);
    }
    for f in 0..9u8 {
        prop_assert_eq!(b.file_occupancy(f), file_occ[f as usize], "file {} occupancy\n{:?}", f, b);
    }
    prop_assert_eq!(b.iter().collect::<Vec<_>>(), listed);
    prop_assert_eq!(b.key(), b.key_from_scratch(), "board key\n{:?}", b);
    Ok(())
}

/// (a) Every legal move, played and taken back, restores the position and its key.
fn check_undo(pos: &Position) -> Result<(), TestCaseError> {
    for &m in legal_moves(pos).iter() {
        let mut p = pos.clone();
        let undo = p.play_unchecked(m);
        prop_assert_eq!(undo.captured, pos.board().piece_at(m.to()), "captured piece of {}", m);
        prop_assert_ne!(p.turn(), pos.turn());
        p.undo(m, undo);
        prop_assert_eq!(&p, pos, "{} then undo in {}", m, fen_of(pos));
        prop_assert_eq!(p.key(), pos.key(), "key after {} then undo in {}", m, fen_of(pos));
        prop_assert_eq!(p.to_setup(), pos.to_setup());
        board_consistent(p.board())?;
    }
    Ok(())
}

/// (b) After every legal move the incremental key is the key from scratch, the board
/// is consistent, and the key tells the side to move apart.
fn check_keys(pos: &Position) -> Result<(), TestCaseError> {
    prop_assert_eq!(pos.key(), pos.key_from_scratch(), "key of {}", fen_of(pos));
    board_consistent(pos.board())?;
    for &m in legal_moves(pos).iter() {
        let mut p = pos.clone();
        p.play_unchecked(m);
        prop_assert_eq!(p.key(), p.key_from_scratch(), "key after {} in {}", m, fen_of(pos));
        prop_assert_eq!(pos.key_after(m), p.key(), "key_after({}) in {}", m, fen_of(pos));
        // The side to move is in the key: Black's turn flips it.
        if p.turn() == Color::Black {
            prop_assert_ne!(p.key(), p.board().key());
        } else {
            prop_assert_eq!(p.key(), p.board().key());
        }
    }
    Ok(())
}

/// (c) FEN out and back in.
fn check_fen(pos: &Position) -> Result<(), TestCaseError> {
    let text = fen_of(pos);
    let back = fen::xiangqi(&text);
    prop_assert!(back.is_ok(), "{} does not read back: {:?}", text, back);
    let back = back.unwrap();
    prop_assert_eq!(&back, pos, "{}", text);
    prop_assert_eq!(back.key(), pos.key());
    prop_assert_eq!(back.halfmove_clock(), pos.halfmove_clock());
    prop_assert_eq!(back.fullmove_number(), pos.fullmove_number());
    prop_assert_eq!(fen_of(&back), text);
    Ok(())
}

/// A move as an ordered pair of points, for sets.
fn pair(m: Move) -> (Square, Square) {
    (m.from(), m.to())
}

fn iccs_pairs<'a>(pairs: impl IntoIterator<Item = &'a (Square, Square)>) -> String {
    iccs(pairs.into_iter().map(|&(f, t)| Move::new(f, t)))
}

/// (d) The library's legal moves are exactly the slow checker's.
fn check_against_slow(pos: &Position) -> Result<(), TestCaseError> {
    let b = pos.board();
    let us = pos.turn();
    let list = legal_moves(pos);
    let fast: BTreeSet<(Square, Square)> = list.iter().copied().map(pair).collect();
    prop_assert_eq!(fast.len(), list.len(), "duplicate moves in {}: {}", fen_of(pos), iccs(list.iter().copied()));
    let pseudo = slow::pseudo_moves(b, us);
    let (legal, rejected): (Vec<Move>, Vec<Move>) = pseudo.iter().partition(|&&m| slow::keeps_general_safe(b, us, m));
    let slow_set: BTreeSet<(Square, Square)> = legal.iter().copied().map(pair).collect();
    if fast != slow_set {
        return Err(TestCaseError::fail(format!(
            "legal moves differ in {}\n{:?}\nmissing (legal by the rules): {}\nextra (illegal by the rules): {}",
            fen_of(pos),
            pos,
            iccs_pairs(slow_set.difference(&fast)),
            iccs_pairs(fast.difference(&slow_set)),
        )));
    }
    for &m in &legal {
        prop_assert!(pos.is_legal(m), "is_legal({}) in {}", m, fen_of(pos));
        let gives = slow::in_check(&slow::after(b, m.from(), m.to()), us.other());
        prop_assert_eq!(pos.gives_check(m), gives, "gives_check({}) in {}", m, fen_of(pos));
    }
    for &m in &rejected {
        prop_assert!(!pos.is_legal(m), "is_legal({}) in {} leaves the general attacked", m, fen_of(pos));
        prop_assert!(pos.clone().play(m).is_err());
    }
    // Captures only: the legal moves onto an enemy piece, in any order.
    let mut captures = MoveList::new();
    pos.legal_captures(&mut captures);
    let captures: BTreeSet<(Square, Square)> = captures.iter().copied().map(pair).collect();
    let expected: BTreeSet<(Square, Square)> =
        fast.iter().copied().filter(|&(_, to)| b.piece_at(to).is_some()).collect();
    prop_assert_eq!(captures, expected, "legal_captures in {}", fen_of(pos));
    // The captures, then the quiet moves, are the legal moves, each part in the order
    // of the legal moves (the search generates them in two steps and counts on it).
    let mut parts = MoveList::new();
    pos.legal_captures(&mut parts);
    let captures_len = parts.len();
    pos.legal_quiets(&mut parts);
    let quiets_in_order = list.iter().copied().filter(|m| b.piece_at(m.to()).is_none());
    let captures_in_order = list.iter().copied().filter(|m| b.piece_at(m.to()).is_some());
    let in_order: Vec<Move> = captures_in_order.chain(quiets_in_order).collect();
    prop_assert_eq!(parts.as_slice(), &in_order[..], "captures then quiets in {}", fen_of(pos));
    prop_assert_eq!(captures_len, list.iter().filter(|m| b.piece_at(m.to()).is_some()).count());
    prop_assert_eq!(pos.legal_move_count(), list.len());
    Ok(())
}

/// (e) Status and check, against the slow rules.
fn check_status(pos: &Position) -> Result<(), TestCaseError> {
    let b = pos.board();
    let us = pos.turn();
    let slow_check = slow::in_check(b, us);
    prop_assert_eq!(pos.in_check(), slow_check, "in_check in {}", fen_of(pos));
    let checkers: BTreeSet<Square> = chuhe::rules::board::squares(pos.checkers()).collect();
    let general = slow::general(b, us).expect("a general");
    prop_assert_eq!(checkers, slow::attackers(b, general, us.other()), "checkers in {}", fen_of(pos));
    // The side that just moved is never in check in a position reached legally.
    prop_assert!(!slow::in_check(b, us.other()), "side not to move in check in {}", fen_of(pos));
    prop_assert!(!slow::generals_facing(b), "generals facing in {}", fen_of(pos));
    let n = pos.legal_move_count();
    let expected = match (n, slow_check) {
        (0, true) => Status::Checkmate,
        (0, false) => Status::Stalemate,
        _ => Status::Ongoing,
    };
    prop_assert_eq!(pos.status(), expected, "status of {}", fen_of(pos));
    Ok(())
}

fn check_all(pos: &Position) -> Result<(), TestCaseError> {
    check_keys(pos)?;
    check_undo(pos)?;
    check_fen(pos)?;
    check_against_slow(pos)?;
    check_status(pos)
}

// ---------------------------------------------------------------------------
// Random legal positions built piece by piece.

/// Points a piece of `kind` and `color` may stand on, from the rules (Red's list
/// mirrored for Black): what validation accepts for that piece alone.
fn allowed_points(color: Color, kind: PieceKind) -> Vec<Square> {
    let red: Vec<(u8, u8)> = match kind {
        PieceKind::General => (3..=5).flat_map(|f| (0..=2).map(move |r| (f, r))).collect(),
        PieceKind::Advisor => vec![(3, 0), (5, 0), (4, 1), (3, 2), (5, 2)],
        PieceKind::Elephant => vec![(2, 0), (6, 0), (0, 2), (4, 2), (8, 2), (2, 4), (6, 4)],
        PieceKind::Soldier => [0, 2, 4, 6, 8]
            .into_iter()
            .flat_map(|f| [(f, 3), (f, 4)])
            .chain((0..9).flat_map(|f| (5..10).map(move |r| (f, r))))
            .collect(),
        _ => (0..9).flat_map(|f| (0..10).map(move |r| (f, r))).collect(),
    };
    red.into_iter().map(|(f, r)| if color == Color::Red { Square::new(f, r) } else { Square::new(f, 9 - r) }).collect()
}

const MAX_COUNT: [u32; 7] = [1, 2, 2, 2, 2, 2, 5];

/// A position from two generals and up to 30 more pieces on points they may stand
/// on; `None` when validation refuses it for both sides to move.
fn build_position(generals: (Index, Index), pieces: &[(bool, u8, Index)], black: bool) -> Option<Position> {
    let mut board = Board::empty();
    for (color, at) in [(Color::Red, &generals.0), (Color::Black, &generals.1)] {
        board.put(*at.get(&allowed_points(color, PieceKind::General)), Piece::new(color, PieceKind::General));
    }
    for &(is_black, kind, ref at) in pieces {
        let color = if is_black { Color::Black } else { Color::Red };
        let kind = PieceKind::ALL[1 + kind as usize % 6];
        let piece = Piece::new(color, kind);
        let sq = *at.get(&allowed_points(color, kind));
        if board.piece_at(sq).is_none() && board.count(piece) < MAX_COUNT[kind.index()] {
            board.put(sq, piece);
        }
    }
    let turns = if black { [Color::Black, Color::Red] } else { [Color::Red, Color::Black] };
    turns.into_iter().find_map(|turn| {
        Position::from_setup(Setup { board: board.clone(), turn, halfmove_clock: 0, fullmove_number: 1 }).ok()
    })
}

fn arb_position() -> impl Strategy<Value = Position> {
    (
        (any::<Index>(), any::<Index>()),
        prop::collection::vec((any::<bool>(), 0u8..6, any::<Index>()), 0..30),
        any::<bool>(),
    )
        .prop_filter_map("rejected by validation", |(generals, pieces, black)| build_position(generals, &pieces, black))
}

// ---------------------------------------------------------------------------
// FEN fuzzing.

const FEN_ALPHABET: &str = "rnbakcpRNBAKCPhHeE0123456789/ -wbrW";
/// Every piece letter but the generals'.
const PIECE_LETTERS: [char; 16] = ['a', 'b', 'n', 'r', 'c', 'p', 'A', 'B', 'N', 'R', 'C', 'P', 'h', 'e', 'H', 'E'];

fn fen_char() -> impl Strategy<Value = char> {
    let alphabet: Vec<char> = FEN_ALPHABET.chars().collect();
    prop_oneof![4 => prop::sample::select(alphabet), 1 => any::<char>()]
}

#[derive(Clone, Debug)]
enum Edit {
    Replace(Index, char),
    Insert(Index, char),
    Delete(Index),
}

fn arb_edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<Index>(), fen_char()).prop_map(|(i, c)| Edit::Replace(i, c)),
        1 => (any::<Index>(), fen_char()).prop_map(|(i, c)| Edit::Insert(i, c)),
        1 => any::<Index>().prop_map(Edit::Delete),
    ]
}

fn apply_edits(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        match e {
            Edit::Replace(i, c) if !chars.is_empty() => {
                let i = i.index(chars.len());
                chars[i] = *c;
            }
            Edit::Insert(i, c) => {
                let i = i.index(chars.len() + 1);
                chars.insert(i, *c);
            }
            Edit::Delete(i) if !chars.is_empty() => {
                let i = i.index(chars.len());
                chars.remove(i);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Valid FENs to mutate: the perft positions, written as the table writes them.
static FEN_BASES: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut v: Vec<String> = common::perft_positions("xiangqi").into_iter().map(|(_, f)| f).collect();
    v.push("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1".to_string());
    v.push("4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1".to_string());
    v
});

/// What the FEN reader promises for any text: no panic; what `parse` accepts formats
/// and parses back to the same setup; `xiangqi` is `parse` then validation; what it
/// accepts formats and reads back to the same position, whose moves can be generated.
fn fen_contract(text: &str) -> Result<(), TestCaseError> {
    let parsed = fen::parse(text);
    if let Ok(setup) = &parsed {
        let out = fen::format(setup);
        let again = fen::parse(&out);
        prop_assert_eq!(again.as_ref(), Ok(setup), "{:?} -> {:?}", text, out);
    }
    let read = fen::xiangqi(text);
    let trimmed = text.trim();
    if trimmed != "startpos" {
        let expected = fen::parse(trimmed)
            .map_err(PositionTextError::Fen)
            .and_then(|setup| Position::from_setup(setup).map_err(PositionTextError::Invalid));
        prop_assert_eq!(&read, &expected, "xiangqi({:?}) is not parse + validation", text);
    }
    if let Ok(pos) = &read {
        let out = fen_of(pos);
        let back = fen::xiangqi(&out);
        prop_assert_eq!(back.as_ref(), Ok(pos), "{:?} -> {:?}", text, out);
        // The moves and the status agree: every listed move is legal, once, and no
        // moves means mate or stalemate as the check decides.
        let moves = legal_moves(pos);
        let distinct: BTreeSet<String> = moves.iter().map(|m| m.to_string()).collect();
        prop_assert_eq!(distinct.len(), moves.len(), "{:?}: a move listed twice", text);
        prop_assert!(moves.iter().all(|&m| pos.is_legal(m)), "{:?}: a listed move is illegal", text);
        prop_assert_eq!(pos.has_legal_move(), !moves.is_empty(), "{:?}", text);
        let expected = match (moves.is_empty(), pos.in_check()) {
            (false, _) => Status::Ongoing,
            (true, true) => Status::Checkmate,
            (true, false) => Status::Stalemate,
        };
        prop_assert_eq!(pos.status(), expected, "{:?}", text);
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// The tests.

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        max_global_rejects: 8192,
        // Failing cases are kept in tests/rules/properties.proptest-regressions and replayed first.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..ProptestConfig::default()
    }
}

/// A start position and the random numbers of the moves played from it.
fn arb_walk(max_plies: usize) -> impl Strategy<Value = (usize, Vec<u16>)> {
    (0..STARTS.len(), prop::collection::vec(any::<u16>(), 0..max_plies))
}

proptest! {
    #![proptest_config(config(512))]

    #[test]
    fn play_then_undo_restores((start, choices) in arb_walk(160)) {
        let start = &STARTS[start];
        // Every move of every position on the way...
        walk(start, &choices, check_undo)?;
        // ...and the whole line taken back in reverse.
        let mut pos = start.clone();
        let mut line = Vec::new();
        for &choice in &choices {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            let m = pick(&pos, &moves, choice);
            line.push((m, pos.play_unchecked(m)));
        }
        while let Some((m, undo)) = line.pop() {
            pos.undo(m, undo);
            prop_assert_eq!(pos.key(), pos.key_from_scratch());
        }
        prop_assert_eq!(&pos, start);
        prop_assert_eq!(pos.key(), start.key());
    }

    #[test]
    fn incremental_key_matches_scratch((start, choices) in arb_walk(160)) {
        walk(&STARTS[start], &choices, check_keys)?;
    }

    #[test]
    fn fen_round_trip((start, choices) in arb_walk(160)) {
        walk(&STARTS[start], &choices, check_fen)?;
    }

    #[test]
    fn legal_moves_match_slow_checker((start, choices) in arb_walk(160)) {
        walk(&STARTS[start], &choices, check_against_slow)?;
    }

    #[test]
    fn status_matches_moves_and_check((start, choices) in arb_walk(200)) {
        walk(&STARTS[start], &choices, check_status)?;
    }

    /// Arrangements no game from the start reaches soon: sparse boards, pieces deep in
    /// enemy camp, generals sharing a file with one piece between.
    #[test]
    fn random_arrangements(pos in arb_position(), choices in prop::collection::vec(any::<u16>(), 0..12)) {
        walk(&pos, &choices, check_all)?;
    }
}

proptest! {
    #![proptest_config(config(5000))]

    #[test]
    fn fen_reader_arbitrary_text(text in any::<String>()) {
        fen_contract(&text)?;
    }

    #[test]
    fn fen_reader_fen_like_text(text in "[rnbakcpRNBAKCPhe1-9/]{0,40}( [wbrx]( - - [0-9]{1,3} [0-9]{1,3})?)?") {
        fen_contract(&text)?;
    }

    #[test]
    fn fen_reader_mutated_fens(base in 0..FEN_BASES.len(), edits in prop::collection::vec(arb_edit(), 1..4)) {
        fen_contract(&apply_edits(&FEN_BASES[base], &edits))?;
    }

    /// Well-formed placements with pieces anywhere: validation sees every kind of
    /// arrangement, and must refuse or accept without panicking.
    #[test]
    fn fen_reader_random_placements(
        mut cells in prop::collection::vec(prop::option::weighted(0.08, prop::sample::select(PIECE_LETTERS.to_vec())), 90),
        extra in prop::option::weighted(0.1, (any::<bool>(), prop::option::weighted(0.5, any::<Index>()), any::<Index>())),
        red in prop::option::weighted(0.95, any::<Index>()),
        black in prop::option::weighted(0.95, any::<Index>()),
        (anywhere_red, anywhere_black) in (any::<Index>(), any::<Index>()),
        side in "[wbr]",
        counters in prop_oneof![9 => "( [0-9]{1,3}( [0-9]{1,3})?)?", 1 => " [0-9]{10} [0-9]{1,10}"],
    ) {
        // One general each, mostly in the palace, so that validation gets past counting
        // them; sometimes an extra one anywhere.
        let generals = [(false, red, anywhere_red), (true, black, anywhere_black)];
        for (black, in_palace, anywhere) in generals.into_iter().chain(extra) {
            let color = if black { Color::Black } else { Color::Red };
            let sq = match in_palace {
                Some(i) => *i.get(&allowed_points(color, PieceKind::General)),
                None => Square::from_index(anywhere.index(90)).unwrap(),
            };
            // `cells` runs from a9 to i0, as FEN writes the board.
            cells[(9 - sq.rank() as usize) * 9 + sq.file() as usize] = Some(if black { 'k' } else { 'K' });
        }
        let mut placement = String::new();
        for (i, rank) in cells.chunks(9).enumerate() {
            if i > 0 {
                placement.push('/');
            }
            let mut empty = 0;
            for cell in rank {
                match cell {
                    None => empty += 1,
                    Some(c) => {
                        if empty > 0 {
                            placement.push_str(&empty.to_string());
                            empty = 0;
                        }
                        placement.push(*c);
                    }
                }
            }
            if empty > 0 {
                placement.push_str(&empty.to_string());
            }
        }
        let text = format!("{placement} {side} - -{counters}");
        let parsed = fen::parse(&text);
        let counters_fit = counters.split_whitespace().all(|t| t.parse::<u32>().is_ok());
        prop_assert_eq!(parsed.is_ok(), counters_fit, "{:?}: {:?}", text, parsed);
        fen_contract(&text)?;
    }
}

/// A longer deterministic run of every check, which also makes sure the walks reach
/// what they are meant to test: checks, checkmates and stalemates.
#[test]
fn long_walks_reach_every_status() {
    let mut state = 0x5EED_u64;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let (mut positions, mut checks, mut mates, mut stalemates) = (0, 0, 0, 0);
    for game in 0..400 {
        let start = &STARTS[game % STARTS.len()];
        // Half the games prefer captures from the first move, half only later.
        let eager = game % 2 == 0;
        let choices: Vec<u16> = (0..300)
            .map(|ply| {
                let r = next() as u16;
                if eager || ply > 40 { r | 0x8000 } else { r & 0x7fff }
            })
            .collect();
        let end = walk(start, &choices, |pos| {
            positions += 1;
            if pos.in_check() {
                checks += 1;
            }
            check_against_slow(pos)?;
            check_status(pos)?;
            check_keys(pos)
        })
        .unwrap_or_else(|e| panic!("game {game}: {e}"));
        match end.status() {
            Status::Checkmate => mates += 1,
            Status::Stalemate => stalemates += 1,
            Status::Ongoing => {}
            Status::Ended => panic!("a Xiangqi position never ends by passes"),
        }
    }
    println!("{positions} positions, {checks} in check, {mates} checkmates, {stalemates} stalemates");
    assert!(checks > 100, "only {checks} positions in check");
    assert!(mates > 0, "no walk ended in checkmate");
    assert!(stalemates > 0, "no walk ended in stalemate");
}

/// The slow checker itself, on positions whose answers are known by hand.
#[test]
fn slow_checker_knows_the_basics() {
    let start = Position::startpos();
    assert_eq!(slow::pseudo_moves(start.board(), Color::Red).len(), 44);
    // Double-chariot mate and a bare-general stalemate.
    let mate = fen::xiangqi("R3k4/R8/9/9/9/9/9/9/9/3K5 b - - 0 1").unwrap();
    assert!(slow::in_check(mate.board(), Color::Black));
    let stale = fen::xiangqi("4k4/R8/9/9/9/9/9/9/9/3K1R3 b - - 0 1").unwrap();
    assert!(!slow::in_check(stale.board(), Color::Black));
    for pos in [&mate, &stale] {
        let b = pos.board();
        assert!(slow::pseudo_moves(b, Color::Black).iter().all(|&m| !slow::keeps_general_safe(b, Color::Black, m)));
    }
    // A cannon needs exactly one screen to capture; a horse with its leg blocked stays.
    // An unchecked arrangement (a red pawn behind its start): the slow rules only read
    // the board.
    let setup = fen::parse("3k5/9/9/9/4p4/9/4p4/1n7/1P2C4/C3K4 w - - 0 1").unwrap();
    let b = &setup.board;
    let sq = |s: &str| Square::parse(s).unwrap();
    assert!(!slow::can_reach(b, sq("a0"), sq("e0"))); // own general
    assert!(!slow::can_reach(b, sq("b2"), sq("c0"))); // leg b1 blocked by the pawn
    assert!(slow::can_reach(b, sq("b2"), sq("d1")));
    assert!(!slow::can_reach(b, sq("b1"), sq("a1"))); // pawn not across the river
    assert!(slow::can_reach(b, sq("b1"), sq("b2"))); // takes the horse
    assert!(slow::can_reach(b, sq("e1"), sq("e5"))); // cannon over the screen on e3
    assert!(!slow::can_reach(b, sq("e1"), sq("e3"))); // no screen
    assert!(!slow::can_reach(b, sq("e1"), sq("e4"))); // a quiet move cannot jump
    assert!(slow::can_reach(b, sq("e1"), sq("e2")));
    assert!(slow::can_reach(b, sq("a0"), sq("a9")));
    assert!(slow::in_palace(Color::Black, sq("f7")) && !slow::in_palace(Color::Black, sq("f6")));
}
