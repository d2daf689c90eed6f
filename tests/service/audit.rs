//! AuditGame and AuditGameStream through the real server and the generated client:
//! engine moves agree with the engine, blunders and random moves are seen, book and
//! forced plies are skipped, answers repeat, cancelling stops the work, limits are
//! checked before any search.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chuhe::api::audit;
use chuhe::api::proto::{self, analysis_service_client::AnalysisServiceClient};
use chuhe::engine::{Engine, EngineConfig};
use chuhe::game::{BoardGame, Variant};
use chuhe::rules::types::MoveList;
use chuhe::search::tt::TranspositionTable;
use chuhe::search::{Limits, Params};
use chuhe::service::server::ServerConfig;
use tonic::transport::Channel;

use crate::common;
use common::bad_field;

/// Nodes per ply in these tests: small, so that they run fast on a loaded machine.
const NODES: u64 = 3_000;

async fn start(config: ServerConfig) -> (AnalysisServiceClient<Channel>, common::server::Running) {
    let server = common::server::start(config).await;
    (server.analysis().await, server)
}

async fn start_small() -> (AnalysisServiceClient<Channel>, common::server::Running) {
    start(ServerConfig { engine: common::server::small_engine(), ..ServerConfig::default() }).await
}

fn xiangqi(fen: &str, moves: &[String]) -> proto::Position {
    proto::Position {
        variant: proto::Variant::Xiangqi as i32,
        fen: fen.into(),
        moves: moves.to_vec(),
        ..Default::default()
    }
}

fn words(moves: &str) -> Vec<String> {
    moves.split_whitespace().map(str::to_string).collect()
}

fn request(position: proto::Position) -> proto::AuditGameRequest {
    proto::AuditGameRequest { position: Some(position), nodes_per_ply: NODES, ..Default::default() }
}

fn side(r: &proto::AuditGameResponse, player: proto::Player) -> proto::AuditSideSummary {
    let summary = r.summary.as_ref().expect("a summary");
    summary.sides.iter().find(|s| s.player == player as i32).cloned().expect("the side's summary")
}

/// The engine's choice in `game` as an audit searches it: the audit's parameters and
/// evaluation, one thread, a fresh table of the audit's size, the variant's default
/// rules.
fn engine_choice(engine: &Engine, game: &BoardGame) -> chuhe::rules::types::Move {
    let params = Params {
        limits: Limits { nodes: Some(NODES), ..Limits::default() },
        multipv: audit::DEFAULT_MULTIPV as usize,
        threads: 1,
        nnue: engine.config.evaluation.net_for(game.net_variant()),
        ..Params::default()
    };
    let tt = TranspositionTable::new(audit::HASH_MB);
    let game = game.clone().with_default_rules();
    let stop = AtomicBool::new(false);
    engine.search_with(&tt, &game, &params, None, &stop, &mut |_| {}).best.expect("a move")
}

/// A game from the start: Red plays the engine's choice at the audit's budget, Black a
/// random legal move (a fixed seed).
fn engine_against_random(plies: usize) -> Vec<String> {
    let engine = Engine::new(EngineConfig { hash_mb: 1, workers: 1, ..EngineConfig::default() });
    let mut game = BoardGame::startpos(Variant::Xiangqi);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut moves = Vec::new();
    for _ in 0..plies {
        let mut legal = MoveList::new();
        game.legal_moves(&mut legal);
        if legal.is_empty() {
            break;
        }
        let m = if game.turn() == chuhe::rules::types::Color::Red {
            engine_choice(&engine, &game)
        } else {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            legal.as_slice()[(seed >> 33) as usize % legal.len()]
        };
        moves.push(m.to_string());
        game.play_unchecked(m);
    }
    moves
}

#[tokio::test]
async fn engine_moves_agree_fully_and_random_moves_score_far_worse() {
    let (mut client, _server) = start_small().await;
    let moves = engine_against_random(24);
    let r = client.audit_game(request(xiangqi("startpos", &moves))).await.unwrap().into_inner();
    let red_plies: Vec<_> = r.plies.iter().filter(|p| p.mover == proto::Player::Red as i32).collect();
    assert_eq!(red_plies.len(), moves.len().div_ceil(2));
    for p in &red_plies {
        assert_eq!((p.played_rank, p.cp_loss, &p.played_move), (1, 0, &p.best_move), "{p:?}");
        assert_eq!(p.class, proto::AuditMoveClass::Best as i32);
    }
    let red = side(&r, proto::Player::Red);
    let black = side(&r, proto::Player::Black);
    assert!(red.plies_counted >= 3, "{red:?}");
    assert_eq!((red.top1_agreement, red.top3_agreement, red.average_cp_loss), (1.0, 1.0, 0.0), "{red:?}");
    assert!(red.accuracy > 99.0, "{red:?}");
    assert_eq!(red.best, red.plies_counted);
    assert!(black.plies_counted >= 3, "{black:?}");
    assert!(black.average_cp_loss > red.average_cp_loss + 50.0, "{black:?}");
    assert!(black.accuracy < red.accuracy - 15.0, "{black:?}");
    assert!(black.top1_agreement < 0.5, "{black:?}");
    let parameters = r.summary.as_ref().unwrap().parameters.clone().unwrap();
    assert_eq!(parameters.engine_version, env!("CARGO_PKG_VERSION"));
    assert_eq!((parameters.nodes_per_ply, parameters.multipv, parameters.threads), (NODES, 3, 1));
    assert!(parameters.deterministic);
    assert_eq!(parameters.rule_set, proto::RuleSet::SimplifiedV1 as i32);
}

