"""The CUDA of the fused RoPE + KV insert compiles, and holds exactly the spec's set.

nvcc builds the torch-free units (a variant's generated instantiation lists against its
rope_kv_config.h, and dsv41gen's dispatch, with the kernels from dsv41gen/kernels) for sm_90a,
and sm_100a where this nvcc supports it, through scripts/nvcc_compile.sh, the script CI runs. The
kernel symbols are read back from the objects: device entry points with cuobjdump (the
toolkit's, or the one Triton's wheel ships), host-side stubs with nm.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from dsv41gen.kernels.runtime import KERNELS_DIR

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed")

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "nvcc_compile.sh"
COMMON_H = KERNELS_DIR / "rope_kv_common.h"
KERNEL = re.compile(
    r"rope_kv_insert_kernel<(\w+), (\d+), (true|false), \([\w:]+::CacheKind\)(\d+)>"
)


def cuobjdump() -> str | None:
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import triton
    except ImportError:
        return None
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    return str(bundled) if bundled.is_file() else None


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


@pytest.fixture(scope="module")
def compiled_v41(tmp_path_factory, rope_kv_rendered, rope_kv_plans):
    plan = rope_kv_plans["deepseek_v41"]
    src = rope_kv_rendered["deepseek_v41"] / plan.csrc_dir
    out = tmp_path_factory.mktemp("rope_kv_obj_v41")
    table = compile_units(src, out)
    return plan, out, table


def test_every_unit_compiles_for_sm90a_and_sm100a(compiled_v41):
    plan, out, table = compiled_v41
    assert set(table) == {"rope_kv_dispatch"} | {u.file_name[:-3] for u in plan.units}
    archs = set(device_kernels(sorted(out.glob("*.o")), plan))
    assert "sm_90a" in archs
    assert ("sm_100a" in archs) == nvcc_supports_sm100()


def test_instantiation_set_equals_the_spec(compiled_v41):
    plan, out, _ = compiled_v41
    objects = sorted(out.glob("rope_kv_inst_*.o"))
    want = expected(plan)
    # The spec's set of kNumHeadsQPadded values, every dtype, both norms (KV-only: no norm),
    # every cache format: 2 x (1 + 5 x 2) x 4 = 88 kernels.
    assert {k[1] for k in want} == {0, 8, 16, 32, 64, 128}
    assert len(want) == 88
    for arch, found in device_kernels(objects, plan).items():
        assert found == want, arch
    assert host_kernels(objects, plan) == want


def test_dispatch_unit_holds_no_kernel(compiled_v41):
    plan, out, _ = compiled_v41
    assert host_kernels([out / "rope_kv_dispatch.o"], plan) == set()


def test_v4_has_no_mxfp8_kernels(tmp_path, rope_kv_rendered, rope_kv_plans):
    plan = rope_kv_plans["deepseek_v4"]
    table = compile_units(rope_kv_rendered["deepseek_v4"] / plan.csrc_dir, tmp_path, "90a")
    found = device_kernels([tmp_path / f"{n}.o" for n in table if n != "rope_kv_dispatch"], plan)
    assert found == {"sm_90a": expected(plan)}
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
