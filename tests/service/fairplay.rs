//! AssessPlayer over gRPC: progress per game then one assessment per player, equal to
//! the library's own assessment of the same games; every bad field named; the model
//! file read again when it changes; a server with a bad model does not start.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chuhe::api::fairplay::assessment_message;
use chuhe::api::proto;
use chuhe::engine::{Engine, EngineConfig};
use chuhe::fairplay::assess::{self, Request};
use chuhe::fairplay::choice::Params;
use chuhe::fairplay::games::read_games;
use chuhe::fairplay::model::{Band, FORMAT, Honest, Model, Population, Spread, VERSION};
use chuhe::fairplay::screen::{Judging, judge_games};
use chuhe::fairplay::sides::Excluded;
use chuhe::fairplay::statistics::Inflation;
use chuhe::game::{RuleSet, Variant};
use chuhe::service::server::ServerConfig;

use crate::common::bad_field;
use crate::common::server::{Running, small_engine, start};

const RECORD: &str = "lu-qin-xu-yinchuan-2004.pgn";

fn record() -> String {
    std::fs::read_to_string(crate::common::data_path(&format!("records/{RECORD}"))).unwrap()
}

fn judging() -> Judging {
    Judging { rules: RuleSet::default_for(Variant::Xiangqi), nodes: 1500, multipv: 3, book_plies: 6 }
}

/// A model with the server engine's settings and the parameters given (the statistics
/// are not under test here, the call is).
pub(crate) fn model(s: f64) -> Model {
    let engine = Engine::new(small_engine());
    let band = Band {
        rating_low: None,
        rating_high: None,
        rating: None,
        sides: 1,
        positions: 1,
        params: Params { s, c: 1.0 },
    };
    let spread = Spread { mean: 0.0, sd: 1.0 };
    Model {
        format: FORMAT.into(),
        version: VERSION,
        settings: judging().settings(&engine),
        bands: vec![band.clone()],
        pooled: band,
        honest: Honest {
            unit: "game side".into(),
            units: 10,
            positions_per_unit: 30.0,
            agreement: spread,
            error: spread,
            combined: spread,
            inflation: Inflation::NONE,
        },
        population: Population {
            games: 1,
            players: 2,
            positions: 1,
            held_out_positions: 1,
            excluded: Excluded::default(),
        },
    }
}

pub(crate) fn model_file(name: &str, m: &Model) -> PathBuf {
    let path = std::env::temp_dir().join(format!("chuhe-fairplay-{}-{name}.json", std::process::id()));
    std::fs::write(&path, m.to_json()).unwrap();
    path
}

async fn server(models: Vec<PathBuf>) -> Running {
    start(ServerConfig {
        engine: small_engine(),
        fairplay_models: models,
        fairplay_reload_interval: Duration::from_millis(100),
        ..ServerConfig::default()
    })
    .await
}

pub(crate) fn request(player: &str) -> proto::AssessPlayerRequest {
    proto::AssessPlayerRequest {
        variant: proto::Variant::Xiangqi as i32,
        games: vec![proto::FairPlayGame { record: record(), ..Default::default() }],
        player: player.into(),
        ..Default::default()
    }
}

/// The progress messages and the assessments of a call.
pub(crate) async fn call(
    running: &Running,
    r: proto::AssessPlayerRequest,
) -> (Vec<proto::AssessProgress>, Vec<proto::PlayerAssessment>) {
    use proto::assess_player_response::Message;
    let mut stream = running.analysis().await.assess_player(r).await.unwrap().into_inner();
    let (mut progress, mut assessments) = (Vec::new(), Vec::new());
    while let Some(m) = stream.message().await.unwrap() {
        match m.message.expect("a message") {
            Message::Progress(p) => {
                assert!(assessments.is_empty(), "progress comes before the assessments");
                progress.push(p);
            }
            Message::Assessment(a) => assessments.push(a),
        }
    }
    (progress, assessments)
}

