"""The hash of everything a build reads, stamped into every generated file's header."""

from __future__ import annotations

import os
from pathlib import Path

from .. import __version__
from .write import short_hash

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def discover_specs(paths: list[Path]) -> list[Path]:
    """What a build reads besides ancestors: the named specs plus the other ``*.yaml`` files in
    their directories (resolved, named specs first). The full build and the no-op fast path
    both start from this list, so they agree on a family's members."""
    seen: dict[Path, None] = {contained(p): None for p in paths}
    for directory in sorted({contained(p).parent for p in paths}):
        for sibling in sorted(directory.glob("*.yaml")):
            seen.setdefault(contained(sibling), None)
    return list(seen)


def contained(path: Path) -> Path:
    """The path resolved, unless a symlink takes it out of its directory: then the link itself,
    which the loader refuses with its reason (never read what it points to)."""
    resolved = path.resolve()
    return (
        resolved if resolved.is_relative_to(path.absolute().parent.resolve()) else path.absolute()
    )


def templates_dir() -> Path:
    """The templates directory, in a wheel (dsv41gen/templates) or in the source tree (templates/)."""
    packaged = _PACKAGE_DIR / "templates"
    if packaged.is_dir():
        return packaged
    return _PACKAGE_DIR.parent / "templates"


def _tree_files(root: Path, pattern: str) -> list[Path]:
    return sorted(p for p in root.rglob(pattern) if p.is_file() and "__pycache__" not in p.parts)


def spec_display(path: Path, out_dir: Path) -> str:
    """A spec's name in headers: relative to the output directory's parent, so it is the same
    on every machine and checkout."""
    try:
        return os.path.relpath(path, out_dir.resolve().parent).replace(os.sep, "/")
    except ValueError:  # another drive on Windows
        return path.name


def inputs_hash(spec_paths: list[Path], out_dir: Path) -> str:
    """Specs (by content, under the names the headers give them), templates, the schema and
    the generator version.

    A spec's name is the one every header prints (relative to the output directory's parent):
    moving the spec directory, or the output directory, changes every file, so it must change
    the hash the no-op fast path compares. The generator's own code is represented by its
    version, not hashed: a refactoring that changes no output must not restamp every generated
    file. Output that does change is still caught, since `check` compares whole files."""
    parts: list[bytes] = [__version__.encode()]
    for name, path in sorted((spec_display(p, out_dir), p) for p in spec_paths):
        parts += [name.encode(), path.read_bytes()]
    templates = templates_dir()
    for path in _tree_files(templates, "*.j2"):
        parts += [path.relative_to(templates).as_posix().encode(), path.read_bytes()]
    schema = _PACKAGE_DIR / "schema.json"
    parts += [schema.name.encode(), schema.read_bytes()]
    return short_hash(*parts)


def generator_hash() -> str:
    """The generator's own code. Kept out of the headers and the MANIFEST (a refactoring that
    changes no output must not restamp any file) but kept in this machine's build record, so the
    no-op fast path never vouches for output that a changed generator might render differently."""
    parts: list[bytes] = []
    # The kernel sources too: a generated module stamps their digest (kernels/runtime.py).
    kernels = [p for p in _tree_files(_PACKAGE_DIR / "kernels", "*") if p.suffix != ".py"]
    for path in _tree_files(_PACKAGE_DIR, "*.py") + kernels:
        parts += [path.relative_to(_PACKAGE_DIR).as_posix().encode(), path.read_bytes()]
    return short_hash(*parts)
