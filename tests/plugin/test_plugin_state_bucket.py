"""The plugin applies kv_cache.cache_spec_types in the real vLLM 0.33.0 (CPU, conformance venv).

The same fact `emit --vllm-tree` writes into is_state_bucket's tables as text: each cache's KV
spec type (V4.1's compressor state is a CircularBufferSpec) is or is not a state bucket. Three
vLLMs, each from the wheel's own kv_cache_planning.py, re-executed by a prelude before the
plugin loads:
- the wheel as it is: its closure already names CircularBufferSpec; the plugin loads;
- the one-time refactor applied (module tables), CircularBufferSpec left out of the table: the
  plugin adds it, and vLLM's own _get_packed_kv_cache_groups then plans V4.1's bucket as a state
  bucket (stock vLLM with the same prelude does not);
- the closure with CircularBufferSpec left out: no plugin can extend a closure, so the plugin
  refuses to load, naming the site, the cache and the refactor, and patches nothing.
What vLLM decides is observed in its real planning function (tests/plugin/vllm_driver.py).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from dsv41gen.emit.vllm_tree import refactor

CLOSURE_TYPES = "isinstance(spec.first_spec, (MambaSpec, CircularBufferSpec))"
TABLE = "_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (MambaSpec, CircularBufferSpec)"


def _wheel_source(vllm_python: Path) -> str:
    found = sorted(
        (vllm_python.parent.parent / "lib").glob(
            "python3*/site-packages/vllm/v1/core/kv_cache_planning.py"
        )
    )
    assert len(found) == 1, found
    return found[0].read_text(encoding="utf-8")


def _prelude(source: str, tmp: Path) -> str:
    """Statements that re-execute ``source`` as vLLM's kv_cache_planning module."""
    path = tmp / "kv_cache_planning.py"
    path.write_text(source, encoding="utf-8")
    return (
        "import vllm.v1.core.kv_cache_planning as m\n"
        f"exec(compile(open({str(path)!r}).read(), m.__file__, 'exec'), m.__dict__)"
    )


@pytest.fixture(scope="module")
def sources(vllm_python) -> dict[str, str]:
    wheel = _wheel_source(vllm_python)
    assert CLOSURE_TYPES in wheel
    tables = refactor.refactor_state_bucket(wheel)
    assert TABLE in tables
    return {
        "wheel": wheel,
        "table_without": tables.replace(TABLE, TABLE.replace(", CircularBufferSpec", ",")),
        "closure_without": wheel.replace(CLOSURE_TYPES, "isinstance(spec.first_spec, MambaSpec)"),
    }


def _cases() -> list[dict]:
    return [
        {"kind": "state_bucket", "spec_type": t, "split": split}
        for t in ("CircularBufferSpec", "MambaSpec", "SlidingWindowMLASpec", "MLAAttentionSpec")
        for split in (False, True)
    ]


def _answers(run: dict) -> dict[tuple[str, bool], list]:
    out = {}
    for case, result in zip(_cases(), run["results"]):
        assert result["outcome"] == "ok", result
        # the planner asks once per bucket and use site; every answer for the type counts
        seen = result["values"]["answers"]
        assert seen, case
        out[(case["spec_type"], case["split"])] = sorted({a for _, a in seen})
    return out


# vLLM 0.33.0's answers, read off its kv_cache_planning.py: MambaSpec and CircularBufferSpec
# always, sliding windows only unsplit
WHEEL = {
    ("CircularBufferSpec", False): [True],
    ("CircularBufferSpec", True): [True],
    ("MambaSpec", False): [True],
    ("MambaSpec", True): [True],
    ("SlidingWindowMLASpec", False): [True],
    ("SlidingWindowMLASpec", True): [False],
    ("MLAAttentionSpec", False): [False],
    ("MLAAttentionSpec", True): [False],
}


def test_the_wheel_already_says_what_the_specs_say(driver, real_family, sources, tmp_path):
    stock = driver.run(_cases(), None, tmp_path / "stock")
    assert _answers(stock) == WHEEL
    run = driver.run(_cases(), real_family[1], tmp_path / "plugin")
    assert run["load"]["outcome"] == "ok", run["load"]
    assert _answers(run) == WHEEL


def test_the_plugin_adds_the_spec_type_to_the_refactored_table(
    driver, real_family, sources, tmp_path
):
    prelude = _prelude(sources["table_without"], tmp_path)
    stock = _answers(driver.run(_cases(), None, tmp_path / "stock", prelude))
    # the prelude took effect: stock vLLM no longer plans V4.1's compressor state as state
    assert stock[("CircularBufferSpec", False)] == [False]
    assert stock[("CircularBufferSpec", True)] == [False]
    assert {k: v for k, v in stock.items() if k[0] != "CircularBufferSpec"} == {
        k: v for k, v in WHEEL.items() if k[0] != "CircularBufferSpec"
    }
    run = driver.run(_cases(), real_family[1], tmp_path / "plugin", prelude)
    assert run["load"]["outcome"] == "ok", run["load"]
    assert _answers(run) == WHEEL


def test_a_closure_that_says_otherwise_refuses_the_plugin(driver, real_family, sources, tmp_path):
    prelude = _prelude(sources["closure_without"], tmp_path)
    run = driver.run(_cases(), real_family[1], tmp_path / "plugin", prelude)
    load = run["load"]
    assert load["outcome"] == "error" and load["type"] == "PluginLoadError", load
    assert (
        "site kv_cache.state_bucket: vLLM's is_state_bucket says False for deepseek_v41's "
        "compressor_state cache (CircularBufferSpec) unsplit, the spec says True "
        "(kv_cache.cache_spec_types.compressor_state)" in load["message"]
    ), load["message"]
    assert "--refactor-upstream" in load["message"]
    assert "nothing was patched" in load["message"]
    assert load["changed"] == []
    # V4's caches are planned as the wheel plans them: only V4.1's compressor state is named
    assert load["message"].count("site kv_cache.state_bucket") == 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
