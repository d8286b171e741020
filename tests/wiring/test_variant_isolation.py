"""Adding a variant cannot change the existing ones: random YAML-only siblings, each extending a
real variant with a random set of changes, are built beside the real specs, and the existing
variants must behave exactly as before. Checked three ways:

- a behaviour snapshot of every public function of the wiring modules on a fixed input matrix
  (behaviour_snapshot.py), asked of the real variants' model types, architectures and classes;
- the baseline build's own generated tests, run against the build with the siblings;
- the existing variants' own kernel files (the files whose header names only their lineage) are
  byte-identical, and no baseline file is renamed or dropped.

The oracle is the baseline build of the real specs alone, not a rule of the planner.
"""

from __future__ import annotations

import copy
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import yaml
from behaviour_snapshot import matrix_of, take
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st
from wiringhelpers import GENERATED_PYTEST, SPECS, run_cli

PACKAGE = "deepseek_v4"
PARENTS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def _resolved(name: str) -> dict:
    from dsv41gen.errors import Diagnostics
    from dsv41gen.spec.resolve import Resolver

    spec = Resolver(Diagnostics()).resolve(SPECS / name)
    assert spec is not None
    return spec.data


class _Delete:
    """Dumped as the `!delete` tag."""


yaml.SafeDumper.add_representer(_Delete, lambda dumper, _: dumper.represent_scalar("!delete", ""))


def _eagle3(parent: dict, arch: str) -> dict:
    methods = parent["speculative"]["methods"]
    body = copy.deepcopy(methods[sorted(methods)[0]])
    body["label"] = "EAGLE-3"
    body["draft_model_type"] = "sibling_eagle3"
    body.pop("adaptive_verification", None)
    return {"speculative": {"methods": {"eagle3": body}}}


def _adaptive(parent: dict, arch: str) -> dict:
    methods = parent["speculative"]["methods"]
    name = sorted(methods)[-1]
    flipped = not methods[name].get("adaptive_verification", False)
    return {"speculative": {"methods": {name: {"adaptive_verification": flipped}}}}


def _drop_method(parent: dict, arch: str) -> dict:
    methods = parent["speculative"]["methods"]
    forbidden = parent["speculative"].get("forbidden", {})
    used = {body["use_instead"] for body in forbidden.values()}
    droppable = sorted(m for m in methods if m not in used)
    if len(methods) < 2 or not droppable:
        return {}
    return {"speculative": {"methods": {droppable[0]: _Delete()}}}


def _token_maximum(parent: dict, arch: str) -> dict:
    name = sorted(parent["speculative"]["methods"])[0]
    return {"speculative": {"methods": {name: {"num_speculative_tokens": {"maximum": 1000}}}}}


def _state_like_never(parent: dict, arch: str) -> dict:
    return {"kv_cache": {"spec_types": {"SlidingWindowSpec": {"state_like": "never"}}}}


def _state_like_always(parent: dict, arch: str) -> dict:
    return {"kv_cache": {"spec_types": {"FullAttentionSpec": {"state_like": "always"}}}}


def _compress_ratios(parent: dict, arch: str) -> dict:
    return {
        "kv_cache": {
            "compress_ratios": [0, 1, 4],
            "unsupported_compress_ratio_message": (
                "{display_name} layer {layer_id}: compress_ratio={compress_ratio} is unsupported."
            ),
        }
    }


def _mx_tiles(parent: dict, arch: str) -> dict:
    return {"quantization": {"mxfp8": {"launch": {"block_m": 16, "block_k": 512, "num_warps": 8}}}}


def _q_heads(parent: dict, arch: str) -> dict:
    return {"kernels": {"rope_kv_insert": {"num_heads_q_padded": [0, 8, 16]}}}


def _runner_mode(parent: dict, arch: str) -> dict:
    return {
        "runner": {
            "default_model_runner": {arch: "v1"},
            "forbidden_modes": {
                "sibling_full": {
                    "architectures": [arch],
                    "model_runner": "v1",
                    "cudagraph_modes": ["FULL", "FULL_DECODE_ONLY"],
                    "message": "{display_name} needs Model Runner V2 for FULL CUDA graphs.",
                }
            },
        }
    }


