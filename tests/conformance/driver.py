"""Runs conformance cases in the vLLM 0.33.0 venv: ``python driver.py SITE < cases.json``.

This process imports vLLM 0.33.0 (installed --no-deps beside the CPU torch) and the committed
generated package (``generated/`` on PYTHONPATH, bound to vLLM's real classes). For each case
it records what vLLM's own code does and what the generated code does, as JSON outcomes
``{"ok": value}`` or ``{"raises": type name, "message": text}``, and prints
``{case_id: {"vllm": outcome, "generated": outcome}}`` as the last line of stdout. It never
judges: the tests compare. It does not import dsv41gen (the specs arrive as cases).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import types
from collections.abc import Callable


def outcome(call: Callable[[], object]) -> dict[str, object]:
    try:
        return {"ok": call()}
    except Exception as error:  # the outcome under comparison, whatever it is
        return {"raises": type(error).__name__, "message": str(error)}


def site_registry(cases: dict[str, dict]) -> dict[str, dict]:
    from vllm.model_executor.models import registry as engine

    answers = {}
    for case_id, case in cases.items():
        generated = importlib.import_module(f"{case['package']}.registry")
        table = case["table"]

        def engine_entry(arch=case["architecture"], table=table):
            return list(getattr(engine, table)[arch])

        def generated_entry(arch=case["architecture"], table=table, generated=generated):
            return list(getattr(generated, table.strip("_"))[arch])

        answers[case_id] = {"vllm": outcome(engine_entry), "generated": outcome(generated_entry)}
    return answers


# -- a platform pretending to be a device -------------------------------------------------------
# vLLM's own Platform class (vllm/platforms/interface.py) answers is_rocm(),
# is_device_capability_family() and the rest from _enum and get_device_capability(); this
# subclass only says which device it is. It is installed as vllm.platforms.current_platform
# before any module that reads it is imported, and switched per case.


def install_pretend_platform():
    import vllm.platforms
    from vllm.platforms.interface import DeviceCapability, Platform, PlatformEnum

    class PretendPlatform(Platform):
        _enum = PlatformEnum.CUDA
        device_name = "cuda"
        device_type = "cuda"
        dispatch_key = "CUDA"
        capability: tuple[int, int] | None = (9, 0)

        @classmethod
        def get_device_capability(cls, device_id: int = 0):
            return None if cls.capability is None else DeviceCapability(*cls.capability)

        @classmethod
        def support_static_graph_mode(cls) -> bool:
            return True  # CUDA and ROCm capture CUDA graphs; the base Platform says no

        @classmethod
        def pretend(cls, device: dict) -> None:
            cls._enum = getattr(PlatformEnum, device["platform"])
            cls.device_type = "cpu" if device["platform"] == "CPU" else "cuda"
            cls.capability = tuple(device["capability"]) if device["capability"] else None

    vllm.platforms._current_platform = PretendPlatform()
    # vllm/platforms/rocm.py reads the GPU arch at import; without a GPU torch cannot answer.
    import torch

    torch.cuda.get_device_properties = lambda *_args, **_kwargs: _FakeDeviceProperties()
    return PretendPlatform


class _FakeDeviceProperties:
    gcnArchName = "gfx942"
    name = "pretend"
    major, minor = 9, 4
    total_memory = 1 << 34
    multi_processor_count = 132


def _block_sizes(sizes) -> list:
    return [s if isinstance(s, int) else f"{type(s).__name__}({s.base})" for s in sizes]


def _class_path(cls) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _engine_indexer_class(name: str):
    """The vLLM class of that name among the MLA backend modules (indexer backends are not in
    AttentionBackendEnum); found by name, so a new backend needs no new test code."""
    import pkgutil

    import vllm.v1.attention.backends.mla as mla

    for info in pkgutil.iter_modules(mla.__path__):
        try:
            module = importlib.import_module(f"{mla.__name__}.{info.name}")
        except Exception:  # a module that needs a GPU library; not where our classes live
            continue
        if (
            isinstance(getattr(module, name, None), type)
            and getattr(module, name).__module__ == module.__name__
        ):
            return getattr(module, name)
    raise LookupError(f"vLLM 0.33.0 defines no indexer backend class {name}")


def _backend_answers(backend) -> dict:
    return {
        "name": outcome(backend.get_name),
        "parent": outcome(lambda: backend.__bases__[0].__name__),
        "kernel_block_sizes": outcome(
            lambda: _block_sizes(backend.get_supported_kernel_block_sizes())
        ),
        "builder": outcome(lambda: backend.get_builder_cls().__name__),
        "kv_cache_layouts": outcome(
            lambda: (
                None
                if backend.supported_kv_cache_layouts() is None
                else [m.name for m in backend.supported_kv_cache_layouts()]
            )
        ),
        "cpu_query_lens_mismatch": outcome(backend.supports_device_cpu_query_lens_mismatch),
        # attention_backends.*.supported_head_sizes: stated or inherited, vLLM's answer
        "head_sizes": outcome(backend.get_supported_head_sizes),
    }


def site_backends(cases: dict[str, dict]) -> dict[str, dict]:
    platform = install_pretend_platform()
    from vllm.v1.attention.backends.registry import AttentionBackendEnum

    answers = {}
    for case_id, case in sorted(cases.items()):
        platform.pretend(case["device"])
        generated = importlib.import_module(f"{case['package']}.backends")
        if case["kind"] == "indexer":
            engine = outcome(lambda case=case: _backend_answers(_engine_indexer_class(case["key"])))
            ours = outcome(
                lambda case=case, generated=generated: _backend_answers(
                    getattr(generated, case["key"])
                )
            )
        else:
            engine = outcome(
                lambda case=case: {
                    "kernel_block_sizes": _block_sizes(
                        AttentionBackendEnum[case["name"]]
                        .get_class()
                        .get_supported_kernel_block_sizes()
                    ),
                    "platform": "rocm"
                    if ".amd." in AttentionBackendEnum[case["name"]].get_path()
                    else "cuda",
                    "class_path": AttentionBackendEnum[case["name"]].get_path(),
                }
            )
            ours = outcome(
                lambda case=case, generated=generated: {
                    "kernel_block_sizes": generated.SPARSE_MLA_KERNEL_BLOCK_SIZES[case["name"]](),
                    "platform": generated.SPARSE_MLA_PLATFORMS[case["name"]],
                    "class_path": case["class_path"],
                }
            )
        answers[case_id] = {"vllm": engine, "generated": ours}
    return answers


# -- the runner: a real VllmConfig per (architecture, runner, cudagraph mode, method) ------------


def _unwrap(error: Exception) -> Exception:
    """vLLM raises inside pydantic validation: the ValueError it raised is the outcome."""
    import pydantic

    if isinstance(error, pydantic.ValidationError):
        inner = error.errors()[0].get("ctx", {}).get("error")
        if isinstance(inner, Exception):
            return inner
    return error


def engine_outcome(call: Callable[[], object]) -> dict[str, object]:
    try:
        return {"ok": call()}
    except Exception as error:
        error = _unwrap(error)
        return {"raises": type(error).__name__, "message": str(error)}


def _write_config(root, name: str, config: dict) -> str:
    import os

    path = os.path.join(root, name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "config.json"), "w") as f:
        json.dump(config, f)
    return path


def _model_config(path: str, **kwargs):
    from vllm.config import ModelConfig

    return ModelConfig(
        model=path, tokenizer=path, skip_tokenizer_init=True, max_model_len=1024, **kwargs
    )


def _built(build: Callable[[], object]) -> object:
    """What ``build`` returns, or the exception it raised: a target vLLM cannot build in this
    venv (a model module that imports torchvision) is the outcome of its own cases, re-raised
    inside each (``_target``), never the whole site's crash."""
    try:
        return build()
    except Exception as error:  # re-raised in every case that needs this target
        return error


def _target(built: object) -> object:
    if isinstance(built, Exception):
        raise built
    return built


