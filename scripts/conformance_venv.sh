#!/usr/bin/env bash
# Build (once) the venv the conformance suite runs vLLM 0.33.0's own code in, and print its
# python on the last line of stdout.
#
#   scripts/conformance_venv.sh [VENV_DIR]
#
# VENV_DIR defaults to $DSV41GEN_VLLM_VENV, else <repo>/.cache/vllm-0.33.0-venv (git-ignored),
# so several worktrees can share one venv. The venv holds the CPU torch==2.13.0 and, each with
# --no-deps, vLLM 0.33.0 and the few imports its driven modules need
# (tests/conformance/requirements-vllm.txt says why each is there). vLLM's own dependency tree
# would pull torch 2.14.0 and 3 GB; --no-deps everywhere keeps the CPU torch.
#
# Idempotent: a stamp file holds the hash of the requirements, this script and the Python
# version, written after a build whose imports worked; when it matches, the script only prints the python path. Otherwise
# it rebuilds from scratch. A lock makes concurrent callers wait for one build.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${1:-${DSV41GEN_VLLM_VENV:-$repo/.cache/vllm-0.33.0-venv}}
requirements=$repo/tests/conformance/requirements-vllm.txt
python=${PYTHON:-python3}

want=$(cat "$requirements" "${BASH_SOURCE[0]}" <("$python" -c 'import sys; print(sys.version)') |
    sha256sum | cut -c1-16)
stamp=$venv/.dsv41gen-conformance-stamp

is_current() {
    # No import here: importing vLLM takes seconds; the stamp is written only after it did.
    [[ -f $stamp && $(cat "$stamp") == "$want" && -x $venv/bin/python ]]
}

mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! is_current; then
    start=$SECONDS
    echo "building the vLLM 0.33.0 conformance venv in $venv" >&2
    rm -rf "$venv"
    "$python" -m venv "$venv"
    # torch first, with its own (small, pure-Python) dependencies: the CPU wheel on disk.
    "$venv/bin/python" -m pip install -q torch==2.13.0 >&2
    "$venv/bin/python" -m pip install -q --no-deps -r "$requirements" >&2
    # Nothing above may replace the CPU torch (a CUDA torch would be 3 GB and the wrong version).
    "$venv/bin/python" - >&2 <<'PY'
import torch, vllm
assert torch.__version__.startswith("2.13.0"), torch.__version__
assert torch.version.cuda is None, "a CUDA torch was installed"
assert vllm.__version__ == "0.33.0", vllm.__version__
PY
    echo "$want" >"$stamp"
    echo "conformance venv built in $((SECONDS - start)) s" >&2
fi
echo "$venv/bin/python"