def _backend(parent: dict, arch: str) -> dict:
    backends = parent.get("attention_backends", {})
    base = next(k for k, b in sorted(backends.items()) if b.get("kind", "indexer") == "indexer")
    name = arch.replace("ForCausalLM", "IndexerBackend")
    return {
        "attention_backends": {
            name: {
                "name": name.upper(),
                "parent": base,
                "kernel_block_sizes": {"by_capability_family": {"sm90": [32]}, "default": [256]},
            }
        }
    }


MUTATIONS = {
    "eagle3": _eagle3,
    "adaptive": _adaptive,
    "drop_method": _drop_method,
    "token_maximum": _token_maximum,
    "state_like_never": _state_like_never,
    "state_like_always": _state_like_always,
    "compress_ratios": _compress_ratios,
    "mx_tiles": _mx_tiles,
    "q_heads": _q_heads,
    "runner_mode": _runner_mode,
    "backend": _backend,
}


def _merge(into: dict, part: dict) -> None:
    for key, value in part.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _merge(into[key], value)
        else:
            into[key] = value


def sibling_yaml(index: int, parent: str, mutations: list[str]) -> str:
    resolved = _resolved(parent)
    name = f"sibling{index}"
    arch = f"Sibling{index}ForCausalLM"
    spec: dict = {
        "spec_version": 1,
        "extends": parent,
        "variant": {"name": name, "display_name": f"Sibling {index}", "model_type": name},
        "architectures": {
            arch: {
                "registry": "text_generation",
                "module": "vllm.models.deepseek_v41",
                "class": "DeepseekV41ForCausalLM",
            }
        },
    }
    for mutation in mutations:
        _merge(spec, MUTATIONS[mutation](resolved, arch))
    return yaml.safe_dump(spec, sort_keys=False)


