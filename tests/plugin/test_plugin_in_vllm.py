"""The generated plugin inside the real vLLM 0.33.0 (CPU, the conformance venv).

- V4 and V4.1: the matrices give the same outcomes (values, exception types, messages) in stock
  vLLM and in vLLM with the plugin loaded through load_general_plugins(): their specs state
  what 0.33.0 does, so hooking must change nothing.
- A YAML-only V4.2, built in a temporary directory and installed for that vLLM, is driven
  through vLLM's real ModelConfig / SpeculativeConfig / VllmConfig from a local config.json;
  each expected value below is read off the V4.2 YAML in this file, not from generated code.
- The plugin refuses to load, naming the site and patching nothing, on a vLLM whose site
  function is gone or takes other parameters, and on another release; a broken package stops
  vLLM's start instead of being skipped.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pluginhelpers import SPECS, build_family, install_plugin, write_model

# The conformance suite's comparison rule, one definition for both suites (appended, so nothing
# of this directory is shadowed).
sys.path.append(str(Path(__file__).resolve().parents[1] / "conformance"))
from conformancerules import conformance_failure, is_engine_crash  # noqa: E402

from dsv41gen.commands.pipeline import load_families

V42 = textwrap.dedent(
    """\
    # yaml-language-server: $schema=../dsv41gen/schema.json
    spec_version: 1
    extends: deepseek_v41.yaml

    variant:
      name: deepseek_v42
      display_name: DeepSeek V4.2
      model_type: deepseek_v42

    architectures:
      DeepseekV41ForCausalLM: !delete
      DSparkV41DraftModel: !delete
      DeepseekV42ForCausalLM:      # V4.2 checkpoints run on V4.1's modelling code
        registry: multimodal
        module: vllm.models.deepseek_v41
        class: DeepseekV41ForCausalLM
      DSparkV42DraftModel:
        registry: speculative_decoding
        module: vllm.models.deepseek_v41
        class: DSparkDeepseekV4ForCausalLM

    speculative:
      methods:
        dspark:
          draft_architecture: DSparkV42DraftModel
          num_speculative_tokens:
            maximum: 6             # acceptance collapses past one block
      # forbidden: mtp is inherited from V4.1; its message is derived again for V4.2
      forbidden:
        eagle3:
          use_instead: dspark
          message: DeepSeek V4.2 ships no EAGLE-3 head; use speculative method 'dspark'.

    attention_backends:            # V4.1's entries are V4.1's; V4.2 uses its own subclass
      DeepseekV41IndexerBackend: !delete
      DeepseekV41SparseIndexerBackend: !delete
      DeepseekV41RocmMxfp4IndexerBackend: !delete
      FLASHMLA_SPARSE_DSV41: !delete
      FLASHMLA_MEGA_ATTN_DSV41: !delete
      FLASHINFER_MLA_SPARSE_DSV41: !delete
      DeepseekV42IndexerBackend:
        name: DEEPSEEK_V42_INDEXER
        parent: DeepseekV41IndexerBackend
        kernel_block_sizes:        # sm100 changes; the rest is what V4.1 had
          by_capability_family: {sm90: [64], sm100: [256]}
          default: [128]

    runner:
      forbidden_modes:
        mrv1_full:
          architectures: [DeepseekV42ForCausalLM]
          model_runner: v1
          cudagraph_modes: [FULL, FULL_DECODE_ONLY]
          message: DeepSeek V4.2 needs Model Runner V2 for FULL CUDA graphs.
    """
)

# What V4.2's spec says, read off the YAML above (and V4.1's forbidden mtp, whose message is
# derived from V4.1's dspark-only weight sets with V4.2's display name).
V42_DRAFT_MODEL_TYPE = "deepseek_v41"  # inherited from V4.1's dspark.draft_model_type
V42_DRAFT_ARCHITECTURE = "DSparkV42DraftModel"
V42_MTP_MESSAGE = (
    "DeepSeek V4.2 has no classic-MTP draft: its checkpoints ship DSpark stages under mtp.* "
    "(main_proj/markov_head/confidence_head) and carry no e_proj/h_proj/enorm/hnorm/hc_head "
    "weights. Use speculative method 'dspark' instead of 'mtp'."
)
V42_MAXIMUM = 6
V42_EAGLE3_MESSAGE = "DeepSeek V4.2 ships no EAGLE-3 head; use speculative method 'dspark'."
V42_RUNNER_MESSAGE = "DeepSeek V4.2 needs Model Runner V2 for FULL CUDA graphs."
V42_FORBIDDEN_MODES = ("FULL", "FULL_DECODE_ONLY")  # runner.forbidden_modes.mrv1_full, on v1
# V4.2's architectures name no engine_sets: each takes those of V4.1's entry for the model class
# it runs (deepseek_v41.yaml: DeepseekV41ForCausalLM's; DSparkV41DraftModel states none).
V42_ENGINE_SETS = {
    "DeepseekV42ForCausalLM": [
        "breakable_cudagraph",
        "breakable_cudagraph_rocm",
        "flashinfer_moe_ep",
        "rocm_flattened_query_lens",
    ],
    "DSparkV42DraftModel": [],
}
LAYER_FLAGS = (
    {"rocm_mxfp4": False, "sparse_logits": False},
    {"rocm_mxfp4": False, "sparse_logits": True},
)
CUDAGRAPH_MODES = ("NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "FULL_AND_PIECEWISE")


# --- the V4 / V4.1 matrices, generated from the specs ---------------------------------------


def _family():
    # V4 and V4.1's family alone; the Qwen family has its own plugin tests.
    (inputs,) = load_families(sorted(SPECS.glob("deepseek_*.yaml")), warn=lambda _line: None)
    return inputs.family


def _targets(family) -> list[tuple[str, str, dict]]:
    """(variant, first target architecture, the spec's reference hf_config) per variant."""
    out = []
    for variant in family.variants:
        targets = [a for a in variant.architectures if a.registry.value != "speculative_decoding"]
        out.append((variant.name, targets[0].name, variant))
    return out


def _hf_variants(variant) -> dict[str, dict]:
    """The variant's reference HF fields, and the same with the DSpark block-size fields
    present or absent (vLLM reads block_size first, then dspark_block_size)."""
    reference = {
        k: list(v) if isinstance(v, tuple) else v
        for k, v in variant.hf_config
        if k in ("num_nextn_predict_layers", "dspark_block_size")
    }
    without = {k: v for k, v in reference.items() if k != "dspark_block_size"}
    return {
        "reference": reference,
        "no_dspark_block_size": without,
        "block_size_7": {**reference, "block_size": 7},
    }


def architecture_module(variant, architecture: str) -> str:
    return next(a.module for a in variant.architectures if a.name == architecture)


def _layer(model: str, package: str, flags: dict, device: str) -> dict:
    """vLLM's indexer layer of the model package an architecture names picks a backend."""
    return {
        "kind": "layer_backend",
        "model": model,
        "layer": f"{package}.attention:DeepseekV4IndexerCache",
        "flags": flags,
        "device": device,
    }


def _methods(family) -> list[str | None]:
    named = {m.method.value for v in family.variants for m in v.methods}
    named |= {f.method.value for v in family.variants for f in v.forbidden}
    return [None, *sorted(named), "ngram"]


@pytest.fixture(scope="module")
def matrix(tmp_path_factory) -> list[dict]:
    family = _family()
    root = tmp_path_factory.mktemp("models")
    cases = []
    for name, architecture, variant in _targets(family):
        for hf_name, fields in _hf_variants(variant).items():
            model = write_model(
                root, f"{name}-{hf_name}", architecture, variant.model_type, **fields
            )
            for method in _methods(family):
                for n in (None, *range(1, 10)):
                    for draft in (None, str(model)):
                        cases.append(
                            {
                                "kind": "speculative",
                                "model": str(model),
                                "method": method,
                                "num_speculative_tokens": n,
                                "draft_model": draft,
                            }
                        )
            if hf_name != "reference":
                continue
            for flags in LAYER_FLAGS:
                for device in ("9.0", "10.0"):
                    cases.append(
                        _layer(
                            str(model), architecture_module(variant, architecture), flags, device
                        )
                    )
            for runner in ("v1", "v2"):
                for mode in CUDAGRAPH_MODES:
                    for compilation_mode in (None, 0):
                        cases.append(
                            {
                                "kind": "vllm_config",
                                "model": str(model),
                                "runner": runner,
                                "cudagraph_mode": mode,
                                "compilation_mode": compilation_mode,
                            }
                        )
    archs = [a.name for v in family.variants for a in v.architectures]
    cases.append({"kind": "registry", "archs": archs})
    return cases


# issue 11's spec mismatches are fixed: the plugin leaves vLLM's behaviour unchanged.
def test_v4_and_v41_behave_the_same_with_and_without_the_plugin(
    matrix, driver, real_family, tmp_path
):
    _package, site = real_family
    stock = driver.run(matrix, None, tmp_path / "stock")
    hooked = driver.run(matrix, site, tmp_path / "plugin")
    assert hooked["load"]["outcome"] == "ok", hooked["load"]
    # the plugin did hook: the comparison below is between two different code paths
    assert "vllm.config.speculative.SpeculativeConfig.__post_init__" in hooked["load"]["changed"]
    # the matrix exercises both outcomes
    assert {r["outcome"] for r in stock["results"]} == {"ok", "error"}
    differ = [
        (case, before, after)
        for case, before, after in zip(matrix, stock["results"], hooked["results"])
        if before != after and not _crash_refused(before, after, "num_speculative_tokens")
    ]
    # the one deliberate divergence is exercised: vLLM's MTP crash on a draft without
    # num_speculative_tokens (README, "Deliberate divergence"; the method given as mtp, as an MTP
    # draft model_type or none, which vLLM detects) is the spec's refusal with the plugin
    refused = [
        (case, after)
        for case, before, after in zip(matrix, stock["results"], hooked["results"])
        if before != after and _crash_refused(before, after, "num_speculative_tokens")
    ]
    assert refused and all(
        case["num_speculative_tokens"] is None
        and case["draft_model"] is not None
        and "with classic-MTP needs num_speculative_tokens" in after["message"]
        for case, after in refused
    ), refused
    kinds: dict[str, int] = {}
    for case, before, after in differ:
        kinds[_difference(case, before, after)] = kinds.get(_difference(case, before, after), 0) + 1
    report = "\n".join(f"{count:4d} x {kind}" for kind, count in sorted(kinds.items()))
    assert not differ, f"{len(differ)} of {len(matrix)} cases differ (stock -> plugin):\n{report}"


def _as_outcome(result: dict) -> dict:
    """This driver's record in the form of the conformance suite's outcomes."""
    if result["outcome"] != "error":
        return {}
    return {"raises": result["type"], "message": result["message"]}


def _crash_refused(before: dict, after: dict, field: str) -> bool:
    """The conformance suite's engine-crash rule (tests/conformance/conformancerules.py) on this
    driver's records: stock vLLM crashed and the plugin refuses the same config with an error of
    its own, not a crash, whose message names ``field``."""
    stock, hooked = _as_outcome(before), _as_outcome(after)
    return is_engine_crash(stock) and conformance_failure(stock, hooked, field) is None


def _difference(case: dict, before: dict, after: dict) -> str:
    """One line naming what differs, for the failure report (grouped by kind)."""
    where = (
        f"{Path(case['model']).name} {case['kind']} {case.get('method') or case.get('runner', '')}"
    )
    if before["outcome"] != after["outcome"] or before.get("message") != after.get("message"):
        return (
            f"{where}: {before.get('message', 'ok')[:90]!r} -> {after.get('message', 'ok')[:90]!r}"
        )
    keys = sorted(k for k in before["values"] if before["values"][k] != after["values"].get(k))
    return f"{where}: " + ", ".join(
        f"{k} {before['values'][k]!r} -> {after['values'].get(k)!r}" for k in keys
    )


# --- V4.2, written only in YAML --------------------------------------------------------------


@pytest.fixture(scope="module")
def v42(vllm_python, tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("v42")
    specs = root / "specs"
    shutil.copytree(SPECS, specs)
    (specs / "deepseek_v42.yaml").write_text(V42)
    package = build_family(specs, root / "out")
    site = install_plugin(package, vllm_python, root)
    fields = {"num_nextn_predict_layers": 3, "dspark_block_size": 5}
    model = write_model(root / "models", "v42", "DeepseekV42ForCausalLM", "deepseek_v42", **fields)
    return {"site": site, "model": str(model), "root": root, "package": package}


def _speculative(model: str, method: str, n: int | None = None, draft: bool = True) -> dict:
    return {
        "kind": "speculative",
        "model": model,
        "method": method,
        "num_speculative_tokens": n,
        "draft_model": model if draft else None,
    }


def _runner(model: str, runner: str, mode: str, compilation_mode: int | None = None) -> dict:
    return {
        "kind": "vllm_config",
        "model": model,
        "runner": runner,
        "cudagraph_mode": mode,
        "compilation_mode": compilation_mode,
    }


BLOCK_SIZES = {"9.0": [64], "9.4": [64], "10.0": [256], "10.3": [256], "12.0": [128], "8.0": [128]}


def _v42_cases(model: str) -> dict[str, dict]:
    cases = {"dspark": _speculative(model, "dspark")}
    for n in (None, 2):
        for draft in (True, False):
            cases[f"mtp/{n}/{draft}"] = _speculative(model, "mtp", n, draft)
    for n in range(1, 10):
        cases[f"dspark/{n}"] = _speculative(model, "dspark", n)
    for n in (None, 2):
        cases[f"eagle3/{n}"] = _speculative(model, "eagle3", n)
    for device in BLOCK_SIZES:
        cases[f"block_sizes/{device}"] = {
            "kind": "block_sizes",
            "backend": "deepseek_v4.backends:DeepseekV42IndexerBackend",
            "device": device,
        }
    for device in BLOCK_SIZES:
        cases[f"layer/{device}"] = _layer(model, "vllm.models.deepseek_v41", LAYER_FLAGS[0], device)
    cases["layer/sparse"] = _layer(model, "vllm.models.deepseek_v41", LAYER_FLAGS[1], "9.0")
    cases["engine_sets"] = {"kind": "engine_sets", "archs": list(V42_ENGINE_SETS)}
    for runner in ("v1", "v2"):
        for mode in CUDAGRAPH_MODES:
            cases[f"runner/{runner}/{mode}"] = _runner(model, runner, mode)
        # without VLLM_COMPILE vLLM drops the piecewise part of the requested mode
        cases[f"runner/{runner}/FULL_AND_PIECEWISE/eager"] = _runner(
            model, runner, "FULL_AND_PIECEWISE", 0
        )
    return cases


@pytest.fixture(scope="module")
def v42_results(v42, driver, tmp_path_factory) -> dict[str, dict]:
    """Every V4.2 case, in one vLLM process with the plugin loaded."""
    cases = _v42_cases(v42["model"])
    run = driver.run(list(cases.values()), v42["site"], tmp_path_factory.mktemp("v42-run"))
    assert run["load"]["outcome"] == "ok", run["load"]
    return dict(zip(cases, run["results"]))


def test_v42_draft_is_rewritten_as_its_spec_says(v42_results):
    result = v42_results["dspark"]
    assert result["outcome"] == "ok", result
    values = result["values"]
    assert values["draft_model_type"] == V42_DRAFT_MODEL_TYPE
    assert values["draft_architectures"] == [V42_DRAFT_ARCHITECTURE]
    assert values["draft_architecture"] == V42_DRAFT_ARCHITECTURE
    assert values["num_speculative_tokens"] == 5  # dspark_block_size of the config.json


def test_stock_vllm_does_not_know_v42(v42, driver, tmp_path):
    """Without the plugin the same config.json does not even load: what vLLM does for V4.2
    above is the plugin's doing."""
    (result,) = driver.run([_speculative(v42["model"], "dspark")], None, tmp_path)["results"]
    assert result["outcome"] == "error"
    assert "deepseek_v42" in result["message"]


def test_v42_forbidden_method_raises_its_derived_message(v42_results):
    for n in (None, 2):
        for draft in (True, False):
            result = v42_results[f"mtp/{n}/{draft}"]
            if n is None and not draft:
                # vLLM builds no draft then, and judges no method
                assert result["outcome"] == "error", result
                assert "num_speculative_tokens" in result["message"]
                continue
            assert result["outcome"] == "error", (n, draft, result)
            assert result["message"] == V42_MTP_MESSAGE


def test_v42_forbidden_method_is_refused_before_vllm_builds_its_draft(v42_results):
    """eagle3: vLLM keeps the method as named, so the spec's refusal comes first; vLLM's own
    setup of an EAGLE-3 draft for this target would fail with words of its own."""
    for n in (None, 2):
        result = v42_results[f"eagle3/{n}"]
        assert result["outcome"] == "error", (n, result)
        assert result["message"] == V42_EAGLE3_MESSAGE, (n, result)


def test_v42_num_speculative_tokens_rules(v42_results):
    for n in range(1, 10):
        result = v42_results[f"dspark/{n}"]
        if n <= V42_MAXIMUM:
            assert result["outcome"] == "ok", (n, result)
            assert result["values"]["num_speculative_tokens"] == n
        else:
            assert result["outcome"] == "error", (n, result)
            assert (
                f"num_speculative_tokens:{n} is above the maximum of {V42_MAXIMUM}"
                in (result["message"])
            )


def test_v42_backend_reports_its_block_sizes_per_device(v42_results):
    for device, sizes in BLOCK_SIZES.items():
        result = v42_results[f"block_sizes/{device}"]
        assert result["outcome"] == "ok", result
        assert result["values"]["sizes"] == sizes, device
        assert result["values"]["name"] == "DEEPSEEK_V42_INDEXER"
        # bound by _binding to vLLM's own indexer backend hierarchy
        assert (
            "vllm.v1.attention.backends.mla.indexer:DeepseekV32IndexerBackend"
            in (result["values"]["bases"])
        )


def test_v42_model_layers_get_its_backend(v42_results):
    """V4.2 runs on V4.1's layers; where V4.1's layer picks DeepseekV41IndexerBackend (which
    V4.2 deletes), V4.2's model gets its own subclass, with its block sizes per device."""
    for device, sizes in BLOCK_SIZES.items():
        result = v42_results[f"layer/{device}"]
        assert result["outcome"] == "ok", result
        assert result["values"]["backend"] == "deepseek_v4.backends:DeepseekV42IndexerBackend"
        assert result["values"]["sizes"] == sizes, device
    # the sparse-logits layer picks a class V4.2's spec says nothing about: vLLM's own stays
    sparse = v42_results["layer/sparse"]
    assert sparse["outcome"] == "ok", sparse
    assert sparse["values"]["name"] == "DEEPSEEK_V41_SPARSE_INDEXER"
    assert sparse["values"]["backend"].startswith("vllm.")


def test_v42_forbidden_runner_mode_is_refused(v42_results):
    for runner in ("v1", "v2"):
        for mode in CUDAGRAPH_MODES:
            result = v42_results[f"runner/{runner}/{mode}"]
            if runner == "v1" and mode in V42_FORBIDDEN_MODES:
                assert result == {
                    "outcome": "error",
                    "type": "ValidationError",
                    "message": V42_RUNNER_MESSAGE,
                }
            else:
                assert result["outcome"] == "ok", (runner, mode, result)


def test_v42_runner_guard_judges_the_mode_vllm_resolved(v42_results):
    """The guard judges the cudagraph mode vLLM settled on, not the one requested: on Model
    Runner V1, FULL_AND_PIECEWISE without VLLM_COMPILE is refused exactly when vLLM resolves it
    (seen on Model Runner V2, which no guard judges) to a mode V4.2 forbids on V1."""
    on_v2 = v42_results["runner/v2/FULL_AND_PIECEWISE/eager"]
    assert on_v2["outcome"] == "ok", on_v2
    resolved = on_v2["values"]["cudagraph_mode"]
    on_v1 = v42_results["runner/v1/FULL_AND_PIECEWISE/eager"]
    if resolved in V42_FORBIDDEN_MODES:
        assert on_v1["outcome"] == "error" and on_v1["message"] == V42_RUNNER_MESSAGE, on_v1
    else:
        assert on_v1["outcome"] == "ok", on_v1
        assert on_v1["values"]["cudagraph_mode"] == resolved


def test_v42_is_in_the_engine_sets_of_the_model_class_it_runs(v42_results):
    result = v42_results["engine_sets"]
    assert result["outcome"] == "ok", result
    assert result["values"] == V42_ENGINE_SETS


def test_v42_gets_the_runner_settings_of_v41s_model(v42, v42_results, driver, tmp_path):
    """vLLM keys breakable CUDA graphs (and so no torch.compile) on the architecture name; V4.2
    runs V4.1's model class, so on Model Runner V2 it gets what stock V4.1 gets."""
    fields = {"num_nextn_predict_layers": 3, "dspark_block_size": 5}
    v41 = write_model(tmp_path, "v41", "DeepseekV41ForCausalLM", "deepseek_v41", **fields)
    cases = [_runner(str(v41), "v2", mode) for mode in CUDAGRAPH_MODES]
    stock = driver.run(cases, None, tmp_path / "stock")["results"]
    for mode, v41_result in zip(CUDAGRAPH_MODES, stock):
        assert v41_result["outcome"] == "ok", v41_result
        assert v41_result["values"]["breakable_cudagraph"] == "1"
        assert v42_results[f"runner/v2/{mode}"] == v41_result, mode


# --- a vLLM that is not the one the specs describe -------------------------------------------

REMOVE_DRAFT_REWRITE = (
    "from vllm.config.speculative import SpeculativeConfig\n"
    "del SpeculativeConfig.hf_config_override"
)
CHANGE_POST_INIT = (
    "from vllm.config.vllm import VllmConfig\n"
    "original = VllmConfig.__post_init__\n"
    "def __post_init__(self, strict=True):\n"
    "    return original(self)\n"
    "VllmConfig.__post_init__ = __post_init__"
)
OTHER_RELEASE = (
    "import importlib.metadata\n"
    "real = importlib.metadata.version\n"
    "importlib.metadata.version = lambda name: '0.34.0' if name == 'vllm' else real(name)"
)


@pytest.mark.parametrize(
    ("prelude", "expected"),
    [
        (
            REMOVE_DRAFT_REWRITE,
            "site speculative.draft_rewrite: "
            "vllm.config.speculative.SpeculativeConfig.hf_config_override does not exist",
        ),
        (
            CHANGE_POST_INIT,
            "site runner.forbidden_modes: vllm.config.vllm.VllmConfig.__post_init__ takes "
            "('self', 'strict'), not ('self',) as in vLLM 0.33.0",
        ),
        (
            OTHER_RELEASE,
            "engine: the deepseek_v4 specs describe vllm==0.33.0, but vllm 0.34.0 is installed",
        ),
    ],
    ids=["site_function_removed", "site_signature_changed", "other_release"],
)
def test_a_vllm_that_differs_refuses_the_plugin_naming_the_site(
    v42, driver, tmp_path, prelude, expected
):
    run = driver.run([], v42["site"], tmp_path, prelude)
    load = run["load"]
    assert load["outcome"] == "error" and load["type"] == "PluginLoadError", load
    assert expected in load["message"]
    assert "nothing was patched" in load["message"]
    assert load["changed"] == []  # no site half-applied


def test_a_broken_plugin_stops_vllm_start(v42, driver, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(v42["site"], site)
    (site / "deepseek_v4" / "speculative.py").unlink()
    load = driver.run([], site, tmp_path / "run")["load"]
    assert load["outcome"] == "error", load
    assert load["type"] in ("ImportError", "ModuleNotFoundError")
    assert "speculative" in load["message"] and "deepseek_v4" in load["message"]
    assert load["changed"] == []


def test_loading_twice_hooks_once(v42, driver, tmp_path):
    twice = "import vllm.plugins\nvllm.plugins.load_general_plugins()\nvllm.plugins.plugins_loaded = False"
    run = driver.run([_speculative(v42["model"], "dspark")], v42["site"], tmp_path, twice)
    assert run["load"]["outcome"] == "ok", run["load"]
    assert run["results"][0]["values"]["draft_architecture"] == V42_DRAFT_ARCHITECTURE


# --- loading: each registry target checked, warnings once (issue 30, item 6) -----------------


def _capture(path: Path, *loggers: str) -> str:
    """Prelude statements that write the named loggers' records (and Python warnings) to
    ``path``, one per line: the driver silences logging below ERROR otherwise."""
    names = ", ".join(repr(n) for n in (*loggers, "py.warnings"))
    return (
        "import logging\n"
        "logging.disable(logging.NOTSET)\n"
        "logging.captureWarnings(True)\n"
        f"handler = logging.FileHandler({str(path)!r})\n"
        "handler.setFormatter(logging.Formatter('%(name)s: %(message)s'))\n"
        f"for name in ({names},):\n"
        "    logging.getLogger(name).addHandler(handler)\n"
        "    logging.getLogger(name).setLevel(logging.INFO)\n"
    )


MISSING_MODULE_V42 = V42.replace(
    "module: vllm.models.deepseek_v41\n    class: DeepseekV41ForCausalLM",
    "module: vllm.models.deepseek_v42\n    class: DeepseekV41ForCausalLM",
)


def test_the_build_refuses_a_registry_target_vllm_lacks(tmp_path):
    """The build checks each module against vLLM 0.33.0's names (spec/engine_names.json)."""
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    (specs / "deepseek_v42.yaml").write_text(MISSING_MODULE_V42)
    result = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build", "--out", str(tmp_path / "out")]
        + [str(p) for p in sorted(specs.glob("*.yaml"))],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "architectures.DeepseekV42ForCausalLM.module: vLLM 0.33.0 has no model module "
        "'vllm.models.deepseek_v42'" in result.stderr
    )


def test_a_registry_target_that_is_missing_is_refused_loudly_and_alone(
    vllm_python, driver, tmp_path
):
    """A package whose architecture names a module the installed vLLM lacks (built against
    another build of vLLM: the build itself refuses such a spec, above, so the package's table
    is edited here as that build would have written it): at load, one line names the entry and
    what is missing; every other architecture of the family still registers."""
    assert MISSING_MODULE_V42 != V42
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    (specs / "deepseek_v42.yaml").write_text(V42)
    package = build_family(specs, tmp_path / "out")
    registry = package / "registry.py"
    entry = '"DeepseekV42ForCausalLM": ("vllm.models.deepseek_v41",'
    assert registry.read_text().count(entry) == 1
    registry.write_text(
        registry.read_text().replace(entry, entry.replace("deepseek_v41", "deepseek_v42"))
    )
    site = install_plugin(package, vllm_python, tmp_path)
    log = tmp_path / "load.log"
    archs = [
        "DeepseekV42ForCausalLM",
        "DSparkV42DraftModel",
        "DeepseekV4ForCausalLM",
        "DeepseekV41ForCausalLM",
    ]
    run = driver.run(
        [{"kind": "registry", "archs": archs}], site, tmp_path / "run", _capture(log, "deepseek_v4")
    )
    assert run["load"]["outcome"] == "ok", run["load"]
    (registered,) = run["results"]
    assert registered["values"] == {
        "DeepseekV42ForCausalLM": False,
        "DSparkV42DraftModel": True,
        "DeepseekV4ForCausalLM": True,
        "DeepseekV41ForCausalLM": True,
    }
    lines = [line for line in log.read_text().splitlines() if "not registered" in line]
    assert lines == [
        "deepseek_v4.plugin: deepseek_v4 vLLM plugin: architecture DeepseekV42ForCausalLM not "
        "registered: module vllm.models.deepseek_v42 does not exist in the installed vLLM "
        "0.33.0; fix architectures.DeepseekV42ForCausalLM in its spec and rebuild"
    ]


def test_the_mtp_warning_is_emitted_once(driver, real_family, tmp_path):
    """vLLM warns about MTP num_speculative_tokens > 1 itself; the plugin's rule, which states
    that warning, does not say it a second time."""
    _package, site = real_family
    model = write_model(
        tmp_path, "v4", "DeepseekV4ForCausalLM", "deepseek_v4", num_nextn_predict_layers=1
    )
    case = _speculative(str(model), "mtp", 2)
    counts = {}
    for name, where in (("stock", None), ("plugin", site)):
        log = tmp_path / f"{name}.log"
        run = driver.run([case], where, tmp_path / name, _capture(log, "vllm"))
        assert run["results"][0]["outcome"] == "ok", run["results"]
        counts[name] = log.read_text().count("multiple times of forward on same MTP layer")
    assert counts == {"stock": 1, "plugin": 1}
