"""Settings for the whole suite."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def pytest_configure(config) -> None:
    # One dsv41gen cache (formatted text, compiled templates) for every build the suite runs,
    # in-process or in a subprocess, on every xdist worker: each distinct text is formatted
    # once per suite instead of once per build. A private directory (0700: the template cache
    # holds code), not the user's ~/.cache. DSV41GEN_CACHE_DIR set by the caller wins
    # ("off" turns caching off, for a run that must exercise the formatters every time).
    if "DSV41GEN_CACHE_DIR" not in os.environ:
        cache = Path(tempfile.gettempdir()) / f"dsv41gen-test-cache-{os.getuid()}"
        cache.mkdir(mode=0o700, exist_ok=True)
        if cache.stat().st_uid != os.getuid() or cache.stat().st_mode & 0o077:
            cache = Path(tempfile.mkdtemp(prefix="dsv41gen-test-cache-"))  # not ours: a fresh one
        os.environ["DSV41GEN_CACHE_DIR"] = str(cache)
