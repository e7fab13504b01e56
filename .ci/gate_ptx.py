#!/usr/bin/env python3
"""Builds radbg's real-kernel gate set (issues 22 and 23): CUDA sources of independent public
projects, fetched from package registries at pinned versions (crates.io, PyPI, Debian), compiled
to PTX for sm_80 and sm_90 by the CUDA 13.0.88 compiler (nvcc -ptx, whose NVVM is the one in
NVRTC 13.0.88; host code is allowed), then measured with ptxas 13.0.88 -v at the default budget,
--maxrregcount 64 and 32 into oracle.json (the corpus format, ../shared/corpus/oracle.py).

usage: gate_ptx.py CACHE ORACLE_PY [--jobs N] [--only NAME,NAME]   (build)
       gate_ptx.py --summary CACHE                                 (print sources, files, functions)

Everything lives in CACHE (downloads in dl/, sources in src/, PTX in ptx/, logs in log/); a
re-run only does what is missing. A file that does not compile is skipped with a line in
log/skipped.txt. PTX files are named SOURCE__FILE.sm_NN.ptx: the part before `__` is the source
(one upstream project), which tests/gate/split.tsv assigns to the dev or test part.
No source here is, or is a copy of, a repository in ../shared/fidelity/excluded-sources.txt.
"""
import concurrent.futures as cf
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

# At most this many files of a source (the first by path): the build fits CI's time on 2 cores.
# $RADBG_GATE_MAX_FILES lowers it (a quicker, smaller gate; tests/gate.rs samples what is built).
MAX_FILES = int(os.environ.get("RADBG_GATE_MAX_FILES", "4"))
# $RADBG_GATE_SKIP: sources to leave out (comma-separated names), e.g. the slowest to build
# (blender-cycles: one 13.7 MB PTX megakernel; cccl-cub: 6.5 MB) for a quick CI gate.
SKIP = {n for n in os.environ.get("RADBG_GATE_SKIP", "").split(",") if n}
CRATE = "https://static.crates.io/crates/{n}/{n}-{v}.crate"
DEB = "http://deb.debian.org/debian/pool/"
PYPI = "https://files.pythonhosted.org/packages/"

