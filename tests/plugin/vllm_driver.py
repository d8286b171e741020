"""Drive vLLM 0.33.0's real config classes, in the vLLM venv, and print what they did.

    python vllm_driver.py CASES.json [--plugin]

Runs in a fresh process of the venv that holds vLLM (never in the test process: a plugin, once
loaded, stays loaded). With ``--plugin`` it first calls vLLM's own ``load_general_plugins()``,
which finds the generated package through its ``vllm.general_plugins`` entry point. Each case
builds real ``ModelConfig`` / ``SpeculativeConfig`` / ``VllmConfig`` objects from a local
``config.json`` and records the outcome: the exception type and message, or the values vLLM
ended up with. One JSON list goes to stdout. This file imports nothing from dsv41gen or from
the generated package: what it reports is vLLM's behaviour, plugin or not.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys


def _error(error: BaseException) -> dict:
    # pydantic wraps a ValueError raised in __post_init__ in a ValidationError; the message
    # the user reads is the wrapped error's.
    message = str(error)
    errors = getattr(error, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            inner = [e.get("ctx", {}).get("error") for e in errors()]
            if inner and all(e is not None for e in inner):
                message = "; ".join(str(e) for e in inner)
    return {"outcome": "error", "type": type(error).__name__, "message": message}


def _model_config(case: dict):
    from vllm.config import ModelConfig

    return ModelConfig(
        model=case["model"],
        tokenizer=case["model"],
        skip_tokenizer_init=True,
        quantization=case.get("target_quantization"),
    )


def _speculative_config(case: dict, target):
    from vllm.config import ParallelConfig, SpeculativeConfig

    given = {
        "method": case.get("method"),
        "model": case.get("draft_model"),
        "num_speculative_tokens": case.get("num_speculative_tokens"),
        "quantization": case.get("quantization"),
        "enable_adaptive_verification": case.get("enable_adaptive_verification"),
    }
    # Unset stays unset: vLLM's fields reject an explicit None where they default to one.
    kwargs = {k: v for k, v in given.items() if v is not None}
    return SpeculativeConfig(
        **kwargs, target_model_config=target, target_parallel_config=ParallelConfig()
    )


def _speculative_values(spec) -> dict:
    draft = spec.draft_model_config
    values = {"method": spec.method, "num_speculative_tokens": spec.num_speculative_tokens}
    if draft is not None:
        hf = draft.hf_config
        values.update(
            draft_model_type=hf.model_type,
            draft_architectures=list(draft.architectures),
            draft_hf_architectures=list(getattr(hf, "architectures", None) or []),
            draft_n_predict=getattr(hf, "n_predict", None),
            draft_quantization=draft.quantization,
            draft_architecture=draft.architecture,
        )
    return values


def run_speculative(case: dict) -> dict:
    target = _model_config(case)
    spec = _speculative_config(case, target)
    return {"outcome": "ok", "values": _speculative_values(spec)}


def run_vllm_config(case: dict) -> dict:
    from vllm.config import CacheConfig, CompilationConfig, VllmConfig

    target = _model_config(case)
    given = {"cudagraph_mode": case["cudagraph_mode"], "mode": case.get("compilation_mode")}
    compilation = CompilationConfig(**{k: v for k, v in given.items() if v is not None})
    cache = CacheConfig(cache_dtype=case.get("kv_cache_dtype") or "auto")
    os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "1" if case["runner"] == "v2" else "0"
    try:
        with pretending_cuda(case.get("device", "9.0")):
            config = VllmConfig(
                model_config=target, compilation_config=compilation, cache_config=cache
            )
            return {
                "outcome": "ok",
                "values": {
                    "cudagraph_mode": config.compilation_config.cudagraph_mode.name,
                    "compilation_mode": int(config.compilation_config.mode),
                    "use_v2_model_runner": config.use_v2_model_runner,
                    "cache_dtype": str(config.cache_config.cache_dtype),
                    # vLLM sets it for the architectures of its breakable-CUDA-graph set
                    "breakable_cudagraph": os.environ.get("VLLM_USE_BREAKABLE_CUDAGRAPH"),
                },
            }
    finally:
        # the next case gets vLLM's defaults: what this case set in the environment goes
        del os.environ["VLLM_USE_V2_MODEL_RUNNER"]
        os.environ.pop("VLLM_USE_BREAKABLE_CUDAGRAPH", None)


def run_registry(case: dict) -> dict:
    from vllm import ModelRegistry

    return {
        "outcome": "ok",
        "values": {arch: arch in ModelRegistry.get_supported_archs() for arch in case["archs"]},
    }


def run_block_sizes(case: dict) -> dict:
    """A backend class's kernel block sizes on a pretended device."""
    import importlib

    module, _, name = case["backend"].partition(":")
    backend = getattr(importlib.import_module(module), name)
    with pretending_cuda(case["device"]):
        sizes = backend.get_supported_kernel_block_sizes()
    return {
        "outcome": "ok",
        "values": {
            "sizes": [s if isinstance(s, int) else repr(s) for s in sizes],
            "name": backend.get_name(),
            "bases": [f"{b.__module__}:{b.__qualname__}" for b in backend.__mro__[1:]],
        },
    }


