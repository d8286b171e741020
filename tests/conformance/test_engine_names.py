"""dsv41gen/spec/engine_names.json is current against the vLLM 0.33.0 of the conformance venv.

The build checks every KV spec type and registry target a spec names against that committed
file (spec/validate/engine_names.py), never against an installed vLLM. Here the file is
regenerated from the venv's wheel (scripts/engine_names.py, by ``ast``) and compared byte for
byte, and its KV spec hierarchy is compared with the classes vLLM itself defines when imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

from vllmvenv import REPO

from dsv41gen.spec.engine_facts import VLLM_VERSION, engine_names

SCRIPT = REPO / "scripts" / "engine_names.py"

KV_HIERARCHY = """
import inspect, json
import vllm, vllm.v1.kv_cache_interface as kv
classes = {n: c for n, c in vars(kv).items() if inspect.isclass(c) and c.__module__ == kv.__name__}
spec = {n: c for n, c in classes.items() if issubclass(c, kv.KVCacheSpec)}
print(json.dumps({"version": vllm.__version__, "types": {
    n: next((b.__name__ for b in c.__bases__ if b in spec.values()), None) for n, c in spec.items()
}}))
"""


def _site(vllm_python) -> str:
    code = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
    return subprocess.run(
        [str(vllm_python), "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_the_committed_facts_are_the_wheels(vllm_python):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), _site(vllm_python), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_kv_spec_hierarchy_is_what_vllm_defines(vllm_python):
    result = subprocess.run(
        [str(vllm_python), "-c", KV_HIERARCHY], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    engine = json.loads(result.stdout.strip().splitlines()[-1])
    assert engine["version"] == VLLM_VERSION == engine_names()["version"]
    assert engine["types"] == engine_names()["kv_spec_types"]


def test_every_shipped_registry_target_is_in_the_facts():
    """The facts name what the shipped specs bind (a sanity check of the ast reading: a module
    whose names came out empty would refuse every spec)."""
    modules = engine_names()["model_modules"]
    assert "DeepseekV41ForCausalLM" in modules["vllm.models.deepseek_v41"]["names"]
    assert "DeepSeekV4MTP" in modules["vllm.models.deepseek_v4"]["names"]