# One row per source: name, version, licence, download URL, sha256, the files to compile
# (globs relative to the unpacked top directory), files to leave out, include directories and
# -D defines, and at most how many files (sorted by path; the first ones) to take.
SOURCES = [
    dict(name="candle", ver="0.11.1", lic="MIT OR Apache-2.0", url=CRATE.format(n="candle-kernels", v="0.11.1"),
         sha="8dc057aec95c3b1a0e595227cd039c1436da596f79ccc9e025ba17d070315851",
         files=["src/*.cu", "src/moe/*.cu"], skip=["src/quantized.cu", "src/moe/moe_gguf.cu"], inc=["src"]),
    dict(name="cudarc", ver="0.19.10", lic="MIT OR Apache-2.0", url=CRATE.format(n="cudarc", v="0.19.10"),
         sha="7359bf1de037ddada72729c3acec9b040f3468400c6e9e740b01ba0cd2e89562", files=["examples/*.cu"]),
    dict(name="dfdx", ver="0.13.0", lic="MIT OR Apache-2.0", url=CRATE.format(n="dfdx", v="0.13.0"),
         sha="c6dbcb8a7363d8b434ca20bd3808ab9f6ee77e6916ca1d511f8e3c725d0b340e",
         files=["src/**/*.cu"], inc=["src", "src/tensor_ops/utilities"]),
    dict(name="mistralrs-quant", ver="0.8.1", lic="MIT", url=CRATE.format(n="mistralrs-quant", v="0.8.1"),
         sha="980715493d252e9aaf0779c4c101576d67ef4dd9812bfd77a54987f6f17526f4",
         files=["kernels/**/*.cu"], skip=["kernels/**/*dummy*"], inc=["kernels"]),
    dict(name="tract-cuda", ver="0.22.5", lic="MIT OR Apache-2.0", url=CRATE.format(n="tract-cuda", v="0.22.5"),
         sha="e2b238a3ef74ae44f9795e94983d65fd8bc0dd1a161879ce566c6737ca2e0ea4",
         files=["src/kernels/cu/*.cu"], inc=["src/kernels/cu"]),
    dict(name="ggml", ver="llama-cpp-sys-2 0.1.161", lic="MIT", url=CRATE.format(n="llama-cpp-sys-2", v="0.1.161"),
         sha="e9bea77fde41bbc15a278891cd5edd2ba07c5260d162614b41080ba1f100b39b",
         files=["llama.cpp/ggml/src/ggml-cuda/*.cu"],
         skip=["**/mmq.cu", "**/fattn*.cu", "**/ggml-cuda.cu", "**/mmvq.cu", "**/mmf.cu"],
         inc=["llama.cpp/ggml/include", "llama.cpp/ggml/src", "llama.cpp/ggml/src/ggml-cuda"],
         defs=["GGML_USE_CUDA", "GGML_CUDA_PEER_MAX_BATCH_SIZE=128"]),
    dict(name="risc0", ver="risc0-sys 1.5.0", lic="Apache-2.0", url=CRATE.format(n="risc0-sys", v="1.5.0"),
         sha="960c8295fbb87e1e73e332f8f7de2fba0252377575042d9d3e9a4eb50a38e078",
         files=["kernels/zkp/cuda/*.cu"], skip=["kernels/zkp/cuda/ffi.cu"], inc=["kernels/zkp/cuda", "kernels", "."]),
    dict(name="boojum-cuda", ver="0.156.2", lic="MIT OR Apache-2.0", url=CRATE.format(n="boojum-cuda", v="0.156.2"),
         sha="e9e73a1028eed50eacb765ba77173beff7672fddc519a097514083488e921ceb",
         files=["native/*.cu"], skip=["native/context.cu"], inc=["native"]),
    dict(name="lightgbm", ver="lightgbm3-sys 1.0.11", lic="MIT", url=CRATE.format(n="lightgbm3-sys", v="1.0.11"),
         sha="c8c4a477ba78826d0d3939e4f35fd94dbc5cceaee849246bd43a6badfa2605f7",
         files=["lightgbm/src/**/*.cu"],
         inc=["lightgbm/include", "lightgbm/external_libs/eigen", "lightgbm/external_libs/fmt/include",
              "lightgbm/external_libs/fast_double_parser/include"], defs=["USE_CUDA"]),
    dict(name="deepspeed", ver="0.19.8", lic="Apache-2.0",
         url=PYPI + "bc/d8/3162fc810870df1183e686ec70b57028b464a5940b148a90767c727f113c/deepspeed-0.19.8.tar.gz",
         sha="9e491abd0827ea5c389dd702e15e11e13d83d904bac4a20d6c2a4cb37207a9af",
         files=["csrc/transformer/inference/csrc/*.cu", "csrc/quantization/*.cu"], inc=["csrc/includes", "csrc/transformer/inference/includes", "csrc/quantization/includes"],
         ),
    dict(name="bart", ver="0.8.00", lic="BSD-3-Clause", url=DEB + "main/b/bart/bart_0.8.00.orig.tar.gz",
         sha="9e0491862f740bde596e1e745bcd319c750153103172b8ca5cef87d0096962f4", files=["src/**/*.cu"], inc=["src"],
         defs=["USE_CUDA"]),
    dict(name="blender-cycles", ver="3.4.1", lic="Apache-2.0",
         url=DEB + "main/b/blender/blender_3.4.1%2bdfsg.orig.tar.xz",
         sha="f69b751ba5b7b60acef5537f358a7f7d9f01d4dea5e2d1b741bb881bcd9e1342",
         members=["*/intern/cycles/*"], files=["intern/cycles/kernel/device/cuda/kernel.cu"],
         inc=["intern/cycles/kernel/..", "intern/cycles"],
         defs=["CCL_NAMESPACE_BEGIN=", "CCL_NAMESPACE_END=", "NVCC"], flags=["--use_fast_math"]),
    dict(name="dlib", ver="19.24", lic="BSL-1.0", url=DEB + "main/d/dlib/dlib_19.24%2bdfsg.orig.tar.bz2",
         sha="66b4263822a2ff91a3e769e501c7d7927a13089e178c1427ec19cb0475823cf6",
         files=["dlib/cuda/*.cu"], inc=["."], defs=["DLIB_USE_CUDA"]),
    dict(name="elpa", ver="2022.11.001", lic="LGPL-3.0", url=DEB + "main/e/elpa/elpa_2022.11.001.orig.tar.gz",
         sha="35e397d7c0af95bb43bc7bef7fff29425c1da400fa0cd86ae8d3bd2ff2f9d999",
         files=["src/**/*.cu"], skip=["src/shipped_srcs/**", "src/**/*_template.cu"], inc=["src", ".", "@stub"]),
    dict(name="faiss", ver="1.7.3", lic="MIT", url=DEB + "main/f/faiss/faiss_1.7.3.orig.tar.gz",
         sha="3e4fac26d8c9e9008ecea4ae5fc414c658998fce4ba75835058b1a71d3516002",
         files=["faiss/gpu/utils/blockselect/*.cu", "faiss/gpu/impl/*.cu"], inc=["."]),
    dict(name="ffmpeg", ver="5.1.9", lic="LGPL-2.1-or-later", url=DEB + "main/f/ffmpeg/ffmpeg_5.1.9.orig.tar.xz",
         sha="d9b593bb2ba93d4b50f74177e0cdcd41747e708596367deed0c30348a71dd176",
         members=["*/libavfilter/*", "*/compat/*", "*/libavutil/*"], files=["libavfilter/*.cu"], inc=["."]),
    dict(name="lammps", ver="20220106", lic="GPL-2.0", url=DEB + "main/l/lammps/lammps_20220106.git7586adbb6a%2bds1.orig.tar.xz",
         sha="65146c615ad24d8b8bc64f4e05e86226a7f1fdb45c0b5ea9416562b9f3863082",
         members=["*/lib/gpu/*"], files=["lib/gpu/lal_*.cu"], inc=["lib/gpu"],
         defs=["NV_KERNEL", "_SINGLE_DOUBLE", "LAMMPS_SMALLBIG"]),
    dict(name="nvtt", ver="2.0.8", lic="MIT",
         url=DEB + "main/n/nvidia-texture-tools/nvidia-texture-tools_2.0.8-1%2bdfsg.orig.tar.gz",
         sha="b096baf61bd813e06e40ae4b0ce3f58ee1b8561ecd440db11af919765c278714",
         files=["src/nvtt/cuda/*.cu"], inc=["src", "src/nvtt", "src/nvtt/cuda"]),
    dict(name="opensubdiv", ver="3.5.0", lic="Apache-2.0", url=DEB + "main/o/opensubdiv/opensubdiv_3.5.0.orig.tar.xz",
         sha="8bc452ad9934d69bd2b03662e9d86a3d014d95445dc599013e523e577ae90693",
         members=["*/opensubdiv/*"], files=["opensubdiv/osd/*.cu"], inc=["."]),
    dict(name="nanovdb", ver="openvdb 10.0.1", lic="MPL-2.0", url=DEB + "main/o/openvdb/openvdb_10.0.1.orig.tar.xz",
         sha="776706ca285a43b53e24c28d8f8b2112aea3dbf94c3c5f399cf6ff43403f5ace",
         files=["nanovdb/nanovdb/examples/**/*.cu"], inc=["nanovdb", "nanovdb/nanovdb"]),
    dict(name="suitesparse", ver="5.12.0", lic="GPL-2.0-or-later",
         url=DEB + "main/s/suitesparse/suitesparse_5.12.0%2bdfsg.orig.tar.xz",
         sha="bb106c43049138c19675cd70322e72ff8e4fd8bdcab3a096307fd78488913faf",
         members=["*/GPUQREngine/*", "*/SuiteSparse_GPURuntime/*", "*/SuiteSparse_config/*", "*/CHOLMOD/*"],
         files=["GPUQREngine/Source/*.cu", "CHOLMOD/GPU/*.cu", "SuiteSparse_GPURuntime/Source/*.cu"],
         inc=["GPUQREngine/Include", "SuiteSparse_GPURuntime/Include", "SuiteSparse_config", "CHOLMOD/Include"],
         defs=["GPU_BLAS"]),
    dict(name="sundials", ver="6.4.1", lic="BSD-3-Clause", url=DEB + "main/s/sundials/sundials_6.4.1%2bdfsg1.orig.tar.xz",
         sha="c61157f1d4be06c704bea40cb131eb63ba2dada161989071604d0a0959cdf04a",
         files=["src/**/*.cu", "examples/**/*.cu"], inc=["include", "src", "src/sundials", "@stub"]),
    dict(name="pycuda", ver="2026.1", lic="MIT",
         url=PYPI + "75/93/36ffd54430924dcb03a88c97519d56589e573d0dcc999c77a4c4d8a90306/pycuda-2026.1.tar.gz",
         sha="759516160628ba06f32ce7e563e3f5b9214691dc9528a03ea99ea1073f4e14ba",
         extract=["examples/*.py"], files=["extracted/*.cu"]),
    dict(name="gpu4pyscf", ver="1.9.0", lic="Apache-2.0",
         url=PYPI + "97/0a/f58212ae0a7c2d6c8aef0f4c2704b341eac2c5fec3a737efb2ed4a9d48e8/gpu4pyscf-1.9.0.tar.gz",
         sha="bbde099025a4609ea0fa8868a6abaa82965e51af8ab3c1a68a784412a7341998",
         extract=["gpu4pyscf/**/*.py"], files=["extracted/*.cu"]),
    dict(name="cuvarbase", ver="0.2.5", lic="GPL-3.0",
         url=PYPI + "af/79/bcac7fbafc8d1b7bdd3bb7fe8e3949b6b347a5999be33343130234097e90/cuvarbase-0.2.5.tar.gz",
         sha="d6f5252d1991825c0430ac6c5934e255e7bda15a58431a653e1b97d3c1cd10a0",
         files=["cuvarbase/kernels/*.cu"], defs=["BLOCK_SIZE=256"]),
    dict(name="py-boost", ver="0.5.2", lic="Apache-2.0",
         url=PYPI + "21/54/b6e961ed2dd1ff9c6d21e50d253bb37f8e5ef8ad736ca67fec5266179342/py_boost-0.5.2.tar.gz",
         sha="16cdfd12c499586cb27dd367b2a4b176cf0cc0f8f5cfbf9f422a83c125fa6a64",
         extract=["py_boost/**/*.py"], files=["extracted/*.cu"]),
    # CUDPP (its radix sort and scan), an independent project that LAMMPS vendors.
    dict(name="cudpp", ver="cudpp_mini of lammps 20220106", lic="BSD-3-Clause",
         url=DEB + "main/l/lammps/lammps_20220106.git7586adbb6a%2bds1.orig.tar.xz",
         sha="65146c615ad24d8b8bc64f4e05e86226a7f1fdb45c0b5ea9416562b9f3863082",
         members=["*/lib/gpu/cudpp_mini/*"], files=["lib/gpu/cudpp_mini/*.cu"], inc=["lib/gpu/cudpp_mini"]),
    dict(name="thinc", ver="9.1.1", lic="MIT",
         url=PYPI + "32/a1/92a63536ee9742cfb7b3f4f1c30640f6964739cf33c9313d5c3401e168d6/thinc-9.1.1.tar.gz",
         sha="21fae2986d7777a6f050b9046dc9eab11852f1c9a997dcc9032f3ecc22784a4a", files=["thinc/backends/*.cu"],
         nvrtc=True),
    # RELION (cryo-EM refinement): its accelerated kernels (helper.cu: 42 kernels, weighted sums,
    # FFT-shift, CTF, translations); the other .cu files are host code or need libtiff's headers.
    dict(name="relion", ver="3.1.3", lic="GPL-2.0", url=DEB + "main/r/relion/relion_3.1.3.orig.tar.gz",
         sha="f10934058e0670807b7004899d7b5103c21ad77841219352c66a33f98586d42e",
         files=["src/acc/cuda/cuda_kernels/helper.cu"], inc=["."], defs=["CUDA"]),
    # StarPU (task runtime): the CUDA codelets of its examples (block filters, pi reduction, SpMV,
    # stencil shadow cells); its configure output starpu_config.h is a stub.
    dict(name="starpu", ver="1.3.10", lic="LGPL-2.1-or-later", url=DEB + "main/s/starpu/starpu_1.3.10%2bdfsg.orig.tar.gz",
         sha="682f3b7454f30493c116c8dcfa76daa014a8983923f904fafddf179d947664d4",
         files=["examples/filters/fmultiple_cuda.cu", "examples/pi/pi_redux_kernel.cu", "examples/spmv/spmv_cuda.cu",
                "examples/stencil/shadow.cu"], inc=["include", "@stub"]),
    dict(name="cccl-cub", ver="cuda-cccl 13.0.85", lic="Apache-2.0 WITH LLVM-exception", url=None, sha=None,
         files=["*.cu"]),
]

