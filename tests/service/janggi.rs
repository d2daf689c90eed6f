//! Janggi through the real server and the generated clients: rules, analysis, and the
//! notations and records of the notation service.

use chuhe::api::proto::{
    self, analysis_service_client::AnalysisServiceClient, notation_service_client::NotationServiceClient,
    rules_service_client::RulesServiceClient,
};
use tonic::Code;
use tonic::transport::Channel;

use crate::common;
use common::convert_request as convert;
use common::violation;

/// A server with a small engine, and a channel to it; the server stops when the second
/// value is dropped.
async fn start() -> (Channel, common::server::Running) {
    let server = common::server::start_small().await;
    (server.channel().await, server)
}

fn janggi(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Janggi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn list(p: proto::Position) -> proto::ListLegalMovesRequest {
    proto::ListLegalMovesRequest { position: Some(p), ..Default::default() }
}

#[tokio::test]
async fn legal_moves_include_the_pass() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let resp = client.list_legal_moves(list(janggi("startpos", ""))).await.unwrap().into_inner();
    assert_eq!(resp.moves.len(), 32);
    let pass = resp.moves.iter().find(|m| m.iccs == "pass").expect("a pass");
    assert!(pass.is_pass && pass.from.is_none() && pass.to.is_none());
    assert_eq!(resp.moves.iter().filter(|m| m.is_pass).count(), 1);
    assert!(resp.moves.last().is_some_and(|m| m.is_pass), "the pass is listed last");
    let status = resp.status.unwrap();
    assert_eq!(status.status, proto::GameStatus::Ongoing as i32);
    assert!(!status.bikjang);

    // Two passes end the game.
    let resp = client.list_legal_moves(list(janggi("startpos", "pass pass"))).await.unwrap().into_inner();
    assert!(resp.moves.is_empty());
    assert_eq!(resp.status.unwrap().status, proto::GameStatus::Ended as i32);

    // Setups: Cho with elephants outside has elephants on b0 and h0.
    let mut p = janggi("", "");
    p.red_setup = proto::JanggiSetup::ElephantHorseHorseElephant as i32;
    p.black_setup = proto::JanggiSetup::HorseElephantHorseElephant as i32;
    let resp = client.list_legal_moves(list(p)).await.unwrap().into_inner();
    let fen = resp.status.unwrap().fen;
    assert!(fen.ends_with("RBNA1ANBR w - - 0 1"), "{fen}");
    assert!(fen.starts_with("rbna1abnr/4k4/"), "{fen}");

    // Bikjang shows in the status.
    let resp = client.list_legal_moves(list(janggi("4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1", ""))).await.unwrap();
    assert!(resp.into_inner().status.unwrap().bikjang);

    // A Xiangqi rule set does not apply to Janggi.
    let mut req = list(janggi("startpos", ""));
    req.rule_set = proto::RuleSet::AsianV1 as i32;
    assert_eq!(client.list_legal_moves(req).await.unwrap_err().code(), Code::InvalidArgument);
}

#[tokio::test]
async fn validate_move_and_game() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let validate = |fen: &str, moves: &str, mv: &str| proto::ValidateMoveRequest {
        position: Some(janggi(fen, moves)),
        r#move: mv.to_string(),
        ..Default::default()
    };
    let ok = client.validate_move(validate("startpos", "", "pass")).await.unwrap().into_inner();
    assert!(ok.legal && ok.r#move.unwrap().is_pass);
    let ok = client.validate_move(validate("startpos", "pass", "pass")).await.unwrap().into_inner();
    assert!(ok.legal);
    assert_eq!(ok.status.unwrap().status, proto::GameStatus::Ended as i32);

    // In check (the chariot on f0 sees the general on f9), no pass.
    let no = client.validate_move(validate("5k3/9/9/9/9/9/9/9/9/3K1R3 b - - 0 1", "", "pass")).await;
    let no = no.unwrap().into_inner();
    assert!(!no.legal);
    assert_eq!(no.reason, proto::IllegalMoveReason::PassNotAllowed as i32);

    let bad = client.validate_move(validate("startpos", "", "a0a5")).await.unwrap().into_inner();
    assert!(!bad.legal);
    assert_eq!(bad.reason, proto::IllegalMoveReason::CannotMoveThatWay as i32);

    let game = client
        .validate_game(proto::ValidateGameRequest { position: Some(janggi("startpos", "b0c2 pass b2b5 b7b5")) })
        .await
        .unwrap()
        .into_inner();
    assert!(!game.legal);
    assert_eq!(game.plies, 2);
    assert_eq!(game.first_illegal_index, 2);
}

