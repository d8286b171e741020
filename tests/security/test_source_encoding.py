"""A generated Python file is read as UTF-8, whatever the spec says.

Python honours a ``coding[:=]`` comment on a file's first or second line (PEP 263). Those lines
hold the spec's ``license_header`` and the names of the spec files, both spec-controlled text.
A license line ``coding: utf-7`` made Python decode the file as UTF-7, where the printable text
``+AAo-`` is a newline: a second license line (or any comment or string literal) then turned
into code that ran on ``import deepseek_v4``, while the build, ``ruff`` and ``check`` passed
(they read the file as UTF-8). The oracle is Python itself: ``tokenize.detect_encoding`` and a
real import in a fresh process."""

from __future__ import annotations

import base64
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from securityhelpers import cli, copy_specs, edit

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"


def utf7(text: str) -> str:
    """``text`` as a UTF-7 shifted sequence: printable ASCII that UTF-7 decodes to ``text``."""
    return "+" + base64.b64encode(text.encode("utf-16-be")).decode().rstrip("=") + "-"


def code_line(canary: Path) -> str:
    write = f"__import__('pathlib').Path({str(canary)!r}).write_text('ran')"
    return utf7("\n") + write + utf7("\n") + "#"


def assert_read_as_utf8_and_inert(out: Path, canary: Path) -> None:
    files = sorted((out / "deepseek_v4").rglob("*.py"))
    assert files
    for py in files:
        with py.open("rb") as handle:
            encoding, _ = tokenize.detect_encoding(handle.readline)
        assert encoding == "utf-8", f"{py}: Python reads it as {encoding}"
    run = subprocess.run(
        [sys.executable, "-c", "import deepseek_v4, deepseek_v4.backends, deepseek_v4.registry"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not canary.exists(), "a payload ran on import"
    assert run.returncode == 0, run.stderr[-2000:]


@pytest.mark.parametrize(
    "declaration", ["coding: utf-7", "-*- coding=utf_7 -*-", "vim: set fileencoding=utf-7"]
)
def test_a_license_line_cannot_declare_the_source_encoding(tmp_path, declaration):
    specs = copy_specs(tmp_path / "specs")
    canary = tmp_path / "CANARY"
    lines = [declaration, code_line(canary)]
    edit(specs / V4, "engine: vllm==0.33.0", f"engine: vllm==0.33.0\nlicense_header: {lines!r}")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert result.rc == 0, result.stderr
    assert_read_as_utf8_and_inert(tmp_path / "out", canary)


def test_a_spec_directory_cannot_declare_the_source_encoding(tmp_path):
    """The first header line names the spec files with their directory."""
    specs = copy_specs(tmp_path / "coding:utf-7")
    canary = tmp_path / "CANARY"
    edit(
        specs / V4,
        'note: "Block sizes count uncompressed tokens: C4 indexer pages hold 64 rows."',
        f'note: "{utf7(chr(10) + " " * 8)}{code_line(canary)[len(utf7(chr(10))) :]}"',
    )
    result = cli("build", f"{specs.name}/{V41}", "--out", "out", cwd=tmp_path)
    assert result.rc == 0, result.stderr
    assert_read_as_utf8_and_inert(tmp_path / "out", canary)
