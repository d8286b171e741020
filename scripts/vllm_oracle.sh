#!/usr/bin/env bash
# Fetch vLLM 0.33.0's own kernels, the oracle of the GPU tests, into the git-ignored folder
# .vllm/ (never committed: vLLM's code and binaries stay out of the repository).
#
#   .vllm/vllm-0.33.0-*.whl            the wheel (pip download --no-deps)
#   .vllm/oracle/rope_kv_sm90.cubin    the sm_90 cubin of csrc/fused_deepseek_v4_qnorm_rope_kv_
#                                      insert_kernel.cu, taken out of vllm/_C_stable_libtorch.abi3.so
#   .vllm/oracle/rope_kv_sm90.symbols  its symbol table (cuobjdump -symbols)
#   .vllm/oracle/mxfp8_utils.py        vLLM's MXFP8 quantization module (its Triton kernel)
#   .vllm/oracle/_flashmla_C.abi3.so   FlashMLA (sparse_decode_fwd / sparse_prefill_fwd), the
#                                      attention kernels that read the 584 B record on sm_90
#   .vllm/oracle/cache_utils_v4.py     vllm/models/deepseek_v4/common/ops/cache_utils.py and
#   .vllm/oracle/cache_utils_v41.py    .../deepseek_v41/...: the Triton dequantize-and-gather
#                                      readers of the 584 B and 528 B records
#   .vllm/oracle/SOURCE                wheel name and sha256 (or the installed wheel's RECORD)
#
# With DSV41GEN_VLLM_VENV set to a venv holding vllm 0.33.0 (the conformance venv), the files
# are taken from that install, each checked against the sha256 of the wheel's RECORD, and
# nothing is downloaded.
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
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
FILES=(vllm/_C_stable_libtorch.abi3.so vllm/_flashmla_C.abi3.so
    vllm/model_executor/layers/quantization/utils/mxfp8_utils.py
    vllm/models/deepseek_v4/common/ops/cache_utils.py
    vllm/models/deepseek_v41/common/ops/cache_utils.py)
site=""
if [ -n "${DSV41GEN_VLLM_VENV:-}" ]; then
    site=$(ls -d "$DSV41GEN_VLLM_VENV"/lib/python3*/site-packages 2>/dev/null | head -1 || true)
    [ -f "$site/vllm-$VERSION.dist-info/RECORD" ] || site=""
fi
if [ -n "$site" ]; then
    # The installed wheel: each file's sha256 must be the one the wheel's RECORD lists.
    "$PYTHON" - "$site" "$work" "${FILES[@]}" <<'PY'
import base64, hashlib, shutil, sys
from pathlib import Path
site, work, names = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3:]
record = {}
for line in (site / "vllm-0.33.0.dist-info/RECORD").read_text().splitlines():
    name, digest, _ = line.rsplit(",", 2)
    record[name] = digest
for name in names:
    data = (site / name).read_bytes()
    digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    if record.get(name) != digest:
        sys.exit(f"{site / name}: sha256 {digest} is not the wheel RECORD's {record.get(name)}")
    (work / name).parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(site / name, work / name)
PY
    record_sha=$(sha256sum "$site/vllm-$VERSION.dist-info/RECORD" | cut -d' ' -f1)
    source_line="installed wheel vllm $VERSION, files checked against its RECORD (sha256 $record_sha)"
else
    wheel=$(ls "$ROOT"/vllm-"$VERSION"-*.whl 2>/dev/null | head -1 || true)
    if [ -z "$wheel" ]; then
        echo "downloading vllm==$VERSION (no dependencies) into $ROOT" >&2
        "$PYTHON" -m pip download --quiet --no-deps --only-binary=:all: "vllm==$VERSION" -d "$ROOT"
        wheel=$(ls "$ROOT"/vllm-"$VERSION"-*.whl | head -1)
    fi
    unzip -q -o "$wheel" "${FILES[@]}" -d "$work"
    source_line="wheel $(basename "$wheel") sha256 $(sha256sum "$wheel" | cut -d' ' -f1)"
fi
CUOBJDUMP="${CUOBJDUMP:-$("$PYTHON" -c 'import pathlib, triton; print(pathlib.Path(triton.__file__).parent / "backends/nvidia/bin/cuobjdump")')}"
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
    echo "no sm_90 cubin of vllm/_C_stable_libtorch.abi3.so holds fusedDeepseekV4QNormRopeKVRopeQuantInsertKernel" >&2
    exit 1
fi
cp "$found" "$OUT/rope_kv_sm90.cubin"
"$CUOBJDUMP" -symbols "$found" >"$OUT/rope_kv_sm90.symbols"
cp "$work/vllm/model_executor/layers/quantization/utils/mxfp8_utils.py" "$OUT/mxfp8_utils.py"
cp "$work/vllm/_flashmla_C.abi3.so" "$OUT/_flashmla_C.abi3.so"
cp "$work/vllm/models/deepseek_v4/common/ops/cache_utils.py" "$OUT/cache_utils_v4.py"
cp "$work/vllm/models/deepseek_v41/common/ops/cache_utils.py" "$OUT/cache_utils_v41.py"
{
    echo "$source_line"
    echo "cubin $(basename "$found") from vllm/_C_stable_libtorch.abi3.so"
} >"$OUT/SOURCE"
ls -l "$OUT" >&2
