#!/usr/bin/env bash
# Builds radbg's real-kernel gate set (issues 22 and 23): CUDA sources of 31 independent public
# projects, fetched from package registries only (crates.io, PyPI, Debian) at pinned versions
# and checksums, compiled to PTX for sm_80 and sm_90 by CUDA 13.0.88's nvcc -ptx (the NVVM of
# NVRTC 13.0.88; PyPI wheels nvidia-cuda-nvcc/-nvvm/-crt/-runtime/-cccl/curand), and measured
# with ptxas 13.0.88 -v at the default budget, --maxrregcount 64 and 32 into oracle.json (the
# corpus format: ../shared/corpus/oracle.py). The sources, their versions, licences and the
# files taken are listed in .ci/gate_ptx.py; tests/gate/split.tsv assigns each source to the
# dev or the test part. Then:
#   radbg fidelity --gate --corpus "${RADBG_GATE_CACHE:-$HOME/.cache/radbg-gate}" [--part dev|test|all]
# $RADBG_GATE_MAX_FILES (default 4) caps the files taken per source, $RADBG_GATE_SKIP=a,b leaves
# sources out (a PTX file already built stays in oracle.json), $RADBG_GATE_JOBS (default 2) sets
# the parallel compiles. Idempotent; downloads are cached, so a re-run is quick and needs no network; everything
# generated lives in the cache, never in the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
C=${RADBG_GATE_CACHE:-$HOME/.cache/radbg-gate}
# ../shared beside the repository (a worktree one level deeper finds it one level up).
ORACLE="$here/../../shared/corpus/oracle.py"
[ -f "$ORACLE" ] || ORACLE="$here/../../../shared/corpus/oracle.py"
[ -f "$ORACLE" ] || { echo "gate-ptx: no ../shared/corpus/oracle.py beside the repository" >&2; exit 1; }
mkdir -p "$C/dl" "$C/root"
R="$C/root/nvidia/cu13"
wheels="nvidia-cuda-nvcc==13.0.88 nvidia-cuda-nvrtc==13.0.88 nvidia-cuda-cccl==13.0.85 nvidia-nvvm==13.0.88
        nvidia-cuda-crt==13.0.88 nvidia-cuda-runtime==13.0.96 nvidia-curand==10.4.0.35"
if [ ! -x "$R/bin/ptxas" ] || [ ! -x "$R/nvvm/bin/cicc" ] || [ ! -e "$R/include/cuda_runtime.h" ] \
   || [ ! -e "$R/include/curand_kernel.h" ] || [ ! -d "$R/include/cccl/cub" ]; then
  echo "gate-ptx: fetching $wheels" >&2
  # shellcheck disable=SC2086
  python3 -m pip download -q --no-deps $wheels -d "$C/dl" >&2
  for w in "$C"/dl/nvidia_*.whl; do python3 -m zipfile -e "$w" "$C/root"; done
  chmod +x "$R"/bin/* "$R"/nvvm/bin/* 2>/dev/null || true
fi
export LD_LIBRARY_PATH="$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
case "$("$R/bin/ptxas" --version)" in *V13.0.88*) ;; *) echo "gate-ptx: ptxas is not 13.0.88" >&2; exit 1;; esac
python3 "$here/gate_ptx.py" "$C" "$ORACLE" --jobs "${RADBG_GATE_JOBS:-2}" "$@"
python3 "$ORACLE" "$C" >"$C/oracle.json.part" && mv "$C/oracle.json.part" "$C/oracle.json"
python3 "$here/gate_ptx.py" --summary "$C"
