//! The rules of a handicap beyond its start, one at a time: when the opening moves end,
//! which side's river bank counts, protected pieces that have moved, and the names of
//! the starts. Each case is read off the odds' definition in `xiangqi::handicap`.

use chuhe::notation::fen;
use chuhe::rules::types::{Color, Move, Square};
use chuhe::rules::xiangqi::handicap::{Handicap, MAX_MOVES, NamedStart, Preset, Protected};
use chuhe::rules::xiangqi::{Game, IllegalReason, Position};

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap_or_else(|| panic!("bad ICCS {text}"))
}

fn square(text: &str) -> Square {
    Square::parse(text).unwrap_or_else(|| panic!("bad point {text}"))
}

/// A normal game reads one opening move as none; any rule of its own makes a handicap.
#[test]
fn a_handicap_is_none_only_without_rules_of_its_own() {
    assert!(Handicap::default().is_none());
    assert!(Handicap { opening_moves: 1, ..Handicap::default() }.is_none(), "one move is a normal game");
    assert!(!Handicap { opening_moves: 2, ..Handicap::default() }.is_none());
    assert!(!Handicap { opening_stays_home: true, ..Handicap::default() }.is_none());
    assert!(!Handicap { opening_avoids_own_bank: true, ..Handicap::default() }.is_none());
    let protected = vec![Protected { square: square("e3"), unless_check: true }];
    assert!(!Handicap { protected, ..Handicap::default() }.is_none());
    for preset in Preset::ALL {
        let plain = matches!(preset, Preset::Standard | Preset::OneHorse | Preset::HorseAndMove | Preset::NinePieces);
        assert_eq!(preset.handicap().is_none(), plain, "{preset:?}");
    }
}

/// With `n` opening moves, plies 0 to n-1 are opening moves and the side keeps the move
/// after plies 0 to n-2; a normal game's first ply is its one opening move.
#[test]
fn the_opening_moves_are_the_first_plies_of_the_side_that_starts() {
    let normal = Handicap::default();
    assert!(normal.in_opening(0) && !normal.in_opening(1));
    assert!(!normal.keeps_turn(0));
    let three = Handicap::moves(3);
    assert!((0..3).all(|i| three.in_opening(i)) && !three.in_opening(3));
    assert!(three.keeps_turn(0) && three.keeps_turn(1) && !three.keeps_turn(2));
}

/// Black starting with four moves: its river bank is rank 5 and its side of the river
/// ranks 5 to 9. From the initial position with Black to move, the cannon b7 may not
/// stop on b5 or cross to b4; the pawn c6 may step onto the bank.
#[test]
fn black_starting_with_the_odds_keeps_to_its_own_side_and_bank() {
    let start = fen::xiangqi("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR b - - 0 1").unwrap();
    let mut game = Game::with_handicap(start, Handicap::moves(4));
    assert_eq!(game.explain_illegal(iccs("b7b5")), Some(IllegalReason::HandicapOwnRiverBank));
    assert_eq!(game.explain_illegal(iccs("b7b4")), Some(IllegalReason::HandicapCrossesRiver));
    assert_eq!(game.explain_illegal(iccs("b7b6")), None);
    assert_eq!(game.explain_illegal(iccs("c6c5")), None, "a pawn may stop on the bank");
    for m in ["c6c5", "h7e7", "h9g7", "b9c7"] {
        assert_eq!(game.position().turn(), Color::Black, "{m}");
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.position().turn(), Color::Red, "four Black moves, then Red");
    assert_eq!(game.explain_illegal(iccs("b2b4")), None, "Red has no odds to keep");
}

