"""Compile the templates into the package, so that no build compiles them again.

    python -m dsv41gen.emit.precompile          # after editing a template (or render.py)
    python -m dsv41gen.emit.precompile --check  # exit 1 when the shipped set is stale

Writes ``dsv41gen/emit/precompiled/``: one Python module per template (Jinja's own compiler,
through the render environment, so the TypedOutput rewrite is in the code) and STAMP.json,
the digest of everything they were compiled from. The render stage uses the set only while
that digest still matches (render.environment); a stale set costs the compile, never the
output.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

from .render import PRECOMPILED_DIR, STAMP, source_environment, templates_digest


def compiled() -> dict[str, str]:
    """file name -> text of the precompiled set for the templates as they are now."""
    with tempfile.TemporaryDirectory(prefix="dsv41gen-precompile-") as scratch:
        source_environment().compile_templates(
            scratch, extensions=["j2"], zip=None, ignore_errors=False
        )
        files = {p.name: p.read_text(encoding="utf-8") for p in sorted(Path(scratch).iterdir())}
    stamp = {"digest": templates_digest(), "templates": len(files)}
    files[STAMP] = json.dumps(stamp, indent=2) + "\n"
    return files


def shipped(directory: Path | None = None) -> dict[str, str]:
    """file name -> text of the set in ``directory`` (default: the package's)."""
    directory = directory or PRECOMPILED_DIR
    if not directory.is_dir():
        return {}
    return {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(directory.iterdir())
        if p.is_file() and (p.suffix == ".py" or p.name == STAMP)
    }


def write(directory: Path | None = None) -> int:
    """Replace the set in ``directory`` (default: the package's) whole; the template count."""
    directory = directory or PRECOMPILED_DIR
    files = compiled()
    staging = Path(tempfile.mkdtemp(prefix=".precompiled-", dir=directory.parent))
    for name, text in files.items():
        (staging / name).write_text(text, encoding="utf-8")
    if directory.exists():
        shutil.rmtree(directory)
    staging.rename(directory)
    return len(files) - 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only say whether the set is current")
    args = parser.parse_args(argv)
    if args.check:
        if shipped(PRECOMPILED_DIR) != compiled():
            print(
                f"{PRECOMPILED_DIR}: stale (a template, render.py or plan/values.py changed); "
                "builds compile the templates from source until you run "
                "`python -m dsv41gen.emit.precompile`",
                file=sys.stderr,
            )
            return 1
        print(f"{PRECOMPILED_DIR}: current")
        return 0
    print(f"{PRECOMPILED_DIR}: {write()} templates compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