def site_runner(cases: dict[str, dict]) -> dict[str, dict]:
    import os
    import tempfile

    # The target ModelConfigs are built first, on vLLM's own CPU platform: a multimodal target
    # asks its processor, which imports CUDA extensions on a CUDA platform. The VllmConfigs are
    # then built on a pretended Hopper, where CUDA graphs exist.
    root = tempfile.mkdtemp(prefix="dsv41gen-conformance-")
    models = {}
    inspections = _InspectionFailures()
    with inspections:
        for case in cases.values():
            key = json.dumps(case["hf_config"], sort_keys=True)
            if key not in models:
                path = _write_config(root, f"m{len(models)}", case["hf_config"])
                models[key] = _built(lambda path=path: _model_config(path))
    platform = install_pretend_platform()
    platform.pretend({"platform": "CUDA", "capability": [9, 0]})
    import vllm.envs as envs
    from vllm.config import CompilationConfig, ParallelConfig, SpeculativeConfig, VllmConfig

    answers = {}
    for case_id, case in sorted(cases.items()):
        model_config = models[json.dumps(case["hf_config"], sort_keys=True)]
        os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "1" if case["model_runner"] == "v2" else "0"
        envs.disable_envs_cache()

        def engine(case=case, model_config=model_config):
            model_config = _target(model_config)
            speculative = None
            if case["method"] is not None:
                speculative = SpeculativeConfig(
                    method=case["method"],
                    num_speculative_tokens=1,
                    target_model_config=model_config,
                    target_parallel_config=ParallelConfig(),
                    enable_adaptive_verification=case["adaptive_verification"],
                )
            config = VllmConfig(
                model_config=model_config,
                compilation_config=CompilationConfig(cudagraph_mode=case["cudagraph_mode"]),
                speculative_config=speculative,
            )
            return config.compilation_config.cudagraph_mode.name

        def ours(case=case):
            from vllm.config.compilation import CUDAGraphMode

            runner = importlib.import_module(f"{case['package']}.runner")
            mode = getattr(CUDAGraphMode, case["cudagraph_mode"])
            runner.check_runner_mode(
                [case["architecture"]],
                case["model_runner"] == "v2",
                mode,
                method=case["method"],
                adaptive_verification=case["adaptive_verification"],
            )
            return mode.name

        answer = {"vllm": engine_outcome(engine), "generated": outcome(ours)}
        if failures := inspections.named_in(answer["vllm"]):
            answer["inspection_failures"] = failures
        answers[case_id] = answer
    return answers


# -- the plugin, loaded by vLLM's own load_general_plugins() -------------------------------------


def site_plugin(cases: dict[str, dict]) -> dict[str, dict]:
    """This process has a dist-info with the family's entry point on sys.path (the test writes
    it). vLLM's registry forgets the family's architectures first, so only the plugin can bring
    them back; then each one is resolved through ModelRegistry."""
    from vllm import ModelRegistry
    from vllm.plugins import load_general_plugins

    for case in cases.values():
        ModelRegistry.models.pop(case["architecture"], None)
    registered: dict[str, object] = {}
    original = type(ModelRegistry).register_model

    def recording(self, model_arch, model_cls):
        registered[model_arch] = model_cls
        return original(self, model_arch, model_cls)

    type(ModelRegistry).register_model = recording
    load_general_plugins()
    answers = {}
    for case_id, case in sorted(cases.items()):

        def resolves(case=case):
            cls = ModelRegistry._try_load_model_cls(case["architecture"])
            return cls is getattr(importlib.import_module(case["module"]), case["class"])

        # what the plugin registered needs no import; resolving it imports the model module,
        # which may fail here (a module that imports torchvision), so it is an outcome apart
        answers[case_id] = {
            "registered": {
                "vllm": registered.get(case["architecture"]),
                "generated": f"{case['module']}:{case['class']}",
            },
            "vllm": engine_outcome(resolves),
            "generated": {"ok": True},
        }
    return answers


# -- speculative decoding: a real SpeculativeConfig per case --------------------------------------


class _Captured:
    """Warnings vLLM logs (its loggers) and warnings the generated code issues, as text."""

    def __init__(self):
        import logging

        self.messages: list[str] = []
        self.handler = logging.Handler()
        self.handler.emit = lambda record: self.messages.append(record.getMessage())

    def __enter__(self):
        import logging
        import warnings

        logging.getLogger("vllm").addHandler(self.handler)
        self._warnings = warnings.catch_warnings(record=True)
        self._caught = self._warnings.__enter__()
        warnings.simplefilter("always")
        return self

    def __exit__(self, *exc):
        import logging

        logging.getLogger("vllm").removeHandler(self.handler)
        self._warnings.__exit__(*exc)
        self.messages += [str(w.message) for w in self._caught]
        return False


class _InspectionFailures:
    """Why vLLM failed to inspect each architecture, while the block runs: the last line of the
    traceback its inspection subprocess printed (``ModuleNotFoundError: No module named
    'torchvision'``). vLLM logs it once per architecture (the inspection is memoised) and raises
    only "failed to be inspected", so the site keeps the line for every later case."""

    def __init__(self):
        import logging

        self.failures: dict[str, str] = {}
        self.handler = logging.Handler()
        self.handler.emit = self._keep

    def _keep(self, record) -> None:
        if not record.getMessage().startswith("Error in inspecting model architecture"):
            return
        error = record.exc_info[1] if record.exc_info else None
        lines = [line for line in str(error).splitlines() if line.strip()]
        self.failures[str(record.args[0])] = lines[-1] if lines else ""

    def __enter__(self):
        import logging

        logging.getLogger("vllm").addHandler(self.handler)
        return self

    def __exit__(self, *exc):
        import logging

        logging.getLogger("vllm").removeHandler(self.handler)
        return False

    def named_in(self, outcome: dict[str, object]) -> dict[str, str]:
        """The failures of the architectures an outcome's message names."""
        message = str(outcome.get("message", ""))
        return {arch: line for arch, line in self.failures.items() if repr(arch) in message}


def site_speculative(cases: dict[str, dict]) -> dict[str, dict]:
    import tempfile

    from vllm.config import ParallelConfig, SpeculativeConfig

    root = tempfile.mkdtemp(prefix="dsv41gen-conformance-")
    models = {}
    targets = {}
    answers = {}
    inspections = _InspectionFailures()
    for case_id, case in sorted(cases.items()):
        key = json.dumps(case["hf_config"], sort_keys=True)
        if key not in models:
            models[key] = _write_config(root, f"m{len(models)}", case["hf_config"])
        path = models[key]
        requested = case["num_speculative_tokens"]

        def engine(case=case, path=path, requested=requested):
            # built inside the case: a target vLLM cannot build in this venv (a model class
            # that needs torchvision) is that case's outcome, not the whole site's crash
            if path not in targets:
                targets[path] = _model_config(path)
            kwargs = {
                "method": case["method"],
                "target_model_config": targets[path],
                "target_parallel_config": ParallelConfig(),
            }
            if requested is None:
                kwargs["model"] = path  # the default needs a draft: the target checkpoint itself
            else:
                kwargs["num_speculative_tokens"] = requested
            with _Captured() as captured:
                config = SpeculativeConfig(**kwargs)
            draft = config.draft_model_config.hf_config
            return {
                "num_speculative_tokens": config.num_speculative_tokens,
                "draft_model_type": draft.model_type,
                "draft_architectures": list(config.draft_model_config.architectures),
                "draft_n_predict": getattr(draft, "n_predict", None),
                "warnings": [m for m in captured.messages if "num_speculative_tokens" in m],
            }

        def ours(case=case, requested=requested):
            speculative = importlib.import_module(f"{case['package']}.speculative")
            with _Captured() as captured:
                mt = case["hf_config"]["model_type"]
                speculative.validate_method(mt, case["method"])
                overrides = speculative.draft_config_overrides(
                    mt, case["method"], case["hf_config"]
                )
                draft = {**case["hf_config"], **overrides}
                num = speculative.resolve_num_speculative_tokens(
                    mt, case["method"], draft, requested
                )
            return {
                "num_speculative_tokens": num,
                "draft_model_type": draft["model_type"],
                "draft_architectures": list(draft["architectures"]),
                "draft_n_predict": draft.get("n_predict"),
                "warnings": [m for m in captured.messages if "num_speculative_tokens" in m],
            }

        with inspections:
            answer = {"vllm": engine_outcome(engine), "generated": outcome(ours)}
        if failures := inspections.named_in(answer["vllm"]):
            answer["inspection_failures"] = failures
        answers[case_id] = answer
    return answers


