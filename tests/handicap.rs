//! Handicap starts: the presets' positions and the rules a FEN cannot express.

use chuhe::notation::fen;
use chuhe::rules::history::Game;
use chuhe::rules::types::{Color, Move, MoveList};
use chuhe::rules::xiangqi::handicap::{Handicap, Preset};
use chuhe::rules::xiangqi::{IllegalReason, Position};

fn iccs(text: &str) -> Move {
    Move::parse_iccs(text).unwrap_or_else(|| panic!("bad ICCS {text}"))
}

fn position(fen_text: &str) -> Position {
    fen::xiangqi(fen_text).unwrap_or_else(|e| panic!("{fen_text}: {e}"))
}

#[test]
fn handicap_presets() {
    // Two moves: Red plays twice, then Black.
    let mut game = Game::with_handicap(Preset::TwoMoves.position(), Preset::TwoMoves.handicap());
    game.play(iccs("h2e2")).unwrap();
    assert_eq!(game.position().turn(), Color::Red);
    game.play(iccs("h0g2")).unwrap();
    assert_eq!(game.position().turn(), Color::Black);
    assert_eq!(game.mover_of_ply(2), Color::Red);
    assert_eq!(game.mover_of_ply(3), Color::Black);
    game.play(iccs("h9g7")).unwrap();
    assert_eq!(game.undo(), Some(iccs("h9g7")));
    assert_eq!(game.undo(), Some(iccs("h0g2")));
    assert_eq!(game.position().turn(), Color::Red);
    assert_eq!(game.undo(), Some(iccs("h2e2")));
    assert_eq!(game.position(), &Position::startpos());

    // An extra move may not give check: Black could not answer it.
    let two = Handicap { opening_moves: 2, ..Handicap::default() };
    let mut game = Game::with_handicap(position("4k4/9/9/9/9/9/9/9/9/R2K5 w - - 0 1"), two);
    assert_eq!(game.explain_illegal(iccs("a0a9")), Some(IllegalReason::HandicapExtraMoveChecks));
    game.play(iccs("a0a8")).unwrap();
    game.play(iccs("a8a9")).unwrap();
    assert!(game.position().in_check(), "the last opening move may check");
    let mut game = Game::with_handicap(Preset::ThreeMoves.position(), Preset::ThreeMoves.handicap());
    game.play(iccs("h2e2")).unwrap();
    assert_eq!(game.explain_illegal(iccs("e2e6")), Some(IllegalReason::HandicapCrossesRiver));
    game.play(iccs("e3e4")).unwrap();
    assert_eq!(game.explain_illegal(iccs("e4e5")), Some(IllegalReason::HandicapCrossesRiver));
    game.play(iccs("h0g2")).unwrap();
    assert_eq!(game.position().turn(), Color::Black);
    game.play(iccs("h9g7")).unwrap();
    assert!(game.is_legal(iccs("e4e5")), "the restriction ends with the opening moves");

    let mut game = Game::with_handicap(Preset::FourMoves.position(), Preset::FourMoves.handicap());
    game.play(iccs("a3a4")).unwrap(); // a pawn may reach the river bank
    assert_eq!(game.explain_illegal(iccs("a0a3")), None);
    assert_eq!(game.explain_illegal(iccs("b2b4")), Some(IllegalReason::HandicapOwnRiverBank));
    assert_eq!(game.explain_illegal(iccs("h2h6")), Some(IllegalReason::HandicapCrossesRiver));
    let mut legal = MoveList::new();
    game.legal_moves(&mut legal);
    assert!(!legal.contains(iccs("b2b4")) && legal.contains(iccs("b2b3")));

    // Material odds.
    assert_eq!(fen::format(&Preset::OneHorse.position().to_setup()), fen_of("RNBAKAB1R w"));
    assert_eq!(fen::format(&Preset::HorseAndMove.position().to_setup()), fen_of("RNBAKAB1R b"));
    assert_eq!(fen::format(&Preset::TwoHorses.position().to_setup()), fen_of("R1BAKAB1R w"));
    assert_eq!(fen::format(&Preset::OneChariot.position().to_setup()), fen_of("1NBAKABNR w"));
    assert_eq!(
        fen::format(&Preset::NinePieces.position().to_setup()),
        "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w - - 0 1"
    );

    // One chariot: Black may not take the unmoved a3 pawn, b0 horse or b2 cannon.
    let mut game = Game::with_handicap(Preset::OneChariot.position(), Preset::OneChariot.handicap());
    for m in ["e3e4", "a6a5", "e4e5", "a5a4", "i0i1"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.explain_illegal(iccs("a4a3")), Some(IllegalReason::HandicapProtectedPiece));
    let mut legal = MoveList::new();
    game.legal_moves(&mut legal);
    assert!(!legal.contains(iccs("a4a3")) && legal.contains(iccs("a4b4")));

    // Two horses: the unmoved central pawn may be taken only with check.
    let mut game = Game::with_handicap(Preset::TwoHorses.position(), Preset::TwoHorses.handicap());
    for m in ["i0i1", "b7e7", "i1i2"] {
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.explain_illegal(iccs("e7e3")), Some(IllegalReason::HandicapProtectedPiece));
    let mut game = Game::with_handicap(Preset::TwoHorses.position(), Preset::TwoHorses.handicap());
    for m in ["f0e1", "b7e7", "i0i1", "e7e3"] {
        game.play(iccs(m)).unwrap();
    }
    assert!(game.position().in_check(), "the capture with check is allowed");

    for p in Preset::ALL {
        assert_eq!(Preset::from_name(p.name()), Some(p));
        assert_eq!(Preset::from_name(&format!("START_PRESET_{}", p.name().replace('-', "_").to_uppercase())), Some(p));
    }
}

fn fen_of(last_rank_and_side: &str) -> String {
    format!("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/{last_rank_and_side} - - 0 1")
}
