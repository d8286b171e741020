"""Where vLLM 0.33.0 keeps the things generated code binds to.

These are facts about the engine, not about a model variant, so they live here rather than in
every spec. The generated ``_binding.py`` imports them when vLLM is importable and defines
stand-ins with the same names and behaviour otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..codegen_values import DottedPath, Identifier

VLLM_VERSION = "0.33.0"


@dataclass(frozen=True)
class EngineImport:
    module: str
    name: str

    @property
    def module_path(self) -> DottedPath:
        return DottedPath(self.module)

    @property
    def name_ident(self) -> Identifier:
        return Identifier(self.name)


MODEL_REGISTRY = EngineImport("vllm", "ModelRegistry")
CURRENT_PLATFORM = EngineImport("vllm.platforms", "current_platform")
CUDA_GRAPH_MODE = EngineImport("vllm.config.compilation", "CUDAGraphMode")
KV_SPEC_MODULE = "vllm.v1.kv_cache_interface"
# supported_kv_cache_layouts() returns members of this enum (vllm/v1/attention/backend.py).
KV_CACHE_LAYOUT = EngineImport("vllm.v1.kv_cache_layout", "KVCacheLayout")