#[tokio::test]
async fn a_hanging_chariot_is_a_blunder() {
    let (mut client, _server) = start_small().await;
    // Red's chariot goes to h1, where Black's cannon takes it over Red's cannon.
    let mut req = request(xiangqi("startpos", &words("i0i1 h9g7 i1h1 h7h1")));
    req.players = vec![proto::Player::Red as i32];
    let r = client.audit_game(req).await.unwrap().into_inner();
    assert!(r.plies.iter().all(|p| p.mover == proto::Player::Red as i32));
    let blunder = r.plies.iter().find(|p| p.move_index == 2).expect("the chariot move is audited");
    assert_eq!(blunder.played_move, "i1h1");
    assert_eq!(blunder.class, proto::AuditMoveClass::Blunder as i32, "{blunder:?}");
    assert!(blunder.cp_loss > 300 && !blunder.forced && !blunder.decided, "{blunder:?}");
    assert!(blunder.win_probability_loss > 0.3, "{blunder:?}");
    assert_eq!(blunder.lines.len(), 3);
    assert_eq!(r.summary.unwrap().sides.len(), 1);
}

#[tokio::test]
async fn book_and_forced_plies_are_skipped_and_counted() {
    let (mut client, _server) = start_small().await;
    // Black's king, checked by the chariot on its file, has one move each time (the
    // other way opens the file between the kings).
    let mut req = request(xiangqi("4k4/9/9/9/9/9/9/9/4R4/3K5 b - - 0 1", &words("e9f9 e1f1 f9e9 f1f2")));
    req.book_plies = 1;
    let r = client.audit_game(req).await.unwrap().into_inner();
    let indices: Vec<u32> = r.plies.iter().map(|p| p.move_index).collect();
    assert_eq!(indices, vec![1, 2, 3], "the book ply is not searched");
    assert!(r.plies[1].forced, "{:?}", r.plies[1]);
    let black = side(&r, proto::Player::Black);
    assert_eq!((black.plies_book, black.plies_forced, black.plies_counted), (1, 1, 0), "{black:?}");
    let red = side(&r, proto::Player::Red);
    // Red mates in one or two whatever it plays: decided, not counted.
    assert_eq!((red.plies_book, red.plies_decided, red.plies_counted), (0, 2, 0), "{red:?}");
    assert_eq!(r.summary.unwrap().parameters.unwrap().book_plies, 1);
}

/// The plies and summary of an AuditGameStream call, checking the message order.
async fn streamed(
    client: &mut AnalysisServiceClient<Channel>,
    r: &proto::AuditGameRequest,
) -> proto::AuditGameResponse {
    use proto::audit_game_stream_response::Message;
    let req = proto::AuditGameStreamRequest {
        position: r.position.clone(),
        rule_set: r.rule_set,
        players: r.players.clone(),
        nodes_per_ply: r.nodes_per_ply,
        movetime_ms_per_ply: r.movetime_ms_per_ply,
        multipv: r.multipv,
        book_plies: r.book_plies,
        clock_ms: r.clock_ms.clone(),
    };
    let mut stream = client.audit_game_stream(req).await.unwrap().into_inner();
    let mut answer = proto::AuditGameResponse::default();
    while let Some(message) = stream.message().await.unwrap() {
        assert!(answer.summary.is_none(), "the summary is the last message");
        match message.message.expect("a ply or the summary") {
            Message::Ply(p) => answer.plies.push(p),
            Message::Summary(s) => answer.summary = Some(s),
        }
    }
    assert!(answer.summary.is_some());
    answer
}

#[tokio::test]
async fn the_same_request_gives_the_same_answer_beside_other_clients() {
    let (mut client, _server) = start_small().await;
    let moves = words("h2e2 h9g7 h0g2 i9h9 i0h0 b9c7 b2d2 b7b3 g3g4 h7h3 b0c2 a9a8");
    let mut req = request(xiangqi("startpos", &moves));
    req.multipv = 2;
    req.clock_ms = (0..moves.len() as u32).map(|i| 500 + (i * 737) % 4_000).collect();
    let alone = client.audit_game(req.clone()).await.unwrap().into_inner();
    assert_eq!(alone.plies.len(), moves.len());
    // Another client searches the same positions meanwhile, filling the shared table.
    let other = client.clone();
    let busy = tokio::spawn(async move {
        for n in (2..moves.len()).step_by(2) {
            let analyze = proto::AnalyzeRequest {
                position: Some(xiangqi("startpos", &moves[..n])),
                limits: Some(proto::SearchLimits { nodes: 20_000, ..Default::default() }),
                multipv: 2,
                ..Default::default()
            };
            other.clone().analyze(analyze).await.unwrap();
        }
    });
    let beside = client.clone().audit_game(req.clone()).await.unwrap().into_inner();
    busy.await.unwrap();
    assert_eq!(alone, beside);
    let again = streamed(&mut client, &req).await;
    assert_eq!(alone, again);
}