def run_layer_backend(case: dict) -> dict:
    """The backend class a model layer's own get_attn_backend returns while a config of this
    model is vLLM's current one, as during model construction. The layer object carries only
    the flags that method reads (the layer's constructor needs a whole model)."""
    import importlib
    import types

    from vllm.config import CompilationConfig, VllmConfig, set_current_vllm_config

    module, _, name = case["layer"].partition(":")
    layer_class = getattr(importlib.import_module(module), name)
    target = _model_config(case)
    os.environ["VLLM_USE_V2_MODEL_RUNNER"] = "1"  # the runner is not what this case is about
    try:
        with pretending_cuda(case.get("device", "9.0")):
            config = VllmConfig(model_config=target, compilation_config=CompilationConfig())
            with set_current_vllm_config(config):
                backend = layer_class.get_attn_backend(types.SimpleNamespace(**case["flags"]))
            sizes = backend.get_supported_kernel_block_sizes()
    finally:
        del os.environ["VLLM_USE_V2_MODEL_RUNNER"]
    return {
        "outcome": "ok",
        "values": {
            "backend": f"{backend.__module__}:{backend.__qualname__}",
            "name": backend.get_name(),
            "sizes": [s if isinstance(s, int) else repr(s) for s in sizes],
        },
    }


def _rocm_flattening(archs: list[str]) -> frozenset[str]:
    """The architectures for which the indexer's ROCm check of adaptive verification says yes
    (v1/attention/backends/mla/indexer.py), on a pretended ROCm platform, asked through the
    module as _use_flattening asks it; and _use_flattening then flattens (speculative decoding
    with adaptive verification, one draft token)."""
    import types

    import vllm.platforms
    import vllm.v1.attention.backends.mla.indexer as indexer
    from vllm.platforms.interface import PlatformEnum

    platform = vllm.platforms.current_platform
    original = type(platform)
    platform.__class__ = type("PretendRocm", (original,), {"_enum": PlatformEnum.ROCM})
    try:
        found = set()
        for a in archs:
            config = types.SimpleNamespace(
                model_config=types.SimpleNamespace(architectures=[a]),
                num_speculative_tokens=1,
                speculative_config=types.SimpleNamespace(enable_adaptive_verification=True),
            )
            said = indexer._rocm_supports_flattened_device_query_lens(config)
            assert said == indexer._use_flattening(config), a  # on ROCm it decides
            if said:
                found.add(a)
    finally:
        platform.__class__ = original
    return frozenset(found)


def run_engine_sets(case: dict) -> dict:
    """Which of ``archs`` vLLM's engine-wide architecture sets hold: the breakable-CUDA-graph
    default (as vLLM reads it, through its function), the same function's answer on ROCm, and
    the FlashInfer MoE expert-parallel set, and the indexer's ROCm flattening check."""
    import vllm.config.kernel as kernel
    import vllm.config.vllm as config_vllm
    import vllm.platforms
    from vllm.platforms.interface import PlatformEnum

    reader = config_vllm.default_breakable_cudagraph_architectures
    platform = vllm.platforms.current_platform
    original = type(platform)
    cache_clear = getattr(reader, "cache_clear", lambda: None)
    cache_clear()
    default = reader()
    platform.__class__ = type("PretendRocm", (original,), {"_enum": PlatformEnum.ROCM})
    try:
        cache_clear()
        rocm = reader()
    finally:
        platform.__class__ = original
        cache_clear()
    sets = {
        "breakable_cudagraph": default,
        "breakable_cudagraph_rocm": rocm,
        "flashinfer_moe_ep": kernel.FLASHINFER_MOE_EP_ARCHITECTURES,
        "rocm_flattened_query_lens": _rocm_flattening(case["archs"]),
    }
    return {
        "outcome": "ok",
        "values": {
            a: sorted(n for n, members in sets.items() if a in members) for a in case["archs"]
        },
    }


