"""Compare the machine code (SASS) of the RoPE + KV kernels between two builds, kernel by kernel.

    python3 scripts/compare_sass.py [--arch sm_90a] [--a-flags "-DX=1 ..."] [--b-flags "..."]
        [--a-kernels DIR] [--b-kernels DIR] [--kernel SUBSTRING] SOURCE.cu [SOURCE.cu ...]

Each SOURCE.cu (e.g. generated/deepseek_v4/csrc/deepseek_v41/rope_kv_inst_h0.cu) is compiled
twice with nvcc -cubin: build A with the kernel sources of --a-kernels (default dsv41gen/kernels)
and --a-flags, build B with --b-kernels (default the same) and --b-flags. cuobjdump (from PATH,
else the one in triton's wheel) disassembles both; each function's instructions are compared
with addresses and encodings stripped. Prints one line per kernel (identical, or the instruction
counts of both) and exits 1 if any kernel differs, or if a kernel is in one build only.

What it proves: two builds whose every kernel is identical run the same instructions, so a
refactor (or a switch setting) that leaves the SASS unchanged cannot change a result or a
timing. It does not cover host code (launchers). The base flags are scripts/nvcc_compile.sh's;
the extension the loader builds (torch's cpp_extension) adds torch's COMMON_NVCC_FLAGS, so to
compare exactly what runs, pass those in both --a-flags and --b-flags too.
"""

from __future__ import annotations

import argparse
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
INSTRUCTION = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(.*?)\s*;")


def find_cuobjdump() -> str | None:
    """cuobjdump from PATH, else the one Triton's wheel ships, else None."""
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import triton
    except ImportError:
        return None
    bundled = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
    return str(bundled) if bundled.is_file() else None


def cuobjdump() -> str:
    found = find_cuobjdump()
    if found is None:
        sys.exit("compare_sass: no cuobjdump on PATH or in triton's wheel (run it with the venv)")
    return found


def functions(sass: str) -> dict[str, list[str]]:
    """Function name -> its instructions, without addresses or encodings."""
    out: dict[str, list[str]] = {}
    for part in re.split(r"\n\s*Function : ", sass)[1:]:
        name, _, body = part.partition("\n")
        out[name.strip()] = INSTRUCTION.findall(body)
    return out


def build(
    source: Path, kernels: Path, flags: list[str], arch: str, work: Path
) -> dict[str, list[str]]:
    cubin = work / f"{source.stem}.cubin"
    command = [
        "nvcc",
        "-std=c++17",
        "-O3",
        f"-gencode=arch=compute_{arch[3:]},code={arch}",
        # the loader's include rule (rope_kv_loader.include_flags): dsv41gen's sources on -I,
        # the generated directory on no include path, its configuration pre-included
        f"-I{kernels}",
        "-include",
        str(source.parent / "rope_kv_config.h"),
        *flags,
        "-cubin",
        "-o",
        str(cubin),
        str(source),
    ]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"compare_sass: nvcc failed for {source}:\n{result.stderr}")
    dump = subprocess.run(
        [cuobjdump(), "-sass", str(cubin)], capture_output=True, text=True, check=True
    )
    return functions(dump.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sources", nargs="+", type=Path)
    parser.add_argument("--arch", default="sm_90a")
    parser.add_argument("--a-flags", default="")
    parser.add_argument("--b-flags", default="")
    parser.add_argument("--a-kernels", type=Path, default=REPO / "dsv41gen" / "kernels")
    parser.add_argument("--b-kernels", type=Path, default=REPO / "dsv41gen" / "kernels")
    parser.add_argument(
        "--kernel", default="", help="only kernels whose mangled name contains this"
    )
    args = parser.parse_args()
    differing = 0
    for source in args.sources:
        with tempfile.TemporaryDirectory() as a_dir, tempfile.TemporaryDirectory() as b_dir:
            a = build(source, args.a_kernels, shlex.split(args.a_flags), args.arch, Path(a_dir))
            b = build(source, args.b_kernels, shlex.split(args.b_flags), args.arch, Path(b_dir))
        for name in sorted(set(a) | set(b)):
            if args.kernel not in name:
                continue
            if name not in a or name not in b:
                print(f"only in {'B' if name not in a else 'A'}: {source.name} {name}")
                differing += 1
            elif a[name] == b[name]:
                print(f"identical ({len(a[name])} instructions): {source.name} {name}")
            else:
                print(
                    f"DIFFERENT (A {len(a[name])}, B {len(b[name])} instructions): {source.name} {name}"
                )
                differing += 1
    print(f"{differing} kernel(s) differ")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
