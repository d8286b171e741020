"""A header planted in a generated csrc/<variant> directory cannot stand in for dsv41gen's kernel
sources, nor for the toolkit's or torch's headers (issue 23, finding 3).

The generated directory is a pull request's to change; dsv41gen's kernel sources are not. Only
the generated configuration header may come from that directory, and it is pre-included by its
path: the directory is on no include path. (On -I, as it was, it came first for every include;
on the quote path it would still provide the cuda_runtime.h that nvcc pre-includes.) Each unit of the extension is
preprocessed here with the include flags the loader passes to torch's build
(rope_kv_loader.include_flags), next to planted copies of every header it includes, and the
headers it actually read are compared with where they must come from: nvcc -M for the CUDA
units, the host compiler's -M for the bindings, and a full nvcc preprocess of the device pass
for one unit, whose planted headers hold an #error.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from dsv41gen.kernels import rope_kv_loader
from dsv41gen.kernels.runtime import KERNELS_DIR

REPO = Path(__file__).resolve().parents[2]
GENERATED_CSRC = REPO / "generated" / "deepseek_v4" / "csrc" / "deepseek_v41"
NVCC = shutil.which("nvcc")
CXX = shutil.which("g++") or shutil.which("c++")
REQUIRE_NVCC = os.environ.get("DSV41GEN_REQUIRE_NVCC") == "1"
needs_nvcc = pytest.mark.skipif(NVCC is None and not REQUIRE_NVCC, reason="nvcc is not installed")

# Every header a unit of the extension names, as the attacker would plant it: dsv41gen's own
# sources, the CUDA toolkit's and torch's.
PLANTED = (
    "rope_kv_common.h",
    "rope_kv_kernel.cuh",
    "rope_kv_core.cuh",
    "cuda_bf16.h",
    "cuda_fp16.h",
    "cuda_fp8.h",
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "torch/library.h",
    "ATen/cuda/CUDAContext.h",
    "c10/cuda/CUDAGuard.h",
)
PAYLOAD = '#error "planted header included"\nstatic int planted = [] { return 1; }();\n'


@pytest.fixture
def csrc(tmp_path) -> Path:
    """A copy of a generated csrc/<variant> directory with every header planted in it."""
    directory = tmp_path / "csrc" / "deepseek_v41"
    shutil.copytree(GENERATED_CSRC, directory)
    for name in PLANTED:
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(PAYLOAD)
    return directory


def _dependencies(command: list[str]) -> set[Path]:
    """The files a -M run says the unit reads."""
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    words = shlex.split(run.stdout.replace("\\\n", " "))
    return {Path(w).resolve() for w in words if not w.endswith(":")}


def _read_from(directory: Path, files: set[Path]) -> set[str]:
    return {p.relative_to(directory).as_posix() for p in files if p.is_relative_to(directory)}


@needs_nvcc
@pytest.mark.parametrize(
    "unit", ["rope_kv_inst_h0.cu", "rope_kv_inst_h128.cu", "kernels/rope_kv_dispatch.cu"]
)
def test_cuda_units_read_only_the_config_header_from_the_generated_directory(csrc, unit):
    flags = rope_kv_loader.include_flags(csrc)
    source = KERNELS_DIR / "rope_kv_dispatch.cu" if unit.startswith("kernels/") else csrc / unit
    command = [NVCC, "-std=c++17", "-M"]
    command += [f"-I{p}" for p in flags.include_paths] + list(flags.cuda_cflags) + [str(source)]
    deps = _dependencies(command)
    expected = {"rope_kv_config.h"} | ({unit} if source.parent == csrc else set())
    assert _read_from(csrc.resolve(), deps) == expected
    # and every dsv41gen source it reads is the installed one
    assert {p.name for p in deps if p.parent == KERNELS_DIR} >= {"rope_kv_common.h"}


@needs_nvcc
def test_device_pass_of_a_unit_does_not_include_a_planted_header(csrc):
    """The planted headers hold an #error: the device pass preprocesses the unit with them
    beside it and does not hit it."""
    flags = rope_kv_loader.include_flags(csrc)
    command = [
        NVCC,
        "-std=c++17",
        "-gencode=arch=compute_90a,code=sm_90a",
        "-E",
        *(f"-I{p}" for p in flags.include_paths),
        *flags.cuda_cflags,
        str(csrc / "rope_kv_inst_h0.cu"),
    ]
    run = subprocess.run(command, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "planted" not in run.stdout


@pytest.mark.skipif(CXX is None, reason="no host C++ compiler")
def test_bindings_read_only_the_config_header_from_the_generated_directory(csrc):
    """rope_kv_bindings.cpp, compiled by the host compiler with the loader's cflags. -MG lists
    a header that is found nowhere (torch's, when torch's include directories are not given)
    instead of failing: a planted one would be found, and listed by its path."""
    flags = rope_kv_loader.include_flags(csrc)
    command = [CXX, "-std=c++17", "-M", "-MG"]
    command += [f"-I{p}" for p in flags.include_paths] + list(flags.cflags)
    command.append(str(KERNELS_DIR / "rope_kv_bindings.cpp"))
    deps = _dependencies(command)
    assert _read_from(csrc.resolve(), deps) == {"rope_kv_config.h"}


def test_the_loader_builds_with_those_flags(monkeypatch, tmp_path):
    """What torch's build is given: dsv41gen's sources alone on the include path, the generated
    directory on no include path, its configuration header pre-included by its path."""
    torch = pytest.importorskip("torch")
    from torch.utils import cpp_extension

    calls = []
    monkeypatch.setattr(torch.cuda, "get_device_capability", lambda: (9, 0))
    monkeypatch.setattr(cpp_extension, "load", lambda **kwargs: calls.append(kwargs))
    monkeypatch.setattr(torch, "ops", type("Ops", (), {"ns": "the ops"}))
    csrc = tmp_path / "csrc" / "v"
    rope_kv_loader.load(extension_name="x", namespace="ns", csrc_dir=csrc, units=("u.cu",))
    [call] = calls
    config = ["-include", str(csrc / "rope_kv_config.h")]
    assert call["extra_include_paths"] == [str(KERNELS_DIR)]
    assert call["extra_cflags"] == ["-O3", *config]
    cuda = call["extra_cuda_cflags"]
    assert [cuda[i : i + 2] for i in range(len(cuda)) if cuda[i] == "-include"] == [config]
    # the generated directory itself is named nowhere else
    assert [f for f in cuda + call["extra_cflags"] if str(csrc) in f] == config[1:] * 2
