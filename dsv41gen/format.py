"""Format stage: generated Python goes through `ruff format`, so it reads like checked-in code.

Templates lay out structure; line wrapping and quoting are ruff's. All Python files of a build
are formatted by one ruff process. C++ and CUDA templates are written pre-formatted (there is
no clang-format on these machines).
"""

from __future__ import annotations

import ctypes
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .faults import checkpoint

# Same settings as the repository's pyproject.toml, stated here so a build never depends on the
# configuration of the directory it runs in.
RUFF_ARGS = ["--line-length", "100", "--target-version", "py310", "--no-cache", "--isolated"]


class FormatError(Exception):
    pass


def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


_PR_SET_PDEATHSIG = 1


def _die_with_parent_hook():
    """A preexec_fn that makes the child get SIGKILL when this process dies, however it dies
    (Linux prctl PR_SET_PDEATHSIG); None elsewhere. prctl is looked up here, before fork."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return hook


def run_tool(args: list[str], step: str) -> tuple[int, str, str]:
    """Run a child to completion: (exit status, stdout, stderr). It dies with this process: on
    an exception here (SIGINT, SIGTERM) it is killed and reaped; on SIGKILL the kernel kills it."""
    with subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_parent_hook(),  # dsv41gen is single-threaded: fork-safe
    ) as process:
        try:
            checkpoint(step)
            stdout, stderr = process.communicate()
        except BaseException:
            process.kill()
            raise
    return process.returncode, stdout, stderr


_SCRATCH_PREFIX = "dsv41gen-format-"
ORPHAN_AGE_S = 60.0  # older than any format run's window between mkdtemp and its flock


@contextmanager
def _scratch_directory() -> Iterator[Path]:
    """A temporary directory for one format run, removed on every exit that runs code (normal,
    exception, SIGINT / SIGTERM / SIGHUP via the CLI's handlers). It is flock'ed while in use:
    one left by a SIGKILLed build is unlocked, and the next format run removes it."""
    _remove_orphans()
    with tempfile.TemporaryDirectory(prefix=_SCRATCH_PREFIX) as tmp:
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # uncontended: nobody else knows the name yet
            yield Path(tmp)
        finally:
            os.close(fd)


def _remove_orphans() -> None:
    """Remove this user's scratch directories that no live process holds (see above); a fresh
    unlocked one may be a run between its mkdtemp and its flock, so only old ones go."""
    for path in Path(tempfile.gettempdir()).glob(f"{_SCRATCH_PREFIX}*"):
        try:
            info = path.lstat()
            if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
                continue
            if time.time() - info.st_mtime < ORPHAN_AGE_S:
                continue
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            pass  # in use: a live build holds it
        finally:
            os.close(fd)


def format_python(sources: dict[str, str]) -> dict[str, str]:
    """Return sources with every ``*.py`` entry formatted; other entries unchanged."""
    python = {k: v for k, v in sources.items() if k.endswith(".py")}
    if not python:
        return dict(sources)
    with _scratch_directory() as root:
        names = {}
        for i, (key, text) in enumerate(sorted(python.items())):
            path = root / f"f{i}.py"
            path.write_text(text, encoding="utf-8")
            names[key] = path
        # Import order is ruff's too (rule I), so templates need not sort what the planner emits.
        for command in (["check", "--select", "I", "--fix", "--exit-zero"], ["format"]):
            returncode, stdout, stderr = run_tool(
                [_ruff(), *command, *RUFF_ARGS, str(root)], step=f"format:ruff-{command[0]}"
            )
            if returncode != 0:
                report = stderr.strip() or stdout.strip()
                for key, path in names.items():  # name the generated file, not the temp copy
                    report = report.replace(str(path), key)
                raise FormatError(
                    f"ruff could not format the generated Python (a template bug):\n{report}"
                )
        formatted = dict(sources)
        for key, path in names.items():
            formatted[key] = path.read_text(encoding="utf-8")
        return formatted