# CUB's device algorithms, instantiated for a few types: the kernels are CUB's own.
CUB_SRC = r"""// Instantiates CUB device algorithms (cuda-cccl 13.0.85) so their kernels appear in the PTX.
#include <cub/cub.cuh>
#define DISPATCH(...) { void* t = nullptr; size_t n = 0; __VA_ARGS__; }
template <typename T> void all(T* a, T* b, int* i, int* j, int* o, int n) {
  DISPATCH(cub::DeviceReduce::Sum(t, n, a, b, n))
  DISPATCH(cub::DeviceReduce::Max(t, n, a, b, n))
  DISPATCH(cub::DeviceReduce::ArgMin(t, n, a, (cub::KeyValuePair<int, T>*)b, n))
  DISPATCH(cub::DeviceScan::InclusiveSum(t, n, a, b, n))
  DISPATCH(cub::DeviceScan::ExclusiveSum(t, n, a, b, n))
  DISPATCH(cub::DeviceRadixSort::SortKeys(t, n, a, b, n))
  DISPATCH(cub::DeviceRadixSort::SortPairs(t, n, a, b, i, j, n))
  DISPATCH(cub::DeviceSegmentedReduce::Sum(t, n, a, b, n, o, o + 1))
  DISPATCH(cub::DeviceSelect::Unique(t, n, a, b, i, n))
  DISPATCH(cub::DeviceSelect::Flagged(t, n, a, i, b, j, n))
  DISPATCH(cub::DeviceRunLengthEncode::Encode(t, n, a, b, i, j, n))
  DISPATCH(cub::DeviceHistogram::HistogramEven(t, n, a, i, 17, (T)0, (T)16, n))
  DISPATCH(cub::DeviceSegmentedRadixSort::SortKeys(t, n, a, b, n, 4, o, o + 1))
  DISPATCH(cub::DeviceMergeSort::SortKeys(t, n, a, n, cuda::std::less<T>{}))
  DISPATCH(cub::DevicePartition::Flagged(t, n, a, i, b, j, n))
}
template void all<int>(int*, int*, int*, int*, int*, int);
template void all<float>(float*, float*, int*, int*, int*, int);
template void all<double>(double*, double*, int*, int*, int*, int);
"""

