//! Handicap starts: the presets' positions and the rules a FEN cannot express.

use chuhe::notation::fen;
use chuhe::rules::types::{Color, Move, MoveList};
use chuhe::rules::xiangqi::Game;
use chuhe::rules::xiangqi::handicap::{Handicap, Preset};
use chuhe::rules::xiangqi::{IllegalReason, Position};

use crate::common;

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

#[test]
fn handicap_of_any_number_of_moves() {
    for (n, preset) in [(2, Preset::TwoMoves), (3, Preset::ThreeMoves), (4, Preset::FourMoves)] {
        assert_eq!(Handicap::moves(n), preset.handicap(), "{n}");
    }
    assert!(Handicap::moves(0).is_none() && Handicap::moves(1).is_none());
    // Six moves: Red plays six in a row, none across the river and none but a pawn on
    // its river bank, then Black moves.
    let mut game = Game::with_handicap(Position::startpos(), Handicap::moves(6));
    for (i, m) in ["h2e2", "h0g2", "i0h0", "b0c2", "a0b0", "c3c4"].into_iter().enumerate() {
        assert_eq!(game.position().turn(), Color::Red, "move {}", i + 1);
        assert_eq!(game.explain_illegal(iccs("b2b6")), Some(IllegalReason::HandicapCrossesRiver));
        assert_eq!(game.explain_illegal(iccs("b2b4")), Some(IllegalReason::HandicapOwnRiverBank));
        game.play(iccs(m)).unwrap();
    }
    assert_eq!(game.position().turn(), Color::Black);
    game.play(iccs("h9g7")).unwrap();
    assert!(game.is_legal(iccs("b2b6")), "the restrictions end with the opening moves");
}

/// The API's `Position.handicap_moves` through the real server.
#[tokio::test]
async fn handicap_moves_through_the_server() {
    use chuhe::api::proto;
    use chuhe::service::server::ServerConfig;
    use tonic_types::StatusExt;

    let bad_field = |status: tonic::Status| {
        assert_eq!(status.code(), tonic::Code::InvalidArgument, "{status:?}");
        let details = status.get_error_details();
        details.bad_request().expect("BadRequest detail").field_violations[0].field.clone()
    };
    let position = |moves: &str, n: u32| proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        moves: moves.split_whitespace().map(str::to_string).collect(),
        handicap_moves: n,
        ..Default::default()
    };
    let list = |p: proto::Position| proto::ListLegalMovesRequest { position: Some(p), ..Default::default() };
    let server = common::server::start(ServerConfig::default()).await;
    let mut rules = server.rules().await;

    let five = "h2e2 h0g2 i0h0 b0c2 a0b0";
    let resp = rules.list_legal_moves(list(position(five, 6))).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Red as i32, "Red's sixth move");
    let listed = |text: &str| resp.moves.iter().any(|m| m.iccs == text);
    assert!(listed("c3c4") && listed("b2b3"));
    assert!(!listed("b2b6") && !listed("b2b4"), "no crossing, no piece but a pawn on the bank");
    let six = format!("{five} c3c4");
    let resp = rules.list_legal_moves(list(position(&six, 6))).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Black as i32);
    let resp = rules
        .validate_game(proto::ValidateGameRequest { position: Some(position(&format!("{six} g3g4"), 6)) })
        .await
        .unwrap()
        .into_inner();
    assert!(!resp.legal);
    assert_eq!(resp.first_illegal_index, 6, "a seventh Red move in a row");
    // One move, with the standard preset, is a normal game.
    let mut standard = position("h2e2", 1);
    standard.preset = proto::StartPreset::Standard as i32;
    let resp = rules.list_legal_moves(list(standard)).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Black as i32, "one move is a normal game");

    // Out of range, with another preset, with a FEN, for Janggi.
    let field = "position.handicap_moves";
    assert_eq!(bad_field(rules.list_legal_moves(list(position("", 11))).await.unwrap_err()), field);
    let mut p = position("", 5);
    p.preset = proto::StartPreset::TwoMoves as i32;
    assert_eq!(bad_field(rules.list_legal_moves(list(p)).await.unwrap_err()), field);
    let mut p = position("", 5);
    p.fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1".into();
    assert_eq!(bad_field(rules.list_legal_moves(list(p)).await.unwrap_err()), field);
    let mut p = position("", 2);
    p.variant = proto::Variant::Janggi as i32;
    assert_eq!(bad_field(rules.list_legal_moves(list(p)).await.unwrap_err()), field);

    // A record names three moves by the preset's name, six as "6-moves"; both read back.
    let mut notations = server.notations().await;
    let export = |p: proto::Position| proto::ExportRecordRequest { position: Some(p), ..Default::default() };
    let import = |text: String| proto::ImportRecordRequest {
        text,
        variant: proto::Variant::Xiangqi as i32,
        ..Default::default()
    };
    let three = position("h2e2 h0g2 i0h0", 3);
    let text = notations.export_record(export(three.clone())).await.unwrap().into_inner().text;
    assert!(text.contains("[Preset \"three-moves\"]"), "{text}");
    let back = notations.import_record(import(text)).await.unwrap().into_inner().position.unwrap();
    assert_eq!((back.preset, back.handicap_moves), (proto::StartPreset::ThreeMoves as i32, 0));
    assert_eq!(back.moves, three.moves);
    let text = notations.export_record(export(position(&six, 6))).await.unwrap().into_inner().text;
    assert!(text.contains("[Preset \"6-moves\"]") && !text.contains("[FEN"), "{text}");
    let back = notations.import_record(import(text)).await.unwrap().into_inner().position.unwrap();
    assert_eq!((back.preset, back.handicap_moves), (proto::StartPreset::Unspecified as i32, 6));
    assert_eq!(back.moves, position(&six, 6).moves);
    // A record that breaks the odds' rules is refused on import.
    let broken = "[Preset \"6-moves\"]\n1. h2e2 h0g2 i0h0 b0c2 a0b0 b2b6";
    let e = notations.import_record(import(broken.to_string())).await.unwrap_err();
    assert_eq!(bad_field(e), "text");
    let e = notations.import_record(import("[Preset \"11-moves\"]\n".to_string())).await.unwrap_err();
    assert_eq!(bad_field(e), "text");
    server.shutdown().await;
}