def site_quantization(cases: dict[str, dict]) -> dict[str, dict]:
    """The draft's quantization for a target quantized or not and a user value or none."""
    import tempfile

    from vllm.config import ParallelConfig, SpeculativeConfig

    root = tempfile.mkdtemp(prefix="dsv41gen-conformance-")
    targets = {}
    answers = {}
    inspections = _InspectionFailures()
    for case_id, case in sorted(cases.items()):
        key = (json.dumps(case["hf_config"], sort_keys=True), case["target_quantization"])
        if key not in targets:
            path = _write_config(root, f"q{len(targets)}", case["hf_config"])
            with inspections:
                targets[key] = _built(
                    lambda path=path, q=case["target_quantization"]: _model_config(
                        path, quantization=q
                    )
                )
        target = targets[key]

        def engine(case=case, target=target):
            kwargs = {
                "method": case["method"],
                "num_speculative_tokens": 1,
                "target_model_config": _target(target),
                "target_parallel_config": ParallelConfig(),
            }
            if case["requested"] is not None:
                kwargs["quantization"] = case["requested"]
            return SpeculativeConfig(**kwargs).draft_model_config.quantization

        def ours(case=case, target=target):
            speculative = importlib.import_module(f"{case['package']}.speculative")
            return speculative.draft_quantization(
                case["hf_config"]["model_type"],
                case["method"],
                # the target vLLM built; where it could not, the case's (the case xfails)
                getattr(target, "quantization", case["target_quantization"]),
                case["requested"],
            )

        answer = {"vllm": engine_outcome(engine), "generated": outcome(ours)}
        if failures := inspections.named_in(answer["vllm"]):
            answer["inspection_failures"] = failures
        answers[case_id] = answer
    return answers


# -- speculative method names: what SpeculativeConfig makes of every name ------------------------


def site_speculative_methods(cases: dict[str, dict]) -> dict[str, dict]:
    """A real SpeculativeConfig per (target, method name), with vLLM's __post_init__ wrapped to
    record the method it settled on (an MTP draft model_type becomes "mtp"). A name pydantic
    rejects never reaches __post_init__: its ValidationError is the outcome. For a method the
    target's spec judges, the whole construction's outcome is compared with validate_method."""
    import tempfile
    import typing

    from vllm.config import ParallelConfig, SpeculativeConfig
    from vllm.config import speculative as engine

    def flat(literal) -> list[str]:
        return [
            n for a in typing.get_args(literal) for n in ([a] if isinstance(a, str) else flat(a))
        ]

    seen: list[str] = []
    original = SpeculativeConfig.__post_init__

    def recording(self):
        try:
            return original(self)
        finally:
            seen.append(self.method)

    SpeculativeConfig.__post_init__ = recording
    root = tempfile.mkdtemp(prefix="dsv41gen-conformance-")
    targets: dict[str, object] = {}
    answers: dict[str, dict] = {
        "__wheel__": {
            "methods": flat(engine.SpeculativeMethod),
            "mtp_model_types": flat(engine.MTPModelTypes),
        }
    }
    inspections = _InspectionFailures()
    for case_id, case in sorted(cases.items()):
        key = json.dumps(case["hf_config"], sort_keys=True)
        if key not in targets:
            path = _write_config(root, f"s{len(targets)}", case["hf_config"])
            with inspections:
                targets[key] = _built(lambda path=path: _model_config(path))
        speculative = importlib.import_module(f"{case['package']}.speculative")
        mt = case["hf_config"]["model_type"]
        seen.clear()
        built = engine_outcome(
            lambda case=case, key=key: (
                SpeculativeConfig(
                    method=case["method"],
                    num_speculative_tokens=1,
                    target_model_config=_target(targets[key]),
                    target_parallel_config=ParallelConfig(),
                )
                and None
            )
        )
        vllm = {"name": {"ok": seen[-1]} if seen else built}
        if seen and seen[-1] in case["judged"]:
            vllm["refusal"] = built
        answers[case_id] = {
            "vllm": vllm,
            "generated": {
                "name": outcome(lambda case=case, sp=speculative: sp.engine_method(case["method"])),
                "refusal": outcome(
                    lambda case=case, sp=speculative, mt=mt: sp.validate_method(mt, case["method"])
                ),
            },
            "vllm_other_error": None if "ok" in built or "refusal" in vllm else built,
        }
        if failures := inspections.named_in(built):
            answers[case_id]["inspection_failures"] = failures
    SpeculativeConfig.__post_init__ = original
    return answers


# -- KV cache planning: vLLM's is_state_bucket closure -------------------------------------------
# vLLM 0.33.0 decides whether a bucket is a state bucket in a closure nested in
# vllm.v1.core.kv_cache_planning._get_packed_kv_cache_groups; its one free variable is
# repeats_per_group (None: no balanced bucket mixes page sizes, so nothing is split into pattern
# repeats; a number: the layers are split). Two ways, both vLLM's own bytecode:
#   outer:   the real _get_packed_kv_cache_groups runs on real spec objects (a block-outermost
#            layout, an unsplit and a split layer set); a profile hook records every call of the
#            closure's code object, its bucket argument, repeats_per_group and its return value.
#            The generated predicate is then asked about the very same bucket and number.
#   closure: the closure rebuilt from its code object (types.FunctionType with the outer
#            function's globals and a cell holding repeats_per_group), called on a one-layer
#            bucket of each type; this also covers the types the outer function refuses.

_KV_FIELDS = {
    "block_size": lambda k: 16,
    "num_kv_heads": lambda k: 1,
    "head_size": lambda k: 64 * k,
    "sliding_window": lambda k: 128,
    "attention_chunk_size": lambda k: 64,
    "rswa_window": lambda k: 128,
    "shapes": lambda k: ((64 * k,),),
    "page_size": lambda k: 2048 * k,
    "blocks_per_request": lambda k: 4,
}


def _kv_spec(cls, k: int):
    """A real instance of vLLM's spec class: its required fields from _KV_FIELDS (k scales the
    page size); a class with a field not listed here fails the case, naming it."""
    import dataclasses

    import torch

    fields = {**_KV_FIELDS, "dtype": lambda k: torch.float16, "dtypes": lambda k: (torch.float16,)}
    required = {
        f.name: fields[f.name](k)
        for f in dataclasses.fields(cls)
        if f.init and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }
    return cls(**required)


