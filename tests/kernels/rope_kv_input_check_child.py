"""Child process of test_rope_kv_gpu.test_input_checks: one bad call of the KV-only op.

argv[1] is JSON: {"index": i, "variants": [...], "sources": {variant: dir}, "builds": {variant:
dir or null}}. Loads the listed variants' extensions (already built; loading reuses the build),
runs INPUT_CHECKS[i] and exits 0 when the op raised the expected message and wrote nothing.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path

HERE = os.path.dirname(os.path.abspath(__file__))


def _import(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main() -> int:
    spec = json.loads(sys.argv[1])
    sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))  # the repository root
    from dsv41gen.plan.rope_kv import plan_rope_kv

    sys.path.insert(0, HERE)
    from conftest import import_rendered, rope_kv_kernel_spec

    tests = _import(os.path.join(HERE, "test_rope_kv_gpu.py"), "_rope_kv_gpu_tests")
    ops, refs = {}, {}
    for variant in spec["variants"]:
        plan = plan_rope_kv(rope_kv_kernel_spec(variant), variant)
        src = spec["sources"][variant]
        loader = _import(os.path.join(src, f"{plan.loader_module}.py"), plan.loader_module)
        ops[variant] = loader.load(build_directory=spec["builds"][variant])
        refs[variant] = import_rendered(Path(src), plan.reference_module)
    variant, fmt, change, message = tests.INPUT_CHECKS[spec["index"]]
    tests.input_check_case(ops, refs, variant, fmt, change, message)
    print(f"ok: {variant} {fmt} {change} raised {message!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