# Tiny stub headers some sources need (generated by their configure step; not kernel code).
CUBLAS_FUNCS = """cublasCreate cublasCreate_v2 cublasDestroy cublasDestroy_v2 cublasSetStream cublasSetStream_v2
cublasGetStream cublasSetMathMode cublasSetWorkspace cublasSetPointerMode cublasGemmEx cublasGemmBatchedEx
cublasGemmStridedBatchedEx cublasSgemm cublasDgemm cublasHgemm cublasCgemm cublasZgemm cublasSgemmBatched
cublasDgemmBatched cublasHgemmBatched cublasSgemmStridedBatched cublasDgemmStridedBatched cublasHgemmStridedBatched
cublasSgemv cublasDgemv cublasSgeam cublasDgeam cublasSdot cublasDdot cublasSaxpy cublasDaxpy cublasSscal cublasDscal
cublasStrsm cublasDtrsm cublasSsyrk cublasDsyrk cublasSnrm2 cublasDnrm2 cublasIsamax cublasIdamax cublasScopy
cublasDcopy cublasSger cublasDger cublasStrmm cublasDtrmm cublasGetVersion cublasSetVector cublasGetVector
cublasSetMatrix cublasGetMatrix cublasSgemmEx cublasSasum cublasDasum""".split()
CUFFT_FUNCS = """cufftPlan1d cufftPlan2d cufftPlan3d cufftPlanMany cufftMakePlanMany cufftCreate cufftDestroy cufftSetStream
cufftExecC2C cufftExecR2C cufftExecC2R cufftExecZ2Z cufftExecD2Z cufftExecZ2D cufftGetSize cufftSetAutoAllocation
cufftSetWorkArea cufftEstimate1d cufftEstimateMany""".split()
NCCL_FUNCS = """ncclGetUniqueId ncclCommInitRank ncclCommDestroy ncclAllReduce ncclBroadcast ncclReduce ncclAllGather
ncclReduceScatter ncclGroupStart ncclGroupEnd ncclCommCount ncclCommUserRank ncclGetErrorString ncclSend ncclRecv""".split()


