//! The fuzz harnesses: what `tests/fuzz.rs` runs on random inputs in `cargo test` and
//! the coverage-guided targets of `tests/coverage_fuzz` run on what libFuzzer makes.
//! Nothing may panic on any input; a handler's bad field must name itself.

use std::sync::{Arc, LazyLock};

use chuhe::api::convert::ContentLimits;
use chuhe::api::{self, Error, proto};
use chuhe::engine::{Engine, EngineConfig};
use chuhe::game::{BoardGame, Variant};
use chuhe::notation::{Notation, fen, record};
use chuhe::rules::three_kingdoms;
use prost::Message;

pub const LIMITS: ContentLimits = ContentLimits { max_game_plies: 300 };

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
pub fn check<T>(answer: Result<T, Error>) {
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
pub fn seeds() -> Vec<(&'static str, Vec<u8>)> {
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
pub fn handle(kind: &str, bytes: &[u8]) {
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

/// The requests [`handle`] knows.
pub const KINDS: [&str; 8] = ["list", "validate", "game", "adjudicate", "analyze", "export", "convert", "import"];

/// The requests of [`seeds`], made once.
pub static SEEDS: LazyLock<Vec<(&'static str, Vec<u8>)>> = LazyLock::new(seeds);

/// Reads `text` as a FEN (which must then write and read back) and as a position of
/// every variant.
pub fn position_text(text: &str) {
    if let Ok(setup) = fen::parse(text) {
        assert!(fen::parse(&fen::format(&setup)).is_ok(), "a FEN read does not read back: {text:?}");
    }
    for variant in [Variant::Xiangqi, Variant::Janggi] {
        let _ = BoardGame::from_fen(variant, text);
    }
    if let Ok(setup) = three_kingdoms::text::parse(text) {
        let _ = three_kingdoms::Position::from_setup(setup);
    }
}

/// Reads `text` as a move from the start in every notation of every variant.
pub fn move_text(text: &str) {
    let games = [BoardGame::startpos(Variant::Xiangqi), BoardGame::startpos(Variant::Janggi)];
    for game in &games {
        for n in Notation::ALL {
            if !game.writes_in(n) {
                continue;
            }
            let _ = game.resolve_move(text, n);
            let _ = game.parse_move(text, n);
        }
    }
    let start = three_kingdoms::Position::startpos(false);
    let _ = start.read_move(text);
    let _ = start.parse_move(text);
}

/// Imports `record` in every notation and through the ImportRecord handler.
pub fn record_text(record: &str) {
    for n in [None].into_iter().chain(Notation::ALL.map(Some)) {
        let _ = record::import(record, n);
        let _ = record::import_janggi(record, n);
    }
    let request = proto::ImportRecordRequest { text: record.into(), ..Default::default() };
    check(api::notation::import_record(&request, LIMITS));
}

/// One coverage-guided input: its first byte picks the request (the low three bits the
/// kind); with the high bit set, the rest is appended to a valid request of that kind
/// (protobuf merges what follows, so the fuzzer edits a valid request's fields),
/// otherwise the rest is the request itself.
pub fn request_input(data: &[u8]) {
    request_input_of(&KINDS, data);
}

/// [`request_input`] without Analyze: each input then costs microseconds, not a
/// search's milliseconds, so the fuzzer goes far deeper into the rules and notation
/// handlers in the same time.
pub fn quick_request_input(data: &[u8]) {
    static QUICK: LazyLock<Vec<&str>> = LazyLock::new(|| KINDS.into_iter().filter(|k| *k != "analyze").collect());
    request_input_of(&QUICK, data);
}

/// [`request_input`] over the request kinds `kinds`.
fn request_input_of(kinds: &[&str], data: &[u8]) {
    let Some((&first, rest)) = data.split_first() else { return };
    let kind = kinds[usize::from(first & 0x7f) % kinds.len()];
    if first & 0x80 == 0 {
        return handle(kind, rest);
    }
    for (seed_kind, seed) in SEEDS.iter().filter(|(k, _)| *k == kind) {
        let mut bytes = seed.clone();
        bytes.extend_from_slice(rest);
        handle(seed_kind, &bytes);
    }
}

/// One coverage-guided input of a text reader: `read` gets it when it is UTF-8.
pub fn text_input(data: &[u8], read: fn(&str)) {
    if let Ok(text) = std::str::from_utf8(data) {
        read(text);
    }
}
