"""A plain scalar that YAML 1.1 (PyYAML, which reads the specs) and YAML 1.2 (what an editor, a
highlighter or a reviewer's tools show) read as different values is an error that says what
each reads and how to quote it (issue 23, finding 13): `on`, `yes`, `0b101` and `1_024` were
read silently as True, True, 5 and 1024 where a YAML 1.2 editor shows strings.

The oracle is the editor's own parser: the `yaml` package that yaml-language-server (the
editor setup of docs/, tests/node) parses with, run on each spelling. Every spelling it reads as
another value than PyYAML is refused by the loader, at its line and column; every spelling both
read alike loads.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dsv41gen.errors import Diagnostics
from dsv41gen.spec.load import load_document

# the consumer tests' installer of tests/node (npm ci from the lock file; skips without node)
sys.path.append(str(Path(__file__).resolve().parents[1] / "consumer"))
from consumerhelpers import node_modules  # noqa: E402

SPELLINGS = (
    # YAML 1.1 booleans
    *("y", "Y", "n", "N", "yes", "Yes", "YES", "no", "No", "NO"),
    *("on", "On", "ON", "off", "Off", "OFF", "true", "True", "TRUE", "false", "False", "FALSE"),
    # numbers of one version only
    *("0b101", "-0b1", "0b1_0", "1_024", "+1_000", "1_0.5", "0x_1F", "0x1F", "0o17", "0o8"),
    *("0400", "010", "0_7", "08", "09.5", "7:28", "1:30.5", "190:20:30"),
    *("1e3", "1E+3", "1.0e3", "1.0e+3", "-2.5E-1", ".5", "5.", "+.inf", ".Inf", ".NaN", "-.INF"),
    # both versions agree
    *("12", "-7", "+12", "0", "1.5", "~", "null", "Null", "abc", "deepseek_v4", "v4.1", "1.2.3"),
)


def _editor_values(spellings: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """What the editor's YAML 1.2 parser reads for `a: <spelling>`: (JS type, String(value))."""
    parser = node_modules() / "yaml"
    script = (
        f"const Y = require({json.dumps(str(parser))});"
        "const out = {};"
        "for (const s of JSON.parse(process.argv[1])) {"
        "  const v = Y.parse('a: ' + s).a;"
        "  out[s] = [v === null ? 'null' : typeof v, String(v)];"
        "}"
        "console.log(JSON.stringify(out));"
    )
    run = subprocess.run(
        ["node", "-e", script, json.dumps(list(spellings))],
        capture_output=True,
        text=True,
        check=True,
    )
    return {k: tuple(v) for k, v in json.loads(run.stdout).items()}


def _same(pyyaml_value: object, editor: tuple[str, str]) -> bool:
    kind, text = editor
    if isinstance(pyyaml_value, bool):
        return kind == "boolean" and text == str(pyyaml_value).lower()
    if isinstance(pyyaml_value, (int, float)):
        if kind != "number":
            return False
        mine, theirs = float(pyyaml_value), float(text)
        return (math.isnan(mine) and math.isnan(theirs)) or mine == theirs
    if pyyaml_value is None:
        return kind == "null"
    return kind == "string" and text == pyyaml_value


@pytest.fixture(scope="module")
def editor():
    return _editor_values(SPELLINGS)


def _load(tmp_path: Path, text: str) -> Diagnostics:
    spec = tmp_path / "x.yaml"
    spec.write_text(text)
    diagnostics = Diagnostics()
    load_document(spec, diagnostics)
    return diagnostics


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_loader_refuses_exactly_what_the_two_versions_read_differently(tmp_path, editor, spelling):
    read = yaml.safe_load(f"a: {spelling}")["a"]
    differs = not _same(read, editor[spelling])
    errors = _load(tmp_path, f"top:\n  a: {spelling}\n").items
    if not differs:
        assert errors == [], (spelling, read, editor[spelling])
        return
    [error] = errors
    assert (error.location.line, error.location.column, error.path) == (2, 6, "top.a")
    assert error.message.startswith(
        (f"YAML 1.1 reads {spelling!r} as the ", f"YAML 1.2 reads {spelling!r} as the ")
    ), error.message
    assert "quote it if it is text" in error.message, error.message


def test_every_spelling_of_the_issue_is_one_the_versions_disagree_on(editor):
    """The test above cannot pass vacuously: the issue's spellings are ones the editor reads
    as strings, and PyYAML does not."""
    for spelling in ("0b101", "1_024", "on", "off", "yes", "no"):
        assert editor[spelling] == ("string", spelling)
        assert not isinstance(yaml.safe_load(f"a: {spelling}")["a"], str)


@pytest.mark.parametrize("spelling", ["'on'", '"yes"', "'0b101'", '"1_024"', "'1e3'"])
def test_a_quoted_spelling_is_the_string(tmp_path, spelling):
    assert _load(tmp_path, f"top:\n  a: {spelling}\n").items == []


def test_a_number_key_only_yaml_1_1_reads_is_refused_too(tmp_path):
    """{1_024: x} became the key '1024' (number keys are read as their decimal text)."""
    [error] = _load(tmp_path, "top: {1_024: x}\n").items
    assert (error.location.line, error.location.column) == (1, 7)
    assert "'1_024' as the number 1024" in error.message