def variadic(ret, ok, names):
    return "".join(f"template <class... A> inline {ret} {n}(A...) {{ return {ok}; }}\n" for n in names)


# Stand-ins for library headers whose wheels are hundreds of MB (cuBLAS, cuFFT, NCCL): types,
# constants, and host functions that accept anything. Host code only; no kernel code uses them.
COMMON_STUBS = {
    "cublas_v2.h": "#pragma once\n#include <cuda_runtime.h>\n#include <library_types.h>\n"
    "typedef struct cublasContext *cublasHandle_t;\n"
    "typedef enum { CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1, CUBLAS_STATUS_ALLOC_FAILED = 3,"
    " CUBLAS_STATUS_INVALID_VALUE = 7, CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,"
    " CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14, CUBLAS_STATUS_NOT_SUPPORTED = 15,"
    " CUBLAS_STATUS_LICENSE_ERROR = 16 } cublasStatus_t;\n"
    "typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;\n"
    "typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_TENSOR_OP_MATH = 1, CUBLAS_PEDANTIC_MATH = 2,"
    " CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;\n"
    "typedef enum { CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70, CUBLAS_COMPUTE_32I = 72,"
    " CUBLAS_COMPUTE_32F_FAST_16F = 74, CUBLAS_COMPUTE_32F_FAST_16BF = 75, CUBLAS_COMPUTE_32F_FAST_TF32 = 77"
    " } cublasComputeType_t;\n"
    "typedef enum { CUBLAS_GEMM_DEFAULT = -1, CUBLAS_GEMM_DFALT = -1, CUBLAS_GEMM_DEFAULT_TENSOR_OP = 99,"
    " CUBLAS_GEMM_DFALT_TENSOR_OP = 99 } cublasGemmAlgo_t;\n"
    "typedef enum { CUBLAS_FILL_MODE_LOWER = 0, CUBLAS_FILL_MODE_UPPER = 1 } cublasFillMode_t;\n"
    "typedef enum { CUBLAS_DIAG_NON_UNIT = 0, CUBLAS_DIAG_UNIT = 1 } cublasDiagType_t;\n"
    "typedef enum { CUBLAS_SIDE_LEFT = 0, CUBLAS_SIDE_RIGHT = 1 } cublasSideMode_t;\n"
    "typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;\n"
    "inline const char *cublasGetStatusString(cublasStatus_t) { return \"\"; }\n"
    + variadic("cublasStatus_t", "CUBLAS_STATUS_SUCCESS", CUBLAS_FUNCS),
    "cufft.h": "#pragma once\n#include <cuda_runtime.h>\n#include <cuComplex.h>\n"
    "typedef int cufftHandle; typedef float cufftReal; typedef double cufftDoubleReal;\n"
    "typedef cuComplex cufftComplex; typedef cuDoubleComplex cufftDoubleComplex;\n"
    "typedef enum { CUFFT_SUCCESS = 0, CUFFT_INVALID_PLAN = 1, CUFFT_ALLOC_FAILED = 2, CUFFT_INVALID_TYPE = 3,"
    " CUFFT_INVALID_VALUE = 4, CUFFT_INTERNAL_ERROR = 5, CUFFT_EXEC_FAILED = 6, CUFFT_SETUP_FAILED = 7,"
    " CUFFT_INVALID_SIZE = 8 } cufftResult;\n"
    "typedef enum { CUFFT_R2C = 0x2a, CUFFT_C2R = 0x2c, CUFFT_C2C = 0x29, CUFFT_D2Z = 0x6a, CUFFT_Z2D = 0x6c,"
    " CUFFT_Z2Z = 0x69 } cufftType;\n#define CUFFT_FORWARD -1\n#define CUFFT_INVERSE 1\n"
    + variadic("cufftResult", "CUFFT_SUCCESS", CUFFT_FUNCS),
    "nccl.h": "#pragma once\n#include <cuda_runtime.h>\ntypedef struct ncclComm *ncclComm_t;\n"
    "typedef struct { char internal[128]; } ncclUniqueId;\n"
    "typedef enum { ncclSuccess = 0, ncclUnhandledCudaError = 1, ncclSystemError = 2, ncclInternalError = 3 }"
    " ncclResult_t;\ntypedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3 } ncclRedOp_t;\n"
    "typedef enum { ncclInt8 = 0, ncclChar = 0, ncclUint8 = 1, ncclInt32 = 2, ncclInt = 2, ncclUint32 = 3,"
    " ncclInt64 = 4, ncclUint64 = 5, ncclFloat16 = 6, ncclHalf = 6, ncclFloat32 = 7, ncclFloat = 7,"
    " ncclFloat64 = 8, ncclDouble = 8 } ncclDataType_t;\n"
    + variadic("ncclResult_t", "ncclSuccess", NCCL_FUNCS[:-3]) + variadic("ncclResult_t", "ncclSuccess", NCCL_FUNCS[-2:])
    + "inline const char *ncclGetErrorString(ncclResult_t) { return \"\"; }\n",
}

