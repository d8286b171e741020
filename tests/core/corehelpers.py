"""Helpers shared by the compiler-core tests (a module with a unique name, so it cannot clash
with another directory's conftest)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
V4 = "deepseek_v4.yaml"
V41 = "deepseek_v41.yaml"


# For a test that needs the formatters to run (a fault injected inside ruff, say): the format
# cache would otherwise answer from a previous build and no formatter would start.
NO_FORMAT_CACHE = {"DSV41GEN_CACHE_DIR": "off"}


# The specs these tests are written about. A fixture copies these, not the whole specs/
# directory, so a variant added beside them (the README's worked example, say) changes no
# expected value here.
FIXTURE_SPECS = ("deepseek_v4.yaml", "deepseek_v41.yaml")


def copy_specs(target: Path) -> Path:
    """target/: a copy of FIXTURE_SPECS."""
    import shutil

    target.mkdir(parents=True, exist_ok=True)
    for name in FIXTURE_SPECS:
        shutil.copy(SPECS / name, target / name)
    return target


@dataclass(frozen=True)
class CliResult:
    rc: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def cli(args, cwd: Path, env: dict[str, str] | None = None, timeout: float = 60) -> CliResult:
    full_env = dict(os.environ)
    full_env.pop("DSV41GEN_DEBUG", None)
    full_env.update(env or {})
    proc = subprocess.run(
        [sys.executable, "-m", "dsv41gen", *[str(a) for a in args]],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def edit(path: Path, old: str | re.Pattern, new: str) -> None:
    """Replace the one occurrence of ``old`` (fails loudly if the real spec moved on). A compiled
    pattern is for values that the spec's authors tune (e.g. `block_k: \\d+`)."""
    text = path.read_text(encoding="utf-8")
    if isinstance(old, re.Pattern):
        text, count = old.subn(new.replace("\\", "\\\\"), text)
        assert count == 1, f"{old.pattern!r} matches {count} times in {path.name}"
        path.write_text(text, encoding="utf-8")
        return
    assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(path: Path, needle: str) -> int:
    """1-based line of the one line that contains ``needle``: found by the test, independently of
    the code under test, so golden messages survive unrelated edits to the real specs."""
    lines = [
        i
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if needle in line
    ]
    assert len(lines) == 1, f"{needle!r} is on lines {lines} of {path.name}"
    return lines[0]


_MARK = re.compile(r"@([^@]+?)(?:\+(\d+))?@")


def expand(expected: str, specs_dir: Path) -> str:
    """Turn ``specs/deepseek_v41.yaml:@needle@:5: ...`` into the line number of the one line
    holding ``needle`` in that (edited) file; ``@needle+2@`` is two lines below it. Columns and
    messages stay literal."""
    out = []
    for line in expected.splitlines():
        match = re.match(r"specs/([^:]+):", line)
        if match:
            path = specs_dir / match[1]
            line = _MARK.sub(lambda m, p=path: str(line_of(p, m[1]) + int(m[2] or 0)), line)
        out.append(line)
    return "\n".join(out)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file below root (relative posix path -> bytes)."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def tree_stats(root: Path) -> dict[str, tuple[int, int]]:
    """relative path -> (st_mtime_ns, st_ino)."""
    return {
        p.relative_to(root).as_posix(): (p.stat().st_mtime_ns, p.stat().st_ino)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
