"""The no-op rebuild: when nothing a build reads has changed, say so without rebuilding.

Output is a pure function of the inputs (specs, templates, schema, generator, formatter
settings). After every build that leaves a package as the specs produce it, this machine
records, outside the tree, what it built: the inputs hash, the generator and formatter
fingerprints and the sha256 of every file (``<cache>/builds/<out dir hash>.json``). When the
inputs still hash to that record and the package holds exactly the recorded files with the
recorded bytes, an interactive `build` is done: no validation, planning, rendering or
formatting, and none of their imports (jsonschema, jinja2, ruff).

Nothing in the tree is trusted for this: not the MANIFEST (a pull request can rewrite it, with
every hash in it), not the headers. A tree nobody built here is built in full. And the fast
path only ever serves `build` on a developer's machine: `check`, and `build` in CI or with
``--output-format github``, always regenerate in full and compare every byte.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path

# The MANIFEST's name is one of the names the output owns; its readers import it from here.
from ..spec.output_names import MANIFEST as MANIFEST

CACHE_DIR = "DSV41GEN_CACHE_DIR"  # the cache directory (format.cache_root), `off` for none
_RECORD_VERSION = 1
_MAX_RECORDS = 256  # records beyond this are pruned, oldest first, when one is written
_MAX_RECORD_BYTES = 1 << 20


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def manifest_body(files: dict[str, str], package: str) -> str:
    """One line per generated file: '<hash>  <path in the package>'. Only the content: no
    formatter release or generator hash, which differ between machines whose output is
    byte-identical (a check there must pass); the build record keeps those."""
    prefix = package + "/"
    return "".join(
        f"{file_digest(text.encode())}  {rel[len(prefix) :]}\n"
        for rel, text in sorted(files.items())
    )


def in_ci() -> bool:
    """The CI convention (GitHub Actions, GitLab, Buildkite... set CI=true)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def _record_path(out_dir: Path) -> Path | None:
    """Where out_dir's record lives (format.cache_root: the one cache directory, which
    ``DSV41GEN_CACHE_DIR=off`` turns off); None when caching is off."""
    from .format import cache_root

    root = cache_root("builds")
    key = hashlib.sha256(os.fsencode(out_dir.resolve())).hexdigest()[:32]
    return None if root is None else root / f"{key}.json"


def _read_record(out_dir: Path) -> dict:
    from ..spec.load import SpecReadError, read_regular_bytes

    path = _record_path(out_dir)
    if path is None:
        return {}
    try:
        raw = read_regular_bytes(path, _MAX_RECORD_BYTES, follow=False)
        record = json.loads(raw) if raw is not None else None
    except (OSError, SpecReadError, ValueError):
        return {}
    if not isinstance(record, dict) or record.get("version") != _RECORD_VERSION:
        return {}
    if record.get("out_dir") != str(out_dir.resolve()):
        return {}
    packages = record.get("packages")
    return packages if isinstance(packages, dict) else {}


def record_build(out_dir: Path, package: str, members: list[Path], files: dict[str, str]) -> None:
    """Remember that out_dir/package is exactly ``files``, built from ``members`` here. Called
    only after a full build that wrote (or found) exactly that tree. A cache that cannot be
    written costs only the fast path."""
    from .format import FormatSettings
    from .inputs import generator_hash, inputs_hash

    prefix = package + "/"
    entry = {
        "inputs": inputs_hash(members, out_dir),
        "generator": generator_hash(),
        "formatters": FormatSettings.discover(out_dir).fingerprint(),
        "files": {
            rel[len(prefix) :]: hashlib.sha256(text.encode("utf-8")).hexdigest()
            for rel, text in sorted(files.items())
        },
    }
    packages = _read_record(out_dir)
    packages[package] = entry
    record = {"version": _RECORD_VERSION, "out_dir": str(out_dir.resolve()), "packages": packages}
    path = _record_path(out_dir)
    if path is None:
        return
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_text(json.dumps(record, sort_keys=True), encoding="utf-8")
        os.replace(temporary, path)
        _prune(path.parent)


def _prune(directory: Path) -> None:
    records = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
    for stale in records[: max(0, len(records) - _MAX_RECORDS)]:
        with contextlib.suppress(OSError):
            stale.unlink()


