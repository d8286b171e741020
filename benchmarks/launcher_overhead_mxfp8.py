"""Python cost of the generated MXFP8 launchers on the CPU, kernel launch stubbed out.

    python benchmarks/launcher_overhead_mxfp8.py [path/to/mxfp8.py]

Without a path the module is rendered from specs/deepseek_v4.yaml. The kernels (in the runtime
source dsv41gen/kernels/mxfp8.py, which the generated module binds) are replaced by a no-op so
what is timed is the launcher's own work: validation, shape arithmetic, allocation.
(Triton's own launch path is not included; on the GPU it also re-checks every module global a
kernel reads, which is why the generated kernels keep their constants local.)
"""

from __future__ import annotations

import importlib.util
import os
import sys
import tempfile
import timeit
from pathlib import Path

os.environ["TRITON_INTERPRET"] = "1"  # CPU tensors pass the launchers' device check

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))


class _NoLaunch:
    def __getitem__(self, grid):
        return lambda *args, **kwargs: None


def _module(path: str | None):
    if path is None:
        from bench_mxfp8 import load_modules

        _, mx, _ = load_modules(Path(tempfile.mkdtemp()))
        return mx
    spec = importlib.util.spec_from_file_location("mxfp8_under_test", path)
    mx = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mx
    spec.loader.exec_module(mx)
    return mx


def main() -> None:
    mx = _module(sys.argv[1] if len(sys.argv) > 1 else None)
    from dsv41gen.kernels import mxfp8 as kernels

    kernels._quantize_kernel = _NoLaunch()
    kernels._dequantize_kernel = _NoLaunch()
    x = torch.randn(128, 7168, dtype=torch.bfloat16)
    _, s = mx.quantize(x)
    _, ss = mx.quantize(x, "swizzled_128x4")
    xq = torch.empty(128, 7168, dtype=torch.float8_e4m3fn)
    cases = {
        "quantize row_major": lambda: mx.quantize(x),
        "quantize swizzled_128x4": lambda: mx.quantize(x, "swizzled_128x4"),
        "dequantize row_major": lambda: mx.dequantize(xq, s),
        "dequantize swizzled_128x4": lambda: mx.dequantize(xq, ss, "swizzled_128x4"),
        "floor: two torch.empty": lambda: (
            torch.empty((128, 7168), dtype=torch.float8_e4m3fn),
            torch.empty((128, 224), dtype=torch.uint8),
        ),
    }
    for name, fn in cases.items():
        best = min(timeit.repeat(fn, number=20000, repeat=7)) / 20000 * 1e6
        print(f"{name:<28} {best:6.2f} us/call")


if __name__ == "__main__":
    main()