def run_dspark_backend(case: dict) -> dict:
    """The attention backend vLLM's DSpark setup gives a draft of ``draft_model_type``
    (v1/worker/gpu/spec_decode/dspark/utils.py), looked up in its module as its caller does."""
    import types

    import vllm.v1.worker.gpu.spec_decode.dspark.utils as utils
    from vllm.v1.attention.backends.registry import AttentionBackendEnum

    def backend(name):
        return None if name is None else AttentionBackendEnum[name]

    draft = types.SimpleNamespace(
        hf_config=types.SimpleNamespace(model_type=case["draft_model_type"])
    )
    chosen = utils._resolve_dspark_attention_backend(
        draft, backend(case["draft_backend"]), backend(case["target_backend"])
    )
    return {"outcome": "ok", "values": {"backend": None if chosen is None else chosen.name}}


# Required fields of vLLM's KV spec classes, for real instances (k scales the page size).
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
    import dataclasses

    import torch

    fields = {**_KV_FIELDS, "dtype": lambda k: torch.float16, "dtypes": lambda k: (torch.float16,)}
    return cls(
        **{
            f.name: fields[f.name](k)
            for f in dataclasses.fields(cls)
            if f.init
            and f.default is dataclasses.MISSING
            and f.default_factory is dataclasses.MISSING
        }
    )


def run_state_bucket(case: dict) -> dict:
    """What vLLM's KV planning decides for a bucket of ``spec_type``: the real
    _get_packed_kv_cache_groups (looked up in its module, as vLLM calls it) runs on real spec
    objects, unsplit (two page sizes of the type only) or split (beside a balanced
    full-attention bucket of two page sizes); a profile hook records what its is_state_bucket
    closure returns for the type's bucket, with repeats_per_group."""
    import types

    import vllm.v1.kv_cache_interface as interface
    from vllm.config import CacheConfig
    from vllm.v1.core import kv_cache_planning

    cls = getattr(interface, case["spec_type"])
    if case["split"]:
        layers = {
            "t0": _kv_spec(cls, 3),
            "f0": _kv_spec(interface.FullAttentionSpec, 1),
            "f1": _kv_spec(interface.FullAttentionSpec, 2),
        }
    else:
        layers = {"t0": _kv_spec(cls, 1), "t1": _kv_spec(cls, 1), "t2": _kv_spec(cls, 2)}
    cache_config = CacheConfig()
    cache_config.kv_cache_layout = "BLHNC"  # block-outermost: the only layout that packs
    outer = kv_cache_planning._get_packed_kv_cache_groups
    (code,) = [
        c
        for c in outer.__code__.co_consts
        if isinstance(c, types.CodeType) and c.co_name == "is_state_bucket"
    ]
    calls, pending = [], []

    def profile(frame, event, arg):
        if frame.f_code is code:
            if event == "call":
                pending.append((frame.f_locals["spec"], frame.f_locals["repeats_per_group"]))
            elif event == "return":
                spec, repeats = pending.pop()
                if type(spec.first_spec) is cls:
                    calls.append([repeats, arg])

    sys.setprofile(profile)
    try:
        outer(types.SimpleNamespace(cache_config=cache_config), layers)
    finally:
        sys.setprofile(None)
    return {"outcome": "ok", "values": {"answers": calls}}


RUNNERS = {
    "dspark_backend": run_dspark_backend,
    "engine_sets": run_engine_sets,
    "state_bucket": run_state_bucket,
    "layer_backend": run_layer_backend,
    "speculative": run_speculative,
    "vllm_config": run_vllm_config,
    "registry": run_registry,
    "block_sizes": run_block_sizes,
}

# vLLM 0.33.0 objects a plugin may replace or fill; the driver reports which ones a load
# changed (facts about vLLM, not about the plugin).
WATCHED = (
    ("vllm.config.speculative", "SpeculativeConfig", "hf_config_override"),
    ("vllm.config.speculative", "SpeculativeConfig", "__post_init__"),
    ("vllm.config.vllm", "VllmConfig", "__post_init__"),
)


MODULE_WATCHED = (
    ("vllm.v1.worker.gpu.spec_decode.dspark.utils", "_resolve_dspark_attention_backend"),
    ("vllm.config.vllm", "default_breakable_cudagraph_architectures"),
    ("vllm.config.kernel", "FLASHINFER_MOE_EP_ARCHITECTURES"),
    ("vllm.v1.attention.backends.mla.indexer", "_rocm_supports_flattened_device_query_lens"),
    ("vllm.v1.core.kv_cache_planning", "_STATE_BUCKET_SPEC_TYPES"),
    ("vllm.v1.core.kv_cache_planning", "_UNSPLIT_STATE_BUCKET_SPEC_TYPES"),
)


def _watched() -> dict[str, object]:
    import importlib

    from vllm.transformers_utils.config import _CONFIG_REGISTRY

    seen: dict[str, object] = {
        f"{m}.{o}.{a}": importlib.import_module(m).__dict__[o].__dict__.get(a)
        for m, o, a in WATCHED
    }
    seen["_CONFIG_REGISTRY"] = tuple(sorted(dict.keys(_CONFIG_REGISTRY)))
    for module, attribute in MODULE_WATCHED:
        seen[f"{module}.{attribute}"] = importlib.import_module(module).__dict__.get(attribute)
    return seen


