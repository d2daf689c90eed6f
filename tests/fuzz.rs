//! Fuzzing as ordinary tests: random bytes and text fed to every request decoder and
//! handler of the API (each request message decoded from raw bytes, or from a valid
//! request with bytes changed, then handed to its `api::` function), the FEN and Three
//! Kingdoms position-text readers, every move notation of every variant, and record
//! import. Nothing may panic; a handler's bad field must name itself.
//!
//! The default run is short (`PROPTEST_CASES` cases per harness, 64 unless set). To
//! run longer, for example a million cases each (the test profile is optimised):
//!
//! ```text
//! PROPTEST_CASES=1000000 cargo test --test fuzz
//! ```

use std::sync::{Arc, LazyLock};

use chuhe::api::convert::ContentLimits;
use chuhe::api::{self, Error, proto};
use chuhe::engine::{Engine, EngineConfig};
use chuhe::game::{BoardGame, Variant};
use chuhe::notation::{Notation, fen, record};
use chuhe::rules::three_kingdoms;
use proptest::prelude::*;
use proptest::test_runner::Config;
use prost::Message;

/// `PROPTEST_CASES`, or a short run.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64);
    Config { cases, failure_persistence: None, ..Config::default() }
}

const LIMITS: ContentLimits = ContentLimits { max_game_plies: 300 };

/// A tiny engine: searches of a few milliseconds.
static ENGINE: LazyLock<Arc<Engine>> = LazyLock::new(|| {
    Engine::new(EngineConfig {
        hash_mb: 1,
        workers: 1,
        max_analysis: std::time::Duration::from_millis(5),
        default_analysis: std::time::Duration::from_millis(5),
        ..EngineConfig::default()
    })
});

/// An answer of a handler: any but a fault of the program, and a bad field names itself.
fn check<T>(answer: Result<T, Error>) {
    match answer {
        Err(Error::BadField { field, reason }) => assert!(!field.is_empty(), "a bad field without its name: {reason}"),
        Err(Error::Internal(e)) => panic!("internal error: {e}"),
        _ => {}
    }
}

fn position(variant: proto::Variant, fen: &str, moves: &[&str]) -> proto::Position {
    proto::Position {
        variant: variant as i32,
        fen: fen.into(),
        moves: moves.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    }
}

