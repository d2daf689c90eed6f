//! The ghz configurations of `deploy/ghz/`: each is complete, listed in its README, and
//! its request, read as the JSON mapping ghz sends, is answered OK by the real server.
//! (ghz itself is not needed: the request goes through the generated client.)

use std::path::Path;
use std::time::Duration;

use chuhe::service::server::ServerConfig;
use serde_json::Value;

use crate::common;

#[tokio::test]
async fn every_ghz_config_is_complete_and_its_request_is_answered() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/ghz");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    // The answers are checked, not their latency: the audit's 850,000 nodes in the test
    // build can pass the default 30 s request timeout on a loaded 2-core machine.
    let config = ServerConfig {
        engine: common::server::small_engine(),
        request_timeout: Duration::from_secs(600),
        ..ServerConfig::default()
    };
    let server = common::server::start(config).await;
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
        let data = &config["data"];
        assert!(data.is_object(), "{file}: data");
        let answer =
            common::json_call::call(&channel, call, data).await.unwrap_or_else(|status| panic!("{file}: {status:?}"));
        // The loads measure the path a real client takes: a legal move, a legal game,
        // a search that finds a move, a serving service; and each answer is right by the
        // rules.
        match call {
            "chuhe.v1.RulesService.ValidateMove" | "chuhe.v1.RulesService.ValidateGame" => {
                assert_eq!(answer["legal"], true, "{file}: {answer}")
            }
            "chuhe.v1.AnalysisService.Analyze" => {
                assert!(answer["bestMove"].as_str().is_some_and(|m| !m.is_empty()), "{file}: {answer}")
            }
            _ => {}
        }
        common::json_call::check_answer(call, data, &answer, &format!("{file}: {answer}"));
    }
    server.shutdown().await;
}
