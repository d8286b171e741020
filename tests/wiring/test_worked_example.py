"""The worked example (docs/variant.md), as the page gives it: put beside the real specs, it builds,
`check` agrees, the family's generated tests pass (for V4, V4.1 and V4.2), and it does what the
page says. The example is read from the page itself, so the two cannot drift apart.

With the example in specs/ the rest of the suite also passes: every fixture copies the specs it
is written about (``copy_specs``), never the whole directory."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys

import pytest
from wiringhelpers import GENERATED_PYTEST, REPO, SPECS, run_cli


def worked_example() -> str:
    page = (REPO / "docs" / "variant.md").read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(.*?)```", page, re.S)
    assert match, "docs/variant.md's worked example has no yaml block"
    return match[1]


@pytest.fixture(scope="module")
def example_build(tmp_path_factory):
    root = tmp_path_factory.mktemp("worked_example")
    # The worked example joins DeepSeek's family; `check --out out` then checks that one package.
    shutil.copytree(SPECS, root / "specs", ignore=shutil.ignore_patterns("qwen*"))
    (root / "specs" / "deepseek_v42.yaml").write_text(worked_example(), encoding="utf-8")
    result = run_cli("build", "specs/deepseek_v42.yaml", "--out", "out", cwd=root)
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def test_check_agrees_with_the_build(example_build):
    result = run_cli("check", "--out", "out", cwd=example_build)
    assert result.returncode == 0, result.stdout + result.stderr


def test_generated_tests_pass_for_every_variant(example_build):
    tests = example_build / "out" / "deepseek_v4" / "tests"
    assert "deepseek_v42" in (tests / "test_speculative.py").read_text(encoding="utf-8")
    result = subprocess.run(
        [
            *GENERATED_PYTEST,
            str(tests),
        ],
        cwd=example_build / "out",
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-3000:]


def test_it_does_what_the_readme_says(example_build):
    script = """
import sys
sys.path.insert(0, "out")
from deepseek_v4 import backends, speculative
try:
    speculative.validate_method("deepseek_v42", "dspark")
except ValueError as error:
    print("dspark:", error)
speculative.validate_method("deepseek_v41", "dspark")
cls = backends.DeepseekV42IndexerBackend
print("parent:", cls.__mro__[1].__name__)
print("overrides:", sorted(k for k in vars(cls) if not k.startswith("_")))
"""
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=example_build, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("dspark: DeepSeek V4.2 does not support speculative method 'dspark'")
    assert lines[1] == "parent: DeepseekV41IndexerBackend"
    assert lines[2] == "overrides: ['get_name', 'get_supported_kernel_block_sizes']"
    runner = (example_build / "out" / "deepseek_v4" / "runner.py").read_text(encoding="utf-8")
    assert "DeepSeek V4.2 needs Model Runner V2 for FULL CUDA graphs." in runner