@functools.cache
def _raw(path: Path) -> dict | None:
    """The spec's values through the loader itself: the same bounded read (regular files of at
    most 1 MiB, no symlink out of the spec directory) and the same safe YAML as the full build.
    None when anything is wrong: the full build then reports it."""
    from ..errors import Diagnostics
    from ..spec.load import load_document

    diagnostics = Diagnostics()
    document = load_document(path, diagnostics)
    return None if document is None or diagnostics else document.data


def _families(spec_paths: list[Path]) -> dict[Path, list[Path]] | None:
    """root spec -> member spec paths, following `extends` as the full build does."""
    from ..spec.resolve import MAX_EXTENDS_DEPTH
    from .inputs import discover_specs

    discovered: dict[Path, None] = dict.fromkeys(discover_specs(spec_paths))
    roots: dict[Path, Path] = {}
    for path in list(discovered):
        chain = [path]
        # A spec whose root is known ends the walk: each spec's chain is followed once, not
        # once per descendant (a chain of 1,500 specs took minutes here), and a chain deeper
        # than a family may be is the full build's to report.
        while chain[-1] not in roots:
            if len(chain) > MAX_EXTENDS_DEPTH:
                return None
            data = _raw(chain[-1])
            if data is None:
                return None
            parent = data.get("extends")
            if parent is None:
                roots[chain[-1]] = chain[-1]
                break
            if not isinstance(parent, str):
                return None
            try:
                nxt = (chain[-1].parent / parent).resolve()
                if nxt in chain or not nxt.is_file():
                    return None
            except (OSError, ValueError):  # a name the filesystem refuses: the build says why
                return None
            chain.append(nxt)
        root = roots[chain[-1]]
        for member in chain:
            discovered.setdefault(member, None)
            roots[member] = root
    wanted = {roots[p.resolve()] for p in spec_paths}
    names = [_package_name(root) for root in set(roots.values())]
    if None in names or len(names) != len(set(names)):
        return None  # two families claim one package (or none): the full build reports it
    families: dict[Path, list[Path]] = {}
    for member, root in roots.items():
        if root in wanted:
            families.setdefault(root, []).append(member)
    return families


def _package_name(root: Path) -> str | None:
    """The root's variant name, which names the family's package; None when it has none."""
    variant = (_raw(root) or {}).get("variant")
    name = variant.get("name") if isinstance(variant, dict) else None
    return name if isinstance(name, str) and name.isidentifier() else None


def up_to_date(spec_paths: list[Path], out_dir: Path) -> list[tuple[str, int]] | None:
    """[(package, file count)] when every family is what this machine's last build of it
    recorded, else None (build fully)."""
    from .format import FormatSettings
    from .inputs import generator_hash, inputs_hash
    from .write import (
        bytecode_problem,
        in_bytecode_cache,
        leftovers,
        read_output_bytes,
        tree_entries,
    )

    if not all(p.is_file() for p in spec_paths):
        return None
    _raw.cache_clear()  # one call's memo: a process that runs several commands reads afresh
    families = _families(spec_paths)
    if families is None:
        return None
    recorded = _read_record(out_dir)
    if not recorded:
        return None
    formatters = FormatSettings.discover(out_dir).fingerprint()
    done = []
    for root, members in sorted(families.items()):
        package = _package_name(root)
        entry = recorded.get(package) if package is not None else None
        if not isinstance(entry, dict) or not isinstance(entry.get("files"), dict):
            return None
        directory = out_dir / package
        if directory.is_symlink() or not directory.is_dir() or leftovers(out_dir):
            return None  # not ours to vouch for: the full path refuses or recovers it
        if (
            entry.get("inputs") != inputs_hash(members, out_dir)
            or entry.get("generator") != generator_hash()
            or entry.get("formatters") != formatters
        ):
            return None
        listed: dict[str, str] = entry["files"]
        for inside, kind in tree_entries(directory).items():
            if kind == "dir":
                continue
            if kind == "file" and in_bytecode_cache(inside):
                if bytecode_problem(inside, directory / inside, set(listed)) is None:
                    continue
                return None
            if kind != "file" or inside not in listed:
                return None  # a file the build does not write: the full build reports it
        for name, digest in listed.items():
            try:
                data = read_output_bytes(directory / name)
            except OSError:
                return None
            if data is None or hashlib.sha256(data).hexdigest() != digest:
                return None
        done.append((package, len(listed)))
    return done
