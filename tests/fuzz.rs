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

mod fuzz_harness;

use fuzz_harness::{
    KINDS, SEEDS, handle, move_text, position_text, quick_request_input, record_text, request_input, text_input,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// `PROPTEST_CASES`, or a short run.
fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(64);
    Config { cases, failure_persistence: None, ..Config::default() }
}

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
    fn requests_as_the_coverage_guided_target_reads_them(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        request_input(&bytes);
        quick_request_input(&bytes);
    }

    #[test]
    fn position_texts_read_or_refuse(text in text()) {
        // As the coverage-guided target reads it.
        text_input(text.as_bytes(), position_text);
    }

    #[test]
    fn every_notation_reads_or_refuses_any_text(text in text()) {
        move_text(&text);
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
        record_text(&record);
    }
}