fn adjudicate(position: proto::Position, rules: proto::RuleSet) -> proto::AdjudicateRequest {
    proto::AdjudicateRequest { position: Some(position), rule_set: rules as i32, events: Vec::new() }
}

#[tokio::test]
async fn adjudicate_under_both_rule_sets() {
    let (channel, _stop) = start().await;
    let mut client = RulesServiceClient::new(channel);
    let casual = proto::RuleSet::JanggiCasualV1;
    let tournament = proto::RuleSet::JanggiTournamentV1;

    let r = client.adjudicate(adjudicate(janggi("startpos", "pass pass"), casual)).await.unwrap().into_inner();
    assert_eq!(r.result, proto::GameResult::Draw as i32);
    assert_eq!(r.termination, proto::Termination::DoublePass as i32);
    assert_eq!(r.final_status.unwrap().status, proto::GameStatus::Ended as i32);
    assert_eq!(r.rule, "double-pass");

    let r = client.adjudicate(adjudicate(janggi("startpos", "pass pass"), tournament)).await.unwrap().into_inner();
    assert_eq!((r.result, r.winner), (proto::GameResult::Win as i32, proto::Player::Black as i32));
    let points: Vec<(i32, f64)> = r.points.iter().map(|p| (p.player, p.points)).collect();
    assert_eq!(points, vec![(proto::Player::Red as i32, 72.0), (proto::Player::Black as i32, 73.5)]);
    // Two passes end the game; the tournament rules then count the points.
    assert_eq!(r.rule, "double-pass");

    // Perpetual check: a draw in casual play, a loss in tournament play.
    let perpetual = janggi("5k3/9/R8/9/9/9/9/9/9/3K5 w - - 0 1", "a7a9 f9f8 a9a8 f8f9 a8a9 f9f8 a9a8 f8f9 a8a9");
    let r = client.adjudicate(adjudicate(perpetual.clone(), casual)).await.unwrap().into_inner();
    assert_eq!(r.result, proto::GameResult::Draw as i32);
    let r = client.adjudicate(adjudicate(perpetual, tournament)).await.unwrap().into_inner();
    assert_eq!(r.termination, proto::Termination::PerpetualCheck as i32);
    assert_eq!(r.side_at_fault, proto::Player::Red as i32);

    // A bikjang claim by the side to move.
    let facing = "4k4/9/9/9/9/9/9/9/4K4/R8 w - - 0 1";
    let mut req = adjudicate(janggi(facing, ""), casual);
    req.events.push(proto::GameEvent {
        kind: proto::GameEventKind::BikjangClaim as i32,
        player: proto::Player::Red as i32,
        ply: 0,
    });
    let r = client.adjudicate(req.clone()).await.unwrap().into_inner();
    assert_eq!((r.result, r.termination), (proto::GameResult::Draw as i32, proto::Termination::Bikjang as i32));
    req.rule_set = tournament as i32;
    let r = client.adjudicate(req.clone()).await.unwrap().into_inner();
    assert_eq!((r.result, r.winner), (proto::GameResult::Win as i32, proto::Player::Red as i32));
    assert_eq!(r.points.len(), 2);
    req.events[0].player = proto::Player::Black as i32;
    assert_eq!(client.adjudicate(req).await.unwrap_err().code(), Code::InvalidArgument);

    // Checkmate.
    let r = client
        .adjudicate(adjudicate(janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "h4e4"), casual))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(r.termination, proto::Termination::Checkmate as i32);
    assert_eq!(r.winner, proto::Player::Red as i32);
}

