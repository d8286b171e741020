#!/usr/bin/env bash
# Compile the generated, torch-free CUDA units of the fused RoPE + KV insert with nvcc: for
# sm_90a, and for sm_100a where this nvcc supports compute_100 (CUDA_HOME is not needed).
# One object per unit; prints "unit seconds bytes" per unit (seconds are wall time, so run with
# -j 1 when the times are to be reported).
#
# Usage: scripts/nvcc_compile.sh [-j JOBS] [-a "90a 100a"] SRC_DIR OUT_DIR
#   SRC_DIR  a generated csrc/<variant> directory, e.g. generated/deepseek_v4/csrc/deepseek_v41
#   OUT_DIR  where the objects go (created)
#   -a       the targets to build (default: 90a, plus 100a where supported)
set -euo pipefail
NVCC="${NVCC:-nvcc}"
jobs=1
targets=""
while getopts "j:a:" opt; do
    case "$opt" in
        j) jobs="$OPTARG" ;;
        a) targets="$OPTARG" ;;
        *) echo "usage: $0 [-j JOBS] [-a TARGETS] SRC_DIR OUT_DIR" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -ne 2 ]; then
    echo "usage: $0 [-j JOBS] [-a TARGETS] SRC_DIR OUT_DIR" >&2
    exit 2
fi
src="$1"
out="$2"
mkdir -p "$out"
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
echo "# nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') targets: $targets" >&2

export NVCC src out
export GENCODE="${gencode[*]}"

# Each unit in its own shell so that -j runs them side by side.
ls "$src"/*.cu | xargs -P "$jobs" -I{} bash -c '
    gencode=($GENCODE)
    unit="$1"
    name="$(basename "$unit" .cu)"
    start=$(date +%s%N)
    "$NVCC" -std=c++17 -O3 "${gencode[@]}" -I"$src" -c "$unit" -o "$out/$name.o" || exit 255
    ms=$(( ($(date +%s%N) - start) / 1000000 ))
    printf "%s %d.%03d %d\n" "$name" $((ms / 1000)) $((ms % 1000)) "$(stat -c %s "$out/$name.o")"
' _ {}
