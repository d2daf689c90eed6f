//! Every move notation of every variant, on UTF-8 text libFuzzer makes.
#![no_main]

#[allow(dead_code)]
#[path = "../../fuzz_harness/mod.rs"]
mod fuzz_harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| fuzz_harness::text_input(data, fuzz_harness::move_text));
