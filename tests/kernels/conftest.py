"""Shared fixtures of the kernel tests (Triton MXFP8, CUDA RoPE + KV insert).

Kernels run on the GPU when CUDA is available, else on the CPU through the Triton interpreter:
TRITON_INTERPRET must be set before triton is first imported, so it is set here, at collection.
"""

from __future__ import annotations

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")


# ---------------------------------------------------------------------------------------------
# MXFP8 (Triton): the generated modules, rendered from the spec's plan into a temp directory so
# the tests do not depend on `dsv41gen build` having run. They are configuration: the kernels and
# the torch reference they bind are dsv41gen/kernels/mxfp8.py and mxfp8_reference.py.
# ---------------------------------------------------------------------------------------------
import importlib.util  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MXFP8_SPEC = REPO / "specs" / "deepseek_v4.yaml"


def _mxfp8_format():
    import yaml

    from dsv41gen.spec.model import _parse_mx_format

    # The spec section as the typed model parses it (validation is tested elsewhere; reading the
    # YAML directly keeps this fixture free of jsonschema, which the GPU image lacks).
    data = yaml.safe_load(MXFP8_SPEC.read_text())
    return _parse_mx_format("mxfp8", data["quantization"]["mxfp8"])


@pytest.fixture(scope="session")
def mxfp8_plan():
    from dsv41gen.plan.mxfp8 import plan_mxfp8

    return plan_mxfp8(_mxfp8_format(), "mxfp8")


def import_rendered(directory: Path, name: str):
    """directory/name.py, imported as a module of a package made of ``directory`` (so that a
    rendered module's relative imports would resolve, as in the generated package)."""
    import hashlib
    import types

    package = "_rendered_" + hashlib.sha256(str(directory).encode()).hexdigest()[:12]
    if package not in sys.modules:
        module = types.ModuleType(package)
        module.__path__ = [str(directory)]
        sys.modules[package] = module
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", directory / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # triton.jit and dataclasses need the module by name
    spec.loader.exec_module(module)
    return module


_import_rendered = import_rendered


@pytest.fixture(scope="session")
def mxfp8_rendered_dir(tmp_path_factory, mxfp8_plan):
    from dsv41gen.emit.render import render

    directory = tmp_path_factory.mktemp("mxfp8")
    kernels = render("triton/mxfp8.py.j2", plan=mxfp8_plan)
    reference = render("triton/mxfp8_reference.py.j2", plan=mxfp8_plan)
    (directory / f"{mxfp8_plan.module_name}.py").write_text(kernels)
    (directory / f"{mxfp8_plan.reference_module_name}.py").write_text(reference)
    return directory


@pytest.fixture(scope="session")
def mxfp8_module(mxfp8_rendered_dir, mxfp8_plan):
    return _import_rendered(mxfp8_rendered_dir, mxfp8_plan.module_name)


@pytest.fixture(scope="session")
def mxfp8_reference_module(mxfp8_rendered_dir, mxfp8_plan):
    return _import_rendered(mxfp8_rendered_dir, mxfp8_plan.reference_module_name)


@pytest.fixture(scope="session")
def kernel_device() -> str:
    """Where the kernels run: the GPU, or the CPU under the Triton interpreter."""
    return "cuda" if torch.cuda.is_available() else "cpu"


@pytest.fixture(scope="session")
def mxfp8_tiles(kernel_device) -> dict:
    """Launch overrides: the interpreter pays per program, so CPU runs use large tiles; the GPU
    uses the spec's launch section (no override)."""
    return {} if kernel_device == "cuda" else {"block_m": 64, "block_k": 512, "num_warps": 4}


# ---------------------------------------------------------------------------------------------
# Fused RoPE + KV insert (CUDA): each variant's configuration rendered from the spec's plan into
# a temp directory, in the layout the build writes (csrc/<variant>/..., rope_kv_<variant>.py);
# the kernels, dispatch, bindings, loader and reference's arithmetic are dsv41gen/kernels.
# ---------------------------------------------------------------------------------------------
ROPE_KV_VARIANTS = ("deepseek_v4", "deepseek_v41")


def rope_kv_kernel_spec(variant: str):
    """The resolved ``kernels.rope_kv_insert`` section of specs/<variant>.yaml, typed.

    Resolves ``extends`` but skips schema validation (tested elsewhere), so no jsonschema is
    needed: the GPU image lacks it."""
    from dsv41gen.errors import Diagnostics
    from dsv41gen.spec.model import _parse_rope_kv
    from dsv41gen.spec.resolve import Resolver

    diagnostics = Diagnostics()
    spec = Resolver(diagnostics).resolve(REPO / "specs" / f"{variant}.yaml")
    assert spec is not None and not diagnostics, list(diagnostics.items)
    assert spec.data["variant"]["name"] == variant
    return _parse_rope_kv(spec.data["kernels"]["rope_kv_insert"])


def render_rope_kv_into(directory: Path, plan) -> Path:
    from dsv41gen.emit.rope_kv import render_rope_kv

    for relative, text in render_rope_kv(plan).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return directory


EXACT_MATH = "exact_math"


