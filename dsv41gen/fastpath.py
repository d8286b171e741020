"""The no-op rebuild: when nothing a build reads has changed, say so without rebuilding.

Output is a pure function of the inputs (specs, templates, schema, generator version), and each
family package records in its MANIFEST the inputs hash it was built from and the hash of every
file it wrote. If the specs still hash to that value and every file is byte-for-byte what the
manifest lists, the package is up to date: no validation, planning, rendering or formatting is
needed, and none of their imports (jsonschema, jinja2, ruff) is paid for. Anything unexpected
(a spec that does not parse, a missing or extra file) falls back to the full build, which
reports it properly.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

MANIFEST = "MANIFEST"


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def manifest_body(files: dict[str, str], package: str, formatters: str) -> str:
    """'generator <hash>', 'formatters <hash>' (versions and configuration, see
    format.FormatSettings), then one line per generated file: '<hash>  <path in the package>'."""
    from .inputs import generator_hash

    prefix = package + "/"
    return f"generator {generator_hash()}\nformatters {formatters}\n" + "".join(
        f"{file_digest(text.encode())}  {rel[len(prefix) :]}\n"
        for rel, text in sorted(files.items())
    )


@functools.cache
def _raw(path: Path) -> dict | None:
    """The spec's values through the loader itself: the same bounded read (regular files of at
    most 1 MiB, no symlink out of the spec directory) and the same safe YAML as the full build.
    None when anything is wrong: the full build then reports it."""
    from .errors import Diagnostics
    from .load import load_document

    diagnostics = Diagnostics()
    document = load_document(path, diagnostics)
    return None if document is None or diagnostics else document.data


def _families(spec_paths: list[Path]) -> dict[Path, list[Path]] | None:
    """root spec -> member spec paths, following `extends` as the full build does."""
    from .inputs import discover_specs
    from .resolve import MAX_EXTENDS_DEPTH

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
    """[(package, file count)] when every family is up to date, else None (build fully)."""
    from .format import FormatSettings
    from .inputs import generator_hash, inputs_hash
    from .write import body_of, leftovers, read_header, read_output_bytes

    if not all(p.is_file() for p in spec_paths):
        return None
    families = _families(spec_paths)
    if families is None:
        return None
    formatters = FormatSettings.discover(out_dir).fingerprint()
    done = []
    for root, members in sorted(families.items()):
        package = _package_name(root)
        if package is None:
            return None
        directory = out_dir / package
        if directory.is_symlink() or leftovers(out_dir):
            return None  # not ours to vouch for: the full path refuses or recovers it
        try:
            raw = read_output_bytes(directory / MANIFEST)  # bounded, and never a FIFO
            manifest = raw.decode("utf-8") if raw is not None else None
        except (OSError, UnicodeDecodeError):
            return None
        if manifest is None:
            return None
        header = read_header(manifest)
        if header is None or header.inputs != inputs_hash(members, out_dir):
            return None
        lines = body_of(manifest).splitlines()
        if lines[:2] != [f"generator {generator_hash()}", f"formatters {formatters}"]:
            return None  # another generator or other formatter settings: compare in full
        listed = {}
        for line in lines[2:]:
            digest, _, name = line.partition("  ")
            listed[name] = digest
        present = {
            p.relative_to(directory).as_posix()
            for p in directory.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and ".pytest_cache" not in p.parts
        }
        if present != set(listed) | {MANIFEST}:
            return None
        for name, digest in listed.items():
            try:
                data = read_output_bytes(directory / name)
            except OSError:
                return None
            if data is None or file_digest(data) != digest:
                return None
        done.append((package, len(listed) + 1))
    return done
