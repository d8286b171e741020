"""The conformance site of the engine-wide architecture sets (architectures.<name>.engine_sets).

vLLM 0.33.0 keys some behaviour on the architecture name alone, in module-level sets
(config/vllm.py's breakable-CUDA-graph default, and its ROCm answer; config/kernel.py's
FlashInfer MoE expert-parallel set). For every architecture of the specs, the sets its spec
entry names are exactly those vLLM 0.33.0's own code puts it in, read in the vLLM venv: the
spec states what 0.33.0 does. With the plugin, a YAML-only child's new architecture that runs
its parent's model class is in the same sets (tests/plugin/test_plugin_in_vllm.py, V4.2).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1] / "plugin"))
from pluginhelpers import SPECS, Driver  # noqa: E402

from dsv41gen.commands.pipeline import load_families  # noqa: E402
from dsv41gen.plan.engine import ENGINE_SETS  # noqa: E402


def _stated() -> dict[str, list[str]]:
    """Each architecture's engine_sets as its spec entry writes them (all are stated)."""
    out: dict[str, list[str]] = {}
    families = load_families(sorted(SPECS.glob("*.yaml")), warn=lambda _line: None)
    for variant in (v for inputs in families for v in inputs.family.variants):
        for architecture in variant.architectures:
            out[architecture.name] = sorted(architecture.engine_sets or ())
    return out


def test_every_architecture_is_in_the_sets_vllm_puts_it_in(vllm_python, tmp_path):
    stated = _stated()
    run = Driver(vllm_python).run(
        [{"kind": "engine_sets", "archs": sorted(stated)}], None, tmp_path
    )
    (result,) = run["results"]
    assert result["outcome"] == "ok", result
    assert result["values"] == stated
    # the site compares something: every set the language names holds some architecture here
    assert {n for sets in stated.values() for n in sets} == set(ENGINE_SETS)
