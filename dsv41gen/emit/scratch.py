"""Scratch directories that no exit leaves behind for long.

A scratch directory (the format stage's copies of the generated sources, `diff --against`'s
checkout of a ref) is removed on every exit that runs code: normally, on an exception, and on
SIGINT / SIGTERM / SIGHUP through the CLI's handlers. Nothing runs after SIGKILL, so each one is
also flock'ed while in use, and every new one first removes this user's unlocked ones: what a
SIGKILLed run left.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ORPHAN_AGE_S = 60.0  # older than any run's window between mkdtemp and its flock


@contextmanager
def scratch_directory(purpose: str) -> Iterator[Path]:
    """A fresh directory ``$TMPDIR/dsv41gen-<purpose>-*`` for the duration of the block."""
    prefix = f"dsv41gen-{purpose}-"
    _remove_orphans(prefix)
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp:
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # uncontended: nobody else knows the name yet
            yield Path(tmp)
        finally:
            os.close(fd)


def _remove_orphans(prefix: str) -> None:
    """Remove this user's directories with prefix that no live process holds; a fresh unlocked
    one may be a run between its mkdtemp and its flock, so only old ones go."""
    for path in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
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
            pass  # in use: a live run holds it
        finally:
            os.close(fd)