def _build(root: Path) -> None:
    result = run_cli("build", "--out", "out", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr


def _own_kernel_files(out: Path) -> dict[str, bytes]:
    """The files whose header names a strict subset of the family's specs: one variant's own."""
    found = {}
    for path in sorted((out / PACKAGE).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            head = path.read_bytes().split(b"\n", 1)[0]
            if head.endswith(b"from specs/deepseek_v4.yaml."):
                found[path.relative_to(out).as_posix()] = path.read_bytes()
    return found


class _Baseline(dict):
    def __repr__(self) -> str:  # hypothesis prints the arguments of a failing example
        return "<baseline build of the real specs>"


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    root = tmp_path_factory.mktemp("baseline")
    shutil.copytree(SPECS, root / "specs")
    _build(root)
    out = root / "out"
    matrix = matrix_of(out, PACKAGE)
    files = {
        p.relative_to(out).as_posix()
        for p in (out / PACKAGE).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    return _Baseline(
        root=root,
        matrix=matrix,
        snapshot=take(out, PACKAGE, matrix),
        files=files,
        own=_own_kernel_files(out),
    )


def test_the_snapshot_sees_a_behaviour_change(baseline, tmp_path):
    """The snapshot can fail: a real variant's own edit (V4.1's sm100 block size) shows in it."""
    shutil.copytree(SPECS, tmp_path / "specs")
    spec = tmp_path / "specs" / "deepseek_v41.yaml"
    text = spec.read_text(encoding="utf-8")
    assert text.count("sm100: [128]") == 1
    spec.write_text(text.replace("sm100: [128]", "sm100: [256]"), encoding="utf-8")
    _build(tmp_path)
    changed = take(tmp_path / "out", PACKAGE, baseline["matrix"])
    differ = sorted(k for k in changed if changed[k] != baseline["snapshot"].get(k))
    assert "backends.DeepseekV41IndexerBackend.get_supported_kernel_block_sizes[100]" in differ


siblings = st.lists(
    st.tuples(
        st.sampled_from(PARENTS),
        st.lists(st.sampled_from(sorted(MUTATIONS)), min_size=1, max_size=5, unique=True),
    ),
    min_size=1,
    max_size=2,
)


# Each example is two builds and a pytest run (seconds): few examples, no shrinking (a failure
# prints its siblings, which is reproduction enough), the same examples on every run.
@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(siblings=siblings)
@example(siblings=[(parent, sorted(MUTATIONS)) for parent in PARENTS])  # every change at once
def test_yaml_only_siblings_leave_existing_variants_unchanged(baseline, siblings):
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        shutil.copytree(SPECS, root / "specs")
        for index, (parent, mutations) in enumerate(siblings):
            (root / "specs" / f"sibling{index}.yaml").write_text(
                sibling_yaml(index, parent, mutations), encoding="utf-8"
            )
        _build(root)
        assert_existing_variants_unchanged(baseline, root / "out", siblings)


def _mentions(key: str, names: list[str]) -> bool:
    """Whether a snapshot key asks about one of ``names`` (an argument, quoted, or a table
    entry in brackets)."""
    return any(f'"{n}"' in key or f"[{n}]" in key for n in names)


def assert_existing_variants_unchanged(baseline: dict, out: Path, label: object) -> None:
    """The existing variants' full behaviour in ``out`` is the baseline's: every baseline answer
    is the same; an answer the baseline could not give (a function a new variant brought) is
    asked of an existing variant's model type or architecture, and it says "not mine" (None:
    a check accepts, a lookup has no entry; False: a yes/no site says no; never a refusal or a
    warning), so nothing new answers for them; the baseline's generated tests pass; no baseline
    file is dropped; the existing variants' own kernel files are byte-identical."""
    after = take(out, PACKAGE, baseline["matrix"])
    changed = {
        key: (baseline["snapshot"][key], after.get(key))
        for key in baseline["snapshot"]
        if after.get(key) != baseline["snapshot"][key]
    }
    assert not changed, (label, dict(list(changed.items())[:5]))
    existing = baseline["matrix"]["model_types"] + baseline["matrix"]["architectures"]
    answers_for_them = {
        key: value
        for key, value in after.items()
        if key not in baseline["snapshot"]
        and _mentions(key, existing)
        and not (value is None or value is False)
    }
    assert not answers_for_them, (label, dict(list(answers_for_them.items())[:5]))
    files = {
        p.relative_to(out).as_posix()
        for p in (out / PACKAGE).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    }
    assert baseline["files"] <= files, sorted(baseline["files"] - files)
    own = _own_kernel_files(out)
    differ = sorted(k for k in baseline["own"] if own.get(k) != baseline["own"][k])
    assert not differ, (label, differ)
    # The baseline's generated tests, unchanged, against the build with the new variants; those
    # named whole_family assert the family's full contents, which a new variant adds to.
    tests = out / PACKAGE / "tests"
    shutil.rmtree(tests)
    shutil.copytree(baseline["root"] / "out" / PACKAGE / "tests", tests)
    result = subprocess.run(
        [*GENERATED_PYTEST, "-k", "not whole_family", str(tests)],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, (label, result.stdout[-3000:])


# Issue 26 item 2: V4.2 opts EAGLE-3 into adaptive verification. That used to add a family-wide
# check_adaptive_verification that refused it for V4 and V4.1 ("DeepSeek V4 does not support
# adaptive verification"), which a snapshot of the baseline's functions could not see.
ADAPTIVE_CHILD = """\
spec_version: 1
extends: deepseek_v41.yaml
variant: {name: deepseek_v42, display_name: DeepSeek V4.2, model_type: deepseek_v42}
architectures:
  DeepseekV42ForCausalLM:
    registry: text_generation
    module: vllm.models.deepseek_v41  # V4.1's model class, under V4.2's name
    class: DeepseekV41ForCausalLM
speculative:
  methods:
    eagle3:
      label: EAGLE-3
      weights: dspark
      draft_model_type: deepseek_v42_eagle3
      tokens_per_round: {sources: [num_nextn_predict_layers]}
      num_speculative_tokens: {default: tokens_per_round, divisibility: none}
      adaptive_verification: true
"""


def test_a_childs_adaptive_opt_in_answers_for_no_parent(baseline, tmp_path):
    shutil.copytree(SPECS, tmp_path / "specs")
    (tmp_path / "specs" / "deepseek_v42.yaml").write_text(ADAPTIVE_CHILD, encoding="utf-8")
    _build(tmp_path)
    out = tmp_path / "out"
    # The child itself is judged: the check exists and refuses adaptive DSpark for deepseek_v42.
    mine = take(out, PACKAGE, matrix_of(out, PACKAGE))
    key = 'speculative.check_adaptive_verification["deepseek_v42", "dspark", true]'
    assert mine[key] == {
        "raises": "ValueError",
        "message": "Adaptive verification only supported with EAGLE-3",
    }, mine.get(key)
    assert_existing_variants_unchanged(baseline, out, "deepseek_v42")
