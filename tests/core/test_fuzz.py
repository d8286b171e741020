"""Fuzzing the front end: random YAML documents and mutations of the real specs must give either
a successful build or located spec errors (exit 1) -- never an uncaught exception, never a
partial write.

The campaign (fuzz_campaign.py) judges every outcome in full: built output compiles, passes
`ruff check` and imports; a rejected build leaves the previous tree untouched. Its quick profile
runs here by default; the long one (CI: `DSV41GEN_FUZZ_CASES=10000 DSV41GEN_FUZZ_WORKERS=2`)
through the same test. `DSV41GEN_FUZZ_RECORD=path.json` writes the figures.

Runs in-process through click's CliRunner (an exception escaping the command is kept in
``result.exception`` rather than turned into an exit code), with a bounded number of examples
and a fixed seed so CI is reproducible.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from corehelpers import SPECS, V4, V41
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dsv41gen.commands.cli import main

FUZZ = settings(
    max_examples=int(os.environ.get("DSV41GEN_FUZZ_EXAMPLES", "40")),
    deadline=None,
    derandomize="DSV41GEN_FUZZ_EXAMPLES" not in os.environ,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

_LOCATED = re.compile(r"^(?P<file>[^\n:]+\.yaml):(?P<line>\d+):(?P<col>\d+): \S")

# Keys a spec really uses, so random trees hit the schema and the rules, not only "unknown field".
_REAL_KEYS = sorted(
    {
        k
        for name in (V4, V41)
        for k in re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*):", (SPECS / name).read_text(), re.M)
    }
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["sm95", "mtp", "dspark", "!delete", "../x.yaml", "X\n", "0x10", "1e9", "~"]),
)
keys = st.one_of(st.sampled_from(_REAL_KEYS), st.text(min_size=1, max_size=8))
trees = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=5)
    ),
    max_leaves=25,
)


def _run_build(spec_dir: Path, spec_name: str) -> None:
    out = spec_dir.parent / "out"
    result = CliRunner().invoke(main, ["build", str(spec_dir / spec_name), "--out", str(out)])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # an uncaught exception: a bug, shown with its traceback
    assert result.exit_code in (0, 1), (result.exit_code, result.output)
    stderr = result.stderr
    assert "Traceback" not in result.output
    if result.exit_code == 0:
        assert (out / "deepseek_v4").is_dir() or any(out.iterdir())
        return
    assert not out.exists(), "a failed build wrote files"
    lines = stderr.splitlines()
    assert lines and re.fullmatch(r"\d+ errors?; nothing was written\.", lines[-1]), stderr
    for line in lines[:-1]:
        match = _LOCATED.match(line)
        assert match, f"unlocated message: {line!r}"
        assert int(match["line"]) >= 1 and int(match["col"]) >= 1, line
        path = Path(match["file"])
        if not path.is_absolute():
            path = Path.cwd() / path
        n_lines = path.read_text(encoding="utf-8", errors="replace").count("\n") + 1
        assert int(match["line"]) <= n_lines + 1, line


def _workdir() -> tuple[tempfile.TemporaryDirectory, Path]:
    holder = tempfile.TemporaryDirectory(prefix="dsv41gen-fuzz-")
    spec_dir = Path(holder.name) / "specs"
    shutil.copytree(SPECS, spec_dir)
    return holder, spec_dir


@FUZZ
@given(document=st.dictionaries(keys, trees, max_size=8))
def test_random_standalone_documents(document):
    holder, spec_dir = _workdir()
    with holder:
        (spec_dir / "random.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
        _run_build(spec_dir, "random.yaml")


@FUZZ
@given(overrides=st.dictionaries(st.sampled_from(_REAL_KEYS), trees, max_size=4))
def test_random_child_overrides(overrides):
    """A child of the real V4 spec that overrides random real sections with random trees."""
    holder, spec_dir = _workdir()
    with holder:
        child = {"spec_version": 1, "extends": V4, **overrides}
        child.setdefault("variant", {"name": "fuzz", "display_name": "Fuzz", "model_type": "fuzz"})
        (spec_dir / "fuzz.yaml").write_text(yaml.safe_dump(child, allow_unicode=True))
        _run_build(spec_dir, "fuzz.yaml")


_MUTATION = st.tuples(
    st.sampled_from(["delete_line", "swap_chars", "indent", "dedent", "replace_value", "dup_line"]),
    st.floats(min_value=0, max_value=1, exclude_max=True),
    st.one_of(
        scalars.map(lambda v: yaml.safe_dump(v, default_flow_style=True).strip().split("\n")[0]),
        st.sampled_from(
            ["[", "{", "*a", "&a", "!delete", "!!python/name:os.system", "'", '"', "|"]
        ),
        st.text(max_size=6),
    ),
)


def _mutate(text: str, mutation) -> str:
    kind, where, value = mutation
    lines = text.split("\n")
    i = int(where * len(lines))
    if kind == "delete_line":
        del lines[i]
    elif kind == "dup_line":
        lines.insert(i, lines[i])
    elif kind == "indent":
        lines[i] = "  " + lines[i]
    elif kind == "dedent":
        lines[i] = lines[i][min(2, len(lines[i]) - len(lines[i].lstrip(" "))) :]
    elif kind == "replace_value":
        key, sep, _ = lines[i].partition(": ")
        lines[i] = key + (sep or ": ") + value
    else:  # swap two adjacent characters somewhere in the file
        j = int(where * max(len(text) - 1, 1))
        return text[:j] + text[j + 1 : j + 2] + text[j : j + 1] + text[j + 2 :]
    return "\n".join(lines)


@FUZZ
@given(
    target=st.sampled_from([V4, V41]),
    mutations=st.lists(_MUTATION, min_size=1, max_size=3),
)
def test_mutated_real_specs(target, mutations):
    holder, spec_dir = _workdir()
    with holder:
        path = spec_dir / target
        text = path.read_text(encoding="utf-8")
        for mutation in mutations:
            text = _mutate(text, mutation)
        path.write_text(text, encoding="utf-8")
        _run_build(spec_dir, V41)


class _OneTextMutationOf:
    """A random source whose mutate() applies exactly one text mutation, to ``spec``."""

    def __init__(self, spec: str):
        import random

        self.spec, self.rng, self.first = spec, random.Random(7), True

    def choice(self, seq):
        if seq == [1, 1, 2, 3]:
            return 1  # one mutation
        return self.spec if self.spec in seq else self.rng.choice(seq)

    def random(self):
        if self.first:  # the one mutation is a text mutation
            self.first = False
            return 0.9
        return self.rng.random()

    def randrange(self, *args):
        return self.rng.randrange(*args)


@pytest.mark.parametrize("mutated, untouched", [(V4, V41), (V41, V4)])
def test_mutate_keeps_the_real_text_of_a_spec_it_did_not_touch(mutated, untouched):
    """The campaign builds the real specs' layout and comments wherever no structural mutation
    touched a spec, not a re-dump of its parsed data. V4.1's `!delete` markers once compared
    unequal after the deep copy, so its real text was never kept."""
    from fuzz_campaign import mutate

    texts = {name: (SPECS / name).read_text(encoding="utf-8") for name in (V4, V41)}
    out, applied = mutate(texts, _OneTextMutationOf(mutated))
    assert len(applied) == 1 and applied[0].startswith("syntax_"), applied
    assert out[untouched] == texts[untouched]
    assert out[mutated] != texts[mutated]


QUICK_CASES = 150


def test_fuzz_campaign():
    """Every case is built or rejected cleanly: no internal error, no unlocated message, no
    partial tree, no built output that fails to compile, lint or import."""
    import json

    from fuzz_campaign import run_campaign

    cases = int(os.environ.get("DSV41GEN_FUZZ_CASES", QUICK_CASES))
    workers = int(os.environ.get("DSV41GEN_FUZZ_WORKERS", "1"))
    campaign = run_campaign(cases, workers=workers)
    record = os.environ.get("DSV41GEN_FUZZ_RECORD")
    if record:
        Path(record).write_text(json.dumps(campaign.as_json(20261201, workers), indent=2) + "\n")
    assert sum(campaign.verdicts[v] for v in ("built", "rejected")) == cases
    assert campaign.verdicts["built"] > 0 and campaign.verdicts["rejected"] > 0
    assert campaign.import_checked_packages == campaign.distinct_outputs > 0
    assert not campaign.bugs, "\n".join(
        f"case {b.index} {b.verdict} {b.mutations}: {b.detail}" for b in campaign.bugs[:20]
    )


def _drop_block(text: str, start: str) -> str:
    """text without the block that starts at the line ``start`` (up to the next blank line)."""
    i = text.index(start)
    return text[:i] + text[text.index("\n\n", i) + 1 :]


# Edits of the real V4 spec that the campaign found building code that did not import or lint.
CAMPAIGN_FINDINGS = {
    "no_mtp_draft_architecture": lambda t: t.replace(
        "      draft_architecture: DeepSeekV4MTPModel\n", ""
    ),
    "no_warn_above": lambda t: t.replace(
        "        warn_above: 1 # [ref §0] logged for every MTP draft type, before the divisibility check\n",
        "",
    ),
    "no_forbidden_runner_modes": lambda t: _drop_block(t, "  forbidden_modes:\n"),
}


@pytest.mark.parametrize("finding", sorted(CAMPAIGN_FINDINGS))
def test_campaign_findings_build_lint_and_import(tmp_path, finding):
    import subprocess
    import sys

    spec_dir = tmp_path / "specs"
    shutil.copytree(SPECS, spec_dir)
    text = (spec_dir / V4).read_text(encoding="utf-8")
    edited = CAMPAIGN_FINDINGS[finding](text)
    assert edited != text
    (spec_dir / V4).write_text(edited, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", str(spec_dir / V41), "--out", str(out)])
    assert result.exit_code == 0, result.output
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F,E9", str(out)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout
    imported = subprocess.run(
        [
            sys.executable,
            "-c",
            "import deepseek_v4.speculative, deepseek_v4.runner, deepseek_v4.tests.test_runner,"
            " deepseek_v4.tests.test_speculative",
        ],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert imported.returncode == 0, imported.stderr