#[tokio::test]
async fn analysis_serves_janggi() {
    let (channel, _stop) = start().await;
    let mut client = AnalysisServiceClient::new(channel.clone());
    let limits = Some(proto::SearchLimits { depth: 4, nodes: 0, movetime_ms: 0, clock: None });
    let resp = client
        .analyze(proto::AnalyzeRequest {
            position: Some(janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "")),
            limits,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.lines[0].score.as_ref().unwrap().value, Some(proto::score::Value::Mate(1)));
    // Any mating move (h4e4 among them), as the rules judge it: Han in check with no
    // legal move, not even a pass.
    let mate = janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "");
    common::replay::assert_analysis(&mate, &resp.lines, &resp.best_move, &resp.ponder_move, "mate in one");
    let mut pos = chuhe::notation::fen::janggi(&mate.fen).unwrap();
    pos.play(chuhe::rules::types::Move::parse_iccs(&resp.best_move).unwrap()).unwrap();
    let mut replies = chuhe::rules::types::MoveList::new();
    pos.legal_moves(&mut replies);
    assert!(pos.in_check() && replies.is_empty(), "{} does not mate", resp.best_move);

    // The best move from the start is legal (checked by the rules service).
    let resp = client
        .analyze(proto::AnalyzeRequest { position: Some(janggi("startpos", "")), limits, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let mut rules = RulesServiceClient::new(channel);
    let check = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(janggi("startpos", "")),
            r#move: resp.best_move.clone(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(check.legal, "{}", resp.best_move);

    let hint = client
        .hint(proto::HintRequest { position: Some(janggi("startpos", "pass")), movetime_ms: 200, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    // After Cho's pass the hint is Han's, and legal.
    common::replay::assert_move_of_mover(&janggi("startpos", "pass"), &hint.r#move.unwrap(), "hint after a pass");

    let mut stream = client
        .analyze_stream(proto::AnalyzeStreamRequest {
            position: Some(janggi("startpos", "")),
            limits,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let mut last = None;
    while let Some(msg) = stream.message().await.unwrap() {
        let context = format!("stream depth {}", msg.depth);
        common::replay::assert_analysis(
            &janggi("startpos", ""),
            &msg.lines,
            &msg.best_move,
            &msg.ponder_move,
            &context,
        );
        last = Some(msg);
    }
    let last = last.unwrap();
    assert!(last.is_final);
    assert_eq!(last.depth, 4);

    let offer = client
        .evaluate_draw_offer(proto::EvaluateDrawOfferRequest {
            position: Some(janggi("4k4/9/9/9/9/9/9/9/4A4/R2K5 w - - 0 1", "")),
            offered_by: proto::Player::Black as i32,
            movetime_ms: 200,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!offer.accept, "a chariot up, Cho declines");
}

/// The start of the Korean record in tests/data: 상마상마 for both, read from Cho's side.
fn gib_start(moves: &str) -> proto::Position {
    proto::Position {
        red_setup: proto::JanggiSetup::ElephantHorseElephantHorse as i32,
        black_setup: proto::JanggiSetup::HorseElephantHorseElephant as i32,
        ..janggi("", moves)
    }
}

/// The description of an INVALID_ARGUMENT naming `field`.
fn refused(status: tonic::Status, field: &str) -> String {
    let (named, description) = violation(&status);
    assert_eq!(named, field, "{description}");
    description
}

#[tokio::test]
async fn convert_janggi_moves_between_notations() {
    use proto::Notation as N;
    let (channel, _stop) = start().await;
    let mut client = NotationServiceClient::new(channel);
    // The first moves of the Korean record, from Korean into every notation of Janggi.
    let korean = "71졸72 49병48 08마87 18마37";
    for (to, expected) in [
        (N::Iccs, ["a3b3", "i6h6", "h0g2", "h9g7"]),
        (N::Unspecified, ["a3b3", "i6h6", "h0g2", "h9g7"]),
        (N::Coordinate, ["a4-b4", "i7-h7", "h1-g3", "h10-g8"]),
        (N::Algebraic, ["ab4", "ih7", "Cg3", "Cg8"]),
        (N::Korean, ["71졸72", "49병48", "08마87", "18마37"]),
    ] {
        let resp = client.convert_moves(convert(gib_start(""), korean, N::Korean, to)).await.unwrap().into_inner();
        assert_eq!(resp.moves, expected, "{to:?}");
        assert_eq!(resp.details[1].notations[0].text, expected[1]);
        assert_eq!(resp.details[1].player, proto::Player::Black as i32);
        // And back from that notation.
        let resp = client.convert_moves(convert(gib_start(""), &expected.join(" "), to, N::Korean)).await;
        assert_eq!(resp.unwrap().into_inner().moves.join(" "), korean, "{to:?}");
    }
    // After moves already played; a pass in each notation.
    let start = || janggi("startpos", "b0c2");
    for (from, moves) in [(N::Iccs, "pass c3c4"), (N::Coordinate, "pass c4-c5"), (N::Algebraic, "pass c5")] {
        let resp = client.convert_moves(convert(start(), moves, from, N::Korean)).await.unwrap().into_inner();
        assert_eq!(resp.moves, ["한수쉼", "73졸63"], "{from:?}");
        assert!(resp.details[0].is_pass);
    }
    // A capture and a mate, as each notation marks them.
    let mate = || janggi("3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1", "");
    let resp = client.convert_moves(convert(mate(), "h4e4", N::Iccs, N::Korean)).await.unwrap().into_inner();
    assert_eq!(resp.moves, ["68차65장군"]);
    assert!(resp.details[0].gives_check);
    let resp = client.convert_moves(convert(mate(), "68차65", N::Korean, N::Algebraic)).await.unwrap().into_inner();
    assert_eq!(resp.moves, ["Te5#"]);

    // The descriptive notations do not apply to Janggi, either way.
    for (from, to, field) in [(N::Wxf, N::Iccs, "from"), (N::Iccs, N::Chinese, "to"), (N::Italian, N::Korean, "from")] {
        let err = client.convert_moves(convert(janggi("", ""), "b0c2", from, to)).await.unwrap_err();
        let description = refused(err, field);
        assert!(description.contains("does not apply to Janggi"), "{description}");
    }
    // The first unreadable or illegal move is named by its index.
    let err = client.convert_moves(convert(janggi("", ""), "02마83 12X33", N::Korean, N::Iccs)).await.unwrap_err();
    let description = refused(err, "moves[1]");
    assert!(description.contains("12X33") && description.contains("unknown piece"), "{description}");
    let err = client.convert_moves(convert(janggi("", ""), "02상83", N::Korean, N::Iccs)).await.unwrap_err();
    assert!(refused(err, "moves[0]").contains("02상83"));
    let err = client.convert_moves(convert(janggi("", ""), "Cc3 Cb6", N::Algebraic, N::Iccs)).await.unwrap_err();
    assert!(refused(err, "moves[1]").contains("illegal"));
    let err = client.convert_moves(convert(janggi("", "pass pass"), "b0c2", N::Iccs, N::Iccs)).await.unwrap_err();
    assert!(refused(err, "moves[0]").contains("b0c2"));
    let err = client.convert_moves(convert(janggi("", "b0b5"), "pass", N::Iccs, N::Iccs)).await.unwrap_err();
    refused(err, "start.moves[0]");
}

#[tokio::test]
async fn janggi_moves_render_in_the_notations_that_apply() {
    use proto::Notation as N;
    let (channel, _stop) = start().await;
    let mut rules = RulesServiceClient::new(channel);
    let mut req = list(janggi("startpos", ""));
    req.notations = vec![N::Korean as i32, N::Algebraic as i32, N::Coordinate as i32, N::Unspecified as i32];
    let resp = rules.list_legal_moves(req.clone()).await.unwrap().into_inner();
    let texts = |iccs: &str| -> Vec<(i32, String)> {
        let m = resp.moves.iter().find(|m| m.iccs == iccs).unwrap();
        m.notations.iter().map(|n| (n.notation, n.text.clone())).collect()
    };
    let expected = |texts: [&str; 4]| -> Vec<(i32, String)> {
        req.notations.iter().zip(texts).map(|(&n, t)| (n, t.to_string())).collect()
    };
    assert_eq!(texts("b0c2"), expected(["02마83", "Cc3", "b1-c3", "b0c2"]));
    assert_eq!(texts("pass"), expected(["한수쉼", "pass", "pass", "pass"]));
    assert!(resp.moves.iter().all(|m| m.notations.len() == 4));
    for (notations, field) in [(vec![N::Algebraic, N::Wxf], "notations[1]"), (vec![N::Chinese], "notations[0]")] {
        let mut req = list(janggi("startpos", ""));
        req.notations = notations.into_iter().map(|n| n as i32).collect();
        let description = refused(rules.list_legal_moves(req).await.unwrap_err(), field);
        assert!(description.contains("notation does not apply to Janggi"), "{description}");
    }

    let validate = |text: &str, notation: N, notations: &[N]| proto::ValidateMoveRequest {
        position: Some(janggi("startpos", "")),
        r#move: text.to_string(),
        notation: notation as i32,
        notations: notations.iter().map(|&n| n as i32).collect(),
        ..Default::default()
    };
    let resp = rules.validate_move(validate("02마83", N::Korean, &[N::Algebraic])).await.unwrap().into_inner();
    assert!(resp.legal, "{}", resp.detail);
    let m = resp.r#move.unwrap();
    assert_eq!((m.iccs.as_str(), m.notations[0].text.as_str()), ("b0c2", "Cc3"));
    let resp = rules.validate_move(validate("Cc3", N::Algebraic, &[N::Korean])).await.unwrap().into_inner();
    assert_eq!(resp.r#move.unwrap().notations[0].text, "02마83");
    let resp = rules.validate_move(validate("한수쉼", N::Korean, &[])).await.unwrap().into_inner();
    assert!(resp.legal && resp.r#move.unwrap().is_pass);
    let resp = rules.validate_move(validate("b1-c3", N::Coordinate, &[])).await.unwrap().into_inner();
    assert!(resp.legal);
    // Illegal moves and pieces that are not there are answers, not errors.
    let resp = rules.validate_move(validate("02상83", N::Korean, &[])).await.unwrap().into_inner();
    assert!(!resp.legal);
    assert_eq!(resp.reason, proto::IllegalMoveReason::NoPiece as i32, "{}", resp.detail);
    let resp = rules.validate_move(validate("Ta6", N::Algebraic, &[])).await.unwrap().into_inner();
    assert!(!resp.legal && resp.reason != proto::IllegalMoveReason::Unspecified as i32, "{}", resp.detail);
    // Text that does not read, and notations that do not apply.
    refused(rules.validate_move(validate("0마83", N::Korean, &[])).await.unwrap_err(), "move");
    refused(rules.validate_move(validate("C2.5", N::Wxf, &[])).await.unwrap_err(), "notation");
    refused(rules.validate_move(validate("b0c2", N::Iccs, &[N::Italian])).await.unwrap_err(), "notations[0]");
}

#[tokio::test]
async fn janggi_records_import_and_export() {
    use proto::Notation as N;
    let (channel, _stop) = start().await;
    let mut client = NotationServiceClient::new(channel.clone());
    let data = |file: &str| std::fs::read_to_string(common::data_path(&format!("records/{file}"))).unwrap();
    let import = |text: &str, variant: proto::Variant, notation: N| proto::ImportRecordRequest {
        text: text.to_string(),
        variant: variant as i32,
        notation: notation as i32,
    };

    // A .gib names no variant: the request does.
    let gib = data("ha-yeomyeong-jeon-dongha-2016.gib");
    let err = client.import_record(import(&gib, proto::Variant::Unspecified, N::Unspecified)).await.unwrap_err();
    refused(err, "text");
    let resp = client.import_record(import(&gib, proto::Variant::Janggi, N::Unspecified)).await.unwrap().into_inner();
    assert_eq!(resp.notation, N::Korean as i32);
    // Its result tag "초 완승": Cho (RED in the API) won.
    assert_eq!((resp.result, resp.winner), (proto::GameResult::Win as i32, proto::Player::Red as i32));
    assert!(resp.tags.iter().any(|t| t.name == "대국결과" && t.value == "초 완승"));
    let game = resp.position.clone().unwrap();
    let expected = gib_start("");
    assert_eq!(
        (game.variant, game.red_setup, game.black_setup),
        (expected.variant, expected.red_setup, expected.black_setup)
    );
    assert_eq!((game.fen.as_str(), game.moves.len()), ("", 73));
    assert_eq!(game.moves[..4], ["a3b3", "i6h6", "h0g2", "h9g7"]);
    // The game replays in the rules service.
    let mut rules = RulesServiceClient::new(channel);
    let checked = rules.validate_game(proto::ValidateGameRequest { position: Some(game.clone()) }).await.unwrap();
    assert!(checked.get_ref().legal && checked.get_ref().plies == 73);

    // Exported in each notation of Janggi and read back, the variant from the tag.
    for (n, name, first) in [
        (N::Iccs, "ICCS", "1. a3b3 i6h6"),
        (N::Coordinate, "Coordinate", "1. a4-b4 i7-h7"),
        (N::Algebraic, "Algebraic", "1. ab4 ih7"),
        (N::Korean, "Korean", "1. 71졸72 49병48"),
    ] {
        let text = client
            .export_record(proto::ExportRecordRequest {
                position: Some(game.clone()),
                tags: resp.tags.clone(),
                notation: n as i32,
                comments: vec![proto::RecordComment { ply: 2, text: "both soldiers aside".into() }],
            })
            .await
            .unwrap()
            .into_inner()
            .text;
        for line in
            ["[Variant \"Janggi\"]", "[초차림 \"상마상마\"]", "[한차림 \"상마상마\"]", &format!("[Format \"{name}\"]")]
        {
            assert!(text.contains(line), "{line} in\n{text}");
        }
        assert!(text.contains(&format!("{first} {{both soldiers aside}}")), "{text}");
        let back = client.import_record(import(&text, proto::Variant::Unspecified, N::Unspecified)).await.unwrap();
        let back = back.into_inner();
        assert_eq!(back.notation, n as i32);
        assert_eq!(back.position.unwrap(), game, "{name}");
        assert_eq!(back.comments, [proto::RecordComment { ply: 2, text: "both soldiers aside".into() }]);
    }

    // The seed's game: Variant tag, algebraic detected, result and comments.
    let resp = client
        .import_record(import(&data("baggio-veronesi-1995-janggi.txt"), proto::Variant::Unspecified, N::Unspecified))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.notation, N::Algebraic as i32);
    assert_eq!((resp.result, resp.winner), (proto::GameResult::Win as i32, proto::Player::Red as i32));
    assert!(!resp.comments.is_empty());
    let p = resp.position.unwrap();
    assert_eq!((p.variant, p.moves.len()), (proto::Variant::Janggi as i32, 41));
    assert_eq!(p.red_setup, proto::JanggiSetup::HorseElephantElephantHorse as i32);
    assert_eq!(p.black_setup, proto::JanggiSetup::ElephantHorseElephantHorse as i32);

    // A FEN start is kept as a FEN.
    let fen = "3bkb3/9/9/9/9/7R1/9/9/9/3K5 w - - 0 1";
    let text = client
        .export_record(proto::ExportRecordRequest {
            position: Some(janggi(fen, "h4e4")),
            tags: vec![proto::RecordTag { name: "Result".into(), value: "1-0".into() }],
            notation: N::Korean as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner()
        .text;
    assert!(text.contains(&format!("[FEN \"{fen}\"]")) && text.contains("1. 68차65장군 1-0"), "{text}");
    let back = client.import_record(import(&text, proto::Variant::Janggi, N::Korean)).await.unwrap().into_inner();
    assert_eq!(back.position.unwrap(), janggi(fen, "h4e4"));

    // Notations that do not apply, and records that do not read.
    let export = |notation: N| proto::ExportRecordRequest {
        position: Some(janggi("", "b0c2")),
        notation: notation as i32,
        ..Default::default()
    };
    assert!(refused(client.export_record(export(N::Wxf)).await.unwrap_err(), "notation").contains("Janggi"));
    let err = client.import_record(import("1. b0c2", proto::Variant::Janggi, N::Chinese)).await.unwrap_err();
    refused(err, "notation");
    let mut bad_setup = export(N::Iccs);
    bad_setup.position.as_mut().unwrap().preset = proto::StartPreset::TwoMoves as i32;
    refused(client.export_record(bad_setup).await.unwrap_err(), "position.preset");
    for (text, says) in [
        ("[Variant \"Janggi\"]\n[Format \"Italian\"]\n1. C8+7", "does not apply to Janggi"),
        ("[Variant \"Janggi\"]\n[Preset \"two-moves\"]\n", "no handicap"),
        ("[Variant \"Janggi\"]\n[한차림 \"마마상상\"]\n", "한차림"),
        ("[Variant \"Janggi\"]\n1. b0c2 b9b5", "b9b5"),
    ] {
        let err = client.import_record(import(text, proto::Variant::Unspecified, N::Unspecified)).await.unwrap_err();
        let description = refused(err, "text");
        assert!(description.contains(says), "{description}");
    }
    let err =
        client.import_record(import("[Variant \"Three Kingdoms\"]\n", proto::Variant::Unspecified, N::Unspecified));
    assert_eq!(err.await.unwrap_err().code(), Code::Unimplemented);
}
