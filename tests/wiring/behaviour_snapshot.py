"""A behaviour snapshot of a generated family package: every public function called on a fixed
input matrix, each answer (a value, or the exception's type and message, and any warning)
recorded as JSON.

Run as a script, in a fresh interpreter per package (two builds of one family share a package
name): ``python behaviour_snapshot.py OUT_DIR PACKAGE MATRIX_JSON`` prints the snapshot. The
matrix names the inputs (model types, architectures, backend classes, KV spec types, HF
configs, checkpoint weight names); ``matrix_of`` derives it from a baseline build, so a second
build is asked exactly what the baseline was asked.

Every public function of every wiring module is either called here or listed in ``NOT_CALLED``
with the reason; a new public function fails the snapshot until it is added.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import itertools
import json
import operator
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

MODULES = ("registry", "backends", "dispatch", "speculative", "runner", "checkpoint", "kv_cache")
METHODS = (
    "mtp",
    "dspark",
    "eagle",
    "eagle3",
    "ngram",
    "medusa",
    "mlp_speculator",
    "draft_model",
    "suffix",
)
CAPABILITY_FAMILIES = (70, 80, 90, 100, 110, 120, None)
NUM_TOKENS = (None, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 100)
COMPRESS_RATIOS = (0, 1, 2, 3, 4, 8, 64, 128, 256)
FOREIGN_MODEL_TYPE = "llama"
FOREIGN_ARCHITECTURE = "LlamaForCausalLM"
NOT_CALLED = {
    "registry.register": "writes into vLLM's registry; its tables are snapshotted instead",
    "backends.device_is_capability_family": "the probe the snapshot replaces",
    "checkpoint.read_weight_names": "reads a file; servable_methods gets the names directly",
    "checkpoint.read_hf_config": "reads a file; the functions get the config directly",
}


def _answer(function, *args) -> object:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = function(*args)
        except Exception as error:  # the behaviour under test: what is raised, and its text
            value = {"raises": type(error).__name__, "message": str(error)}
    if caught:
        return {"value": _plain(value), "warns": [str(w.message) for w in caught]}
    return _plain(value)


def _plain(value: object) -> object:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (frozenset, set)):
        return sorted(_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return repr(value)


def _five(_spec: object) -> int:
    return 5


def _public_functions(module) -> set[str]:
    return {
        name
        for name, obj in vars(module).items()
        if not name.startswith("_")
        and inspect.isfunction(obj)
        and obj.__module__ == module.__name__
    }


def snapshot(package: str, matrix: dict) -> dict:
    mods = {name: importlib.import_module(f"{package}.{name}") for name in MODULES}
    binding = importlib.import_module(f"{package}._binding")
    called: set[str] = set()
    out: dict[str, object] = {}

    def record(name: str, function, *args) -> None:
        """Call function(*args), recorded under its name and arguments."""
        called.add(name)
        out[f"{name}{json.dumps(_plain(args), default=repr)}"] = _answer(function, *args)

    mts = matrix["model_types"] + [FOREIGN_MODEL_TYPE]
    archs = matrix["architectures"] + [FOREIGN_ARCHITECTURE]

    registry = mods["registry"]
    for table in ("TEXT_GENERATION_MODELS", "MULTIMODAL_MODELS", "SPECULATIVE_DECODING_MODELS"):
        for arch in archs:
            out[f"registry.{table}[{arch}]"] = _plain(getattr(registry, table).get(arch))

    dispatch = mods["dispatch"]
    for name in sorted(_public_functions(dispatch)):
        for mt in mts:
            record(f"dispatch.{name}", getattr(dispatch, name), mt)

    spec = mods["speculative"]
    # vLLM's names (an MTP draft model_type, the spec language's medusa it lacks) and a typo
    for method in (*METHODS, "deepseek_mtp", "MTP"):
        record("speculative.engine_method", spec.engine_method, method)
    for mt, method in itertools.product(mts, METHODS):
        record("speculative.validate_method", spec.validate_method, mt, method)
        if hasattr(spec, "refuse_unset_num_speculative_tokens"):
            record(
                "speculative.refuse_unset_num_speculative_tokens",
                spec.refuse_unset_num_speculative_tokens,
                mt,
                method,
            )
        for hf in matrix["hf_configs"]:
            record("speculative.tokens_per_round", spec.tokens_per_round, mt, method, hf)
            record(
                "speculative.draft_config_overrides", spec.draft_config_overrides, mt, method, hf
            )
            for n in NUM_TOKENS:
                record(
                    "speculative.resolve_num_speculative_tokens",
                    spec.resolve_num_speculative_tokens,
                    mt,
                    method,
                    hf,
                    n,
                )
        if hasattr(spec, "draft_quantization"):
            for target, requested in itertools.product((None, "fp8"), (None, "awq")):
                record(
                    "speculative.draft_quantization",
                    spec.draft_quantization,
                    mt,
                    method,
                    target,
                    requested,
                )
        if hasattr(spec, "check_adaptive_verification"):
            for enabled in (False, True):
                record(
                    "speculative.check_adaptive_verification",
                    spec.check_adaptive_verification,
                    mt,
                    method,
                    enabled,
                )

    runner = mods["runner"]
    for arch in archs:
        if hasattr(runner, "default_uses_v2_model_runner"):  # only when a spec sets a default
            record("runner.default_uses_v2_model_runner", runner.default_uses_v2_model_runner, arch)
        for v2, mode in itertools.product((False, True), list(binding.CUDAGraphMode)):
            record("runner.check_runner_mode", runner.check_runner_mode, [arch], v2, mode)
            config = SimpleNamespace(
                use_v2_model_runner=v2,
                model_config=SimpleNamespace(architectures=[arch]),
                compilation_config=SimpleNamespace(cudagraph_mode=mode),
            )
            called.add("runner.validate_runner_modes")
            out[f"runner.validate_runner_modes[{arch}, {v2}, {mode.name}]"] = _answer(
                runner.validate_runner_modes, config
            )

    checkpoint = mods["checkpoint"]
    for mt, method, names in itertools.product(mts, METHODS, matrix["weight_names"]):
        record("checkpoint.missing_weights", checkpoint.missing_weights, mt, method, names)
        record("checkpoint.rejected_weights", checkpoint.rejected_weights, mt, method, names)
        for quantized in (False, True):
            record(
                "checkpoint.unloaded_weights",
                checkpoint.unloaded_weights,
                mt,
                method,
                names,
                None,
                quantized,
            )
        for name in names:
            record("checkpoint.parameter_names", checkpoint.parameter_names, mt, method, name)
    for mt, names in itertools.product(mts, matrix["weight_names"]):
        record("checkpoint.servable_methods", checkpoint.servable_methods, mt, names)
    for config in ({}, {"quantization_config": {}}, {"text_config": {"compression_config": {}}}):
        record("checkpoint.is_quantized", checkpoint.is_quantized, config)
    for key, weight_set in sorted(checkpoint.WEIGHT_SETS.items()):
        if key[0] not in matrix["model_types"]:
            continue
        for names in matrix["weight_names"]:
            called.add("checkpoint.stage_count")
            out[f"checkpoint.stage_count[{key}, {names}]"] = _answer(
                checkpoint.stage_count, weight_set, frozenset(names), {}
            )
        # the routed experts' count: the spec's value, a config's, one past the bound, a bool
        for config in (
            {},
            {"n_routed_experts": 3},
            {"n_routed_experts": 10**6},
            {"n_routed_experts": True},
        ):
            called.add("checkpoint.expert_count")
            out[f"checkpoint.expert_count[{key}, {config}]"] = _answer(
                checkpoint.expert_count, weight_set, config
            )

    kv = mods.get("kv_cache")
    if kv is not None:
        for mt, type_name, repeats in itertools.product(mts, matrix["kv_types"], (None, 2)):
            spec_obj = object.__new__(getattr(binding, type_name))
            bucket = SimpleNamespace(first_spec=spec_obj, kv_cache_specs=[spec_obj] * 3)
            where = f"[{mt}, {type_name}, {repeats}]"
            called.update(
                ("kv_cache.is_state_bucket", "kv_cache.groups_for_anchor_bytes")
                + ("kv_cache.caps_state_group",)
            )
            out[f"kv_cache.is_state_bucket{where}"] = _answer(
                kv.is_state_bucket, mt, bucket, repeats
            )
            out[f"kv_cache.groups_for_anchor_bytes{where}"] = _answer(
                kv.groups_for_anchor_bytes, mt, bucket, repeats, _five
            )
            for anchor in (0, 4096):
                out[f"kv_cache.caps_state_group{where}[{anchor}]"] = _answer(
                    kv.caps_state_group, mt, bucket, repeats, anchor
                )
        if hasattr(kv, "validate_compress_ratio"):
            for mt, ratio in itertools.product(mts, COMPRESS_RATIOS):
                record("kv_cache.validate_compress_ratio", kv.validate_compress_ratio, mt, 7, ratio)

    backends = mods["backends"]
    probe = backends.device_is_capability_family
    try:
        for family in CAPABILITY_FAMILIES:
            backends.device_is_capability_family = functools.partial(operator.eq, family)
            for name in matrix["backend_classes"]:
                cls = getattr(backends, name, None)
                for method in (
                    "get_name",
                    "get_supported_kernel_block_sizes",
                    "supports_device_cpu_query_lens_mismatch",
                    "supported_kv_cache_layouts",
                ):
                    function = getattr(cls, method, None)
                    out[f"backends.{name}.{method}[{family}]"] = (
                        _answer(function) if function is not None else "absent"
                    )
    finally:
        backends.device_is_capability_family = probe

    for name, module in mods.items():
        for function in _public_functions(module):
            full = f"{name}.{function}"
            assert full in called or full in NOT_CALLED, (
                f"{full} is a public function the snapshot does not call: add it to "
                "behaviour_snapshot.py (or to NOT_CALLED, with the reason)"
            )
    return out


def matrix_of(out_dir: Path, package: str) -> dict:
    """The inputs to ask any build of this family, read from a baseline build's own package."""
    script = f"""
import json, sys
sys.path.insert(0, {str(out_dir)!r})
import {package}.dispatch as d, {package}.registry as r, {package}.checkpoint as c
import {package}.backends as b, {package}.speculative as s, {package}._binding as bi
mts = sorted(s.DISPLAY_NAMES)
fields = sorted({{f for n in dir(d) if n.endswith("_tokens_per_round_sources")
                  for mt in mts for f in (getattr(d, n)(mt) or ())}})
names = [[]]
for ws in c.WEIGHT_SETS.values():
    for count in (1, 2):
        names.append(sorted([ws.stage_prefix.format(i=i) + w for i in range(count) for w in ws.required]
                            + [ws.stage_prefix.format(i=count - 1) + w for w in ws.shared_required]
                            + [ws.stage_prefix.format(i=0) + w for w in ws.rejected]))
        names.append(names[-1][1:])
kv = sorted(n for n in dir(bi) if n.endswith("Spec") and isinstance(getattr(bi, n), type))
print(json.dumps({{
    "model_types": mts,
    "architectures": sorted(set(r.TEXT_GENERATION_MODELS) | set(r.MULTIMODAL_MODELS)
                            | set(r.SPECULATIVE_DECODING_MODELS)),
    "backend_classes": sorted(n for n, o in vars(b).items() if isinstance(o, type)
                              and o.__module__ == b.__name__),
    "hf_configs": [{{}}, {{f: 1 for f in fields}}, {{f: 3 for f in fields}},
                   {{f: (2 if i else None) for i, f in enumerate(fields)}}],
    "weight_names": names,
    "kv_types": kv,
}}))
"""
    import subprocess

    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def take(out_dir: Path, package: str, matrix: dict) -> dict:
    """The snapshot of out_dir/package, in a fresh interpreter."""
    import subprocess

    result = subprocess.run(
        [sys.executable, __file__, str(out_dir), package, json.dumps(matrix)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


if __name__ == "__main__":
    sys.path.insert(0, sys.argv[1])
    print(json.dumps(snapshot(sys.argv[2], json.loads(sys.argv[3])), sort_keys=True))