def load_plugins() -> dict:
    """vLLM's own load_general_plugins(), as vLLM calls it at start; what it raised, and which
    watched vLLM objects it changed."""
    from vllm.plugins import load_general_plugins

    before = _watched()
    try:
        load_general_plugins()
        outcome = {"outcome": "ok"}
    except Exception as error:
        outcome = _error(error)
    after = _watched()
    outcome["changed"] = sorted(
        k for k in before if before[k] is not after[k] and before[k] != after[k]
    )
    return outcome


def run(case: dict) -> dict:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            return RUNNERS[case["kind"]](case)
    except Exception as error:  # every outcome is data, compared across runs
        return _error(error)


@contextlib.contextmanager
def pretending_cuda(capability: str):
    """vLLM's current platform object answers as a CUDA device of ``capability`` ("9.0")
    while the block runs. vllm.platforms.cuda cannot be imported here (it loads the compiled
    extension, which needs libcuda), so the platform object keeps its class's code and gets
    the CUDA enum, the capability and CUDA graph support; vLLM's own Platform methods
    (is_cuda_alike, is_device_capability_family, ...) answer from those. Only what is built
    inside the block sees the device: model configs are built outside it, as on a host."""
    import vllm.platforms
    from vllm.platforms.interface import DeviceCapability, PlatformEnum

    platform = vllm.platforms.current_platform
    original = type(platform)
    major, minor = (int(part) for part in capability.split("."))

    class PretendCuda(original):
        _enum = PlatformEnum.CUDA
        device_name = "cuda"
        device_type = "cuda"
        dispatch_key = "CUDA"

        @classmethod
        def get_device_capability(cls, device_id: int = 0) -> DeviceCapability:
            return DeviceCapability(major, minor)

        @classmethod
        def get_device_name(cls, device_id: int = 0) -> str:
            return f"pretend sm{major}{minor}"

        @classmethod
        def support_static_graph_mode(cls) -> bool:
            return True  # CUDA graphs, as on the device pretended

    platform.__class__ = PretendCuda
    try:
        yield
    finally:
        platform.__class__ = original


# Why vLLM could not inspect a model class, by class name: the last line of the inspection
# subprocess's traceback, for the failures no stand-in answers (printed with the results).
INSPECTION_FAILURES: dict[str, str] = {}


def inspect_without_cuda() -> None:
    """vLLM inspects a lazily registered model class by importing its module in a subprocess.
    Some model modules (the DSpark drafts) need CUDA extensions to import, so on a CPU the
    inspection fails and no config naming that architecture can be built. For those only, the
    registry gets the inspection of a plain text-generation model of that class name. Both the
    stock and the plugin runs get the same answer; it decides nothing the plugin hooks. A module
    that fails on torchvision (Qwen3.5, Qwen4Exp: none loads beside the CPU torch) gets no
    stand-in: a plain model would hide that they are hybrid, so vLLM's own error is the outcome
    and the test reports those cases as xfails."""
    import torch
    from vllm.model_executor.models import registry

    original = registry._LazyRegisteredModel.inspect_model_cls
    failed: dict[tuple[str, str], object] = {}

    class _Plain(torch.nn.Module):
        def __init__(self, *, vllm_config, prefix: str = "") -> None:
            super().__init__()

        def embed_input_ids(self, input_ids):
            return input_ids

        def forward(self, input_ids, positions):
            return input_ids

        def compute_logits(self, hidden_states):
            return hidden_states

    def inspect(self):
        key = (self.module_name, self.class_name)
        if key not in failed:
            try:
                return original(self)
            except Exception as error:
                lines = [line for line in str(error).splitlines() if line.strip()]
                if lines and "torchvision" in lines[-1]:
                    INSPECTION_FAILURES[self.class_name] = lines[-1]
                    raise
                failed[key] = registry._ModelInfo.from_model_cls(
                    type(self.class_name, (_Plain,), {})
                )
        return failed[key]

    registry._LazyRegisteredModel.inspect_model_cls = inspect


def main() -> int:
    logging.disable(logging.WARNING)
    cases = json.loads(open(sys.argv[1], encoding="utf-8").read())
    inspect_without_cuda()
    # Statements a test runs first: to change vLLM the way another release would.
    exec(os.environ.get("DSV41GEN_DRIVER_PRELUDE", ""), {})
    load = load_plugins() if "--plugin" in sys.argv[2:] else None
    results = [] if load is not None and load["outcome"] != "ok" else [run(c) for c in cases]
    answer = {"load": load, "results": results, "inspection_failures": INSPECTION_FAILURES}
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
