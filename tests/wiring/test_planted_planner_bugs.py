"""The generated tests catch a bug in the planner, not only a slip in generated code: their
expected values come from the typed model by a path of their own (plan/tests.py), so a planner
that decides wrongly emits validators its own generated tests reject.

Each case plants one bug in a planner function, builds the real specs (and the README's worked
example) with it, and runs the
generated test module that must catch it; the unpatched build passes the same module.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from test_worked_example import worked_example
from wiringhelpers import GENERATED_PYTEST, copy_specs


def _swap_sm90_and_sm100(original):
    """plan.backends: the block sizes of two capability families trade places."""

    def planted(sizes, source):
        plan = original(sizes, source)
        swap = {90: 100, 100: 90}
        by_family = tuple((swap.get(family, family), values) for family, values in plan.by_family)
        return type(plan)(by_family, plan.default, plan.note, plan.source)

    return planted


def _always_for_when_unsplit(original):
    """plan.kv_cache: `always` and `when_unsplit` state-like types trade places."""
    from dsv41gen.spec.model import StateLike

    swap = {StateLike.ALWAYS: StateLike.WHEN_UNSPLIT, StateLike.WHEN_UNSPLIT: StateLike.ALWAYS}

    def planted(types, state):
        return original(types, swap.get(state, state))

    return planted


def _judge_every_family_method(original):
    """plan.speculative: every variant judges only the methods it wires (a dropped one passes)."""

    def planted(family, variant):
        return tuple(m.method for m in variant.methods)

    return planted


def _forbid_without_adaptive_verification(original):
    """plan.runner: a combination forbidden only with adaptive verification is forbidden
    without it too."""
    import dataclasses

    def planted(mode, message, source):
        return dataclasses.replace(original(mode, message, source), adaptive_verification=False)

    return planted


BUGS = [
    ("dsv41gen.plan.backends", "_block_sizes", _swap_sm90_and_sm100, "test_backends.py"),
    ("dsv41gen.plan.kv_cache", "_state_like", _always_for_when_unsplit, "test_kv_cache.py"),
    (
        "dsv41gen.plan.runner",
        "_forbidden_plan",
        _forbid_without_adaptive_verification,
        "test_runner.py",
    ),
    (
        "dsv41gen.plan.speculative",
        "judged_methods",
        _judge_every_family_method,
        "test_speculative.py",
    ),
]


def _build(tmp_path: Path) -> Path:
    from dsv41gen.commands.pipeline import build_texts
    from dsv41gen.emit.write import write_package

    specs = copy_specs(tmp_path / "specs")
    # With the README's V4.2, which drops a method its parent wires.
    (specs / "deepseek_v42.yaml").write_text(worked_example(), encoding="utf-8")
    out = tmp_path / "out"
    for result in build_texts((specs / "deepseek_v41.yaml",), out):
        write_package(out, result.package, result.files)
    return out


def _run(out: Path, test_file: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            *GENERATED_PYTEST,
        ]
        + [f"deepseek_v4/tests/{test_file}"],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.mark.parametrize(
    ("module", "function", "plant", "test_file"), BUGS, ids=[b[1] for b in BUGS]
)
def test_planted_planner_bug_fails_the_generated_tests(
    monkeypatch, tmp_path, module, function, plant, test_file
):
    import importlib

    target = importlib.import_module(module)
    monkeypatch.setattr(target, function, plant(getattr(target, function)))
    result = _run(_build(tmp_path / "bug"), test_file)
    assert result.returncode == 1, result.stdout[-2000:]
    assert " failed" in result.stdout


@pytest.mark.parametrize("test_file", sorted({b[3] for b in BUGS}))
def test_the_same_tests_pass_without_the_bug(tmp_path, test_file):
    result = _run(_build(tmp_path), test_file)
    assert result.returncode == 0, result.stdout[-2000:]
