"""vLLM 0.33.0's own kernels, the oracle of the GPU tests, run without vLLM.

``scripts/vllm_oracle.sh`` puts them into the git-ignored ``.vllm/oracle`` (VLLM_ORACLE_DIR
overrides the place): the sm_90 cubin of ``csrc/fused_deepseek_v4_qnorm_rope_kv_insert_kernel.cu``
taken out of the wheel's ``vllm/_C_stable_libtorch.abi3.so``, and the wheel's
``mxfp8_utils.py``. Nothing of vLLM is in the repository; this module only knows the kernels'
names, parameter lists and grids, read off the cubin's symbols and its SASS and off the x86 host
launchers of the same library:

- ``fusedDeepseekV4QNormRopeKVRopeQuantInsertKernel<scalar, kNumHeadsQPadded, APPLY_Q_NORM,
  IS_Q_INTERLEAVED>(q_in, q_out, kv, k_cache, slot_mapping, position_ids, cos_sin_cache, eps,
  num_tokens_full, num_tokens_insert, num_heads_q, cache_block_size, kv_block_stride, kv_mxfp8,
  apply_q_rope)``: the packed caches (fp8_ds_mla 584 B, mxfp8 528 B by kv_mxfp8). The KV-only
  op launches kNumHeadsQPadded = 0 on ceil(N / 8) blocks of 256 threads; the Q op launches this
  kernel below 1024 tokens and its ``ReducedGrid`` twin (one block per token) from 1024 on.
- ``fusedDeepseekV4FullCacheKernel<scalar, STORE_Q_FP8, STORE_KV_FP8, APPLY_Q_NORM>(q, q_fp8,
  q_fp8_stride0, q_fp8_stride1, kv, k_cache, slot_mapping, position_ids, cos_sin_cache,
  fp8_scale, q_fp8_scale_inv, eps, num_tokens_full, num_tokens_insert, num_heads_q,
  cache_block_size, kv_block_stride, kv_token_stride)``: the bf16 and per-tensor fp8 rows; the
  KV-only op passes num_heads_q = 0 and launches ceil(N * (0 + 1) / 8) blocks.

Every launch goes through cuLaunchKernelEx with programmatic stream serialization, as vLLM's
host launchers do on SM90+, on torch's current stream (so CUDA-graph capture records it).
"""

from __future__ import annotations

import ctypes
import os
import sys
import types
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parents[2]
ORACLE_DIR = Path(os.environ.get("VLLM_ORACLE_DIR", REPO / ".vllm" / "oracle"))
CUBIN = ORACLE_DIR / "rope_kv_sm90.cubin"
MXFP8_UTILS = ORACLE_DIR / "mxfp8_utils.py"
THREADS = 256
WARPS = THREADS // 32
NUM_TOKEN_CUTOFF = 1024  # the Q op's host launcher: reduced grid from here on
CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6

_SCALARS = {torch.bfloat16: "N3c108BFloat16E", torch.float16: "N3c104HalfE"}
_PACKED_PARAMS = "EEvPKT_PS4_S6_PhPKlSA_PKffiiiiibb"
_FULL_PARAMS = "EEvPT_PhllPKS4_S6_PKlSA_PKfSC_SC_fiiiill"


def available() -> str | None:
    """None when the oracle can run here, else why not."""
    if not torch.cuda.is_available():
        return "needs a CUDA device"
    if torch.cuda.get_device_capability()[0] != 9:
        return "vLLM's extracted cubin is sm_90 code: needs a compute capability 9.x device"
    if not CUBIN.is_file():
        return f"{CUBIN} is missing: run scripts/vllm_oracle.sh (and carry .vllm/oracle)"
    return None


def _b(flag: bool) -> str:
    return "Lb1E" if flag else "Lb0E"


def packed_kernel_name(dtype, heads: int, apply_q_norm: bool, reduced: bool) -> str:
    kernel = (
        "58fusedDeepseekV4QNormRopeKVRopeQuantInsertKernelReducedGrid"
        if reduced
        else "47fusedDeepseekV4QNormRopeKVRopeQuantInsertKernel"
    )
    return (
        f"_ZN4vllm21deepseek_v4_fused_ops{kernel}I{_SCALARS[dtype]}Li{heads}E"
        f"{_b(apply_q_norm)}{_b(False)}{_PACKED_PARAMS}"
    )


def full_kernel_name(dtype, store_q_fp8: bool, store_kv_fp8: bool, apply_q_norm: bool) -> str:
    return (
        f"_ZN4vllm21deepseek_v4_fused_ops30fusedDeepseekV4FullCacheKernelI{_SCALARS[dtype]}"
        f"{_b(store_q_fp8)}{_b(store_kv_fp8)}{_b(apply_q_norm)}{_FULL_PARAMS}"
    )


