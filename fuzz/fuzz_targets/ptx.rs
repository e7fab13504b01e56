//! cargo-fuzz target for the PTX importer: `cargo fuzz run ptx` (nightly).
//! The property lives in `radbg::fuzzing::import_ptx`; `tests/ptx_fuzz.rs` runs the
//! same property for a bounded time under `cargo test`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    radbg::fuzzing::import_ptx(data);
});
