#!/usr/bin/env bash
# Fetch vLLM 0.33.0's own kernels, the oracle of the GPU tests, into the git-ignored folder
# .vllm/ (never committed: vLLM's code and binaries stay out of the repository).
#
#   .vllm/vllm-0.33.0-*.whl            the wheel (pip download --no-deps)
#   .vllm/oracle/rope_kv_sm90.cubin    the sm_90 cubin of csrc/fused_deepseek_v4_qnorm_rope_kv_
#                                      insert_kernel.cu, taken out of vllm/_C_stable_libtorch.abi3.so
#   .vllm/oracle/rope_kv_sm90.symbols  its symbol table (cuobjdump -symbols)
#   .vllm/oracle/mxfp8_utils.py        vLLM's MXFP8 quantization module (its Triton kernel)
#   .vllm/oracle/SOURCE                wheel name and sha256
#
# .vllm/oracle travels to the GPU machine (the device tool's carry); tests/kernels/vllm_oracle.py
# launches the cubin's kernels through the CUDA driver API. Needs pip and the cuobjdump that
# triton's wheel carries (CUOBJDUMP overrides it). Usage: scripts/vllm_oracle.sh
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.33.0
ROOT=.vllm
OUT="$ROOT/oracle"
PYTHON="${PYTHON:-.venv/bin/python}"
mkdir -p "$OUT"
wheel=$(ls "$ROOT"/vllm-"$VERSION"-*.whl 2>/dev/null | head -1 || true)
if [ -z "$wheel" ]; then
    echo "downloading vllm==$VERSION (no dependencies) into $ROOT" >&2
    "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: "vllm==$VERSION" -d "$ROOT"
    wheel=$(ls "$ROOT"/vllm-"$VERSION"-*.whl | head -1)
fi
CUOBJDUMP="${CUOBJDUMP:-$("$PYTHON" -c 'import pathlib, triton; print(pathlib.Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump")')}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unzip -q -o "$wheel" vllm/_C_stable_libtorch.abi3.so \
    vllm/model_executor/layers/quantization/utils/mxfp8_utils.py -d "$work"
so="$work/vllm/_C_stable_libtorch.abi3.so"
# The cubins are named by index (_C_stable_libtorch.abi3.N.sm_XX.cubin): list them, extract the
# sm_90 ones, keep the one whose symbols hold the fused RoPE + KV kernels.
(cd "$work" && "$CUOBJDUMP" -lelf "$so" | awk '/sm_90\.cubin/ {print $NF}' \
    | while read -r name; do "$CUOBJDUMP" -xelf "$name" "$so" >/dev/null; done)
found=""
for cubin in "$work"/*.sm_90.cubin; do
    if "$CUOBJDUMP" -symbols "$cubin" | grep -q fusedDeepseekV4QNormRopeKVRopeQuantInsertKernel; then
        found="$cubin"
    fi
done
if [ -z "$found" ]; then
    echo "no sm_90 cubin of $wheel holds fusedDeepseekV4QNormRopeKVRopeQuantInsertKernel" >&2
    exit 1
fi
cp "$found" "$OUT/rope_kv_sm90.cubin"
"$CUOBJDUMP" -symbols "$found" >"$OUT/rope_kv_sm90.symbols"
cp "$work/vllm/model_executor/layers/quantization/utils/mxfp8_utils.py" "$OUT/mxfp8_utils.py"
{
    echo "wheel $(basename "$wheel")"
    echo "sha256 $(sha256sum "$wheel" | cut -d' ' -f1)"
    echo "cubin $(basename "$found") from vllm/_C_stable_libtorch.abi3.so"
} >"$OUT/SOURCE"
ls -l "$OUT" >&2
