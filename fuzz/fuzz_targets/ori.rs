//! libFuzzer target: the Ori IR front end on arbitrary bytes. All properties live in
//! `radbg::fuzzing::parse_and_check` (shared with the bounded driver in tests/fuzz.rs).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    radbg::fuzzing::parse_and_check(data);
});
