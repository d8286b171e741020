"""The suite stays green with a valid variant added to specs/ (issue 26 item 9): in a copy of
the repository's tracked files, the README's worked example becomes specs/deepseek_v42.yaml,
`dsv41gen build` regenerates generated/, and the test files that once broke on an extra spec
run there (re-importing the family, copying the whole of specs/, naming every spec)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from wiringhelpers import REPO

pytestmark = pytest.mark.slow

# each broke with a fourth spec in specs/ (issue 26 item 9)
AFFECTED = (
    "tests/wiring/test_reference_facts.py",
    "tests/security/test_names.py",
    "tests/core/test_cli_terminal.py",
)


def test_the_affected_tests_pass_with_the_readme_example_in_specs(tmp_path):
    files = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True, text=True
    ).stdout.split("\0")
    copy = tmp_path / "repo"
    for name in filter(None, files):
        if (REPO / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            (copy / name).write_bytes((REPO / name).read_bytes())
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", readme, re.S)[1]
    (copy / "specs" / "deepseek_v42.yaml").write_text(example, encoding="utf-8")
    built = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "build"], cwd=copy, capture_output=True, text=True
    )
    assert built.returncode == 0, built.stdout + built.stderr
    assert len(list((copy / "specs").glob("deepseek_*.yaml"))) == 3
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:randomly", "-p", "no:cacheprovider", "-q"]
        + ["-o", "addopts=", *AFFECTED],
        cwd=copy,
        capture_output=True,
        text=True,
        env=env,
    )
    assert ran.returncode == 0, ran.stdout[-4000:] + ran.stderr[-2000:]
    assert " passed" in ran.stdout and " skipped" not in ran.stdout, ran.stdout[-2000:]
