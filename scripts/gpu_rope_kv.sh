#!/usr/bin/env bash
# The fused RoPE + KV insert on a CUDA machine (the H200 device machine) in one go: build both
# variants' extensions once (side by side), run the benchmark, then the GPU tests against the
# same build. Results and logs go to $OUT (default /tmp/rope_kv_gpu).
# Usage: scripts/gpu_rope_kv.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/rope_kv_gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export ROPE_KV_BUILD_DIR="${ROPE_KV_BUILD_DIR:-/tmp/rope_kv_build}"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
    nvcc --version | tail -2
    python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)'
} 2>&1 | tee "$OUT/rope_kv_env.txt"

start=$SECONDS
pids=()
for variant in deepseek_v4 deepseek_v41; do
    python3 benchmarks/bench_rope_kv.py --build-only --build-dir "$ROPE_KV_BUILD_DIR" \
        --variant "$variant" >"$OUT/rope_kv_build_$variant.log" 2>&1 &
    pids+=($!)
done
build_rc=0
for pid in "${pids[@]}"; do wait "$pid" || build_rc=1; done
echo "build: $((SECONDS - start)) s, rc=$build_rc" | tee -a "$OUT/rope_kv_env.txt"
if [ "$build_rc" -ne 0 ]; then
    tail -n 60 "$OUT"/rope_kv_build_*.log
    exit 1
fi

python3 benchmarks/bench_rope_kv.py --json "$OUT/rope_kv_h200.json" \
    --build-dir "$ROPE_KV_BUILD_DIR" 2>&1 | tee "$OUT/rope_kv_bench.log"
bench_rc=${PIPESTATUS[0]}

# Byte-exact suite, quiet. The input-check cases run each bad call in a child process of its
# own (tests/kernels/rope_kv_input_check_child.py), so a crash fails one case, not the run.
timeout "${ROPE_KV_TEST_TIMEOUT:-420}" python3 -X faulthandler -m pytest \
    tests/kernels/test_rope_kv_gpu.py -q -rs -p no:cacheprovider --durations=8 \
    -k "not input_checks" 2>&1 | tee "$OUT/rope_kv_pytest.log" | grep -v "^\.*\s*\["
tests_rc=${PIPESTATUS[0]}
timeout 300 python3 -m pytest tests/kernels/test_rope_kv_gpu.py -v -rs -p no:cacheprovider \
    -k "input_checks" 2>&1 | tee "$OUT/rope_kv_pytest_checks.log" \
    | grep -E "PASSED|FAILED|ERROR|passed|failed|crashed"
checks_rc=${PIPESTATUS[0]}
echo "bench rc=$bench_rc pytest rc=$tests_rc checks rc=$checks_rc"
exit $((bench_rc | tests_rc | checks_rc))