#[tokio::test]
async fn cancelling_the_stream_frees_its_search_thread() {
    let engine = EngineConfig { workers: 1, max_queue_wait: Duration::from_secs(5), ..common::server::small_engine() };
    let (mut client, _server) = start(ServerConfig { engine, ..ServerConfig::default() }).await;
    // Long enough to hold the only search thread for minutes if it were not stopped.
    let moves = engine_against_random(30);
    let long = proto::AuditGameStreamRequest {
        position: Some(xiangqi("startpos", &moves)),
        nodes_per_ply: 1_000_000,
        movetime_ms_per_ply: 0,
        ..Default::default()
    };
    let mut stream = client.audit_game_stream(long).await.unwrap().into_inner();
    let _first = stream.message().await.unwrap().expect("a first ply");
    drop(stream);
    // The next search waits up to 5 s for the thread (a loaded machine may take a
    // while to run the search thread, which then stops), against the minutes the audit
    // would hold it.
    let analyze = proto::AnalyzeRequest {
        position: Some(xiangqi("startpos", &[])),
        limits: Some(proto::SearchLimits { depth: 1, ..Default::default() }),
        ..Default::default()
    };
    if let Err(status) = client.analyze(analyze).await {
        panic!("the audit still holds the search thread: {status:?}");
    }
}

#[tokio::test]
async fn limits_and_bad_input_name_the_field() {
    let (mut client, _server) =
        start(ServerConfig { engine: common::server::small_engine(), max_game_plies: 4, ..ServerConfig::default() })
            .await;
    let ok = request(xiangqi("startpos", &words("h2e2 h9g7")));
    let cases: Vec<(proto::AuditGameRequest, &str)> = vec![
        (
            proto::AuditGameRequest {
                position: Some(proto::Position {
                    variant: proto::Variant::ThreeKingdoms as i32,
                    fen: "startpos".into(),
                    ..Default::default()
                }),
                ..ok.clone()
            },
            "position.variant",
        ),
        (request(xiangqi("startpos", &words("h2e2 h9g7 h0g2 i9h9 i0h0"))), "position.moves"),
        (proto::AuditGameRequest { multipv: audit::MAX_MULTIPV + 1, ..ok.clone() }, "multipv"),
        (request(xiangqi("startpos", &words("h2e2 h2e2"))), "position.moves[1]"),
        (proto::AuditGameRequest { nodes_per_ply: audit::MAX_NODES_PER_PLY + 1, ..ok.clone() }, "nodes_per_ply"),
        (proto::AuditGameRequest { movetime_ms_per_ply: 60_000, ..ok.clone() }, "movetime_ms_per_ply"),
        (proto::AuditGameRequest { players: vec![proto::Player::Shu as i32], ..ok.clone() }, "players[0]"),
        (proto::AuditGameRequest { clock_ms: vec![1_000], ..ok.clone() }, "clock_ms"),
        (proto::AuditGameRequest { position: None, ..ok.clone() }, "position"),
        (proto::AuditGameRequest { rule_set: proto::RuleSet::JanggiCasualV1 as i32, ..ok.clone() }, "rule_set"),
    ];
    for (req, field) in cases {
        let status = client.audit_game(req.clone()).await.unwrap_err();
        assert_eq!(bad_field(&status), field, "{status:?}");
        let stream = proto::AuditGameStreamRequest {
            position: req.position,
            rule_set: req.rule_set,
            players: req.players,
            nodes_per_ply: req.nodes_per_ply,
            movetime_ms_per_ply: req.movetime_ms_per_ply,
            multipv: req.multipv,
            book_plies: req.book_plies,
            clock_ms: req.clock_ms,
        };
        let status = client.audit_game_stream(stream).await.unwrap_err();
        assert_eq!(bad_field(&status), field, "stream: {status:?}");
    }
    assert!(client.audit_game(ok).await.is_ok());
}

#[tokio::test]
async fn janggi_games_are_audited() {
    let (mut client, _server) = start_small().await;
    let position = proto::Position {
        variant: proto::Variant::Janggi as i32,
        moves: words("b0c2 b9c7 pass"),
        ..Default::default()
    };
    let r = client.audit_game(request(position)).await.unwrap().into_inner();
    assert_eq!(r.plies.len(), 3);
    assert_eq!(r.plies[2].played_move, "pass");
    assert_eq!(r.summary.unwrap().parameters.unwrap().rule_set, proto::RuleSet::JanggiCasualV1 as i32);
}
