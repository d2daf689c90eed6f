//! NotationService for every variant: a request's game is routed by its variant as in
//! the other RPCs, so Three Kingdoms moves are converted in point names, and a Three
//! Kingdoms record is refused with the field that asks for it. The real server on an
//! ephemeral port, called with the generated clients.

use chuhe::api::proto::{self, rules_service_client::RulesServiceClient};
use chuhe::service::server::ServerConfig;
use tonic::Code;

use crate::common;
use common::{bad_field, convert_request};

fn three_kingdoms(fen: &str, moves: &[&str]) -> proto::Position {
    proto::Position {
        variant: proto::Variant::ThreeKingdoms as i32,
        fen: fen.to_string(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    }
}

#[tokio::test]
async fn three_kingdoms_moves_are_converted_in_point_names() {
    use proto::Notation as N;
    let server = common::server::start(ServerConfig::default()).await;
    let mut client = server.notations().await;
    let mut rules = RulesServiceClient::new(server.channel().await);
    let start = three_kingdoms("startpos", &[]);

    for (from, to) in [(N::Unspecified, N::PointName), (N::PointName, N::Unspecified)] {
        let resp = client.convert_moves(convert_request(start.clone(), "Rh3-Rg3", from, to)).await.unwrap();
        let resp = resp.into_inner();
        assert_eq!(resp.moves, ["Rh3-Rg3"]);
        let detail = &resp.details[0];
        assert_eq!(detail.iccs, "Rh3-Rg3");
        assert_eq!(detail.from.as_ref().unwrap().name, "Rh3");
        assert_eq!(detail.to.as_ref().unwrap().name, "Rg3");
        assert_eq!(detail.piece, proto::PieceKind::Cannon as i32);
        assert_eq!(detail.notations, [proto::NotationText { notation: to as i32, text: "Rh3-Rg3".into() }]);
    }

    // The moves are played in turn: what the rules call the second move's mover, the
    // conversion says too; a move of the wrong kingdom is refused by its index.
    let after_first = three_kingdoms("startpos", &["Rh3-Rg3"]);
    let listed = rules
        .list_legal_moves(proto::ListLegalMovesRequest { position: Some(after_first), ..Default::default() })
        .await
        .unwrap()
        .into_inner();
    let second = listed.moves.first().expect("a legal second move").iccs.clone();
    let both = format!("Rh3-Rg3 {second}");
    let resp = client.convert_moves(convert_request(start.clone(), &both, N::PointName, N::PointName)).await;
    let resp = resp.unwrap().into_inner();
    assert_eq!(resp.moves, ["Rh3-Rg3", second.as_str()]);
    assert_eq!(resp.details[1].player, listed.status.unwrap().side_to_move);
    assert_ne!(resp.details[1].player, resp.details[0].player);
    let err = client
        .convert_moves(convert_request(start.clone(), "Rh3-Rg3 Rh1-Rh5", N::Unspecified, N::Unspecified))
        .await
        .unwrap_err();
    assert_eq!(bad_field(&err), "moves[1]");
    let err = client.convert_moves(convert_request(start.clone(), "Rz9-Re3", N::Unspecified, N::Unspecified)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "moves[0]");

    // The 9x10 notations do not apply, on either side; the start is checked as
    // ListLegalMoves checks a position, under the field's own name.
    let err = client.convert_moves(convert_request(start.clone(), "Rh3-Rg3", N::Iccs, N::PointName)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "from");
    let err = client.convert_moves(convert_request(start.clone(), "Rh3-Rg3", N::PointName, N::Wxf)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "to");
    let mut unknown = convert_request(start.clone(), "Rh3-Rg3", N::PointName, N::PointName);
    unknown.to = 99;
    assert_eq!(bad_field(&client.convert_moves(unknown).await.unwrap_err()), "to");
    let bad_start = three_kingdoms("nonsense", &[]);
    let err = client.convert_moves(convert_request(bad_start, "Rh3-Rg3", N::PointName, N::PointName)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "start.fen");
    let bad_record = three_kingdoms("startpos", &["Rh3-Rg3", "h2e2"]);
    let err = client.convert_moves(convert_request(bad_record, "", N::PointName, N::PointName)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "start.moves[1]");

    // A 9x10 game still refuses the point names.
    let xiangqi = proto::Position { variant: proto::Variant::Xiangqi as i32, ..Default::default() };
    let err = client.convert_moves(convert_request(xiangqi, "h2e2", N::PointName, N::Iccs)).await;
    assert_eq!(bad_field(&err.unwrap_err()), "from");
    server.shutdown().await;
}

#[tokio::test]
async fn three_kingdoms_records_are_refused_naming_the_field() {
    let server = common::server::start(ServerConfig::default()).await;
    let mut client = server.notations().await;
    let unimplemented_naming = |err: tonic::Status, field: &str| {
        assert_eq!(err.code(), Code::Unimplemented, "{err:?}");
        assert!(err.message().starts_with(&format!("{field}:")), "{err:?}");
        assert!(err.message().contains("Three Kingdoms"), "{err:?}");
    };

    let export = |position| proto::ExportRecordRequest { position: Some(position), ..Default::default() };
    let err = client.export_record(export(three_kingdoms("startpos", &["Rh3-Rg3"]))).await.unwrap_err();
    unimplemented_naming(err, "position.variant");
    // The game is built first, as for every RPC: a bad record names its move.
    let err = client.export_record(export(three_kingdoms("startpos", &["Rh3-Rg3", "h2e2"]))).await.unwrap_err();
    assert_eq!(bad_field(&err), "position.moves[1]");

    let import = |text: &str, variant: proto::Variant| proto::ImportRecordRequest {
        text: text.into(),
        variant: variant as i32,
        ..Default::default()
    };
    let err = client.import_record(import("", proto::Variant::ThreeKingdoms)).await.unwrap_err();
    unimplemented_naming(err, "variant");
    let tagged = "[Variant \"Three Kingdoms\"]\n";
    let err = client.import_record(import(tagged, proto::Variant::Unspecified)).await.unwrap_err();
    unimplemented_naming(err, "text");
    // The request's variant wins over the tag, as for the 9x10 games.
    let err = client.import_record(import(tagged, proto::Variant::Xiangqi)).await;
    assert!(err.is_ok(), "{err:?}");
    let mut unknown = import("", proto::Variant::Xiangqi);
    unknown.variant = 99;
    assert_eq!(bad_field(&client.import_record(unknown).await.unwrap_err()), "variant");
    server.shutdown().await;
}