class _Attribute(ctypes.Structure):  # CUlaunchAttribute: id, padding, a 64-byte value union
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_char * 64)]


class _Config(ctypes.Structure):  # CUlaunchConfig
    _fields_ = [
        ("grid", ctypes.c_uint * 3),
        ("block", ctypes.c_uint * 3),
        ("shared", ctypes.c_uint),
        ("stream", ctypes.c_void_p),
        ("attrs", ctypes.POINTER(_Attribute)),
        ("num_attrs", ctypes.c_uint),
    ]


class Oracle:
    """vLLM's fused RoPE + KV kernels, loaded from the extracted cubin into torch's context."""

    def __init__(self) -> None:
        why = available()
        if why:
            raise RuntimeError(why)
        torch.zeros(1, device="cuda")  # torch makes the primary context current
        self.cuda = ctypes.CDLL("libcuda.so.1")
        image = CUBIN.read_bytes()
        self._image = ctypes.create_string_buffer(image, len(image))
        self.module = ctypes.c_void_p()
        self._check(
            self.cuda.cuModuleLoadData(ctypes.byref(self.module), self._image), "cuModuleLoadData"
        )
        self.functions: dict[str, ctypes.c_void_p] = {}
        self.launches = 0

    def _check(self, status: int, what: str) -> None:
        if status != 0:
            name = ctypes.c_char_p()
            self.cuda.cuGetErrorName(status, ctypes.byref(name))
            raise RuntimeError(f"{what} failed: CUDA driver error {status} ({name.value})")

    def function(self, name: str) -> ctypes.c_void_p:
        if name not in self.functions:
            fn = ctypes.c_void_p()
            self._check(
                self.cuda.cuModuleGetFunction(ctypes.byref(fn), self.module, name.encode()),
                f"cuModuleGetFunction({name})",
            )
            self.functions[name] = fn
        return self.functions[name]

    def launch(self, name: str, blocks: int, args: list) -> None:
        """cuLaunchKernelEx(name) on torch's current stream, programmatic serialization on."""
        attribute = _Attribute()
        attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION
        attribute.value = (1).to_bytes(4, "little") + bytes(60)
        config = _Config()
        config.grid[:] = (blocks, 1, 1)
        config.block[:] = (THREADS, 1, 1)
        config.shared = 0
        config.stream = torch.cuda.current_stream().cuda_stream
        config.attrs = ctypes.pointer(attribute)
        config.num_attrs = 1
        params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(a) for a in args])
        self._check(
            self.cuda.cuLaunchKernelEx(ctypes.byref(config), self.function(name), params, None),
            f"cuLaunchKernelEx({name})",
        )
        self.launches += 1

    # --- the ops, as vLLM 0.33.0's host code launches them ---------------------------------

    def kv_rope_insert(
        self,
        kv: torch.Tensor,
        k_cache: torch.Tensor,
        slot_mapping: torch.Tensor,
        position_ids: torch.Tensor,
        cos_sin_cache: torch.Tensor,
        cache_block_size: int,
        fp8_scale: torch.Tensor | None = None,
        kv_mxfp8: bool = False,
    ) -> None:
        """``fused_deepseek_v4_kv_rope_insert`` with vLLM's kernels: kv rows [0, N) are rotated,
        rows < len(slot_mapping) with a slot >= 0 inserted."""
        self._insert(kv, None, None, k_cache, slot_mapping, position_ids, cos_sin_cache)(
            cache_block_size, fp8_scale, kv_mxfp8, heads=0, eps=0.0, apply_q_norm=False
        )

    def qnorm_rope_kv_insert(
        self,
        q_in: torch.Tensor,
        q_out: torch.Tensor,
        kv: torch.Tensor,
        k_cache: torch.Tensor,
        slot_mapping: torch.Tensor,
        position_ids: torch.Tensor,
        cos_sin_cache: torch.Tensor,
        q_head_padded: int,
        eps: float,
        apply_q_norm: bool,
        cache_block_size: int,
        kv_mxfp8: bool = False,
    ) -> None:
        """``fused_deepseek_v4_qnorm_rope_kv_rope_quant_insert`` (packed caches) writing q_out
        [N, q_head_padded, 512] in place, apply_q_rope=True, is_q_interleaved=False."""
        self._insert(kv, q_in, q_out, k_cache, slot_mapping, position_ids, cos_sin_cache)(
            cache_block_size, None, kv_mxfp8, q_head_padded, eps, apply_q_norm
        )

    def _insert(self, kv, q_in, q_out, k_cache, slot_mapping, position_ids, cos_sin_cache):
        def run(cache_block_size, fp8_scale, kv_mxfp8, heads, eps, apply_q_norm):
            tokens = kv.shape[0]
            num_heads_q = q_in.shape[1] if q_in is not None else 0
            common = dict(
                kv=ctypes.c_void_p(kv.data_ptr()),
                cache=ctypes.c_void_p(k_cache.data_ptr()),
                slots=ctypes.c_void_p(slot_mapping.data_ptr()),
                positions=ctypes.c_void_p(position_ids.data_ptr()),
                cos_sin=ctypes.c_void_p(cos_sin_cache.data_ptr()),
                eps=ctypes.c_float(eps),
                full=ctypes.c_int(tokens),
                insert=ctypes.c_int(slot_mapping.shape[0]),
                heads_q=ctypes.c_int(num_heads_q),
                block_size=ctypes.c_int(cache_block_size),
            )
            elem = k_cache.element_size()
            if k_cache.dtype == torch.uint8:
                reduced = heads > 0 and tokens >= NUM_TOKEN_CUTOFF
                blocks = tokens if reduced else -(-tokens * (heads + 1) // WARPS)
                name = packed_kernel_name(kv.dtype, heads, apply_q_norm, reduced)
                q_ptr = ctypes.c_void_p(q_in.data_ptr() if q_in is not None else 0)
                q_out_ptr = ctypes.c_void_p(q_out.data_ptr() if q_out is not None else 0)
                args = [
                    q_ptr,
                    q_out_ptr,
                    common["kv"],
                    common["cache"],
                    common["slots"],
                    common["positions"],
                    common["cos_sin"],
                    common["eps"],
                    common["full"],
                    common["insert"],
                    common["heads_q"],
                    common["block_size"],
                    ctypes.c_int(k_cache.stride(0) * elem),
                    ctypes.c_bool(kv_mxfp8),
                    ctypes.c_bool(True),  # apply_q_rope
                ]
            else:
                if heads:
                    raise ValueError("the oracle's Q op covers the packed caches only")
                store_fp8 = k_cache.dtype == torch.float8_e4m3fn
                # vLLM compiles the half kernel with an fp8 KV store only together with an fp8 Q
                # store; with no Q heads the Q store never runs.
                store_q_fp8 = store_fp8 and kv.dtype == torch.float16
                name = full_kernel_name(kv.dtype, store_q_fp8, store_fp8, False)
                scale = fp8_scale.data_ptr() if fp8_scale is not None else 0
                args = [
                    ctypes.c_void_p(0),
                    ctypes.c_void_p(0),
                    ctypes.c_int64(0),
                    ctypes.c_int64(0),
                    common["kv"],
                    common["cache"],
                    common["slots"],
                    common["positions"],
                    common["cos_sin"],
                    ctypes.c_void_p(scale),
                    ctypes.c_void_p(scale),
                    common["eps"],
                    common["full"],
                    common["insert"],
                    common["heads_q"],
                    common["block_size"],
                    ctypes.c_int64(k_cache.stride(0) * elem),
                    ctypes.c_int64(k_cache.stride(1) * elem),
                ]
                blocks = -(-tokens // WARPS)
            if tokens:
                self.launch(name, blocks, args)

        return run


def vllm_mxfp8_module():
    """The wheel's mxfp8_utils.py, imported from the oracle folder with stand-ins for the two
    vLLM modules it imports at load time (a custom-op registrar and triton's re-export)."""
    if not MXFP8_UTILS.is_file():
        raise RuntimeError(f"{MXFP8_UTILS} is missing: run scripts/vllm_oracle.sh")
    import importlib.util

    import triton
    import triton.language as tl

    stubs = {
        "vllm": types.ModuleType("vllm"),
        "vllm.utils": types.ModuleType("vllm.utils"),
        "vllm.utils.torch_utils": types.ModuleType("vllm.utils.torch_utils"),
        "vllm.triton_utils": types.ModuleType("vllm.triton_utils"),
    }
    stubs["vllm.utils.torch_utils"].direct_register_custom_op = lambda *a, **k: None
    stubs["vllm.triton_utils"].triton = triton
    stubs["vllm.triton_utils"].tl = tl
    for name, module in stubs.items():
        sys.modules.setdefault(name, module)
    spec = importlib.util.spec_from_file_location("_vllm_0_33_mxfp8_utils", MXFP8_UTILS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# --- vLLM's readers of the packed records -------------------------------------------------------

FLASHMLA = ORACLE_DIR / "_flashmla_C.abi3.so"
CACHE_UTILS_V41 = ORACLE_DIR / "cache_utils_v41.py"
# The top-level definitions of the wheel's vllm/models/deepseek_v41/common/ops/cache_utils.py
# that its Triton dequantize-and-gather needs: the kernels of the 584 B (V4), 528 B (MXFP8) and
# 288 B records, their launcher, and the constants those read.
_GATHER_DEFINITIONS = (
    "V4_BYTES_PER_TOKEN",
    "V41_BYTES_PER_TOKEN",
    "V41_QUANT_BLOCK",
    "V41_NUM_SCALES",
    "V41_NVFP4_BYTES_PER_TOKEN",
    "V41_NVFP4_QUANT_BLOCK",
    "V41_NVFP4_NUM_SCALES",
    "_dequantize_and_gather_k_kernel",
    "_dequantize_and_gather_k_one_pass_kernel",
    "_dequantize_and_gather_k_mxfp8_kernel",
    "_dequantize_and_gather_k_nvfp4_kernel",
    "_GATHER_STEPS_PER_WORKER",
    "_GATHER_MIN_WORKERS",
    "_GATHER_MAX_WORKERS",
    "gather_num_workers",
    "dequantize_and_gather_k_cache_triton",
)


def load_flashmla() -> types.SimpleNamespace:
    """torch.ops._flashmla_C from the wheel's vllm/_flashmla_C.abi3.so (stable ABI)."""
    if not FLASHMLA.is_file():
        raise RuntimeError(f"{FLASHMLA} is missing: run scripts/vllm_oracle.sh")
    if not hasattr(torch.ops, "_flashmla_C") or not hasattr(
        torch.ops._flashmla_C, "sparse_decode_fwd"
    ):
        torch.ops.load_library(str(FLASHMLA))
    return torch.ops._flashmla_C


def cache_utils_v41_source() -> Path:
    """vLLM's V4.1 cache_utils.py: .vllm/oracle's copy (scripts/vllm_oracle.sh), else the
    conformance venv's installed wheel (built when absent, as the conformance suite does), the
    file checked against the sha256 that the wheel's RECORD lists for it."""
    import base64
    import hashlib

    from vllmvenv import require_vllm_python

    if CACHE_UTILS_V41.is_file():
        return CACHE_UTILS_V41
    venv = require_vllm_python().parent.parent
    name = "vllm/models/deepseek_v41/common/ops/cache_utils.py"
    [site] = venv.glob("lib/python*/site-packages")
    record = (site / "vllm-0.33.0.dist-info" / "RECORD").read_text(encoding="utf-8")
    listed = {line.split(",")[0]: line.split(",")[1] for line in record.splitlines() if line}
    path = site / name
    digest = base64.urlsafe_b64encode(hashlib.sha256(path.read_bytes()).digest()).rstrip(b"=")
    if listed.get(name) != "sha256=" + digest.decode():
        raise RuntimeError(f"{path} is not the file vllm 0.33.0's wheel RECORD lists")
    return path


def vllm_gather_module(source_path: Path = CACHE_UTILS_V41) -> types.ModuleType:
    """vLLM's Triton ``dequantize_and_gather_k_cache_triton`` and its kernels, run from the
    wheel's own source text: the definitions named in _GATHER_DEFINITIONS are taken out of the
    module by its syntax tree and executed unchanged, with the three vLLM names they read
    (``current_platform.is_rocm``, ``cdiv``, ``next_power_of_2``) and triton. The rest of the
    module (JIT warm-up classes, vLLM config readers) is not needed to read a cache."""
    import ast
    import math

    import triton
    import triton.language as tl

    if not source_path.is_file():
        raise RuntimeError(f"{source_path} is missing: run scripts/vllm_oracle.sh")
    source = source_path.read_text()
    tree = ast.parse(source)
    wanted = []
    for node in tree.body:
        names = (
            [node.name]
            if isinstance(node, ast.FunctionDef)
            else [t.id for t in node.targets if isinstance(t, ast.Name)]
            if isinstance(node, ast.Assign)
            else []
        )
        if any(name in _GATHER_DEFINITIONS for name in names):
            wanted.append(node)
    found = {n.name if isinstance(n, ast.FunctionDef) else n.targets[0].id for n in wanted}
    missing = set(_GATHER_DEFINITIONS) - found
    if missing:
        raise RuntimeError(f"{CACHE_UTILS_V41} lacks {sorted(missing)}: not vLLM 0.33.0's file?")
    module = types.ModuleType("_vllm_0_33_deepseek_v41_cache_utils")
    module.__file__ = str(CACHE_UTILS_V41)  # triton.jit reads the kernels' source from here
    platform = types.SimpleNamespace(is_rocm=lambda: False, is_fp8_fnuz=lambda: False)
    module.__dict__.update(
        torch=torch,
        triton=triton,
        tl=tl,
        current_platform=platform,
        cdiv=lambda a, b: -(-a // b),
        next_power_of_2=lambda n: 1 << max(0, math.ceil(math.log2(n))),
    )
    sys.modules[module.__name__] = module
    code = compile(ast.Module(body=wanted, type_ignores=[]), str(CACHE_UTILS_V41), "exec")
    exec(code, module.__dict__)
    return module
