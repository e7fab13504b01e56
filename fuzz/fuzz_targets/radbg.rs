//! cargo-fuzz target for `.radbg` sessions: `cargo fuzz run radbg` (nightly). The
//! property lives in `radbg::fuzzing::replay_script` (replayed on the demo kernel, no
//! files written); `tests/script_fuzz.rs` runs it for a bounded time under `cargo test`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    radbg::fuzzing::replay_script(data);
});