STUBS = {
    "starpu": {"starpu_config.h": "/* configure's output, for the CUDA examples only */\n"
                "#ifndef __STARPU_CONFIG_PUBLIC_H__\n"
                "#define __STARPU_CONFIG_PUBLIC_H__\n"
                "#define STARPU_MAJOR_VERSION 1\n"
                "#define STARPU_MINOR_VERSION 3\n"
                "#define STARPU_RELEASE_VERSION 10\n"
                "#define STARPU_USE_CPU 1\n"
                "#define STARPU_USE_CUDA 1\n"
                "#define STARPU_HAVE_POSIX_MEMALIGN 1\n"
                "#define STARPU_HAVE_MALLOC_H 1\n"
                "#define STARPU_MAXNODES 16\n"
                "#define STARPU_NMAXBUFS 8\n"
                "#define STARPU_MAXCPUS 64\n"
                "#define STARPU_MAXNUMANODES 2\n"
                "#define STARPU_MAXCUDADEVS 4\n"
                "#define STARPU_MAXOPENCLDEVS 8\n"
                "#define STARPU_MAXMICDEVS 0\n"
                "#define STARPU_NMAXWORKERS 80\n"
                "#define STARPU_NMAX_SCHED_CTXS 10\n"
                "#define STARPU_MAXIMPLEMENTATIONS 4\n"
                "#define STARPU_HAVE_UNISTD_H 1\n"
                "#define STARPU_HAVE_STRERROR_R 1\n"
                "#define STARPU_HAVE_UNSETENV 1\n"
                "#define STARPU_HAVE_SETENV 1\n"
                "#define STARPU_HAVE_PTHREAD_SPIN_LOCK 1\n"
                "#define STARPU_HAVE_PTHREAD_BARRIER 1\n"
                "#define STARPU_HAVE_SYNC_BOOL_COMPARE_AND_SWAP 1\n"
                "#define STARPU_HAVE_SYNC_VAL_COMPARE_AND_SWAP 1\n"
                "#define STARPU_HAVE_SYNC_FETCH_AND_ADD 1\n"
                "#define STARPU_HAVE_SYNC_FETCH_AND_OR 1\n"
                "#define STARPU_HAVE_SYNC_LOCK_TEST_AND_SET 1\n"
                "#define STARPU_HAVE_SYNC_SYNCHRONIZE 1\n"
                "#define STARPU_HAVE_CURAND 1\n"
                "typedef long starpu_ssize_t;\n"
                "#define __starpu_func__ __func__\n"
                "#define __starpu_inline __inline__\n"
                "#endif\n",
               "cusparse.h": "#pragma once\ntypedef struct cusparseContext *cusparseHandle_t;\n"},
    "elpa": {"config-f90.h": "/* configure's output: nothing the CUDA files need */\n"},
    "sundials": {"sundials/sundials_config.h": "#define SUNDIALS_VERSION \"6.4.1\"\n#define SUNDIALS_VERSION_MAJOR 6\n"
                 "#define SUNDIALS_VERSION_MINOR 4\n#define SUNDIALS_VERSION_PATCH 1\n#define SUNDIALS_VERSION_LABEL \"\"\n"
                 "#define SUNDIALS_GIT_VERSION \"\"\n#define SUNDIALS_DOUBLE_PRECISION 1\n#define SUNDIALS_INT64_T 1\n"
                 "#define SUNDIALS_INDEX_TYPE int64_t\n#define SUNDIALS_EXPORT\n#define SUNDIALS_DEPRECATED_EXPORT\n"
                 "#define SUNDIALS_STATIC_INLINE static inline\n#define SUNDIALS_NVECTOR_CUDA 1\n"
                 "#define SUNDIALS_CUDA_ENABLED 1\n#define SUNDIALS_MPI_ENABLED 0\n#define SUNDIALS_C_COMPILER_HAS_MATH_PRECISIONS 1\n"
                 "#define SUNDIALS_MAGIC_NUMBER 0x1\n#define SUN_FORTRAN_FLOAT_TYPE float\n"
                 "#define SUNDIALS_DEPRECATED_MSG(msg)\n#define SUNDIALS_DEPRECATED\n#define SUNDIALS_DEPRECATED_EXPORT_MSG(msg)\n"
                 "#define SUNDIALS_LOGGING_LEVEL 0\n#define SUNDIALS_CUDA_TYPE_MODE\n",
                 "sundials/sundials_export.h": "#define SUNDIALS_EXPORT\n#define SUNDIALS_NO_EXPORT\n"
                 "#define SUNDIALS_DEPRECATED\n#define SUNDIALS_DEPRECATED_EXPORT\n#define SUNDIALS_DEPRECATED_NO_EXPORT\n"},
}


def log(cache, line):
    with open(os.path.join(cache, "log", "skipped.txt"), "a") as f:
        f.write(line + "\n")
    print(line, file=sys.stderr)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


