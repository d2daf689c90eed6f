//! Every request decoder and handler on bytes libFuzzer makes (see `request_input`).
#![no_main]

#[allow(dead_code)]
#[path = "../../fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::request_input(data));
