"""Format stage: generated Python goes through `ruff format`, so it reads like checked-in code.

Templates lay out structure; line wrapping and quoting are ruff's. All Python files of a build
are formatted by one ruff process. C++ and CUDA templates are written pre-formatted (there is
no clang-format on these machines).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

# Same settings as the repository's pyproject.toml, stated here so a build never depends on the
# configuration of the directory it runs in.
RUFF_ARGS = ["--line-length", "100", "--target-version", "py310", "--no-cache", "--isolated"]


class FormatError(Exception):
    pass


def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


def format_python(sources: dict[str, str]) -> dict[str, str]:
    """Return sources with every ``*.py`` entry formatted; other entries unchanged."""
    python = {k: v for k, v in sources.items() if k.endswith(".py")}
    if not python:
        return dict(sources)
    with tempfile.TemporaryDirectory(prefix="dsv41gen-format-") as tmp:
        root = Path(tmp)
        names = {}
        for i, (key, text) in enumerate(sorted(python.items())):
            path = root / f"f{i}.py"
            path.write_text(text, encoding="utf-8")
            names[key] = path
        # Import order is ruff's too (rule I), so templates need not sort what the planner emits.
        for command in (["check", "--select", "I", "--fix", "--exit-zero"], ["format"]):
            result = subprocess.run(
                [_ruff(), *command, *RUFF_ARGS, str(root)],
                capture_output=True,
                text=True,
                check=False,
            )
            if result.returncode != 0:
                report = result.stderr.strip() or result.stdout.strip()
                for key, path in names.items():  # name the generated file, not the temp copy
                    report = report.replace(str(path), key)
                raise FormatError(
                    f"ruff could not format the generated Python (a template bug):\n{report}"
                )
        formatted = dict(sources)
        for key, path in names.items():
            formatted[key] = path.read_text(encoding="utf-8")
        return formatted
