"""Helpers of the wiring tests (a module of its own name: every tests/ directory has a conftest)."""

from __future__ import annotations

import contextlib
import importlib
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from repohelpers import FIXTURE_SPECS, REPO, SPECS, copy_specs  # noqa: F401 (re-exported)

# pytest in a child process, for the generated tests: no cache directory written into the output
# tree, and no hypothesis plugin (the generated tests use no hypothesis; its plugin imports it at
# the end of every run, 2 of such a run's 3 CPU-s)
GENERATED_PYTEST = (
    sys.executable,
    "-m",
    "pytest",
    "-q",
    "-p",
    "no:cacheprovider",
    "-p",
    "no:hypothesispytest",
)


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dsv41gen", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
    )


@contextlib.contextmanager
def child_spec_module(child_spec: Path, module: str, scratch: Path) -> Iterator[ModuleType]:
    """The deepseek_v4 family's ``module`` built from a test spec that extends the real V4 spec
    (``child_spec``, copied beside it into scratch/specs), imported from scratch/out. The
    package another test may have imported is set aside meanwhile, then restored."""
    specs = scratch / "specs"
    specs.mkdir(parents=True, exist_ok=True)
    shutil.copy(SPECS / "deepseek_v4.yaml", specs)
    shutil.copy(child_spec, specs)
    out = scratch / "out"
    done = run_cli("build", str(specs / child_spec.name), "--out", str(out))
    assert done.returncode == 0, done.stderr

    def ours() -> list[str]:
        return [m for m in sys.modules if m == "deepseek_v4" or m.startswith("deepseek_v4.")]

    saved = {name: sys.modules.pop(name) for name in ours()}
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module(f"deepseek_v4.{module}")
    finally:
        sys.path.remove(str(out))
        for name in ours():
            del sys.modules[name]
        sys.modules.update(saved)


# vLLM 0.33.0's DeepseekV4DecoderLayer as every V4 / V4.1 draft stage ships it (attention with
# its norms and sink, the mHC mixers, the MoE gate and shared experts), and its routed experts'
# per-expert weights (fused_moe_make_expert_params_mapping's w1 / w2 / w3)
DECODER_BLOCK = [
    "attn_norm",
    "ffn_norm",
    "hc_attn_fn",
    "hc_attn_base",
    "hc_attn_scale",
    "hc_ffn_fn",
    "hc_ffn_base",
    "hc_ffn_scale",
    "attn.attn_sink",
    "attn.wq_a",
    "attn.wkv",
    "attn.q_norm",
    "attn.wq_b",
    "attn.kv_norm",
    "attn.wo_a",
    "attn.wo_b",
    "ffn.gate",
    "ffn.shared_experts.w1",
    "ffn.shared_experts.w2",
    "ffn.shared_experts.w3",
]
EXPERT_WEIGHTS = ("w1", "w2", "w3")
# the names vLLM 0.33.0 loads as one nn.Parameter each (the set's hc_head_*, the block's mHC
# mixers and attention sink): each is shipped as its own tensor, with no `.weight`
PARAMETERS = ("hc_head_fn", "hc_head_base", "hc_head_scale", "attn_sink")
PARAMETERS += tuple(f"hc_{at}_{p}" for at in ("attn", "ffn") for p in ("fn", "base", "scale"))


def tensor_of(name: str) -> str:
    """The checkpoint tensor of a weight: the name itself for a parameter, `<name>.weight` for
    a module."""
    return name if name.rpartition(".")[2] in PARAMETERS else f"{name}.weight"


def decoder_blocks(stages: int, experts: int) -> list[str]:
    """Every stage's decoder-block weights (names without the tensor's .weight)."""
    per_expert = [f"ffn.experts.{e}.{w}" for e in range(experts) for w in EXPERT_WEIGHTS]
    return [f"mtp.{i}.{w}" for i in range(stages) for w in DECODER_BLOCK + per_expert]
