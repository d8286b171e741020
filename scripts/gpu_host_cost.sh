#!/usr/bin/env bash
# Issue 29's launch path on a CUDA machine (the H200 device machine) in one go: the MXFP8 tests
# (bit-exact against the reference, the C++ table's misses and errors), the graph integration
# tests (opcheck, torch.compile fullgraph, CUDA-graph replay), then the host-cost benchmark with
# both launch paths into $OUT/host_cost_h200.json and .png. Logs go to $OUT (default
# /tmp/host_cost_gpu); each step has a time limit so that one slow step cannot eat the others.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/host_cost_gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export ROPE_KV_BUILD_DIR="${ROPE_KV_BUILD_DIR:-/tmp/rope_kv_build}"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
    python3 -c 'import torch, triton; print("torch", torch.__version__, "cuda", torch.version.cuda, "triton", triton.__version__)'
} 2>&1 | tee "$OUT/env.txt"
start=$SECONDS
# the RoPE + KV extension (graph tests, host cost) builds while the MXFP8 tests run
python3 benchmarks/bench_rope_kv.py --build-only --build-dir "$ROPE_KV_BUILD_DIR" \
    --variant deepseek_v41 >"$OUT/rope_kv_build.log" 2>&1 &
build_pid=$!
rc=0
step() {  # step NAME TIMEOUT COMMAND...
    local name="$1" limit="$2"
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$OUT/$name.log" 2>&1
    local status=$?
    echo "$name: rc=$status in $((SECONDS - t0)) s" | tee -a "$OUT/env.txt"
    grep -E "passed|failed|error" "$OUT/$name.log" | tail -n 3
    [ "$status" -ne 0 ] && rc=1
    return 0
}
pytest_q=(python3 -X faulthandler -m pytest -q -rfs -p no:cacheprovider -p no:randomly --durations=5)
step mxfp8_gpu_tests "${HC_TESTS_TIMEOUT:-230}" "${pytest_q[@]}" tests/kernels/test_mxfp8_gpu.py \
    tests/kernels/test_mxfp8.py tests/kernels/test_mxfp8_vllm_gpu.py
wait "$build_pid" || { echo "rope_kv build failed"; tail -n 40 "$OUT/rope_kv_build.log"; }
echo "build done at $((SECONDS - start)) s" | tee -a "$OUT/env.txt"
DSV41GEN_GRAPH_REPORT="$OUT/graph_integration_h200.json" \
    step graph_tests "${HC_GRAPH_TIMEOUT:-150}" "${pytest_q[@]}" tests/kernels/test_graph_integration.py
step host_cost "${HC_BENCH_TIMEOUT:-150}" python3 benchmarks/host_cost_ops.py \
    --build-dir "$ROPE_KV_BUILD_DIR" --json "$OUT/host_cost_h200.json" --both
python3 benchmarks/plot.py "$OUT/host_cost_h200.json" >>"$OUT/host_cost.log" 2>&1 || true
echo "total $((SECONDS - start)) s, rc=$rc" | tee -a "$OUT/env.txt"
exit $rc