def site_kv_state_bucket(cases: dict[str, dict]) -> dict[str, dict]:
    import types

    import vllm.v1.kv_cache_interface as interface
    from vllm.config import CacheConfig
    from vllm.v1.core import kv_cache_planning

    outer = kv_cache_planning._get_packed_kv_cache_groups
    (closure_code,) = [
        c
        for c in outer.__code__.co_consts
        if isinstance(c, types.CodeType) and c.co_name == "is_state_bucket"
    ]
    assert closure_code.co_freevars == ("repeats_per_group",), closure_code.co_freevars

    def rebuilt(repeats_per_group):
        return types.FunctionType(
            closure_code,
            outer.__globals__,
            "is_state_bucket",
            None,
            (types.CellType(repeats_per_group),),
        )

    cache_config = CacheConfig()
    cache_config.kv_cache_layout = "BLHNC"  # block-outermost: the only layout that packs
    vllm_config = types.SimpleNamespace(cache_config=cache_config)

    def observe(layers):
        calls, pending = [], []

        def profile(frame, event, arg):
            if frame.f_code is closure_code:
                if event == "call":
                    pending.append((frame.f_locals["spec"], frame.f_locals["repeats_per_group"]))
                elif event == "return":
                    calls.append((*pending.pop(), arg))

        sys.setprofile(profile)
        try:
            outer(vllm_config, layers)
        finally:
            sys.setprofile(None)
        return calls

    def subclasses(cls):
        return {cls.__name__} | {n for s in cls.__subclasses__() for n in subclasses(s)}

    answers = {"__wheel__": {"kv_spec_types": sorted(subclasses(interface.KVCacheSpec))}}
    for case_id, case in sorted(cases.items()):
        answers[case_id] = _kv_state_bucket_case(case, interface, rebuilt, observe)
    return answers


def _kv_state_bucket_case(case: dict, interface, rebuilt, observe) -> dict:
    kv_cache = importlib.import_module(f"{case['package']}.kv_cache")
    mt = case["target_model_type"]
    cls = getattr(interface, case["spec_type"])
    repeats = (1, 2) if case["split"] else (None,)
    answer: dict[str, dict] = {"vllm": {}, "generated": {}}
    bucket = outcome(
        lambda: interface.UniformTypeKVCacheSpecs(
            block_size=16, kv_cache_specs={"layer0": _kv_spec(cls, 1)}
        )
    )
    if "ok" in bucket:
        one = bucket["ok"]
        answer["vllm"]["closure"] = outcome(lambda: [rebuilt(r)(one) for r in repeats])
        answer["generated"]["closure"] = outcome(
            lambda: [kv_cache.is_state_bucket(mt, one, r) for r in repeats]
        )
    else:
        answer["vllm"]["closure"] = answer["generated"]["closure"] = bucket

    def layers():
        if case["split"]:
            # a third page size for the case's type, beside a balanced full-attention bucket
            # of two page sizes: that bucket stays whole, so the layers split into repeats
            return {
                "t0": _kv_spec(cls, 3),
                "f0": _kv_spec(interface.FullAttentionSpec, 1),
                "f1": _kv_spec(interface.FullAttentionSpec, 2),
            }
        # two page sizes of the case's type only, 2:1: no balanced bucket mixes them
        return {"t0": _kv_spec(cls, 1), "t1": _kv_spec(cls, 1), "t2": _kv_spec(cls, 2)}

    observed = outcome(lambda: observe(layers()))
    if "ok" not in observed:
        answer["vllm"]["outer"] = observed
        return answer
    mine = [c for c in observed["ok"] if type(c[0].first_spec) is cls]
    answer["vllm"]["outer"] = {"ok": [[r, result] for _spec, r, result in mine]}
    answer["generated"]["outer"] = outcome(
        lambda: [[r, kv_cache.is_state_bucket(mt, spec, r)] for spec, r, _result in mine]
    )
    return answer


# -- compress ratios: vLLM's layer constructors, run on the CPU up to past their checks --------
# vLLM 0.33.0 checks a layer's compress ratio inside constructors: V4 in DeepseekV4Attention
# (max(1, the layer type's compress_rates entry); a compressor only above 1) and then in the
# compressor's CompressorStateCache (`assert compress_ratio in [4, 128]`); V4.1 in its
# DeepseekV4Attention (`not in (0, 1, 2)` -> ValueError). The constructors run for real on stub
# configs. Each stub answers only the fields read up to the check; the first other field read
# raises _Past, which ends the construction there (what follows builds GPU kernels, linear
# layers over a TP group and caches, none of which decide the ratio). A run that stops before
# the statements that set and check self.compress_ratio (found with ast in the constructor's
# source) is a driver error, not a pass. Patched: the TP world size (1) and the compressor's
# MergedColumnParallelLinear (an Identity; its weights do not depend on the ratio); the
# platform is the pretended CPU one, so tensors are allocated on the CPU.


class _Past(BaseException):
    """The construction read a field the stub does not answer: it got past the checks."""

    def __init__(self, name: str):
        caller = sys._getframe(2)
        super().__init__(name)
        self.name, self.code, self.line = name, caller.f_code, caller.f_lineno


class _Stub:
    def __init__(self, **fields):
        self.__dict__.update(fields)

    def __getattr__(self, name):
        raise _Past(name)


def _constructor_tree(function):
    import ast
    import inspect
    import textwrap

    source, first = inspect.getsourcelines(function)
    tree = ast.parse(textwrap.dedent("".join(source)))
    ast.increment_lineno(tree, first - 1)
    return tree


def _ratio_statements_end(function, attrs=("compress_ratio",)) -> int:
    """Last line of the statements that set self.<attrs> or test self.compress_ratio with in /
    not in."""
    import ast

    def is_ratio(node, attrs=("compress_ratio",)):
        return (
            isinstance(node, ast.Attribute)
            and node.attr in attrs
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        )

    ends = [
        node.end_lineno
        for node in ast.walk(_constructor_tree(function))
        if (isinstance(node, ast.Assign) and any(is_ratio(t, attrs) for t in node.targets))
        or (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Compare)
            and is_ratio(node.test.left)
            and isinstance(node.test.ops[0], (ast.In, ast.NotIn))
        )
    ]
    assert ends, f"no compress_ratio statements in {function.__qualname__}"
    return max(ends)


def _compressor_guard(function):
    """The test of the `if` whose body builds the layer's DeepseekCompressor, compiled."""
    import ast

    for node in ast.walk(_constructor_tree(function)):
        if isinstance(node, ast.If) and any(
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "DeepseekCompressor"
            for statement in node.body
            for call in ast.walk(statement)
        ):
            return compile(ast.Expression(node.test), "<guard>", "eval")
    raise LookupError(f"{function.__qualname__} builds no DeepseekCompressor")


def _run_until_past(function, instance, past_line: int, **kwargs) -> None:
    try:
        function(instance, **kwargs)
    except _Past as past:
        if past.code is not function.__code__ or past.line <= past_line:
            raise RuntimeError(
                f"driver: {function.__qualname__} stopped at line {past.line} ({past.name}), "
                f"before its compress-ratio statements end (line {past_line}): the stub must "
                "answer that field"
            ) from None
        return
    raise RuntimeError(f"driver: {function.__qualname__} ran to its end on a stub config")


# What V4.1's attention constructor reads between the kv-source list and the compressor, for a
# config that lists kv sources: the index sources (the same layers) and no candidate layer.
_KV_SOURCE_COMPANIONS = {
    "candidate_source_layer_id": -1,
    "candidate_topk_blocks": 0,
    "candidate_block_size": 0,
}


