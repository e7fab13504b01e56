#!/usr/bin/env bash
# Runs a libFuzzer target for a bounded time without installing cargo-fuzz: builds the
# targets with the nightly toolchain and the same coverage flags cargo-fuzz passes (no
# AddressSanitizer: radbg forbids unsafe code), seeds the corpus from the repository, and
# copies any crash into fuzz/artifacts/TARGET/. Usage (from anywhere):
#   fuzz/run.sh ori|ptx|radbg SECONDS [extra libFuzzer flags]
# Exit status: 0 when the run found nothing, non-zero on a crash, leak of time or memory.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh ori|ptx|radbg SECONDS}
secs=${2:-60}
shift 2 || true
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
cargo +nightly build --release --target "$triple" --bin "$target" >&2
corpus=corpus/$target
mkdir -p "$corpus" "artifacts/$target"
case $target in
  ori) cp -n ../sessions/*.ori ../tests/diag/*.ori "$corpus"/ 2>/dev/null || true; max=65536 ;;
  ptx) cp -n ../tests/ptx/*.ptx "$corpus"/ 2>/dev/null || true; max=65536 ;;
  radbg) cp -n ../sessions/*.radbg "$corpus"/ 2>/dev/null || true; max=4096 ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
cp -n ../tests/fuzz_crashes/"$target"/* "$corpus"/ 2>/dev/null || true
# The replay of a session runs the pipeline on the demo kernel: allow it seconds, not ms.
exec "target/$triple/release/$target" "$corpus" -max_total_time="$secs" -max_len="$max" \
  -timeout=20 -rss_limit_mb=4096 -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$@"
