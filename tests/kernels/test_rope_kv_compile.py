"""The CUDA of the fused RoPE + KV insert compiles, and holds exactly the spec's set.

nvcc builds the torch-free units (a variant's generated instantiation lists against its
rope_kv_config.h, and dsv41gen's dispatch, with the kernels from dsv41gen/kernels) for sm_90a,
and sm_100a where this nvcc supports it, through scripts/nvcc_compile.sh. The
kernel symbols are read back from the objects: device entry points with cuobjdump (the
toolkit's, or the one Triton's wheel ships), host-side stubs with nm.

This is also CI's nvcc check: every variant of the specs (``generated/*/csrc/*``, which
``dsv41gen check`` holds equal to what is rendered here) is compiled for every target once, here;
``.ci/run`` sets ``DSV41GEN_REQUIRE_NVCC=1``, so a missing nvcc fails instead of skipping.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from dsv41gen.kernels.runtime import KERNELS_DIR

NVCC = shutil.which("nvcc")
REQUIRE_NVCC = os.environ.get("DSV41GEN_REQUIRE_NVCC") == "1"
pytestmark = pytest.mark.skipif(NVCC is None and not REQUIRE_NVCC, reason="nvcc is not installed")

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "nvcc_compile.sh"
# the specs' variants (conftest's rope_kv_plans); test_every_generated_variant_is_compiled_here
# holds this equal to generated/*/csrc/*
ROPE_KV_VARIANTS = ("deepseek_v4", "deepseek_v41")
COMMON_H = KERNELS_DIR / "rope_kv_common.h"
KERNEL = re.compile(
    r"rope_kv_insert_kernel<(\w+), (\d+), (true|false), \([\w:]+::CacheKind\)(\d+)>"
)


def load_compare_sass():
    spec = importlib.util.spec_from_file_location(
        "compare_sass", REPO / "scripts" / "compare_sass.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cuobjdump() -> str | None:
    return load_compare_sass().find_cuobjdump()


def nvcc_supports_sm100() -> bool:
    out = subprocess.run([NVCC, "--list-gpu-arch"], capture_output=True, text=True, check=True)
    return "compute_100" in out.stdout.split()


def compile_units(src: Path, out: Path, targets: str | None = None) -> dict[str, tuple[float, int]]:
    cmd = [str(SCRIPT), "-j", "2", "-k", str(KERNELS_DIR), str(src), str(out)]
    if targets:
        cmd[1:1] = ["-a", targets]
    run = subprocess.run(cmd, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    table = {}
    for line in run.stdout.splitlines():
        name, seconds, size = line.split()
        table[name] = (float(seconds), int(size))
    return table


def demangle(names: list[str]) -> list[str]:
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True)
    return out.stdout.splitlines()


def cache_kinds() -> list[str]:
    """CacheKind's enumerators in value order, read off the kernel sources' declaration."""
    match = re.search(r"enum class CacheKind \{([^}]*)\}", COMMON_H.read_text())
    assert match, COMMON_H
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def parse_kernels(demangled: list[str], plan) -> set[tuple[str, int, bool, str]]:
    scalars = {s.mangled_name: s.spec_name for s in plan.scalars}
    by_enumerator = {c.enumerator: c.spec_name for c in plan.caches}
    kinds = cache_kinds()
    found = set()
    for line in demangled:
        for m in KERNEL.finditer(line):
            scalar, heads, norm, cache = m.groups()
            found.add(
                (scalars[scalar], int(heads), norm == "true", by_enumerator[kinds[int(cache)]])
            )
    return found


def device_kernels(objects: list[Path], plan) -> dict[str, set]:
    """arch -> instantiation keys of the device entry points in the objects."""
    tool = cuobjdump()
    assert tool is not None, "no cuobjdump: install the CUDA toolkit's or triton"
    by_arch: dict[str, list[str]] = {}
    for obj in objects:
        text = subprocess.run(
            [tool, "-symbols", str(obj)], capture_output=True, text=True, check=True
        )
        arch = None
        for line in text.stdout.splitlines():
            if line.startswith("arch = "):
                arch = line.split("=")[1].strip()
            elif "STO_ENTRY" in line:
                by_arch.setdefault(arch, []).append(line.split()[-1])
    return {arch: parse_kernels(demangle(names), plan) for arch, names in by_arch.items()}


def host_kernels(objects: list[Path], plan) -> set:
    names = []
    for obj in objects:
        out = subprocess.run(["nm", "-C", str(obj)], capture_output=True, text=True, check=True)
        names += out.stdout.splitlines()
    return parse_kernels(names, plan)


def expected(plan) -> set:
    return {i.key for i in plan.instantiations}


@pytest.fixture(scope="module", autouse=True)
def nvcc_present():
    assert NVCC is not None, "nvcc is not installed; DSV41GEN_REQUIRE_NVCC=1 requires it"


@pytest.fixture(scope="module")
def compiled(tmp_path_factory, rope_kv_rendered, rope_kv_plans) -> dict:
    """variant -> (plan, objects directory, unit table): each variant compiled once, for every
    target this nvcc supports (the script's default: 90a, and 100a where supported)."""
    built = {}
    for variant in ROPE_KV_VARIANTS:
        plan = rope_kv_plans[variant]
        out = tmp_path_factory.mktemp(f"rope_kv_obj_{variant}")
        table = compile_units(rope_kv_rendered[variant] / plan.csrc_dir, out)
        built[variant] = (plan, out, table)
    return built


def test_every_generated_variant_is_compiled_here():
    """CI compiles the generated CUDA only through this file: every csrc/<variant> directory of
    generated/ is one of the variants compiled above."""
    dirs = {p.name for p in REPO.glob("generated/*/csrc/*/") if any(p.glob("*.cu"))}
    assert dirs == set(ROPE_KV_VARIANTS)


@pytest.mark.parametrize("variant", ROPE_KV_VARIANTS)
def test_every_unit_compiles_for_sm90a_and_sm100a(compiled, variant):
    plan, out, table = compiled[variant]
    assert set(table) == {"rope_kv_dispatch"} | {u.file_name[:-3] for u in plan.units}
    archs = set(device_kernels(sorted(out.glob("*.o")), plan))
    assert "sm_90a" in archs
    assert ("sm_100a" in archs) == nvcc_supports_sm100()


@pytest.mark.parametrize("variant", ROPE_KV_VARIANTS)
def test_instantiation_set_equals_the_spec_on_every_target(compiled, variant):
    plan, out, _ = compiled[variant]
    objects = sorted(out.glob("rope_kv_inst_*.o"))
    want = expected(plan)
    found = device_kernels(objects, plan)
    assert set(found) == {"sm_90a"} | ({"sm_100a"} if nvcc_supports_sm100() else set())
    for arch, kernels in found.items():
        assert kernels == want, arch
    assert host_kernels(objects, plan) == want


def test_v41_instantiation_set_is_the_specs(compiled):
    plan, _, _ = compiled["deepseek_v41"]
    want = expected(plan)
    # The spec's set of kNumHeadsQPadded values, every dtype, both norms (KV-only: no norm),
    # every cache format: 2 x (1 + 5 x 2) x 4 = 88 kernels.
    assert {k[1] for k in want} == {0, 8, 16, 32, 64, 128}
    assert len(want) == 88


@pytest.mark.parametrize("variant", ROPE_KV_VARIANTS)
def test_dispatch_unit_holds_no_kernel(compiled, variant):
    plan, out, _ = compiled[variant]
    assert host_kernels([out / "rope_kv_dispatch.o"], plan) == set()


def test_v4_has_no_mxfp8_kernels(compiled):
    plan, _, _ = compiled["deepseek_v4"]
    assert {k[3] for k in expected(plan)} == {"bf16", "fp8", "fp8_ds_mla"}


def test_removing_a_value_from_the_spec_removes_its_kernels(
    tmp_path, rope_kv_spec_loader, rope_kv_renderer
):
    from dsv41gen.plan.rope_kv import plan_rope_kv

    kernel = dataclasses.replace(
        rope_kv_spec_loader("deepseek_v41"), num_heads_q_padded=(0, 16), apply_q_norm=(True,)
    )
    plan = plan_rope_kv(kernel, "deepseek_v41")
    rope_kv_renderer(tmp_path, plan)
    src = tmp_path / plan.csrc_dir
    assert sorted(p.name for p in src.glob("*.cu")) == ["rope_kv_inst_h0.cu", "rope_kv_inst_h16.cu"]
    table = compile_units(src, tmp_path / "obj", "90a")
    objects = [tmp_path / "obj" / f"{n}.o" for n in table]
    found = device_kernels(objects, plan)["sm_90a"]
    assert found == expected(plan)
    assert {(k[1], k[2]) for k in found} == {(0, False), (16, True)}
    config = (src / "rope_kv_config.h").read_text()
    assert 'kNumHeadsQPaddedText[] = "0, 16";' in config
    assert "kApplyQNormFalse = false;" in config and "kApplyQNormTrue = true;" in config


def test_compare_sass_tells_the_switched_kernels_from_the_unchanged_ones(tmp_path):
    """scripts/compare_sass.py, which the KV-only sweeps' landing arguments rest on: today's
    kernels against the core of the commit that still carried the sweep candidates as -D
    switches (benchmarks/sweep_rope_kv_kv_only.SWITCHES_COMMIT), built with the switches of the
    build before the cos/sin ring (no ring, no slot shifts, the block-scaled formats on the
    pipeline): the bf16 and per-tensor fp8 KV-only kernels are the same, the fp8_ds_mla and mxfp8
    ones differ (so the tool does see a change); it exits 1 when any kernel differs."""
    source = REPO / "generated" / "deepseek_v4" / "csrc" / "deepseek_v41" / "rope_kv_inst_h0.cu"
    old = switches_kernels(tmp_path)
    run = subprocess.run(
        [
            sys.executable,
            str(REPO / "scripts" / "compare_sass.py"),
            "--kernel",
            "kv_only_strided_kernelI13__nv_bfloat16",
            "--a-kernels",
            str(old),
            "--a-flags",
            "-DDSV41GEN_KV_ONLY_COS_SIN_AHEAD=0 -DDSV41GEN_KV_ONLY_PIPELINE=1"
            " -DDSV41GEN_KV_ONLY_SHIFT_SLOTS=0",
            str(source),
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PATH": f"{Path(NVCC).parent}:{os.environ.get('PATH', '')}"},
    )
    lines = run.stdout.splitlines()
    verdict = {
        int(re.search(r"CacheKindE(\d)E", line).group(1)): line.split()[0]
        for line in lines
        if "CacheKindE" in line
    }
    assert verdict == {0: "identical", 1: "identical", 2: "DIFFERENT", 3: "DIFFERENT"}, run.stdout
    assert lines[-1] == "2 kernel(s) differ"
    assert run.returncode == 1


def switches_kernels(tmp_path: Path) -> Path:
    """A copy of dsv41gen/kernels whose core is the sweeps' SWITCHES_COMMIT's (git history)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    try:
        from sweep_rope_kv_kv_only import SWITCHES_COMMIT
    finally:
        sys.path.remove(str(REPO / "benchmarks"))
    core = subprocess.run(
        ["git", "-C", str(REPO), "show", f"{SWITCHES_COMMIT}:dsv41gen/kernels/rope_kv_core.cuh"],
        capture_output=True,
        text=True,
    )
    assert core.returncode == 0, f"needs the git history of {SWITCHES_COMMIT}: {core.stderr}"
    kernels = tmp_path / "kernels"
    shutil.copytree(REPO / "dsv41gen" / "kernels", kernels)
    (kernels / "rope_kv_core.cuh").write_text(core.stdout)
    return kernels