def _engine_layer(
    module: str, layer_id: int, ratio: int, layers: int, fields: dict | None, tag: str
) -> str:
    """Build the variant's attention layer (and its compressor, where the layer builds one) on a
    stub config. ``fields``: the kv-source HF config fields of the case; None: the stub answers
    none of them, and the construction ends where the layer first reads one."""
    import torch

    attention = importlib.import_module(f"{module}.attention")
    attention.get_tensor_model_parallel_world_size = lambda: 1
    base = attention.DeepseekV4Attention
    probe = type("Probe", (base,), {name: None for name in base.__abstractmethods__})
    extra = {}
    if fields is not None:
        extra = {**_KV_SOURCE_COMPANIONS, **fields}
        extra["index_source_layer_ids"] = fields.get("kv_source_layer_ids", [])
    base_fields = dict(
        hidden_size=256,
        num_attention_heads=4,
        q_lora_rank=64,
        o_lora_rank=64,
        head_dim=512,
        qk_rope_head_dim=64,
        o_groups=1,
        sliding_window=128,
        vision_n_layers=0,
        num_hidden_layers=layers,
        # one entry past the layer count too, so a layer there (an MTP layer) has the ratio
        layer_types=["layer"] * (layers + 1),
        compress_rates={"layer": ratio},  # V4
        compress_ratios=[ratio] * (layers + 1),  # V4.1
    )
    hf = _Stub(**{**base_fields, **extra})
    config = _Stub(
        model_config=_Stub(hf_config=hf, max_model_len=4096),
        quant_config=None,
        cache_config=None,
        parallel_config=_Stub(prefill_context_parallel_size=1),
        scheduler_config=_Stub(max_num_seqs=4, max_num_batched_tokens=64),
    )
    layer = probe.__new__(probe)
    prefix = f"model.layers.{layer_id}.attn"
    _run_until_past(
        base.__init__,
        layer,
        _ratio_statements_end(base.__init__),
        vllm_config=config,
        prefix=prefix,
    )
    try:
        builds = eval(_compressor_guard(base.__init__), {}, {"self": layer})  # noqa: S307
    except AttributeError:
        if fields is not None:
            raise RuntimeError(
                f"driver: {module}'s compressor guard reads what the layer had not set on a "
                "config with kv-source fields: the stub must answer more"
            ) from None
        # the compressor is built on grounds the config does not state (V4.1: kv-source layers)
        return "accepted"
    if not builds:
        return "accepted"
    # the compressor reads the norm epsilon the attention stub left out (where it stopped)
    hf.rms_norm_eps = 1e-6
    compressor_module = importlib.import_module(f"{module}.compressor")
    compressor_module.MergedColumnParallelLinear = lambda *args, **kwargs: torch.nn.Identity()
    compressor = compressor_module.DeepseekCompressor
    instance = compressor.__new__(compressor)
    _run_until_past(
        compressor.__init__,
        instance,
        _ratio_statements_end(compressor.__init__, ("compress_ratio", "state_cache")),
        vllm_config=config,
        compress_ratio=layer.compress_ratio,
        hidden_size=256,
        head_dim=512,
        rotate=True,
        prefix=f"{prefix}.compressor.{tag}",
    )
    # V4 checks the ratio in its state cache; V4.1's ratio 1 builds none
    state_cache = instance.state_cache
    assert state_cache is None or isinstance(state_cache, compressor_module.CompressorStateCache)
    return "accepted"


def site_compress_ratio(cases: dict[str, dict]) -> dict[str, dict]:
    platform = install_pretend_platform()
    platform.pretend({"platform": "CPU", "capability": None})
    from vllm.config import VllmConfig, set_current_vllm_config

    answers = {}
    with set_current_vllm_config(VllmConfig()):  # RMSNorm and the state cache read it
        for case_id, case in sorted(cases.items()):
            kv_cache = importlib.import_module(f"{case['package']}.kv_cache")

            def ours(case=case, kv_cache=kv_cache):
                kv_cache.validate_compress_ratio(
                    case["model_type"], case["layer_id"], case["ratio"], case["hf_config"]
                )
                return "accepted"

            answers[case_id] = {
                "vllm": outcome(
                    lambda case=case: _engine_layer(
                        case["engine_package"],
                        case["layer_id"],
                        case["ratio"],
                        case["layers"],
                        case["hf_config"],
                        # one state-cache name per case: the layers share one forward context
                        f"{case['model_type']}.{case['shape']}.{case['ratio']}",
                    )
                ),
                "generated": outcome(ours),
            }
    return answers


# -- the package bound to vLLM (was tests/wiring/test_vllm_binding.py) ---------------------------


def _vllm_binding_case(case: dict) -> dict:
    package = case["package"]
    binding = importlib.import_module(f"{package}._binding")
    check = case["check"]
    if check == "bound":
        from vllm.config.compilation import CUDAGraphMode

        return {
            "vllm": {"ok": [True, True]},
            "generated": {"ok": [binding.VLLM_AVAILABLE, binding.CUDAGraphMode is CUDAGraphMode]},
        }
    if check == "cudagraph_mode":
        from vllm.config.compilation import CUDAGraphMode

        mode = case["mode"]
        return {
            "vllm": outcome(lambda: getattr(CUDAGraphMode, mode).has_piecewise_cudagraphs()),
            "generated": outcome(
                lambda: getattr(binding.CUDAGraphMode, mode).has_piecewise_cudagraphs()
            ),
        }
    if check == "forbidden_message_in_vllm":
        import inspect

        from vllm.config import speculative as engine

        source = " ".join(inspect.getsource(engine).split()).replace('" "', "")
        speculative = importlib.import_module(f"{package}.speculative")
        message = outcome(lambda: speculative.validate_method(case["model_type"], case["method"]))
        return {
            "vllm": {"ok": True},
            "generated": {"ok": "raises" in message and message["message"] in source},
        }
    backends = importlib.import_module(f"{package}.backends")
    generated = getattr(backends, case["key"])
    if check == "indexer_backend":
        real = _engine_indexer_class(case["key"])
        family = case["family"]
        import vllm.v1.attention.backends.mla.indexer as indexer

        platform = indexer.current_platform
        saved = (platform.is_device_capability_family, backends.device_is_capability_family)
        platform.is_device_capability_family = lambda f: f == family
        backends.device_is_capability_family = lambda f: f == family
        try:

            def answers(cls):
                return {
                    "parent": cls.__bases__[0].__name__,
                    "name": cls.get_name(),
                    "block_sizes": _block_sizes(cls.get_supported_kernel_block_sizes()),
                }

            return {
                "vllm": outcome(lambda: answers(real)),
                "generated": outcome(lambda: answers(generated)),
            }
        finally:
            platform.is_device_capability_family, backends.device_is_capability_family = saved
    if check == "engine_parent":
        parent = getattr(importlib.import_module(case["module"]), case["parent"])
        return {"vllm": {"ok": True}, "generated": outcome(lambda: issubclass(generated, parent))}
    if check == "kv_cache_layouts":
        from vllm.v1.attention.backends import utils

        real = _engine_indexer_class(case["key"])
        return {
            "vllm": outcome(
                lambda: [m.name for m in utils.get_supported_kv_cache_layouts((real,))]
            ),
            "generated": outcome(
                lambda: [m.name for m in utils.get_supported_kv_cache_layouts((generated,))]
            ),
        }
    raise LookupError(check)


def site_vllm_binding(cases: dict[str, dict]) -> dict[str, dict]:
    return {case_id: _vllm_binding_case(case) for case_id, case in sorted(cases.items())}


# -- _binding against a vLLM that lacks a name ----------------------------------------------------


def site_binding(cases: dict[str, dict]) -> dict[str, dict]:
    """For each case, a fresh process deletes one name from vLLM's module, then imports the
    package's _binding: it must fail at import, naming what is missing and the installed vLLM."""
    import subprocess

    answers = {}
    for case_id, case in sorted(cases.items()):
        script = (
            f"import importlib, {case['module']} as m\n"
            f"delattr(m, {case['name']!r})\n"
            "try:\n"
            f"    importlib.import_module({case['package'] + '._binding'!r})\n"
            "    print('imported')\n"
            "except Exception as error:\n"
            "    print(type(error).__name__ + ': ' + str(error))\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=False
        )
        lines = done.stdout.strip().splitlines()
        answers[case_id] = {"vllm": {"ok": lines[-1] if lines else done.stderr[-2000:]}}
    return answers


