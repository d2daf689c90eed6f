//! Repeated request fields that multiply work are capped before any work, and entries
//! the API forbids are refused by name: notations to write each move in, root moves
//! to search, a record's events and their order.

use chuhe::api::proto::{
    self, analysis_service_client::AnalysisServiceClient, rules_service_client::RulesServiceClient,
};
use tonic::Code;

use crate::common;
use common::bad_field;
use common::server::start_small;

fn xiangqi(moves: &str) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: "startpos".into(),
        moves: moves.split_whitespace().map(str::to_string).collect(),
        ..Default::default()
    }
}

fn three_kingdoms() -> proto::Position {
    proto::Position { variant: proto::Variant::ThreeKingdoms as i32, fen: "startpos".into(), ..Default::default() }
}

fn refused(status: tonic::Status, field: &str) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    assert_eq!(bad_field(&status), field, "{status:?}");
}

#[tokio::test]
async fn notations_are_capped_at_one_of_each() {
    let server = start_small().await;
    let mut rules = RulesServiceClient::new(server.channel().await);
    let each = proto::Notation::Wxf as i32;
    let list = |n: usize| proto::ListLegalMovesRequest {
        position: Some(xiangqi("")),
        notations: vec![each; n],
        ..Default::default()
    };
    let answer = rules.list_legal_moves(list(8)).await.expect("eight notations are served").into_inner();
    assert!(answer.moves.iter().all(|m| m.notations.len() == 8), "every move in every notation asked");
    refused(rules.list_legal_moves(list(9)).await.unwrap_err(), "notations");
    // A 200,000-entry request is refused as cheaply as a 9-entry one.
    refused(rules.list_legal_moves(list(200_000)).await.unwrap_err(), "notations");
    let unspecified = proto::Notation::Unspecified as i32;
    let tk = proto::ListLegalMovesRequest {
        position: Some(three_kingdoms()),
        notations: vec![unspecified; 9],
        ..Default::default()
    };
    refused(rules.list_legal_moves(tk).await.unwrap_err(), "notations");
}

#[tokio::test]
async fn search_moves_must_be_legal_and_few() {
    let server = start_small().await;
    let mut analysis = AnalysisServiceClient::new(server.channel().await);
    let request = |search: &[&str], exclude: &[&str]| proto::AnalyzeRequest {
        position: Some(xiangqi("h2e2")),
        limits: Some(proto::SearchLimits { depth: 2, ..Default::default() }),
        search_moves: search.iter().map(|s| s.to_string()).collect(),
        exclude_moves: exclude.iter().map(|s| s.to_string()).collect(),
        ..Default::default()
    };
    // Black to move: h9g7 is legal, h0g2 (Red's horse) is not.
    let answer = analysis.analyze(request(&["h9g7"], &[])).await.expect("a legal root move").into_inner();
    assert_eq!(answer.best_move, "h9g7");
    refused(analysis.analyze(request(&["h9g7", "h0g2"], &[])).await.unwrap_err(), "search_moves[1]");
    refused(analysis.analyze(request(&["zz"], &[])).await.unwrap_err(), "search_moves[0]");
    // Leaving out a move that is not legal changes nothing and is allowed.
    let answer = analysis.analyze(request(&[], &["h0g2"])).await.expect("any move may be left out").into_inner();
    assert!(!answer.best_move.is_empty());
    let many: Vec<&str> = std::iter::repeat_n("h9g7", 257).collect();
    refused(analysis.analyze(request(&[], &many)).await.unwrap_err(), "exclude_moves");
    let tk = proto::AnalyzeRequest {
        position: Some(three_kingdoms()),
        limits: Some(proto::SearchLimits { depth: 1, ..Default::default() }),
        // Wu's chariot: not Shu's to move.
        search_moves: vec!["Ga1-Ga2".into()],
        ..Default::default()
    };
    refused(analysis.analyze(tk).await.unwrap_err(), "search_moves[0]");
}

#[tokio::test]
async fn events_come_in_order_of_ply_and_are_capped() {
    let server = start_small().await;
    let mut rules = RulesServiceClient::new(server.channel().await);
    let event = |kind: proto::GameEventKind, player: proto::Player, ply: u32| proto::GameEvent {
        kind: kind as i32,
        player: player as i32,
        ply,
    };
    let adjudicate = |position: proto::Position, events: Vec<proto::GameEvent>| proto::AdjudicateRequest {
        position: Some(position),
        events,
        ..Default::default()
    };
    let draw = event(proto::GameEventKind::DrawAgreed, proto::Player::Unspecified, 2);
    let resign = event(proto::GameEventKind::Resign, proto::Player::Red, 1);
    let ordered = adjudicate(xiangqi("h2e2 h9g7"), vec![resign, draw]);
    let answer = rules.adjudicate(ordered).await.expect("events in order").into_inner();
    assert_eq!(answer.termination, proto::Termination::Resignation as i32);
    refused(rules.adjudicate(adjudicate(xiangqi("h2e2 h9g7"), vec![draw, resign])).await.unwrap_err(), "events[1].ply");
    refused(rules.adjudicate(adjudicate(xiangqi("h2e2 h9g7"), vec![draw; 257])).await.unwrap_err(), "events");
    let shu = |ply| event(proto::GameEventKind::Resign, proto::Player::Shu, ply);
    let wu = |ply| event(proto::GameEventKind::Timeout, proto::Player::Wu, ply);
    let tk = adjudicate(three_kingdoms(), vec![wu(0), shu(0)]);
    assert!(rules.adjudicate(tk).await.is_ok(), "events at one ply are in order");
    let mut late_first = three_kingdoms();
    late_first.moves = vec!["Rh3-Rh5".into()];
    refused(rules.adjudicate(adjudicate(late_first, vec![shu(1), wu(0)])).await.unwrap_err(), "events[1].ply");
}
