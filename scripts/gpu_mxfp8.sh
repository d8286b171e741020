#!/usr/bin/env bash
# Run the MXFP8 GPU tests and benchmark on a CUDA machine (the H200 device machine) in one go.
# Usage: scripts/gpu_mxfp8.sh [extra bench args, e.g. --sweep]. Results go to $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/mxfp8_gpu}"
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv \
    | tee "$OUT/mxfp8_nvidia_smi.txt"
python3 -m pytest tests/kernels/test_mxfp8.py tests/kernels/test_mxfp8_gpu.py \
    tests/kernels/test_mxfp8_config.py tests/kernels/test_benchmark_variants.py -q -rs \
    -p no:cacheprovider --durations=5 2>&1 | tee "$OUT/mxfp8_pytest.log"
tests_rc=${PIPESTATUS[0]}
python3 benchmarks/bench_mxfp8.py --json "$OUT/mxfp8_h200.json" "$@" 2>&1 | tee "$OUT/mxfp8_bench.log"
bench_rc=${PIPESTATUS[0]}
echo "pytest rc=$tests_rc bench rc=$bench_rc"
exit $((tests_rc | bench_rc))
