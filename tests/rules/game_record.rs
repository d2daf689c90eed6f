//! What a game record and the shared position traits answer for every variant: the
//! repetition horizon a capture moves, the extra move a position without handicaps
//! refuses, and the answers of `GamePosition` and `BoardPosition` (the ones the search
//! and the records call, not the variants' own methods) on hand-checked positions.

use chuhe::rules::game::RecordedPosition;
use chuhe::rules::illegal::IllegalReason;
use chuhe::rules::types::{Color, Move};
use chuhe::rules::{BoardPosition, GamePosition, three_kingdoms, xiangqi};

/// A change to one field of a Xiangqi record's ply.
type PlyChange = fn(&mut chuhe::rules::game::Ply<xiangqi::Position>);

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap_or_else(|| panic!("bad move {text}"))
}

fn tk(text: &str) -> three_kingdoms::Position {
    three_kingdoms::Position::from_text(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn tk_move(text: &str) -> three_kingdoms::Move {
    three_kingdoms::Move::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The captures the trait lists, as text, sorted.
fn captures<P: GamePosition>(pos: &P) -> Vec<String> {
    let mut list = P::Moves::default();
    pos.legal_captures(&mut list);
    let mut names: Vec<String> = list.as_ref().iter().map(|m| m.to_string()).collect();
    names.sort();
    names
}

/// Shu's chariot on Ra4 can take Wu's soldier on Re4 along Shu's fourth rank, and
/// nothing else can be taken; the three generals stand on d1 of their halves.
const TK_ONE_CAPTURE: &str = "3K5/9/9/R3gP4/9 3K5/9/9/9/9 3K5/9/9/9/9 R RGB - 0 1";
/// Wei's general on Be2 faces Shu's on Re1 along the triangle's edge: Wei, to move, is
/// in check (the position of `three_kingdoms.rs`).
const TK_FACING: &str = "4K4/9/9/9/9 3K5/9/9/9/9 9/4K4/9/9/9 B RGB - 0 1";

#[test]
fn a_capture_moves_the_repetition_horizon_and_taking_it_back_restores_it() {
    let mut game = xiangqi::Game::new(xiangqi::Position::startpos());
    // The central cannon and a horse: nothing taken, every position since the start
    // can still come back.
    for m in ["h2e2", "h9g7"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.capture_horizon(), 0);
    assert_eq!(game.keys_since_capture().count(), 3);
    // The cannon takes the central pawn over its own pawn on e3: no earlier position
    // can stand again, so the horizon is the position after the capture.
    let ply = *game.play(iccs("e2e6")).unwrap();
    assert!(ply.captured.is_some());
    assert_eq!(game.capture_horizon(), 3);
    assert_eq!(game.keys_since_capture().collect::<Vec<_>>(), vec![game.position().key()]);
    for m in ["i9i8", "e6e5"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.capture_horizon(), 3);
    assert_eq!(game.keys_since_capture().count(), 3);
    // Taking back the quiet plies leaves the horizon; taking back the capture restores
    // the start as the horizon.
    game.undo();
    game.undo();
    assert_eq!(game.capture_horizon(), 3);
    game.undo();
    assert_eq!(game.capture_horizon(), 0);
    assert_eq!(game.keys_since_capture().count(), 3);
}

#[test]
fn taking_back_the_second_capture_restores_the_horizon_of_the_first() {
    let mut game = xiangqi::Game::new(xiangqi::Position::startpos());
    // The cannon takes the central pawn (ply 3), and Black's horse takes the cannon from
    // g7 (ply 4, its leg on f7 free).
    for m in ["h2e2", "h9g7", "e2e6", "g7e6"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.capture_horizon(), 4);
    game.undo();
    assert_eq!(game.capture_horizon(), 3);
    assert_eq!(game.keys_since_capture().count(), 1);
}

#[test]
fn three_kingdoms_captures_and_defeats_move_the_repetition_horizon() {
    // Shu's chariot takes Wu's soldier.
    let mut game = three_kingdoms::Game::new(tk(TK_ONE_CAPTURE));
    game.play(tk_move("Ra4-Rb4")).unwrap();
    assert_eq!(game.capture_horizon(), 0);
    let mut game = three_kingdoms::Game::new(tk(TK_ONE_CAPTURE));
    game.play(tk_move("Ra4-Re4")).unwrap();
    assert_eq!(game.capture_horizon(), 1);
    // Wu is out; Shu's chariot from Bh3 to Bh1 takes nothing but attacks Wei's general
    // on Bd1 along Wei's first rank, and the chariot on Bi2 covers its second: Wei has
    // no legal move and is defeated, which no position before can come back from.
    let mut game = three_kingdoms::Game::new(tk("1bP1K5/9/9/9/9 9/9/9/9/9 3K5/8rR/7rR1/9/9 R RRB F 0 1"));
    let ply = *game.play(tk_move("Bh3-Bh1")).unwrap();
    assert_eq!(ply.captured, None);
    assert_eq!(game.capture_horizon(), 1);
}

#[test]
fn three_kingdoms_refuses_an_extra_move_and_nothing_changes() {
    let mut pos = tk(three_kingdoms::text::START_WITHOUT_FLAG_BEARERS);
    let before = pos.clone();
    assert!(!RecordedPosition::skip_turn(&mut pos));
    assert_eq!(pos.to_text(), before.to_text());
    assert_eq!(GamePosition::turn(&pos), three_kingdoms::Kingdom::Shu);
}

#[test]
fn the_traits_list_the_captures_by_hand() {
    // From the start each red cannon can take the horse behind Black's cannon.
    assert_eq!(captures(&xiangqi::Position::startpos()), ["b2b9", "h2h9"]);
    assert_eq!(captures(&tk(TK_ONE_CAPTURE)), ["Ra4-Re4"]);
    assert!(captures(&tk(TK_FACING)).is_empty(), "a bare general with no piece beside it");
}

#[test]
fn the_null_move_of_the_board_trait_gives_the_turn_away_and_back() {
    fn null_move<P: BoardPosition>(pos: &mut P) {
        pos.toggle_turn();
    }
    let start = xiangqi::Position::startpos();
    let mut pos = start.clone();
    null_move(&mut pos);
    assert_eq!(GamePosition::turn(&pos), Color::Black);
    assert_ne!(GamePosition::key(&pos), GamePosition::key(&start));
    null_move(&mut pos);
    assert_eq!(pos, start);
}

#[test]
fn three_kingdoms_check_and_legality_through_the_trait_and_the_record() {
    let facing = tk(TK_FACING);
    assert!(GamePosition::in_check(&facing));
    assert!(!GamePosition::in_check(&tk(TK_ONE_CAPTURE)));
    assert!(!GamePosition::in_check(&tk(three_kingdoms::text::START)));
    // Wei's general may step aside (Bd2, Bf2) but not along the facing line to Be1.
    let aside = tk_move("Be2-Bd2");
    let along = tk_move("Be2-Be1");
    assert!(GamePosition::is_legal(&facing, aside));
    assert!(!GamePosition::is_legal(&facing, along));
    assert_eq!(GamePosition::explain_illegal(&facing, aside), None);
    assert!(GamePosition::explain_illegal(&facing, along).is_some());
    assert_eq!(GamePosition::explain_illegal(&facing, tk_move("Re1-Rd1")), Some(IllegalReason::NotYourPiece));
    // The record refuses the illegal move and keeps no ply of it.
    let mut game = three_kingdoms::Game::new(facing);
    assert!(game.play(along).is_err());
    assert!(game.plies().is_empty());
    assert_eq!(game.explain_illegal(tk_move("Bd1-Bd2")), Some(IllegalReason::NoPiece));
    // A ply records whether it left the next kingdom in check. Shu's chariot from Ra4
    // to Rb4 attacks no general.
    let mut game = three_kingdoms::Game::new(tk(TK_ONE_CAPTURE));
    let quiet = *game.play(tk_move("Ra4-Rb4")).unwrap();
    assert!(!quiet.gave_check);
    // From Rd3 to Re3 it stands on the line through the triangle to Wu's general on Ge2.
    let mut game = three_kingdoms::Game::new(tk("3K5/9/3R5/9/9 9/4K4/9/9/9 3K5/9/9/9/9 R RGB - 0 1"));
    let check = *game.play(tk_move("Rd3-Re3")).unwrap();
    assert!(check.gave_check);
    assert!(GamePosition::in_check(game.position()));
}

#[test]
fn plies_are_equal_only_when_every_field_is() {
    let mut game = xiangqi::Game::new(xiangqi::Position::startpos());
    game.play(iccs("h2e2")).unwrap();
    game.play(iccs("h9g7")).unwrap();
    let ply = *game.play(iccs("e2e6")).unwrap();
    assert_eq!(ply, game.plies()[2]);
    assert_eq!(ply.clone(), ply);
    let changes: [(&str, PlyChange); 8] = [
        ("mv", |p| p.mv = iccs("b2e2")),
        ("key_after", |p| p.key_after ^= 1),
        ("gave_check", |p| p.gave_check = !p.gave_check),
        ("captured", |p| p.captured = None),
        ("mover", |p| p.mover = Color::Black),
        ("kept_turn", |p| p.kept_turn = !p.kept_turn),
        ("checks_so_far", |p| p.checks_so_far[1] += 1),
        ("undo", |p| p.undo.captured = None),
    ];
    for (field, change) in changes {
        let mut other = ply;
        change(&mut other);
        assert_ne!(other, ply, "{field} differs");
    }
    // The debug view names every field with its value.
    let text = format!("{ply:?}");
    for field in ["mv", "key_after", "gave_check: false", "captured: Some", "mover: Red", "kept_turn: false", "undo"] {
        assert!(text.contains(field), "{field} missing from {text}");
    }
}

#[test]
fn a_three_kingdoms_ply_records_what_it_took_and_which_kingdom_checked() {
    // Shu's chariot takes the soldier that started in Wu's half.
    let mut game = three_kingdoms::Game::new(tk(TK_ONE_CAPTURE));
    let ply = *game.play(tk_move("Ra4-Re4")).unwrap();
    let soldier = three_kingdoms::Piece::new(three_kingdoms::Kind::Soldier, three_kingdoms::Kingdom::Wu);
    assert_eq!(ply.captured, Some(soldier));
    assert_eq!(ply.checks_so_far, [0, 0, 0]);
    // Shu (index 0) checks Wu's general from Re3 (the position of the test above).
    let mut game = three_kingdoms::Game::new(tk("3K5/9/3R5/9/9 9/4K4/9/9/9 3K5/9/9/9/9 R RGB - 0 1"));
    let ply = *game.play(tk_move("Rd3-Re3")).unwrap();
    assert!(ply.gave_check);
    assert_eq!(ply.checks_so_far, [1, 0, 0]);
    // The same position turned by two thirds: Wei (index 2) has the chariot and checks
    // Shu's general on Re2, the next kingdom to move.
    let mut game = three_kingdoms::Game::new(tk("9/4K4/9/9/9 3K5/9/9/9/9 3K5/9/3R5/9/9 B RGB - 0 1"));
    let ply = *game.play(tk_move("Bd3-Be3")).unwrap();
    assert!(ply.gave_check);
    assert_eq!(ply.mover, three_kingdoms::Kingdom::Wei);
    assert_eq!(ply.checks_so_far, [0, 0, 1]);
}

#[test]
fn a_three_kingdoms_record_numbers_its_moves_from_the_text() {
    // The last field of the text is the move number; it grows after Wei, the last of
    // the three, has moved.
    let pos = tk("9/4K4/9/9/9 3K5/9/9/9/9 3K5/9/3R5/9/9 B RGB - 0 7");
    assert_eq!(RecordedPosition::fullmove_number(&pos), 7);
    let mut game = three_kingdoms::Game::new(pos);
    game.play(tk_move("Bd3-Bc3")).unwrap();
    assert_eq!(RecordedPosition::fullmove_number(game.position()), 8);
}

#[test]
fn the_position_after_any_ply_is_the_one_a_fresh_replay_reaches() {
    use chuhe::rules::xiangqi::handicap::Preset;
    // Two moves odds: Red's extra move kept the turn, so the record must skip and
    // restore the turn whichever end it rebuilds from. The capture on ply 5 is taken
    // back by the rebuild from the end.
    let moves = ["h2e2", "h0g2", "h9g7", "e2e6", "g7e6", "b0c2", "b9c7"].map(iccs);
    let start = || xiangqi::Game::with_handicap(Preset::TwoMoves.position(), Preset::TwoMoves.handicap());
    let mut game = start();
    for &m in &moves {
        game.play(m).unwrap();
    }
    assert_eq!(game.position_at(0), Preset::TwoMoves.position());
    assert_eq!(&game.position_at(moves.len()), game.position());
    for i in 0..=moves.len() {
        let mut replay = start();
        for &m in &moves[..i] {
            replay.play(m).unwrap();
        }
        assert_eq!(&game.position_at(i), replay.position(), "after {i} plies");
    }
    // Red moved twice, then the sides alternated; past the seven plies played the turns
    // alternate from the side to move, Red.
    let movers: Vec<Color> = (1..=10).map(|i| game.mover_of_ply(i)).collect();
    use Color::{Black, Red};
    assert_eq!(movers, [Red, Red, Black, Red, Black, Red, Black, Red, Black, Red]);
}

#[test]
fn a_record_keeps_the_handicap_it_was_started_with() {
    use chuhe::rules::xiangqi::handicap::Handicap;
    let three = Handicap { opening_moves: 3, opening_stays_home: true, ..Handicap::default() };
    let game = xiangqi::Game::with_handicap(xiangqi::Position::startpos(), three.clone());
    assert_eq!(game.handicap(), &three);
    assert_eq!(xiangqi::Game::new(xiangqi::Position::startpos()).handicap(), &Handicap::default());
}