/// Valid requests of every rules and notation RPC, to be changed byte by byte.
fn seeds() -> Vec<(&'static str, Vec<u8>)> {
    let x = position(proto::Variant::Xiangqi, "startpos", &["h2e2", "h9g7"]);
    let j = position(proto::Variant::Janggi, "startpos", &["pass"]);
    let t = position(proto::Variant::ThreeKingdoms, "", &[]);
    let mut seeds = Vec::new();
    for p in [&x, &j, &t] {
        let list =
            proto::ListLegalMovesRequest { position: Some(p.clone()), notations: vec![1, 3], ..Default::default() };
        seeds.push(("list", list.encode_to_vec()));
        let validate =
            proto::ValidateMoveRequest { position: Some(p.clone()), r#move: "b0c2".into(), ..Default::default() };
        seeds.push(("validate", validate.encode_to_vec()));
        let game = proto::ValidateGameRequest { position: Some(p.clone()) };
        seeds.push(("game", game.encode_to_vec()));
        let adjudicate = proto::AdjudicateRequest { position: Some(p.clone()), ..Default::default() };
        seeds.push(("adjudicate", adjudicate.encode_to_vec()));
        let analyze = proto::AnalyzeRequest { position: Some(p.clone()), multipv: 2, ..Default::default() };
        seeds.push(("analyze", analyze.encode_to_vec()));
        let export = proto::ExportRecordRequest { position: Some(p.clone()), ..Default::default() };
        seeds.push(("export", export.encode_to_vec()));
    }
    let convert = proto::ConvertMovesRequest {
        start: Some(x.clone()),
        moves: vec!["h2e2".into()],
        from: proto::Notation::Iccs as i32,
        to: proto::Notation::Wxf as i32,
    };
    seeds.push(("convert", convert.encode_to_vec()));
    let import = proto::ImportRecordRequest { text: "[Event \"x\"]\n1. h2e2 h9g7 *\n".into(), ..Default::default() };
    seeds.push(("import", import.encode_to_vec()));
    seeds
}

/// Decodes `bytes` as the request of `handler` and, when it decodes, hands it over.
fn decoded<R: Message + Default, T>(bytes: &[u8], handler: impl Fn(&R) -> Result<T, Error>) {
    if let Ok(request) = R::decode(bytes) {
        check(handler(&request));
    }
}

/// Decodes `bytes` as the request `kind` names and hands it to its handler.
fn handle(kind: &str, bytes: &[u8]) {
    use api::{analysis, notation, rules};
    match kind {
        "list" => decoded(bytes, |r: &proto::ListLegalMovesRequest| rules::list_legal_moves(r, LIMITS)),
        "validate" => decoded(bytes, |r: &proto::ValidateMoveRequest| rules::validate_move(r, LIMITS)),
        "game" => decoded(bytes, |r: &proto::ValidateGameRequest| rules::validate_game(r, LIMITS)),
        "adjudicate" => decoded(bytes, |r: &proto::AdjudicateRequest| rules::adjudicate(r, LIMITS)),
        "analyze" => {
            decoded(bytes, |r: &proto::AnalyzeRequest| analysis::analyze_here(&ENGINE, r, LIMITS, &mut |_| {}))
        }
        "export" => decoded(bytes, |r: &proto::ExportRecordRequest| notation::export_record(r, LIMITS)),
        "convert" => decoded(bytes, |r: &proto::ConvertMovesRequest| notation::convert_moves(r, LIMITS)),
        "import" => decoded(bytes, |r: &proto::ImportRecordRequest| notation::import_record(r, LIMITS)),
        other => unreachable!("{other}"),
    }
}

const KINDS: [&str; 8] = ["list", "validate", "game", "adjudicate", "analyze", "export", "convert", "import"];

static SEEDS: LazyLock<Vec<(&'static str, Vec<u8>)>> = LazyLock::new(seeds);

/// Text made of what the readers look for, and anything else.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "\\PC{0,40}",
        "[a-iA-Z0-9+\\-=./ ]{0,16}",
        "[rnbakcpRNBAKCPhHeE1-9/ wb\\-0]{0,80}",
        "[炮马車车进退平前后中一二三四五六七八九十1-9졸병포차마상사장군]{0,8}",
        "[RGBrgb][a-z][0-9]{1,2}[\\-x][RGBrgb][a-z][0-9]{1,2}",
    ]
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn request_decoders_and_handlers_take_any_bytes(kind in 0..KINDS.len(), bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        handle(KINDS[kind], &bytes);
    }

    #[test]
    fn handlers_take_valid_requests_with_bytes_changed(
        seed in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>(), 0..3u8), 1..8),
    ) {
        let (kind, bytes) = seed.get(&SEEDS);
        let mut bytes = bytes.clone();
        for (at, byte, how) in edits {
            let i = at.index(bytes.len() + 1);
            match how {
                0 if i < bytes.len() => bytes[i] = byte,
                1 => bytes.insert(i, byte),
                _ if i < bytes.len() => { bytes.remove(i); }
                _ => bytes.push(byte),
            }
        }
        handle(kind, &bytes);
    }

    #[test]
    fn position_texts_read_or_refuse(text in text()) {
        if let Ok(setup) = fen::parse(&text) {
            prop_assert!(fen::parse(&fen::format(&setup)).is_ok());
        }
        for variant in [Variant::Xiangqi, Variant::Janggi] {
            let _ = BoardGame::from_fen(variant, &text);
        }
        if let Ok(setup) = three_kingdoms::text::parse(&text) {
            let _ = three_kingdoms::Position::from_setup(setup);
        }
    }

    #[test]
    fn every_notation_reads_or_refuses_any_text(text in text()) {
        let games = [BoardGame::startpos(Variant::Xiangqi), BoardGame::startpos(Variant::Janggi)];
        for game in &games {
            for n in Notation::ALL {
                if !game.writes_in(n) {
                    continue;
                }
                let _ = game.resolve_move(&text, n);
                let _ = game.parse_move(&text, n);
            }
        }
        let start = three_kingdoms::Position::startpos(false);
        let _ = start.read_move(&text);
        let _ = start.parse_move(&text);
    }

    #[test]
    fn record_import_reads_or_refuses_any_text(
        tags in prop::collection::vec(("[A-Za-z초한]{1,8}", text()), 0..4),
        moves in prop::collection::vec(text(), 0..12),
    ) {
        let mut record = String::new();
        for (name, value) in &tags {
            record.push_str(&format!("[{name} \"{value}\"]\n"));
        }
        record.push_str(&moves.join(" "));
        for n in [None].into_iter().chain(Notation::ALL.map(Some)) {
            let _ = record::import(&record, n);
            let _ = record::import_janggi(&record, n);
        }
        let request = proto::ImportRecordRequest { text: record, ..Default::default() };
        check(api::notation::import_record(&request, LIMITS));
    }
}