# -- checkpoint weight names: vLLM's own draft model and load_weights ----------------------------
# The draft class the spec names (vLLM's DeepSeekV4MTP / DSparkDeepseekV4ForCausalLM) is built
# whole on the meta device from the real draft HF config (a real SpeculativeConfig), decoder
# blocks included: vLLM's own DeepseekV4DecoderLayer with its attention, norms and MoE (gate,
# shared experts, FusedMoE routed experts), so every parameter name is vLLM's, and every layer
# carries the quant_method vLLM gives it. Building it on a CPU needs four things vLLM's
# constructors ask of a GPU, answered for the build only: a device capability (9.0: the
# attention picks its FlashMLA class and its o_proj recipe), the CPU MoE backend (the
# unquantized MoE oracle picks a kernel by platform), CUDA streams and events (none are used),
# and a fresh compilation context (each attention layer registers its name). No kernel runs.
# Each parameter's weight_loader is replaced by a recorder (the names and shards it was called
# with: a stacked shard id, a routed expert's "<expert>:<shard id>", or, loaded whole, every
# shard), and vLLM's own DefaultModelLoader.load_weights runs on the tensor names (its
# get_all_weights replaced) with the draft ModelConfig of a real SpeculativeConfig, once for an
# unquantized target and once for an fp8 one: vLLM decides whether completeness is checked and
# raises what it raises. Separately, the recorder says which parameters (and shards; the routed
# experts' fused parameters, every (expert, shard) of the expert mapping vLLM's load_weights
# builds) the checkpoint left unloaded, checked or not: not the embedding / LM head the
# speculator shares from the target after loading (maybe_share_target_embed, get_target_lm_head).
QUANTIZED_TARGET = "fp8"  # the draft of a quantized target is quantized (DSpark: forced)
MODES = ("unquantized", "quantized")

# model dimensions a config.json of the family carries beyond the spec's hf_config, small (the
# model lives on the meta device; the expert count comes from the case, also small)
_CHECKPOINT_DIMS = {
    "hc_mult": 4,
    "hc_eps": 1e-6,
    "hc_sinkhorn_iters": 20,
    "rms_norm_eps": 1e-6,
    "index_topk": 4,
    "index_n_heads": 2,
    "index_head_dim": 16,
    "head_dim": 16,
    "qk_rope_head_dim": 8,
    "q_lora_rank": 32,
    "o_lora_rank": 32,
    "o_groups": 2,
    "sliding_window": 128,
    "moe_intermediate_size": 32,
    "n_shared_experts": 1,
    "num_experts_per_tok": 2,
    "hidden_act": "silu",
    "swiglu_limit": 10.0,
    "norm_topk_prob": True,
    "scoring_func": "sqrtsoftplus",
    "routed_scaling_factor": 1.5,
    "rope_theta": 10000.0,
    "compress_rope_theta": 160000.0,
}
_SHARED_FROM_TARGET = ("embed_tokens.", "lm_head.")
# the expert-mapping builders vLLM's draft loaders call (module globals of the draft's module)
_EXPERT_MAPPINGS = (
    "fused_moe_make_expert_params_mapping",
    "make_deepseek_v4_expert_params_mapping",
)


def _draft_model_configs(root: str, case: dict) -> dict[str, object]:
    """The draft ModelConfig of a real SpeculativeConfig, for an unquantized and a quantized
    target (the quantization passed to the target's ModelConfig: a config.json
    quantization_config makes vLLM probe every quantization method's override, and some import
    packages the conformance venv does not have)."""
    from vllm.config import ModelConfig, ParallelConfig, SpeculativeConfig

    path = _write_config(
        root,
        f"c{abs(hash(json.dumps(case['hf_config'], sort_keys=True)))}",
        {**_CHECKPOINT_DIMS, **case["hf_config"]},
    )
    configs = {}
    for mode, quantization in (("unquantized", None), ("quantized", QUANTIZED_TARGET)):
        target = ModelConfig(
            model=path,
            tokenizer=path,
            skip_tokenizer_init=True,
            max_model_len=1024,
            quantization=quantization,
        )
        config = SpeculativeConfig(
            method=case["method"],
            num_speculative_tokens=1,
            target_model_config=target,
            target_parallel_config=ParallelConfig(),
        )
        configs[mode] = config.draft_model_config
    return configs


def _decoder_classes(module) -> tuple[type, ...]:
    from torch import nn

    return tuple(
        value
        for name, value in vars(module).items()
        if name.endswith("DecoderLayer")
        and isinstance(value, type)
        and issubclass(value, nn.Module)
    )


def _build_draft(case: dict, hf):
    import contextlib

    import torch
    from vllm.config import CacheConfig, CompilationConfig, ParallelConfig, get_current_vllm_config
    from vllm.platforms import current_platform
    from vllm.platforms.interface import DeviceCapability

    cls = getattr(importlib.import_module(case["module"]), case["class"])
    module = sys.modules[cls.__module__]
    ns = types.SimpleNamespace
    vllm_config = ns(
        model_config=ns(hf_config=hf, max_model_len=1024),
        speculative_config=ns(
            draft_model_config=ns(hf_config=hf),
            use_dspark=lambda: case["method"] == "dspark",
            num_speculative_tokens=1,
        ),
        quant_config=None,
        lora_config=None,
        kernel_config=ns(moe_backend="auto", enable_jit_warmup=False),
        scheduler_config=ns(max_num_batched_tokens=4),
        parallel_config=ParallelConfig(),
        attention_config=ns(backend=None),
        cache_config=CacheConfig(),
        compilation_config=CompilationConfig(),
        use_v2_model_runner=False,
    )
    platform = type(current_platform)
    patches = [
        (torch.cuda, "Stream", lambda *_args, **_kwargs: None),
        (torch.cuda, "Event", lambda *_args, **_kwargs: None),
        (
            platform,
            "get_device_capability",
            classmethod(lambda _cls, device_id=0: DeviceCapability(9, 0)),
        ),
        (platform, "is_cpu", lambda _self: True),
    ]
    if hasattr(module, "get_current_vllm_config"):  # DSpark builds its layers from the current one
        patches.append((module, "get_current_vllm_config", lambda: vllm_config))
    saved = [(owner, name, owner.__dict__.get(name, _ABSENT)) for owner, name, _ in patches]
    for owner, name, value in patches:
        setattr(owner, name, value)
    try:
        with torch.device("meta"):
            return cls(vllm_config=vllm_config, prefix="")
    finally:
        for owner, name, value in saved:
            if value is _ABSENT:
                with contextlib.suppress(AttributeError):
                    delattr(owner, name)
            else:
                setattr(owner, name, value)
        get_current_vllm_config().compilation_config.static_forward_context.clear()


_ABSENT = object()


