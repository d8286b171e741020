#!/usr/bin/env bash
# The fused RoPE + KV insert on a CUDA machine (the H200 device machine) in one go: build the
# variants' extensions once (side by side), the byte-for-byte tests against vLLM 0.33.0's
# kernels, the benchmark beside vLLM's kernels, then the rest of the GPU tests against the same
# build. vLLM's kernels come from .vllm/oracle (scripts/vllm_oracle.sh; VLLM_ORACLE_DIR elsewhere).
# Results and logs go to $OUT (default /tmp/rope_kv_gpu). Each step has a time limit
# (ROPE_KV_*_TIMEOUT seconds) so that one slow step cannot eat the others.
# Usage: scripts/gpu_rope_kv.sh [bench|tests|all]   (default all)
set -uo pipefail
cd "$(dirname "$0")/.."
what="${1:-all}"
OUT="${OUT:-/tmp/rope_kv_gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export ROPE_KV_BUILD_DIR="${ROPE_KV_BUILD_DIR:-/tmp/rope_kv_build}"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
    nvcc --version | tail -2
    python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'
    cat "${VLLM_ORACLE_DIR:-.vllm/oracle}/SOURCE" 2>/dev/null || echo "no vLLM oracle"
} 2>&1 | tee "$OUT/rope_kv_env.txt"

start=$SECONDS
pids=()
for args in "--variant deepseek_v4" "--variant deepseek_v41" "--variant deepseek_v41 --streaming"; do
    # shellcheck disable=SC2086
    python3 benchmarks/bench_rope_kv.py --build-only --build-dir "$ROPE_KV_BUILD_DIR" $args \
        >"$OUT/rope_kv_build_${args//[^a-z0-9]/_}.log" 2>&1 &
    pids+=($!)
done
# the GPU tests' exact-math variant (tests/kernels/conftest.py), into the same build root
python3 -c 'import sys; sys.path[:0] = ["tests/kernels"]; import conftest; conftest.build_exact_math(sys.argv[1])' \
    "$ROPE_KV_BUILD_DIR" >"$OUT/rope_kv_build_exact_math.log" 2>&1 &
pids+=($!)
build_rc=0
for pid in "${pids[@]}"; do wait "$pid" || build_rc=1; done
echo "build: $((SECONDS - start)) s, rc=$build_rc" | tee -a "$OUT/rope_kv_env.txt"
if [ "$build_rc" -ne 0 ]; then
    tail -n 60 "$OUT"/rope_kv_build_*.log
    exit 1
fi

rc=0
step() {  # step NAME TIMEOUT COMMAND...: run, log to $OUT/NAME.log, keep the worst status
    local name="$1" limit="$2"
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local status=$?
    echo "$name: rc=$status in $((SECONDS - t0)) s" | tee -a "$OUT/rope_kv_env.txt"
    grep -E "passed|failed|error|skipped" "$OUT/$name.log" | tail -n 3
    [ "$status" -ne 0 ] && rc=1
    return 0
}
pytest_q=(python3 -X faulthandler -m pytest -q -rfs -p no:cacheprovider --durations=5)
if [ "$what" != bench ]; then
    # vLLM's compiled writer, vLLM's readers (FlashMLA, the Triton gather), vLLM's Triton MXFP8;
    # the readers' figures and the MXFP8 non-finite table as JSON beside the logs
    export DSV41GEN_READER_REPORT="$OUT/vllm_readers_h200.json"
    export DSV41GEN_MXFP8_NONFINITE_REPORT="$OUT/mxfp8_nonfinite_h200.json"
    step vllm_oracle_tests "${ROPE_KV_ORACLE_TIMEOUT:-360}" "${pytest_q[@]}" \
        tests/kernels/test_rope_kv_vllm_gpu.py tests/kernels/test_mxfp8_vllm_gpu.py \
        tests/kernels/test_vllm_readers_gpu.py
fi
if [ "$what" != tests ]; then
    step bench "${ROPE_KV_BENCH_TIMEOUT:-200}" python3 benchmarks/bench_rope_kv.py \
        --json "$OUT/rope_kv_h200.json" --build-dir "$ROPE_KV_BUILD_DIR"
    tail -n 40 "$OUT/bench.log"
fi
if [ "$what" != bench ]; then
    # The reference suite (and the exact-math variant), quiet; the input-check cases run each
    # bad call in a child process of its own (tests/kernels/rope_kv_input_check_child.py).
    step gpu_tests "${ROPE_KV_TEST_TIMEOUT:-300}" "${pytest_q[@]}" \
        tests/kernels/test_rope_kv_gpu.py -k "${ROPE_KV_TEST_FILTER:-not input_checks}"
fi
grep -hE "^(FAILED|ERROR)" "$OUT"/*.log | head -n 40
exit $rc