#[tokio::test]
async fn an_assessment_over_grpc_is_the_librarys_own() {
    let m = model(25.0);
    let running = server(vec![model_file("same", &m)]).await;
    let (progress, got) = call(&running, request("")).await;
    assert_eq!(progress.len(), 1);
    assert_eq!((progress[0].games_done, progress[0].games), (1, 1));
    assert_eq!(got.len(), 2, "both players");
    // The same games judged here, on this thread's engine.
    let engine = Engine::new(EngineConfig { max_analysis: Duration::from_secs(600), ..small_engine() });
    let mut games = read_games("games[0]", &record(), judging().rules, false).unwrap();
    let screening = judging().screening(&engine, 2);
    assert!(judge_games(&engine, &screening, &mut games, &|_, _| true, &AtomicBool::new(false), &|_, _| {}));
    let everyone = Request { player: None, family_size: 1, rating: None };
    let want: Vec<proto::PlayerAssessment> =
        assess::assess(&m, &games, &everyone).unwrap().iter().map(assessment_message).collect();
    assert_eq!(got, want);
    assert!(got.iter().all(|a| a.positions >= 20 && a.sensitivity == 25.0));
    // One player asked for: that player only, the same figures.
    let (_, one) = call(&running, request(&got[1].player)).await;
    assert_eq!(one, vec![got[1].clone()]);
}

#[tokio::test]
async fn bad_fields_are_named() {
    let running = server(vec![model_file("bad-fields", &model(25.0))]).await;
    let mut client = running.analysis().await;
    let mut broken = request("");
    broken.games[0].record = record() + " a0a9";
    let mut unnamed = request("");
    unnamed.games.push(proto::FairPlayGame { position: Some(Default::default()), ..Default::default() });
    let three_kingdoms = proto::AssessPlayerRequest { variant: proto::Variant::ThreeKingdoms as i32, ..request("") };
    let cases: Vec<(proto::AssessPlayerRequest, &str)> = vec![
        (proto::AssessPlayerRequest { family_size: Some(0), ..request("") }, "family_size"),
        (request("Nobody"), "player"),
        (three_kingdoms, "variant"),
        (proto::AssessPlayerRequest { variant: 0, ..request("") }, "variant"),
        (broken, "games[0].record"),
        (unnamed, "games[1].position.variant"),
        (proto::AssessPlayerRequest { rating: Some(f64::NAN), ..request("") }, "rating"),
    ];
    for (r, field) in cases {
        let status = client.assess_player(r).await.expect_err(field);
        assert_eq!(bad_field(&status), field, "{status:?}");
    }
    let janggi = proto::AssessPlayerRequest { variant: proto::Variant::Janggi as i32, ..request("") };
    let status = client.assess_player(janggi).await.expect_err("no Janggi model");
    assert_eq!(status.code(), tonic::Code::FailedPrecondition, "{status:?}");
    assert!(status.message().contains("--fairplay-model"), "{status:?}");
}

#[tokio::test]
async fn a_changed_model_file_is_read_again_and_a_broken_one_is_not() {
    let path = model_file("reload", &model(25.0));
    let running = server(vec![path.clone()]).await;
    std::fs::write(&path, model(60.0).to_json()).unwrap();
    let mut seen = 0.0;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (_, got) = call(&running, request("吕钦")).await;
        seen = got[0].sensitivity;
        if seen == 60.0 {
            break;
        }
    }
    assert_eq!(seen, 60.0, "the new model is in use");
    std::fs::write(&path, "{ not a model").unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, got) = call(&running, request("吕钦")).await;
    assert_eq!(got[0].sensitivity, 60.0, "a broken file leaves the model in use");
}

#[tokio::test]
async fn a_server_with_an_unreadable_model_does_not_start() {
    let path = std::env::temp_dir().join(format!("chuhe-fairplay-{}-garbage.json", std::process::id()));
    std::fs::write(&path, "[]").unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let config = ServerConfig { fairplay_models: vec![path.clone()], ..ServerConfig::default() };
    let e = chuhe::service::server::serve(config, listener, std::future::pending()).await.expect_err("refused");
    assert!(e.to_string().contains("garbage.json"), "{e}");
}
