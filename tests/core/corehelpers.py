"""Helpers shared by the compiler-core tests (a module with a unique name, so it cannot clash
with another directory's conftest)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from repohelpers import FIXTURE_SPECS, REPO, SPECS, copy_specs  # noqa: F401 (re-exported)

V4 = "deepseek_v4.yaml"
V41 = "deepseek_v41.yaml"


# For a test that needs the formatters to run (a fault injected inside ruff, say): the format
# cache would otherwise answer from a previous build and no formatter would start.
NO_FORMAT_CACHE = {"DSV41GEN_CACHE_DIR": "off"}


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


def cli_in_process(args, cwd: Path, env: dict[str, str] | None = None) -> CliResult:
    """What ``cli`` returns, from dsv41gen's own entry point run inside this process: the same
    exit status, stdout and stderr (both plain, as through a pipe), without the interpreter
    start and imports a subprocess pays again for every command. For tests about what a
    command does; the end-to-end tests of the real process (signals, injected faults, the
    console script) use ``cli``. A fault injection asks for a real process: it gets one."""
    import contextlib
    import io

    env = dict(env or {})
    if any(key.startswith("DSV41GEN_FAULT") for key in env):
        return cli(args, cwd, env)
    from dsv41gen.commands import cli as entry

    out, err = io.StringIO(), io.StringIO()
    saved_env, saved_cwd, saved_argv = dict(os.environ), os.getcwd(), sys.argv
    os.environ.pop("DSV41GEN_DEBUG", None)
    os.environ.update(env)
    sys.argv = ["dsv41gen", *[str(a) for a in args]]
    code = 0
    try:
        os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                entry.run()
            except SystemExit as exit_:
                code = (
                    exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 1)
                )
                if isinstance(exit_.code, str):
                    err.write(exit_.code + "\n")
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv
        _restore_signals()
    return CliResult(code, out.getvalue(), err.getvalue())


def _restore_signals() -> None:
    """entry.run() installs its own SIGINT / SIGTERM / SIGHUP handlers; give pytest its own."""
    import signal

    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


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