/// Black's horse e4 may take Red's horse on c3 only once that horse has moved (here away
/// and back). Taking it uncovers the chariot e7 against Red's general: the check
/// allows the capture only where the rule says so.
#[test]
fn a_protected_piece_that_has_moved_may_be_taken() {
    let start = fen::xiangqi("3k5/9/4r4/9/9/4n4/2N6/9/9/4K4 b - - 0 1").unwrap();
    let protect = |unless_check| Handicap {
        protected: vec![Protected { square: square("c3"), unless_check }],
        ..Handicap::default()
    };
    let game = Game::with_handicap(start.clone(), protect(false));
    assert_eq!(game.explain_illegal(iccs("e4c3")), Some(IllegalReason::HandicapProtectedPiece));
    let game = Game::with_handicap(start.clone(), protect(true));
    assert_eq!(game.explain_illegal(iccs("e4c3")), None, "the capture gives check");

    let mut game = Game::with_handicap(start, protect(false));
    for m in ["d9d8", "c3a4", "d8d9", "a4c3"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.explain_illegal(iccs("e4c3")), None, "the horse on c3 has moved");
}

/// Each start has one name: the presets by theirs, two to four moves by the presets',
/// more by `N-moves` up to the limit.
#[test]
fn the_named_starts() {
    let preset = NamedStart::Preset;
    assert_eq!(NamedStart::moves(0), Some(preset(Preset::Standard)));
    assert_eq!(NamedStart::moves(1), Some(preset(Preset::Standard)));
    assert_eq!(NamedStart::moves(2), Some(preset(Preset::TwoMoves)));
    assert_eq!(NamedStart::moves(3), Some(preset(Preset::ThreeMoves)));
    assert_eq!(NamedStart::moves(4), Some(preset(Preset::FourMoves)));
    assert_eq!(NamedStart::moves(5), Some(NamedStart::Moves(5)));
    assert_eq!(NamedStart::moves(MAX_MOVES), Some(NamedStart::Moves(MAX_MOVES)));
    assert_eq!(NamedStart::moves(MAX_MOVES + 1), None);

    assert_eq!(NamedStart::from_name(" 10-Moves "), Some(NamedStart::Moves(10)));
    assert_eq!(NamedStart::from_name("1-moves"), Some(preset(Preset::Standard)));
    assert_eq!(NamedStart::from_name("two-moves"), Some(preset(Preset::TwoMoves)));
    for bad in ["moves", "x-moves", "6moves", "6-move", "-1-moves", "11-moves"] {
        assert_eq!(NamedStart::from_name(bad), None, "{bad}");
    }
    assert_eq!(NamedStart::Moves(7).name(), "7-moves");
    assert_eq!(preset(Preset::OneHorse).name(), "one-horse");
    assert_eq!(NamedStart::moves(3).map(NamedStart::name).as_deref(), Some("three-moves"));
    for n in 0..=MAX_MOVES {
        let start = NamedStart::moves(n).unwrap();
        assert_eq!(NamedStart::from_name(&start.name()), Some(start), "{n}");
        assert_eq!(start.handicap(), Handicap::moves(n), "{n}");
        assert_eq!(start.position(), Position::startpos(), "{n}");
    }
    for p in Preset::ALL {
        assert_eq!(preset(p).position(), p.position(), "{p:?}");
        assert_eq!(preset(p).handicap(), p.handicap(), "{p:?}");
    }
    assert_eq!(preset(Preset::HorseAndMove).position().turn(), Color::Black);
}

/// A preset's name reads in any case, with `-`, `_` or spaces, with the API's prefix.
#[test]
fn preset_names_read_loosely() {
    assert_eq!(Preset::from_name("One Horse"), Some(Preset::OneHorse));
    assert_eq!(Preset::from_name("  NINE_PIECES "), Some(Preset::NinePieces));
    assert_eq!(Preset::from_name("start_preset_horse_and_move"), Some(Preset::HorseAndMove));
    assert_eq!(Preset::from_name("Start Preset Two Horses"), Some(Preset::TwoHorses));
    assert_eq!(Preset::from_name("one--horse"), None);
    assert_eq!(Preset::from_name("horse"), None);
}
