//! The audit log: one structured line per call (target `chuhe::audit`) with its
//! tenant, method, code, duration and bytes in and out, and never a key or a body. The
//! real server on an ephemeral port, called with a real client; the lines are the JSON
//! the process's subscriber writes.

use std::io::Write;
use std::sync::{Arc, Mutex};

use chuhe::service::server::ServerConfig;

mod common;
use common::server::{small_engine, start};
use common::{list_request as list, with_key};

/// Everything the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Captured {
    type Writer = Captured;
    fn make_writer(&'a self) -> Captured {
        self.clone()
    }
}

impl Captured {
    /// The audit lines written so far, each as JSON.
    fn audit_lines(&self) -> Vec<serde_json::Value> {
        let text = String::from_utf8(self.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{l}: {e}")))
            .filter(|v| v["target"] == "chuhe::audit")
            .collect()
    }

    fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

#[tokio::test]
async fn every_call_writes_one_audit_line_without_keys_or_bodies() {
    let captured = Captured::default();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_max_level(tracing::Level::INFO)
        .with_writer(captured.clone())
        .finish();
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber of this test binary");

    const KEY: &str = "a-secret-key-never-logged";
    let hash: String = ring::digest::digest(&ring::digest::SHA256, KEY.as_bytes())
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let keys = std::env::temp_dir().join(format!("chuhe-call-log-{}.json", std::process::id()));
    std::fs::write(&keys, format!(r#"[{{"tenant": "acme", "key_sha256": "{hash}"}}]"#)).unwrap();
    let server =
        start(ServerConfig { api_keys: Some(keys.clone()), engine: small_engine(), ..Default::default() }).await;
    let mut rules = server.rules().await;

    let secret_fen = "9/9/9/9/9/9/9/9/9/4K4 w - - 0 1 secret-body-text";
    let listed = rules.list_legal_moves(with_key(list("startpos"), KEY)).await.expect("listed");
    let bad = rules.list_legal_moves(with_key(list(secret_fen), KEY)).await.unwrap_err();
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    let refused = rules.list_legal_moves(list("startpos")).await.unwrap_err();
    assert_eq!(refused.code(), tonic::Code::Unauthenticated);
    server.shutdown().await;
    std::fs::remove_file(keys).unwrap();

    let lines = captured.audit_lines();
    let calls: Vec<_> = lines.iter().filter(|l| l["method"] == "ListLegalMoves").collect();
    assert_eq!(calls.len(), 3, "one line per call: {lines:#?}");
    let (ok, invalid, unauthenticated) = (calls[0], calls[1], calls[2]);
    assert_eq!(ok["code"], "OK");
    assert_eq!(ok["tenant"], "acme");
    assert_eq!(ok["service"], "chuhe.v1.RulesService");
    assert!(ok["bytes_in"].as_u64().unwrap() > 5, "{ok}");
    // 44 moves, each a few bytes at least.
    let answer_bytes = prost::Message::encoded_len(listed.get_ref()) as u64;
    assert!(ok["bytes_out"].as_u64().unwrap() >= answer_bytes, "{ok}");
    assert!(ok["duration_ms"].as_f64().unwrap() >= 0.0);
    assert!(ok["peer"].as_str().is_some_and(|p| p.starts_with("127.0.0.1:")), "{ok}");
    assert_eq!(invalid["code"], "InvalidArgument");
    assert_eq!(invalid["tenant"], "acme");
    assert_eq!(unauthenticated["code"], "Unauthenticated");
    assert!(unauthenticated.get("tenant").is_none_or(|t| t.is_null()), "{unauthenticated}");
    let text = captured.text();
    assert!(!text.contains(KEY), "a key was logged");
    assert!(!text.contains(&hash), "a key's hash was logged");
    assert!(!text.contains("secret-body-text"), "a request body was logged");
}
