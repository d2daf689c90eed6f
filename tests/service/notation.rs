//! Integration tests of start presets, move notations in RulesService and
//! NotationService: the real server on an ephemeral port, called with the generated
//! clients.

use chuhe::api::proto;
use chuhe::service::server::ServerConfig;
use tonic::Code;

use crate::common;
use common::server::Running;
use common::{convert_request, violation};

async fn start() -> Running {
    common::server::start(ServerConfig::default()).await
}

fn position(fen: &str, moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: fen.to_string(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn preset(p: proto::StartPreset, moves: &str) -> proto::Position {
    proto::Position { preset: p as i32, ..position("", moves) }
}

#[tokio::test]
async fn convert_moves_between_notations() {
    use proto::Notation as N;
    let server = start().await;
    let mut client = server.notations().await;
    let resp = client
        .convert_moves(convert_request(position("startpos", ""), "h2e2 h9g7 h0g2 i9h9", N::Iccs, N::Chinese))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.moves, ["炮二平五", "马8进7", "马二进三", "车9平8"]);
    assert_eq!(resp.details.len(), 4);
    assert_eq!(resp.details[1].iccs, "h9g7");
    assert_eq!(resp.details[1].player, proto::Player::Black as i32);
    assert_eq!(resp.details[0].notations[0].notation, N::Chinese as i32);
    assert_eq!(resp.details[0].notations[0].text, "炮二平五");

    // Chinese back to WXF, Italian and coordinates, after moves already played.
    let start = position("startpos", "h2e2 h9g7");
    for (to, expected) in [
        (N::Wxf, ["H2+3", "R9.8"]),
        (N::Italian, ["C2+3", "T9=8"]),
        (N::Coordinate, ["h1-g3", "i10-h10"]),
        (N::Unspecified, ["h0g2", "i9h9"]),
    ] {
        let resp = client
            .convert_moves(convert_request(start.clone(), "马二进三 车9平8", N::Chinese, to))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(resp.moves, expected, "{to:?}");
    }

    // A bad token and an illegal move are INVALID_ARGUMENT naming moves[i] and the token.
    let err = client
        .convert_moves(convert_request(position("startpos", ""), "C2.5 Q8+7", N::Wxf, N::Iccs))
        .await
        .unwrap_err();
    let (field, description) = violation(&err);
    assert_eq!(field, "moves[1]");
    assert!(description.contains("Q8+7") && description.contains("unknown piece"), "{description}");
    let err = client
        .convert_moves(convert_request(position("startpos", ""), "炮二平五 车1进4", N::Chinese, N::Wxf))
        .await
        .unwrap_err();
    let (field, description) = violation(&err);
    assert_eq!(field, "moves[1]");
    assert!(description.contains("车1进4") && description.contains("illegal"), "{description}");
    let err = client
        .convert_moves(convert_request(position("startpos", ""), "h2e2", N::PointName, N::Iccs))
        .await
        .unwrap_err();
    assert_eq!(violation(&err).0, "from");
    let err = client.convert_moves(proto::ConvertMovesRequest::default()).await.unwrap_err();
    assert_eq!(violation(&err).0, "start");
    server.shutdown().await;
}

#[tokio::test]
async fn rules_service_renders_and_reads_notations() {
    use proto::Notation as N;
    let server = start().await;
    let mut rules = server.rules().await;
    let resp = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("startpos", "")),
            notations: vec![N::Wxf as i32, N::Chinese as i32, N::Unspecified as i32, N::Italian as i32],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let cannon = resp.moves.iter().find(|m| m.iccs == "h2e2").unwrap();
    let texts: Vec<(i32, &str)> = cannon.notations.iter().map(|n| (n.notation, n.text.as_str())).collect();
    assert_eq!(
        texts,
        [
            (N::Wxf as i32, "C2.5"),
            (N::Chinese as i32, "炮二平五"),
            (N::Unspecified as i32, "h2e2"),
            (N::Italian as i32, "B2=5")
        ]
    );
    assert!(resp.moves.iter().all(|m| m.notations.len() == 4));
    let err = rules
        .list_legal_moves(proto::ListLegalMovesRequest {
            position: Some(position("startpos", "")),
            notations: vec![N::Wxf as i32, 42],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(violation(&err).0, "notations[1]");

    let validate = |text: &str, notation: N| proto::ValidateMoveRequest {
        position: Some(position("startpos", "h2e2")),
        r#move: text.to_string(),
        notation: notation as i32,
        notations: vec![N::Coordinate as i32],
        ..Default::default()
    };
    let resp = rules.validate_move(validate("马8进7", N::Chinese)).await.unwrap().into_inner();
    assert!(resp.legal, "{}", resp.detail);
    let m = resp.r#move.unwrap();
    assert_eq!(m.iccs, "h9g7");
    assert_eq!(m.notations[0].text, "h10-g8");
    let resp = rules.validate_move(validate("H8+7", N::Wxf)).await.unwrap().into_inner();
    assert!(resp.legal);
    // Illegal moves and pieces that are not there are answers, not errors.
    let resp = rules.validate_move(validate("R1+4", N::Wxf)).await.unwrap().into_inner();
    assert!(!resp.legal);
    assert_eq!(resp.reason, proto::IllegalMoveReason::PathBlocked as i32, "{}", resp.detail);
    let resp = rules.validate_move(validate("R5.4", N::Wxf)).await.unwrap().into_inner();
    assert_eq!(resp.reason, proto::IllegalMoveReason::NoPiece as i32, "{}", resp.detail);
    assert!(resp.detail.contains("R5.4"), "{}", resp.detail);
    // Text that is no move in the notation is INVALID_ARGUMENT naming the token.
    let err = rules.validate_move(validate("Z8+7", N::Wxf)).await.unwrap_err();
    let (field, description) = violation(&err);
    assert_eq!(field, "move");
    assert!(description.contains("Z8+7"), "{description}");

    // Ambiguous: two chariots on a file that can both go to file 4.
    let resp = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(position("5k3/9/9/9/9/9/4R4/9/4R4/3K5 w - - 0 1", "")),
            r#move: "R5.4".into(),
            notation: N::Wxf as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.reason, proto::IllegalMoveReason::Ambiguous as i32, "{}", resp.detail);
    server.shutdown().await;
}

#[tokio::test]
async fn start_presets_are_served() {
    use proto::StartPreset as P;
    let server = start().await;
    let mut rules = server.rules().await;
    let list = |p: proto::Position| proto::ListLegalMovesRequest { position: Some(p), ..Default::default() };

    let resp = rules.list_legal_moves(list(preset(P::OneHorse, ""))).await.unwrap().into_inner();
    let status = resp.status.unwrap();
    assert_eq!(status.fen, "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKAB1R w - - 0 1");
    let resp = rules.list_legal_moves(list(preset(P::HorseAndMove, ""))).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Black as i32);
    let resp = rules.list_legal_moves(list(preset(P::NinePieces, ""))).await.unwrap().into_inner();
    assert!(resp.status.unwrap().fen.starts_with("rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/9/1C5C1/9/RN2K2NR w"));

    // Two moves: Red moves again after its first move.
    let resp = rules.list_legal_moves(list(preset(P::TwoMoves, "h2e2"))).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Red as i32);
    assert!(!resp.moves.is_empty());
    let resp = rules.list_legal_moves(list(preset(P::TwoMoves, "h2e2 h0g2"))).await.unwrap().into_inner();
    assert_eq!(resp.status.unwrap().side_to_move, proto::Player::Black as i32);

    // Three moves: no crossing the river during them; the move is refused with the rule.
    let resp = rules.list_legal_moves(list(preset(P::ThreeMoves, "h2e2"))).await.unwrap().into_inner();
    assert!(!resp.moves.iter().any(|m| m.iccs == "e2e6"), "crossing the river is not listed");
    let resp = rules
        .validate_move(proto::ValidateMoveRequest {
            position: Some(preset(P::ThreeMoves, "h2e2")),
            r#move: "e2e6".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(!resp.legal);
    assert_eq!(resp.reason, proto::IllegalMoveReason::HandicapRestriction as i32);
    assert!(resp.detail.contains("river"), "{}", resp.detail);
    let err = rules.list_legal_moves(list(preset(P::ThreeMoves, "h2e2 e2e6"))).await.unwrap_err();
    assert_eq!(violation(&err).0, "position.moves[1]");
    let resp = rules
        .validate_game(proto::ValidateGameRequest { position: Some(preset(P::FourMoves, "h2e2 h0g2 b2b4")) })
        .await
        .unwrap()
        .into_inner();
    assert!(!resp.legal);
    assert_eq!(resp.first_illegal_index, 2);
    assert_eq!(resp.reason, proto::IllegalMoveReason::HandicapRestriction as i32);

    // "startpos" is the preset's start; a FEN wins over the preset.
    let mut p = preset(P::OneChariot, "");
    p.fen = "startpos".into();
    let resp = rules.list_legal_moves(list(p)).await.unwrap().into_inner();
    assert!(resp.status.unwrap().fen.ends_with("/1NBAKABNR w - - 0 1"));
    let mut p = preset(P::OneChariot, "");
    p.fen = "rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w - - 0 1".into();
    let resp = rules.list_legal_moves(list(p)).await.unwrap().into_inner();
    assert_eq!(resp.moves.len(), 44);
    let mut p = preset(P::OneChariot, "");
    p.preset = 99;
    assert_eq!(violation(&rules.list_legal_moves(list(p)).await.unwrap_err()).0, "position.preset");

    // Adjudication follows the handicap's turns.
    let resp = rules
        .adjudicate(proto::AdjudicateRequest {
            position: Some(preset(P::TwoMoves, "h2e2 h0g2 h9g7")),
            rule_set: proto::RuleSet::SimplifiedV1 as i32,
            events: vec![],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.result, proto::GameResult::Ongoing as i32);
    assert_eq!(resp.final_status.unwrap().side_to_move, proto::Player::Red as i32);
    server.shutdown().await;
}

const RECORD: &str = "[Event \"Club match\"]\n[Red \"Li\"]\n[Black \"Wang\"]\n[Result \"1-0\"]\n\n\
                      1. 炮二平五 马8进7 2. 马二进三 {solid} 车9平8 3. 车一平二 1-0\n";

#[tokio::test]
async fn records_import_and_export() {
    use proto::Notation as N;
    let server = start().await;
    let mut client = server.notations().await;
    let resp = client
        .import_record(proto::ImportRecordRequest { text: RECORD.into(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.notation, N::Chinese as i32);
    let game = resp.position.unwrap();
    assert_eq!(game.moves, ["h2e2", "h9g7", "h0g2", "i9h9", "i0h0"]);
    assert_eq!(game.fen, "");
    assert_eq!(resp.result, proto::GameResult::Win as i32);
    assert_eq!(resp.winner, proto::Player::Red as i32);
    assert_eq!(resp.tags[1], proto::RecordTag { name: "Red".into(), value: "Li".into() });
    assert_eq!(resp.comments, [proto::RecordComment { ply: 3, text: "solid".into() }]);

    let resp = client
        .export_record(proto::ExportRecordRequest {
            position: Some(game.clone()),
            tags: resp.tags.clone(),
            notation: N::Wxf as i32,
            comments: resp.comments.clone(),
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.text.contains("[Format \"WXF\"]"), "{}", resp.text);
    assert!(resp.text.contains("[Result \"1-0\"]"), "{}", resp.text);
    assert!(resp.text.contains("1. C2.5 H8+7 2. H2+3 {solid} 2... R9.8 3. R1.2 1-0"), "{}", resp.text);
    let back = client
        .import_record(proto::ImportRecordRequest { text: resp.text, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(back.position.unwrap().moves, game.moves);
    assert_eq!(back.notation, N::Wxf as i32);

    // A handicap record keeps its preset.
    let resp = client
        .export_record(proto::ExportRecordRequest {
            position: Some(preset(proto::StartPreset::TwoMoves, "h2e2 h0g2 h9g7")),
            notation: N::Chinese as i32,
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.text.contains("[Preset \"two-moves\"]"), "{}", resp.text);
    assert!(resp.text.contains("[Result \"*\"]"), "{}", resp.text);
    let back = client
        .import_record(proto::ImportRecordRequest { text: resp.text, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let p = back.position.unwrap();
    assert_eq!(p.preset, proto::StartPreset::TwoMoves as i32);
    assert_eq!(p.moves, ["h2e2", "h0g2", "h9g7"]);

    // So does a start of more extra moves than any preset gives.
    let resp = client
        .export_record(proto::ExportRecordRequest {
            position: Some(proto::Position { handicap_moves: 5, ..position("", "h2e2 h0g2 b0c2 i0h0 a0b0 h9g7") }),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    let back = client
        .import_record(proto::ImportRecordRequest { text: resp.text.clone(), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let p = back.position.unwrap();
    assert_eq!((p.handicap_moves, p.preset), (5, proto::StartPreset::Unspecified as i32), "{}", resp.text);
    assert_eq!(p.moves, ["h2e2", "h0g2", "b0c2", "i0h0", "a0b0", "h9g7"]);

    // A FEN start is kept as a FEN.
    let fen = "4k4/9/9/9/9/9/9/9/4A4/3K5 b - - 0 30";
    let resp = client
        .export_record(proto::ExportRecordRequest {
            position: Some(position(fen, "e9f9 e1f2")),
            tags: vec![proto::RecordTag { name: "Result".into(), value: "1/2-1/2".into() }],
            ..Default::default()
        })
        .await
        .unwrap()
        .into_inner();
    assert!(resp.text.contains("30... e9f9 31. e1f2 1/2-1/2"), "{}", resp.text);
    let back = client
        .import_record(proto::ImportRecordRequest { text: resp.text, ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(back.position.unwrap().fen, fen);
    assert_eq!(back.result, proto::GameResult::Draw as i32);

    // Bad records name the token.
    let err = client
        .import_record(proto::ImportRecordRequest {
            text: "1. 炮二平五 马8进7 2. 炮五进九".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    let (field, description) = violation(&err);
    assert_eq!(field, "text");
    assert!(description.contains("炮五进九"), "{description}");
    let err = client
        .import_record(proto::ImportRecordRequest {
            text: "1. C2.5 H8+7".into(),
            notation: N::Chinese as i32,
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(violation(&err).1.contains("C2.5"));
    let err = client
        .import_record(proto::ImportRecordRequest {
            text: "[Variant \"Three Kingdoms\"]\n".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), Code::Unimplemented);
    let err = client
        .export_record(proto::ExportRecordRequest {
            position: Some(position("startpos", "h2e2")),
            tags: vec![proto::RecordTag { name: "Result".into(), value: "red wins".into() }],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(violation(&err).0, "tags[0].value");
    let err = client
        .export_record(proto::ExportRecordRequest {
            position: Some(position("startpos", "h2e2")),
            comments: vec![proto::RecordComment { ply: 2, text: "later".into() }],
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(violation(&err).0, "comments[0].ply");
    server.shutdown().await;
}

#[tokio::test]
async fn notation_service_reports_healthy() {
    use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};
    let server = start().await;
    let mut health = HealthClient::new(server.channel().await);
    let resp =
        health.check(HealthCheckRequest { service: "chuhe.v1.NotationService".into() }).await.unwrap().into_inner();
    assert_eq!(resp.status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);
    server.shutdown().await;
}

#[test]
fn cli_converts_moves() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_chuhe")).args(args).output().expect("runs");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, _) = run(&["convert", "--moves", "h2e2 h9g7 h0g2", "--from", "iccs", "--to", "chinese"]);
    assert_eq!(code, Some(0));
    assert_eq!(stdout.trim(), "炮二平五 马8进7 马二进三");
    let (code, stdout, _) =
        run(&["convert", "--moves", "炮二平五 马8进7", "--from", "chinese", "--to", "wxf", "--json"]);
    assert_eq!(code, Some(0));
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(json["moves"][1], "H8+7");
    assert_eq!(json["details"][0]["iccs"], "h2e2");
    let (code, _, stderr) = run(&["convert", "--moves", "C2.5 X8+7", "--from", "wxf"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("moves[1]") && stderr.contains("X8+7"), "{stderr}");
}