def fetch(cache, s):
    """Downloads the source's archive (once) and unpacks it; returns its top directory."""
    top = os.path.join(cache, "src", s["name"])
    if s["url"] is None:
        os.makedirs(top, exist_ok=True)
        if s["name"] == "cccl-cub":
            p = os.path.join(top, "cub_device.cu")
            if not os.path.exists(p):
                open(p, "w").write(CUB_SRC)
        return top
    fname = os.path.basename(s["url"]).replace("%2b", "+").replace("%7e", "~")
    dl = os.path.join(cache, "dl", fname)
    if not os.path.exists(dl):
        tmp = dl + ".part"
        subprocess.run(["curl", "-sSfL", "--retry", "3", "-o", tmp, s["url"]], check=True)
        os.replace(tmp, dl)
    if sha256(dl) != s["sha"]:
        raise SystemExit(f"{dl}: sha256 mismatch (want {s['sha']})")
    done = top + ".unpacked"
    if not os.path.exists(done):
        shutil.rmtree(top, ignore_errors=True)
        os.makedirs(top)
        if dl.endswith(".whl") or dl.endswith(".zip"):
            zipfile.ZipFile(dl).extractall(top)
        else:
            cmd = ["tar", "xf", dl, "-C", top]
            if s.get("members"):
                cmd += ["--wildcards"] + s["members"]
            subprocess.run(cmd, check=True)
        open(done, "w").close()
    subs = [d for d in os.listdir(top) if os.path.isdir(os.path.join(top, d))]
    root = os.path.join(top, subs[0]) if len(subs) == 1 else top
    stubs = [(s["name"], rel, text) for rel, text in STUBS.get(s["name"], {}).items()]
    stubs += [("common", rel, text) for rel, text in COMMON_STUBS.items()]
    for d, rel, text in stubs:
        p = os.path.join(cache, "stub", d, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if not os.path.exists(p) or open(p).read() != text:
            open(p, "w").write(text)
    return root


def extract(root, s):
    """Writes every string literal of the source's Python files that holds a `__global__`
    kernel to extracted/NAME_HASH.cu (kernels that Python code hands to NVRTC or nvcc)."""
    import ast
    out = os.path.join(root, "extracted")
    os.makedirs(out, exist_ok=True)
    for g in s["extract"]:
        for py in sorted(glob.glob(os.path.join(root, g), recursive=True)):
            try:
                tree = ast.parse(open(py, encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__global__" in node.value:
                    rel = os.path.relpath(py, root)
                    h = hashlib.sha1(node.value.encode()).hexdigest()[:8]
                    name = re.sub(r"[^A-Za-z0-9_]", "_", rel[:-3]) + "_" + h
                    path = os.path.join(out, name + ".cu")
                    if not os.path.exists(path):
                        open(path, "w").write(f"// {rel}, line {node.lineno}\n" + node.value)


def pick(root, s):
    if s.get("extract"):
        extract(root, s)
    files = set()
    for g in s["files"]:
        files.update(glob.glob(os.path.join(root, g), recursive=True))
    skip = set()
    for g in s.get("skip", []):
        skip.update(glob.glob(os.path.join(root, g), recursive=True))
    files = sorted(os.path.relpath(f, root) for f in files - skip if os.path.isfile(f))
    return files[: s.get("max", MAX_FILES)]


def ptx_name(s, rel):
    stem = re.sub(r"[^A-Za-z0-9_.-]", "_", re.sub(r"\.(cu|cl)$", "", rel).replace("/", "_"))
    return f"{s['name']}__{stem}"


def nvrtc_cmd(cache, s, root, src, sm, out):
    """NVRTC 13.0.88 as ../shared/corpus/build.sh runs it (for kernels their project hands to
    NVRTC at run time: CuPy RawKernel strings and the like)."""
    lib = os.path.join(cache, "root", "nvidia", "cu13", "lib", "libnvrtc.so.13")
    inc = os.path.join(cache, "root", "nvidia", "cu13", "include")
    here = os.path.dirname(os.path.abspath(__file__))
    tool = os.path.join(here, "..", "..", "shared", "corpus", "nvrtc_ptx.py")
    if not os.path.exists(tool):
        tool = os.path.join(here, "..", "..", "..", "shared", "corpus", "nvrtc_ptx.py")
    cmd = ["nice", "-n", "10", sys.executable, tool, lib, src, out, f"--gpu-architecture=compute_{sm}",
           "-default-device", "-std=c++17", "-I" + os.path.join(inc, "cccl"), "-I" + inc]
    return cmd + ["-I" + os.path.join(root, i) for i in s.get("inc", [])] + ["-D" + d for d in s.get("defs", [])]


def include_dir(cache, s, root, i):
    if i == "@stub":
        return os.path.join(cache, "stub", s["name"])
    return os.path.join(root, i)


def compile_one(cache, nvcc, s, root, rel, sm):
    base = ptx_name(s, rel)
    out = os.path.join(cache, "ptx", f"{base}.sm_{sm}.ptx")
    skipf = os.path.join(cache, "log", f"{base}.sm_{sm}.skip")
    if os.path.exists(out) or os.path.exists(skipf):
        return
    src = os.path.join(root, rel)
    cmd = ["nice", "-n", "10", nvcc, "-ptx", f"-arch=compute_{sm}", "-std=c++17", "-O3", "--expt-relaxed-constexpr",
           "-w"]
    if s.get("lang") == "cu":
        cmd += ["-x", "cu"]
    for i in s.get("inc", []):
        cmd.append("-I" + include_dir(cache, s, root, i))
    cmd.append("-I" + os.path.join(cache, "stub", "common"))
    cmd += ["-D" + d.replace("@root", root) for d in s.get("defs", [])] + s.get("flags", []) + [src, "-o", out + ".part"]
    if s.get("nvrtc"):
        cmd = nvrtc_cmd(cache, s, root, src, sm, out + ".part")
    errlog = os.path.join(cache, "log", f"{base}.sm_{sm}.nvcc.log")
    try:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        ok = r.returncode == 0 and os.path.exists(out + ".part") and b".entry" in open(out + ".part", "rb").read() \
            or (r.returncode == 0 and b".func" in open(out + ".part", "rb").read())
        open(errlog, "wb").write(r.stdout)
    except subprocess.TimeoutExpired:
        ok = False
        open(errlog, "w").write("timeout after 600 s\n")
    if ok:
        os.replace(out + ".part", out)
    else:
        if os.path.exists(out + ".part"):
            os.remove(out + ".part")
        first = ""
        try:
            first = next((l.strip() for l in open(errlog, errors="replace") if "error" in l), "no kernel in the PTX")
        except OSError:
            pass
        open(skipf, "w").write(first + "\n")
        log(cache, f"skipped (does not compile as it is): {s['name']} {rel} sm_{sm}: {first[:200]}")


def ptxas_one(cache, ptxas, ptx):
    base = os.path.basename(ptx)[: -len(".ptx")]
    sm = base.rsplit(".", 1)[1]
    for mr in ("default", "64", "32"):
        logf = os.path.join(cache, "log", f"{base}.{mr}.ptxas")
        if os.path.exists(logf) and os.path.getmtime(logf) >= os.path.getmtime(ptx):
            continue
        args = ["-v", "--gpu-name", sm, ptx, "-o", "/dev/null"] + ([] if mr == "default" else ["--maxrregcount", mr])
        try:
            r = subprocess.run(["nice", "-n", "10", ptxas] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=900)
            if r.returncode != 0:
                r2 = subprocess.run(["nice", "-n", "10", ptxas, "-c"] + args, stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT, timeout=900)
                if r2.returncode == 0:
                    r = r2
            text = r.stdout
        except subprocess.TimeoutExpired:
            text = b"ptxas timed out after 900 s\n"
        open(logf, "wb").write(text)


def summary(cache):
    import json
    recs = json.load(open(os.path.join(cache, "oracle.json")))
    by = {}
    for r in recs:
        src = r["file"].split("__", 1)[0]
        d = by.setdefault(src, {"files": set(), "funcs": set(), "records": 0, "noreg": 0})
        d["files"].add(r["file"])
        d["funcs"].add((r["file"], r["function"]))
        d["records"] += 1
    names = {s["name"]: s for s in SOURCES}
    print(f"{'source':22} {'version':26} {'licence':32} {'PTX files':>9} {'functions':>9}")
    for src in sorted(by):
        d, s = by[src], names.get(src, {})
        print(f"{src:22} {s.get('ver', '?'):26} {s.get('lic', '?'):32} {len(d['files']):9} {len(d['funcs']):9}")
    nf = sum(len(d["files"]) for d in by.values())
    nfun = sum(len(d["funcs"]) for d in by.values())
    ncu = len({(f.rsplit(".", 2)[0]) for d in by.values() for f in d["files"]})
    print(f"gate: {len(by)} sources, {ncu} source files, {nf} PTX files (sm_80 + sm_90), "
          f"{nfun} functions (file x function), {sum(d['records'] for d in by.values())} oracle records")


def main():
    if sys.argv[1] == "--summary":
        return summary(sys.argv[2])
    cache, oracle = sys.argv[1:3]
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else 2
    only = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else None
    for d in ("dl", "src", "ptx", "log", "stub"):
        os.makedirs(os.path.join(cache, d), exist_ok=True)
    tool = os.path.join(cache, "root", "nvidia", "cu13", "bin")
    nvcc, ptxas = os.path.join(tool, "nvcc"), os.path.join(tool, "ptxas")
    work = []
    for s in SOURCES:
        if (only and s["name"] not in only) or s["name"] in SKIP:
            continue
        root = fetch(cache, s)
        for i, rel in enumerate(pick(root, s)):
            for sm in ("80", "90"):
                work.append((i, s, root, rel, sm))
    # Round robin over the sources (every source's first file, then every second file...), so
    # that an interrupted build still covers every source.
    work = [w[1:] for w in sorted(work, key=lambda w: (w[0], SOURCES.index(w[1]), w[4]))]
    with cf.ThreadPoolExecutor(jobs) as ex:
        list(ex.map(lambda w: compile_one(cache, nvcc, *w), work))
    ptxs = sorted(p for p in glob.glob(os.path.join(cache, "ptx", "*.ptx"))
                  if os.path.basename(p).split("__", 1)[0] not in SKIP)
    with cf.ThreadPoolExecutor(jobs) as ex:
        list(ex.map(lambda p: ptxas_one(cache, ptxas, p), ptxs))


if __name__ == "__main__":
    main()