def exact_math_kernel():
    """V4.1's kernel section with the numerics vLLM 0.33.0 does not use, which a spec may still
    ask for: every product and sum rounded on its own, no rounding before quantization, the fp32
    tiny as amax floor, IEEE division for the per-tensor scale, the token_data_then_scales mxfp8
    record; and fp8_max 240 (an e4m3 value below 448). Two Q head counts keep its build small."""
    from dataclasses import replace

    from dsv41gen.spec.model import (
        PackedLayout,
        PerTensorScaling,
        QRmsNorm,
        RopeContraction,
        RoundBeforeQuantize,
    )

    def exact(fmt):
        changes = {"rope_contraction": RopeContraction.NONE}
        if fmt.fp8_values:
            changes["round_before_quantize"] = RoundBeforeQuantize.NONE
        if fmt.scale_group:
            changes["amax_floor"] = 2.0**-126
        if fmt.per_tensor_scale:
            changes["per_tensor_scaling"] = PerTensorScaling.DIVIDE
        if fmt.layout is PackedLayout.INTERLEAVED:
            changes["layout"] = PackedLayout.TOKEN_DATA_THEN_SCALES
        return replace(fmt, **changes)

    kernel = rope_kv_kernel_spec("deepseek_v41")
    return replace(
        kernel,
        fp8_max=240.0,
        num_heads_q_padded=(0, 16),
        q_rope_contraction=RopeContraction.NONE,
        q_rms_norm=QRmsNorm.EXACT,
        cache_formats=tuple(exact(f) for f in kernel.cache_formats),
    )


def build_exact_math(root: str) -> None:
    """Render and build the exact-math variant where the ops fixture finds it under
    ROPE_KV_BUILD_DIR=root (scripts/gpu_rope_kv.sh builds it beside the specs' variants)."""
    from dsv41gen.emit.rope_kv import write_rope_kv
    from dsv41gen.plan.rope_kv import plan_rope_kv

    plan = plan_rope_kv(exact_math_kernel(), EXACT_MATH)
    src, build = Path(root) / "src" / EXACT_MATH, Path(root) / EXACT_MATH
    write_rope_kv(plan, src)
    build.mkdir(parents=True, exist_ok=True)
    _import_rendered(src, plan.loader_module).load(build_directory=str(build))


@pytest.fixture(scope="session")
def rope_kv_plans() -> dict:
    """variant -> plan: the two specs' variants and the exact-math test variant."""
    from dsv41gen.plan.rope_kv import plan_rope_kv

    plans = {v: plan_rope_kv(rope_kv_kernel_spec(v), v) for v in ROPE_KV_VARIANTS}
    plans[EXACT_MATH] = plan_rope_kv(exact_math_kernel(), EXACT_MATH)
    return plans


@pytest.fixture(scope="session")
def rope_kv_rendered(tmp_path_factory, rope_kv_plans) -> dict:
    """variant -> directory holding that variant's rendered family."""
    return {
        v: render_rope_kv_into(tmp_path_factory.mktemp(f"rope_kv_{v}"), plan)
        for v, plan in rope_kv_plans.items()
    }


@pytest.fixture(scope="session")
def rope_kv_references(rope_kv_rendered, rope_kv_plans) -> dict:
    """variant -> its imported rope_kv_<variant> module (the pure-torch reference, configured)."""
    return {
        v: _import_rendered(rope_kv_rendered[v], rope_kv_plans[v].reference_module)
        for v in rope_kv_plans
    }


@pytest.fixture(scope="session")
def ops(rope_kv_rendered, rope_kv_plans):
    """variant -> torch.ops namespace of its extension (GPU tests), built once.

    With ROPE_KV_BUILD_DIR set, the sources are rendered into $ROPE_KV_BUILD_DIR/src/<variant>
    (unchanged files untouched) and built in $ROPE_KV_BUILD_DIR/<variant>, so that another
    process (the benchmark) reuses the build; else both live in the session's temp directories.
    """
    from dsv41gen.emit.rope_kv import write_rope_kv

    root = os.environ.get("ROPE_KV_BUILD_DIR")
    built = {}
    for variant, plan in rope_kv_plans.items():
        src = rope_kv_rendered[variant]
        build = None
        if root:
            src = Path(root) / "src" / variant
            write_rope_kv(plan, src)
            build = Path(root) / variant
            build.mkdir(parents=True, exist_ok=True)
        loader = _import_rendered(Path(src), plan.loader_module)
        built[variant] = loader.load(build_directory=str(build) if build else None)
    return built


@pytest.fixture
def grid(ops):
    """Force a grid for one test, then restore the spec's rule."""
    forced = []

    def force(variant, choice):
        forced.append(variant)
        ops[variant]._debug_set_grid(choice)

    yield force
    for variant in forced:
        ops[variant]._debug_set_grid("rule")


@pytest.fixture(scope="session")
def rope_kv_spec_loader():
    """variant -> typed kernels.rope_kv_insert (to plan variations of the spec in a test)."""
    return rope_kv_kernel_spec


@pytest.fixture(scope="session")
def rope_kv_renderer():
    """(directory, plan) -> directory, with the plan's family rendered into it."""
    return render_rope_kv_into


@pytest.fixture(scope="session")
def rope_kv_importer():
    """(directory, module name) -> the rendered module, imported (see import_rendered)."""
    return import_rendered
