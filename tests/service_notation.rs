//! Integration tests of start presets, move notations in RulesService and
//! NotationService: the real server on an ephemeral port, called with the generated
//! clients.

use std::time::Duration;

use chuhe::service::proto::{self, rules_service_client::RulesServiceClient};
use chuhe::service::server::{ServerConfig, serve};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tonic::Code;
use tonic::transport::Channel;
use tonic_types::StatusExt;

struct Running {
    addr: std::net::SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    handle: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn channel(&self) -> Channel {
        Channel::from_shared(format!("http://{}", self.addr)).unwrap().connect().await.expect("connect")
    }

    async fn rules(&self) -> RulesServiceClient<Channel> {
        RulesServiceClient::new(self.channel().await)
    }

    async fn shutdown(mut self) {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(Duration::from_secs(10), self.handle).await.expect("server stops").unwrap();
    }
}

async fn start() -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        serve(ServerConfig::default(), listener, async move {
            let _ = rx.await;
        })
        .await
        .expect("server runs");
    });
    Running { addr, stop: Some(tx), handle }
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

/// The field and description of the status's BadRequest detail.
fn violation(status: &tonic::Status) -> (String, String) {
    assert_eq!(status.code(), Code::InvalidArgument, "{status:?}");
    let details = status.get_error_details();
    let bad = details.bad_request().expect("BadRequest detail");
    (bad.field_violations[0].field.clone(), bad.field_violations[0].description.clone())
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
    assert!(resp.moves.iter().all(|m| m.player == proto::Player::Red as i32));
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
