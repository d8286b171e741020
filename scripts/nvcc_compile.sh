#!/usr/bin/env bash
# Compile the torch-free CUDA units of one variant's fused RoPE + KV insert with nvcc: its
# generated instantiation units (csrc/<variant>/rope_kv_inst_h*.cu, against its rope_kv_config.h)
# and dsv41gen's host dispatch (dsv41gen/kernels/rope_kv_dispatch.cu), with the kernel sources
# included from the installed dsv41gen; for sm_90a, and for sm_100a where this nvcc supports
# compute_100 (CUDA_HOME is not needed). One object per unit; prints "unit seconds bytes" per
# unit (seconds are wall time, so run with -j 1 when the times are to be reported).
#
# Usage: scripts/nvcc_compile.sh [-j JOBS] [-a "90a 100a"] [-k KERNELS_DIR] SRC_DIR OUT_DIR
#   SRC_DIR  a generated csrc/<variant> directory, e.g. generated/deepseek_v4/csrc/deepseek_v41
#   OUT_DIR  where the objects go (created)
#   -a       the targets to build (default: 90a, plus 100a where supported)
#   -k       dsv41gen's kernel sources (default: those of the dsv41gen that $PYTHON, default
#            python3, imports; else this checkout's dsv41gen/kernels)
set -euo pipefail
NVCC="${NVCC:-nvcc}"
usage="usage: $0 [-j JOBS] [-a TARGETS] [-k KERNELS_DIR] SRC_DIR OUT_DIR"
jobs=1
targets=""
kernels=""
while getopts "j:a:k:" opt; do
    case "$opt" in
        j) jobs="$OPTARG" ;;
        a) targets="$OPTARG" ;;
        k) kernels="$OPTARG" ;;
        *) echo "$usage" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then
    echo "$usage" >&2
    exit 2
fi
src="$1"
out="$2"
mkdir -p "$out"
if [ -z "$kernels" ]; then
    kernels="$("${PYTHON:-python3}" -c 'from dsv41gen.kernels.runtime import KERNELS_DIR; print(KERNELS_DIR)' 2>/dev/null)" \
        || kernels="$(cd "$(dirname "$0")/../dsv41gen/kernels" && pwd)"
fi
if [ -z "$targets" ]; then
    targets="90a"
    if "$NVCC" --list-gpu-arch | grep -qx compute_100; then
        targets="$targets 100a"
    fi
fi
gencode=()
for t in $targets; do
    gencode+=("-gencode=arch=compute_${t},code=sm_${t}")
done
echo "# nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') targets: $targets kernels: $kernels" >&2

export NVCC src out kernels
export GENCODE="${gencode[*]}"

# The loader's include rule (dsv41gen/kernels/rope_kv_loader.py, include_flags): dsv41gen's
# kernel sources on -I, the generated directory on no include path (its rope_kv_config.h is
# pre-included by path), so that a header planted there cannot stand in for one of dsv41gen's
# or the toolkit's.
# Each unit in its own shell so that -j runs them side by side.
ls "$src"/*.cu "$kernels"/rope_kv_dispatch.cu | xargs -P "$jobs" -I{} bash -c '
    gencode=($GENCODE)
    unit="$1"
    name="$(basename "$unit" .cu)"
    start=$(date +%s%N)
    "$NVCC" -std=c++17 -O3 "${gencode[@]}" -I"$kernels" -include "$src/rope_kv_config.h" -c "$unit" -o "$out/$name.o" || exit 255
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf "%s %d.%03d %d\n" "$name" $((ms / 1000)) $((ms % 1000)) "$(stat -c %s "$out/$name.o")"
' _ {}
