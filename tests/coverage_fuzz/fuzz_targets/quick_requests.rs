//! The request decoders and handlers of the rules and notation RPCs, Analyze left out
//! (see `quick_request_input`): a search costs milliseconds an input, so without it the
//! fuzzer runs hundreds of times more inputs.
#![no_main]

#[allow(dead_code)]
#[path = "../../fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::quick_request_input(data));