class _VllmLoader:
    """vLLM's load_weights on one draft model, name by name or whole checkpoints. The model is
    built once; each load starts from it as built (load_weights may drop a module it found no
    weights for, DSpark's confidence head: the module tree is restored, the recorder emptied)."""

    def __init__(self, case: dict, model_configs: dict):
        self.case, self.model_configs = case, model_configs
        self.hf = model_configs["unquantized"].hf_config
        self.model = _build_draft(case, self.hf)
        self.module = sys.modules[type(self.model).__module__]
        self.shards: dict[str, set] = {}
        self._tree = [(m, dict(m._modules)) for m in self.model.modules()]
        merged = {}
        for module_name, module in self.model.named_modules():
            sizes = getattr(module, "output_sizes", None)
            for name, _ in module.named_parameters(recurse=False):
                full = f"{module_name}.{name}" if module_name else name
                merged[full] = len(sizes) if sizes and len(sizes) > 1 else None
        self.expert_mapping = self._expert_mapping()
        for name, param in self.model.named_parameters():

            def record(_param, _weight, *args, _name=name, **kwargs):
                got = self.shards.setdefault(_name, set())
                shard = args[0] if args and isinstance(args[0], int) else kwargs.get("shard_id")
                if "expert_id" in kwargs:
                    got.add(f"{kwargs['expert_id']}:{shard}")
                elif isinstance(shard, int):
                    got.add(shard)
                elif merged[_name] is not None:  # a merged parameter loaded whole
                    got.update(range(merged[_name]))
                else:
                    got.add(None)
                return True

            param.weight_loader = record
        self._merged = merged

    def _expert_mapping(self) -> list[tuple]:
        """The expert mapping vLLM's load_weights builds (its own builder, as it calls it)."""
        captured: list[tuple] = []
        originals = {
            n: getattr(self.module, n) for n in _EXPERT_MAPPINGS if hasattr(self.module, n)
        }

        def wrap(function):
            def capture(*args, **kwargs):
                result = function(*args, **kwargs)
                captured.extend(result)
                return result

            return capture

        for name, function in originals.items():
            setattr(self.module, name, wrap(function))
        try:
            self.model.load_weights([])
        except Exception:
            pass  # MTP's "layer N weights missing": the mapping was built first
        finally:
            for name, function in originals.items():
                setattr(self.module, name, function)
            self._restore()
        return captured

    def _restore(self) -> None:
        for module, children in self._tree:
            module._modules.clear()
            module._modules.update(children)

    def _fresh(self):
        self._restore()
        self.shards.clear()
        return self.model, self.shards

    def stacked_mapping(self) -> list[tuple[str, str, int]]:
        """load_weights' stacked_params_mapping: its (parameter, checkpoint name, shard id)
        literals, read from the method's code object."""
        consts = type(self.model).load_weights.__code__.co_consts
        return [
            row
            for c in consts
            if isinstance(c, tuple)
            for row in c
            if isinstance(row, tuple)
            and len(row) == 3
            and isinstance(row[0], str)
            and isinstance(row[1], str)
            and isinstance(row[2], int)
        ]

    def tracked(self, model) -> dict[str, list | None]:
        """The parameters a checkpoint must load, each with the shards it needs (None: one)."""
        found = {}
        for full, _ in model.named_parameters():  # a module load_weights dropped has none
            count = self._merged[full]
            if any(part in full for part in _SHARED_FROM_TARGET):
                continue
            experts = sorted(
                {f"{e}:{s}" for p, _, e, s in self.expert_mapping if p in full},
                key=lambda label: (int(label.split(":")[0]), label),
            )
            found[full] = experts or (list(range(count)) if count else None)
        return found

    def stages(self) -> int:
        """The decoder layers vLLM built."""
        classes = _decoder_classes(self.module)
        return sum(isinstance(m, classes) for m in self.model.modules())

    def _engine_load(self, names: list[str], mode: str) -> dict:
        """vLLM's DefaultModelLoader.load_weights on the names: accepted, or what it raised (for
        MTP's per-stage check, the stage: the layer it names less the first MTP layer)."""
        import torch
        from vllm.config import LoadConfig
        from vllm.model_executor.model_loader.default_loader import DefaultModelLoader

        model, _ = self._fresh()
        loader = DefaultModelLoader(LoadConfig())
        loader.get_all_weights = lambda _config, _model: ((n, torch.empty(1)) for n in names)
        loader.counter_before_loading_weights = 0.0  # load_model sets it before load_weights
        try:
            loader.load_weights(model, self.model_configs[mode])
        except Exception as error:
            answer = {"accept": False, "raises": type(error).__name__, "message": str(error)}
            stage = re.match(r"MTP speculative decoding layer (\d+) weights missing", str(error))
            if stage:
                answer["stage"] = int(stage.group(1)) - model.model.mtp_start_layer_idx
            return answer
        return {"accept": True}

    def load(self, names: list[str]) -> dict:
        """Both modes' outcomes, and the parameters (``name#shard`` for a merged one) the
        recorder saw no tensor for, whatever vLLM checks (None: its own loader raised first)."""
        import torch

        model, shards = self._fresh()
        try:
            model.load_weights([(n, torch.empty(1)) for n in names])
        except Exception as error:
            if not re.match(r"MTP speculative decoding layer", str(error)):
                shards = None
        unloaded = None
        if shards is not None:
            unloaded = []
            for param, needed in sorted(self.tracked(model).items()):
                got = shards.get(param, set())
                if needed is None:
                    unloaded += [param] if not got else []
                else:
                    unloaded += [f"{param}#{k}" for k in needed if k not in got]
        return {mode: self._engine_load(names, mode) for mode in MODES} | {"unloaded": unloaded}

    def probe(self, name: str):
        """The parameters (name#shard) vLLM loads one tensor into; an exception if it fails."""
        import torch

        model, shards = self._fresh()
        tracked = self.tracked(model)
        try:
            model.load_weights([(name, torch.empty(1))])
        except Exception as error:
            if not shards:
                return {"raises": type(error).__name__, "message": str(error)}
        return {
            "ok": sorted(
                (
                    p if s is None else f"{p}#{s}"
                    for p, got in shards.items()
                    if p in tracked
                    for s in got
                ),
                key=str,
            )
        }


def _candidates(loader: _VllmLoader, case: dict) -> list[str]:
    """Tensor names to probe: for each parameter vLLM's model has, every dotted tail of its name
    under every stage prefix and at top level, then the spec's declared names (as themselves
    and with ``.weight``)."""
    model, _ = loader._fresh()
    # every parameter name, and the checkpoint names vLLM's mappings turn into one: the stacked
    # mapping's and the expert mapping's checkpoint side in place of their parameter side
    params = set(loader.tracked(model))
    inverse = {
        p.replace(param, weight)
        for p in params
        for param, weight, *_ in [*loader.stacked_mapping(), *loader.expert_mapping]
        if param in p
    }
    tails = set()
    for param in params | inverse:
        parts = param.split(".")
        tails.update(".".join(parts[k:]) for k in range(1, len(parts)))
    head = case["stage_head"]
    names = [f"{head}{i}.{t}" for i in range(4) for t in sorted(tails)]
    names += sorted(tails)
    names += [
        n
        for d in case["declared"]
        if d.startswith(tuple(f"{head}{i}." for i in range(4)))
        for n in (d, d + ".weight")
    ]
    return list(dict.fromkeys(names))


def _generated_checkpoint(case: dict):
    module = importlib.import_module(f"{case['package']}.checkpoint")
    mt, method, hf = case["model_type"], case["method"], case["hf_config"]
    # a quantized checkpoint says so in its config.json (what check-checkpoint reads)
    configs = {
        "unquantized": hf,
        "quantized": {**hf, "quantization_config": {"quant_method": QUANTIZED_TARGET}},
    }

    def judge_mode(names: list[str], config: dict) -> dict:
        rejected = [n for n, _ in module.rejected_weights(mt, method, names, config)]
        unloaded = module.unloaded_weights(mt, method, names, config)
        return {
            "accept": not rejected and not any(fatal for _, fatal, _ in unloaded),
            "fails": [n for n, fatal, _ in unloaded if fatal],
            "uninitialized": [n for n, fatal, _ in unloaded if not fatal],
            "rejected": rejected,
        }

    def judge(names: list[str]) -> dict:
        return {mode: judge_mode(names, configs[mode]) for mode in MODES} | {
            "missing": module.missing_weights(mt, method, names, hf)
        }

    def mapped(name: str) -> list[str]:
        return sorted(
            p if s is None else f"{p}#{s}" for p, s in module.parameter_names(mt, method, name, hf)
        )

    def count(names: list[str]) -> int:
        weight_set = module.WEIGHT_SETS[module.METHOD_WEIGHT_SETS[(mt, method)]]
        return module.stage_count(weight_set, names, hf)

    return judge, mapped, count


def _expert_index(name: str, head: str, experts: dict | None) -> int | None:
    """The routed expert a stage tensor belongs to (None: not a routed expert's)."""
    rest = name[len(head) :].partition(".")[2]
    if experts is None or not rest.startswith(experts["head"]):
        return None
    index = rest[len(experts["head"]) :].partition(".")[0]
    return int(index) if index.isdigit() else None


