//! The ghz configurations of `deploy/ghz/`: each is complete, listed in its README, and
//! its request, read as the JSON mapping ghz sends, is answered OK by the real server.
//! (ghz itself is not needed: the request goes through the generated client.)

use std::path::Path;

use chuhe::service::proto::{
    self, analysis_service_client::AnalysisServiceClient, notation_service_client::NotationServiceClient,
    rules_service_client::RulesServiceClient,
};
use serde_json::Value;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

mod common;

/// The request of a config, as the message ghz would send.
fn request<T: serde::de::DeserializeOwned>(config: &Value, file: &str) -> T {
    serde_json::from_value(config["data"].clone()).unwrap_or_else(|e| panic!("{file}: data: {e}"))
}

#[tokio::test]
async fn every_ghz_config_is_complete_and_its_request_is_answered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/ghz");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let server = common::server::start_small().await;
    let channel = server.channel().await;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let config: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(config["host"], "127.0.0.1:50051", "{file}");
        assert_eq!(config["insecure"], true, "{file}");
        assert_eq!(config["name"].as_str(), file.strip_suffix(".json"), "{file}");
        for count in ["total", "concurrency"] {
            assert!(config[count].as_u64().is_some_and(|n| n > 0), "{file}: {count}");
        }
        let call = config["call"].as_str().unwrap_or_else(|| panic!("{file}: call"));
        assert!(readme.contains(&format!("`{file}` | `{call}`")), "{file} is listed in deploy/ghz/README.md");
        let ok = match call {
            "grpc.health.v1.Health.Check" => {
                let service = config["data"]["service"].as_str().unwrap_or_else(|| panic!("{file}: service"));
                let r =
                    HealthClient::new(channel.clone()).check(HealthCheckRequest { service: service.to_string() }).await;
                r.map(drop)
            }
            "chuhe.v1.RulesService.ListLegalMoves" => RulesServiceClient::new(channel.clone())
                .list_legal_moves(request::<proto::ListLegalMovesRequest>(&config, &file))
                .await
                .map(drop),
            "chuhe.v1.RulesService.ValidateMove" => {
                let r = RulesServiceClient::new(channel.clone())
                    .validate_move(request::<proto::ValidateMoveRequest>(&config, &file))
                    .await;
                r.map(|r| assert!(r.get_ref().legal, "{file}: {:?}", r.get_ref().detail))
            }
            "chuhe.v1.RulesService.ValidateGame" => {
                let r = RulesServiceClient::new(channel.clone())
                    .validate_game(request::<proto::ValidateGameRequest>(&config, &file))
                    .await;
                r.map(|r| assert!(r.get_ref().legal, "{file}: the game is legal"))
            }
            "chuhe.v1.RulesService.Adjudicate" => RulesServiceClient::new(channel.clone())
                .adjudicate(request::<proto::AdjudicateRequest>(&config, &file))
                .await
                .map(drop),
            "chuhe.v1.AnalysisService.Analyze" => {
                let r = AnalysisServiceClient::new(channel.clone())
                    .analyze(request::<proto::AnalyzeRequest>(&config, &file))
                    .await;
                r.map(|r| assert!(!r.get_ref().best_move.is_empty(), "{file}"))
            }
            "chuhe.v1.AnalysisService.Hint" => AnalysisServiceClient::new(channel.clone())
                .hint(request::<proto::HintRequest>(&config, &file))
                .await
                .map(drop),
            "chuhe.v1.NotationService.ConvertMoves" => NotationServiceClient::new(channel.clone())
                .convert_moves(request::<proto::ConvertMovesRequest>(&config, &file))
                .await
                .map(drop),
            other => panic!("{file}: no check for {other}; add one here"),
        };
        ok.unwrap_or_else(|status| panic!("{file}: {status:?}"));
    }
    server.shutdown().await;
}
