#!/usr/bin/env bash
# Builds the held-out fidelity set of issue 13: real public CUDA kernels written by
# others, not in the corpus, compiled to PTX by the corpus's NVRTC 13.0.88 and measured
# with the corpus's ptxas 13.0.88 -v at the default budget, --maxrregcount 64 and 32.
#   sources (pinned): CuPy 14.2.0 sdist (MIT) — the `extern "C" __global__` kernels
#   written as string literals in cupyx/ (signal: upfirdn, Lomb-Scargle, max_len_seq,
#   CA-CFAR radar tools; ndimage; interpolate), those NVRTC compiles as they are;
#   numba-cuda 0.30.4 wheel (BSD-2-Clause) — its .cu files (NRT memory system, reshape,
#   FFI examples, jitlink test).
# Then: radbg fidelity --corpus "${RADBG_PUBLIC_PTX_CACHE:-$HOME/.cache/radbg-public-ptx}"
# Idempotent; everything generated lives in the cache, never in the repository.
set -euo pipefail
C=${RADBG_PUBLIC_PTX_CACHE:-$HOME/.cache/radbg-public-ptx}
K=${RADBG_CORPUS_CACHE:-$HOME/.cache/radbg-corpus}
R="$K/root/nvidia/cu13"; PTXAS="$R/bin/ptxas"; ORACLE="$(dirname "$0")/../../shared/corpus/oracle.py"
[ -x "$PTXAS" ] || { echo "no corpus ptxas in $K: run ../shared/corpus/build.sh first" >&2; exit 1; }
NVRTC_PTX="$(dirname "$ORACLE")/nvrtc_ptx.py"
export LD_LIBRARY_PATH="$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$C/dl" "$C/src" "$C/cu" "$C/ptx" "$C/log"
CUPY_URL=https://files.pythonhosted.org/packages/dc/10/059a92d40b161ea24607c9e41a75098812ca7021f2b565524f87beba15c9/cupy-14.2.0.tar.gz
[ -f "$C/dl/cupy-14.2.0.tar.gz" ] || curl -sSfL -o "$C/dl/cupy-14.2.0.tar.gz" "$CUPY_URL"
ls "$C"/dl/numba_cuda-0.30.4-*.whl >/dev/null 2>&1 || python3 -m pip download -q --no-deps "numba-cuda==0.30.4" -d "$C/dl"
[ -d "$C/src/cupy-14.2.0" ] || tar xzf "$C/dl/cupy-14.2.0.tar.gz" -C "$C/src" cupy-14.2.0/cupyx cupy-14.2.0/cupy/_core/include
[ -d "$C/src/numba_cuda" ] || python3 -m zipfile -e "$C"/dl/numba_cuda-0.30.4-*.whl "$C/src"
# The string-literal kernels of cupyx, one file each, named by module and content hash.
python3 - "$C/src/cupy-14.2.0" "$C/cu" <<'PY'
import ast, glob, hashlib, os, sys
root, out = sys.argv[1], sys.argv[2]
for py in sorted(glob.glob(root + "/cupyx/**/*.py", recursive=True)):
    try:
        tree = ast.parse(open(py).read())
    except (SyntaxError, UnicodeDecodeError):
        continue
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and "__global__" in node.value and 'extern "C"' in node.value:
            rel = os.path.relpath(py, root)
            h = hashlib.sha1(node.value.encode()).hexdigest()[:8]
            name = rel.replace("/", "_").replace(".py", "") + "_" + h
            path = f"{out}/{name}.cu"
            if not os.path.exists(path):
                open(path, "w").write(f"// {rel}, line {node.lineno} (CuPy 14.2.0, MIT)\n" + node.value)
PY
N="$C/src/numba_cuda/numba/cuda"
for f in "$N/reshape_funcs.cu" "$N/memory_management/memsys.cu" "$N/memory_management/nrt.cu" \
         "$N/tests/doc_examples/ffi/functions.cu" "$N/tests/data/jitlink.cu"; do
  cp -n "$f" "$C/cu/numba_$(basename "$f")" 2>/dev/null || true
done
for src in "$C"/cu/*.cu; do
  name=$(basename "$src" .cu)
  for sm in 80 90; do
    out="$C/ptx/$name.sm_$sm.ptx"
    [ -e "$out" ] || [ -e "$C/log/$name.sm_$sm.skip" ] && continue
    python3 "$NVRTC_PTX" "$R/lib/libnvrtc.so.13" "$src" "$out" --gpu-architecture=compute_$sm -default-device \
      -rdc=true -std=c++17 -I"$R/include/cccl" -I"$R/include" -I"$C/src/cupy-14.2.0/cupy/_core/include" \
      -I"$N/memory_management" 2>"$C/log/$name.sm_$sm.nvrtc.log" \
      || { echo "skipped (NVRTC cannot compile it as it is): $name sm_$sm" >&2; rm -f "$out"; touch "$C/log/$name.sm_$sm.skip"; }
  done
done
for ptx in "$C"/ptx/*.ptx; do
  base=$(basename "$ptx" .ptx); sm=${base##*.}
  for mr in default 64 32; do
    log="$C/log/$base.$mr.ptxas"
    [ "$log" -nt "$ptx" ] && continue
    args=(-v --gpu-name "$sm" "$ptx" -o /dev/null); [ "$mr" = default ] || args+=(--maxrregcount "$mr")
    # Relocatable code (extern device functions) needs --compile-only.
    "$PTXAS" "${args[@]}" >"$log" 2>&1 || "$PTXAS" -c "${args[@]}" >"$log" 2>&1 || true
  done
done
python3 "$ORACLE" "$C" >"$C/oracle.json"
python3 "$ORACLE" "$C" --summary