def site_checkpoint(cases: dict[str, dict]) -> dict[str, dict]:
    import tempfile

    from vllm.config import DeviceConfig, VllmConfig, set_current_vllm_config
    from vllm.distributed import init_distributed_environment, initialize_model_parallel

    root = tempfile.mkdtemp(prefix="dsv41gen-conformance-")
    drafts = {case_id: _draft_model_configs(root, case) for case_id, case in sorted(cases.items())}
    answers = {}
    with set_current_vllm_config(VllmConfig(device_config=DeviceConfig(device="cpu"))):
        init_distributed_environment(
            world_size=1,
            rank=0,
            local_rank=0,
            backend="gloo",
            distributed_init_method=f"file://{root}/dist",
        )
        initialize_model_parallel(1, 1)
        for case_id, case in sorted(cases.items()):
            loader = _VllmLoader(case, drafts[case_id])
            judge, mapped, count = _generated_checkpoint(case)
            probes = {n: loader.probe(n) for n in _candidates(loader, case)}
            # the complete checkpoint: per parameter (and shard) vLLM loads, one tensor that vLLM
            # maps onto it, the spec's declared name where vLLM maps that one, else the first
            declared = set(case["declared"])
            chosen: dict[str, str] = {}
            for name, probe in sorted(
                probes.items(),
                key=lambda kv: (
                    not any(kv[0] == d or kv[0].startswith(d + ".") for d in declared),
                    kv[0],
                ),
            ):
                for target in probe.get("ok", []):
                    chosen.setdefault(target, name)
            full = sorted(set(chosen.values()))
            stages = loader.stages()  # the decoder layers vLLM built
            answer = {
                "full": {
                    "vllm": {**loader.load(full), "stages": stages},
                    "generated": {**judge(full), "stages": count(full)},
                },
                "mapped": {
                    "vllm": {n: probes[n] for n in full},
                    "generated": {n: {"ok": mapped(n)} for n in full},
                },
                "each_removed": {"vllm": {}, "generated": {}},
                "renamed": {"vllm": {}, "generated": {}},
                "rejected": {"vllm": {}, "generated": {}},
                "past_count": {"vllm": {}, "generated": {}},
                "stage_removed": {"vllm": {}, "generated": {}},
                "expert_past_count": {"vllm": {}, "generated": {}},
                "hostile": {"vllm": {}, "generated": {}},
                "unsuffixed": {"vllm": {}, "generated": {}},
            }
            head = case["stage_head"]
            experts = case["experts"]  # {"head": "ffn.experts.", "count": n} or None
            for name in full:
                # a routed expert's tensors: the last expert's only (the others are alike)
                if _expert_index(name, head, experts) not in (
                    None,
                    experts and experts["count"] - 1,
                ):
                    continue
                kept = [n for n in full if n != name]
                answer["each_removed"]["vllm"][name] = loader.load(kept)
                answer["each_removed"]["generated"][name] = judge(kept)
            for old, new in case["renames"]:
                for name in full:
                    index, _, rest = name[len(head) :].partition(".")
                    if not (name.startswith(head) and (rest == old or rest.startswith(old + "."))):
                        continue
                    swapped = f"{head}{index}.{new}{rest[len(old) :]}"
                    names = sorted({*full, swapped} - {name})
                    answer["renamed"]["vllm"][swapped] = {
                        **loader.load(names),
                        "probe": loader.probe(swapped),
                    }
                    answer["renamed"]["generated"][swapped] = judge(names)
            for bad in case["rejected"]:
                name = bad + ".weight"
                answer["rejected"]["vllm"][name] = {
                    **loader.load(full + [name]),
                    "probe": loader.probe(name),
                }
                answer["rejected"]["generated"][name] = judge(full + [name])
            # each stage tensor moved to the first stage vLLM did not build
            past = set()
            for name in full:
                index, _, rest = name[len(head) :].partition(".")
                if name.startswith(head) and index.isdigit():
                    past.add(f"{head}{stages}.{rest}")
            for name in sorted(past):
                answer["past_count"]["vllm"][name] = {
                    **loader.load(full + [name]),
                    "probe": loader.probe(name),
                }
                answer["past_count"]["generated"][name] = judge(full + [name])
            # every tensor of one stage removed (MTP's per-stage check, quantized or not)
            for index in range(stages):
                prefix = f"{head}{index}."
                kept = [n for n in full if not n.startswith(prefix)]
                answer["stage_removed"]["vllm"][prefix] = loader.load(kept)
                answer["stage_removed"]["generated"][prefix] = judge(kept)
            # each per-expert tensor of the first stage's last expert, as the first expert vLLM
            # did not build (the index the count stops at), and as a far one
            if experts is not None:
                last = f"{experts['head']}{experts['count'] - 1}."
                for name in full:
                    index, _, rest = name[len(head) :].partition(".")
                    if index != "0" or not rest.startswith(last):
                        continue
                    for beyond in (experts["count"], 1000):
                        moved = f"{head}0.{experts['head']}{beyond}.{rest[len(last) :]}"
                        answer["expert_past_count"]["vllm"][moved] = {
                            **loader.load(full + [moved]),
                            "probe": loader.probe(moved),
                        }
                        answer["expert_past_count"]["generated"][moved] = judge(full + [moved])
            # hostile names added one at a time: an unknown tensor under every stage built, the
            # other methods' tensors, the heads of each method, shared-head names
            hostile = set()
            for index in range(stages):
                prefix = f"{head}{index}."
                hostile |= {prefix + w for w in HOSTILE_STAGE_NAMES}
                hostile |= {f"{prefix}{w}.weight" for w in case["other_methods_weights"]}
            # a module's name without its tensor's `.weight` (`mtp.0.attn_norm`), beside the
            # tensor; of the routed experts, the last expert's only (the others are alike)
            suffixed = [
                name
                for name in full
                if name.startswith(head)
                and name.endswith(".weight")
                and _expert_index(name, head, experts) in (None, experts and experts["count"] - 1)
            ]
            hostile |= {name.removesuffix(".weight") for name in suffixed}
            # and a tensor under a parameter (`mtp.0.hc_attn_fn.weight`): each stage name vLLM
            # places without a `.weight` (one parameter), with one
            hostile |= {
                name + ".weight"
                for name in full
                if name.startswith(head)
                and not name.endswith(".weight")
                and _expert_index(name, head, experts) is None
            }
            for name in sorted(hostile - set(full)):
                answer["hostile"]["vllm"][name] = {
                    **loader.load(full + [name]),
                    "probe": loader.probe(name),
                }
                answer["hostile"]["generated"][name] = judge(full + [name])
            # ... and instead of the tensor: the module shipped under its name alone
            for name in suffixed:
                bare = name.removesuffix(".weight")
                names = sorted({*full, bare} - {name})
                answer["unsuffixed"]["vllm"][bare] = {
                    **loader.load(names),
                    "probe": loader.probe(bare),
                }
                answer["unsuffixed"]["generated"][bare] = judge(names)
            answers[case_id] = answer
    return answers


# Stage-relative names no DeepSeek V4 / V4.1 draft loader places, or only one method's does:
# an unknown tensor, the classic-MTP and DSpark heads, the shared head under the engine's name.
HOSTILE_STAGE_NAMES = (
    "dsv41gen_unknown.weight",
    "hc_head_fn.weight",
    "hc_head_fn",
    "confidence_head.weight",
    "shared_head.norm.weight",
    "shared_head.head.weight",
)


SITES: dict[str, Callable[[dict[str, dict]], dict[str, dict]]] = {
    "registry": site_registry,
    "backends": site_backends,
    "runner": site_runner,
    "plugin": site_plugin,
    "binding": site_binding,
    "speculative": site_speculative,
    "quantization": site_quantization,
    "kv_state_bucket": site_kv_state_bucket,
    "vllm_binding": site_vllm_binding,
    "speculative_methods": site_speculative_methods,
    "compress_ratio": site_compress_ratio,
    "checkpoint": site_checkpoint,
}


def main() -> None:
    import driver_hybrid

    SITES.update(driver_hybrid.SITES)
    site = sys.argv[1]
    cases = json.load(sys.stdin)
    print(json.dumps(SITES[site](cases), sort_keys=True, default=repr))


if __name__ == "__main__":
    main()
