"""The README's spec example and the generated diff it shows: the YAML, put beside the real
specs, builds and passes `check`, and every line of the README's diff excerpt is a line of the
diff `dsv41gen diff` prints for it, in the README's order. Both are read from the README, so
the page cannot show output the generator does not produce."""

from __future__ import annotations

import re
import shutil

from wiringhelpers import REPO, SPECS, run_cli


def _block(kind: str) -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    match = re.search(rf"```{kind}\n(.*?)```", readme, re.S)
    assert match, f"the README has no {kind} block"
    return match[1]


def test_the_readme_example_builds_and_its_diff_is_the_generators(tmp_path):
    example = _block("yaml")
    assert len(example.splitlines()) <= 25, "the README's example is meant to be short"
    specs = tmp_path / "specs"
    specs.mkdir()
    for name in ("deepseek_v4.yaml", "deepseek_v41.yaml"):
        shutil.copy(SPECS / name, specs / name)
    assert run_cli("build", "--out", "generated", cwd=tmp_path).returncode == 0
    (specs / "deepseek_v42.yaml").write_text(example, encoding="utf-8")
    diff = run_cli("diff", "specs/deepseek_v42.yaml", cwd=tmp_path)
    assert diff.returncode == 0, diff.stderr
    actual = diff.stdout.splitlines()
    position = 0
    for line in _block("diff").splitlines():
        assert line in actual[position:], (
            f"not in the generated diff (after line {position}): {line}"
        )
        position = actual.index(line, position) + 1
    build = run_cli("build", "specs/deepseek_v42.yaml", "--out", "generated", cwd=tmp_path)
    assert build.returncode == 0, build.stderr
    check = run_cli("check", "--out", "generated", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
