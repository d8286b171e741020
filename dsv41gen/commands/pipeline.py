"""The pipeline: load -> resolve -> validate -> typed model -> plan -> render -> format.

The CLI, review and check-checkpoint all drive it through ``build_texts``; no module imports
the CLI.

A build covers whole families: the specs named on the command line, their ancestors, and the
other specs beside them that extend the same root. Merge/fork dispatch compares every variant
of a family, so building one variant must see its siblings.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..emit.inputs import contained, discover_specs
from ..errors import Diagnostic, Diagnostics, Location, SpecError, UsageError, did_you_mean
from ..spec.load import display_name
from ..spec.model import Family
from ..spec.resolve import MAX_EXTENDS_DEPTH, ResolvedSpec, Resolver, _parent_path
from ..spec.validate import across_families, validate_family, validate_spec


@dataclass(frozen=True)
class FamilyInputs:
    family: Family
    specs: tuple[ResolvedSpec, ...]  # same order as family.variants

    @property
    def license_header(self) -> tuple[str, ...]:
        """The root spec's `license_header` lines (the family's files share one header)."""
        return tuple(self.specs[0].data.get("license_header", ()))


def _family_root(path: Path, resolver: Resolver) -> Path | None:
    """The root spec a discovered spec belongs to, also when it does not resolve: the end of its
    `extends` chain as far as it can be followed (a spec whose parent is missing or cyclic is a
    family of its own). None when a spec on the way does not load: its `extends` is unknown, so
    it could belong to any family."""
    seen: list[Path] = []
    current = path
    while True:
        spec = resolver.resolved.get(current)
        if spec is not None:
            return spec.root.path
        doc = resolver.document(current)
        if doc is None:
            return None
        parent = _parent_path(doc, Diagnostics())  # its errors were reported when resolving
        if len(seen) >= MAX_EXTENDS_DEPTH:
            return None  # deeper than a family may be: which family it is stays unknown
        if parent is None or parent.resolve() in seen:
            return current
        seen.append(current)
        current = parent.resolve()


def _chain_files(path: Path, resolver: Resolver) -> set[str]:
    """Every spec file (as messages name it) that `path` reads through `extends`."""
    files: set[str] = set()
    current: Path | None = path
    while current is not None and len(files) <= MAX_EXTENDS_DEPTH:
        doc = resolver.document(current)
        if doc is None or doc.file in files:
            files.add(display_name(current))
            break
        files.add(doc.file)
        current = _parent_path(doc, Diagnostics())
    return files


def load_families(
    spec_paths: list[Path], warn: Callable[[str], None] | None = None
) -> list[FamilyInputs]:
    """Everything up to the typed model for the families of `spec_paths`, or SpecError with
    every problem found in them.

    Families are isolated: errors in the specs of another family (one no named spec belongs
    to) do not block this build. They are passed to `warn` (default: standard error), one
    `warning: file:line:col: ...` line each, and that family is simply not built. A spec that
    does not load at all cannot say which family it extends, so it blocks: leaving it out
    could silently drop a variant from its family's package."""
    diagnostics = Diagnostics()
    resolver = Resolver(diagnostics)
    for path in spec_paths:
        if path.exists() and not path.is_file():
            raise UsageError(f"{path} is not a regular file; name a spec's YAML file")
        if not path.is_file():
            candidates = (
                sorted(p.name for p in path.parent.glob("*.yaml")) if path.parent.is_dir() else []
            )
            raise UsageError(f"no such spec file: {path}" + did_you_mean(path.name, candidates))
    # as discover_specs names them: a symlink out of its directory stays the link, which the
    # loader refuses at the file (resolved, it was no discovered spec: a KeyError, exit 70)
    requested = {contained(p) for p in spec_paths}
    resolved: dict[Path, ResolvedSpec] = {}
    discovered = discover_specs(spec_paths)
    for path in discovered:
        spec = resolver.resolve(path)
        if spec is not None:
            resolved[path] = spec
    # An ancestor is a member of its family wherever `extends` found it: one below the spec
    # directory (or not named *.yaml) is no sibling the glob sees, and a family planned
    # without its root is a bug, not a smaller family.
    for spec in list(resolved.values()):
        for doc in spec.lineage[:-1]:
            if doc.path not in resolved:
                ancestor = resolver.resolve(doc.path)
                if ancestor is not None:
                    resolved[doc.path] = ancestor
                    discovered.append(doc.path)
    # Ancestors first: validate_spec reports an error a child merely inherits only once.
    for spec in sorted(resolved.values(), key=lambda s: len(s.lineage)):
        validate_spec(spec, diagnostics)
    roots = {path: _family_root(path, resolver) for path in discovered}
    requested_roots = {roots[p] for p in requested}
    across_families(resolved, roots, requested_roots, diagnostics)
    # Which files' errors block: those the requested families (and any spec of unknown
    # family) read; everything else belongs to another family.
    blocking: set[str] = set()
    for path in discovered:
        if roots[path] is None or roots[path] in requested_roots:
            blocking |= _chain_files(path, resolver)
    errors = [d for d in diagnostics.items if d.location.file in blocking]
    if errors:
        raise SpecError(errors)
    _warn_other_families([d for d in diagnostics.items if d not in errors], warn)

    families: list[FamilyInputs] = []
    for root in sorted(r for r in requested_roots if r is not None):
        members = [s for s in resolved.values() if s.root.path == root]
        members.sort(key=lambda s: (len(s.lineage), s.document.file))
        variants = validate_family(members)
        families.append(FamilyInputs(Family(variants[0].name, tuple(variants)), tuple(members)))
    return families


def _warn_other_families(found: list[Diagnostic], warn: Callable[[str], None] | None) -> None:
    if not found:
        return
    say = warn or (lambda line: print(line, file=sys.stderr))
    for diagnostic in sorted(found):
        say(f"warning: {diagnostic}")
    files = sorted({d.location.file for d in found})
    say(
        f"warning: {len(found)} error{'s' if len(found) != 1 else ''} in {', '.join(files)}, "
        "which no spec being built reads; their family was not built"
    )


@dataclass(frozen=True)
class BuildResult:
    out_dir: Path
    package: str
    files: dict[str, str]
    members: tuple[Path, ...] = ()  # the family's spec files (what the build record hashes)


def _spec_files_of(lineage: dict[str, set[str]], output) -> tuple[str, ...]:
    """The specs a planned file comes from: its variants' lineages, or the whole family."""
    names = output.variants or tuple(lineage)
    return tuple(sorted(set().union(*(lineage[v] for v in names))))


def _refuse_oversized(files: dict[str, str], inputs: FamilyInputs) -> None:
    """No generated file over the limit the readers of an output tree hold to: output grows
    with the specs (each child carries its own copy of an inherited message), and a file the
    next run cannot read back would pass for a hand-written one."""
    from ..emit.write import MAX_GENERATED_BYTES

    sizes = {path: len(text.encode("utf-8")) for path, text in files.items()}
    too_big = [(path, size) for path, size in sorted(sizes.items()) if size > MAX_GENERATED_BYTES]
    if too_big:
        raise SpecError(
            Diagnostic(
                Location(inputs.specs[0].file, 1, 1),
                "",
                f"the generated {path} would be {size} bytes, more than the "
                f"{MAX_GENERATED_BYTES}-byte limit of a generated file; shorten the texts the "
                "family's specs repeat (messages, display names) or split the family",
            )
            for path, size in too_big
        )


def build_texts(
    spec_paths: tuple[Path, ...],
    out_dir: Path,
    warn: Callable[[str], None] | None = None,
    settings=None,
) -> list[BuildResult]:
    """load -> resolve -> validate -> model -> plan -> render, for every family named.

    ``settings`` (format.FormatSettings) defaults to what the output directory's formatter
    configuration discovery finds; the review passes the repository's, to render a ref's specs
    checked out elsewhere exactly as the working tree's."""
    from ..emit.fastpath import MANIFEST, manifest_body
    from ..emit.format import FormatSettings
    from ..emit.inputs import inputs_hash, spec_display
    from ..emit.render import render_files
    from ..emit.write import make_header
    from ..plan import plan_family
    from ..plan.sources import SourceMap

    results = []
    settings = settings or FormatSettings.discover(out_dir)
    for inputs in load_families(list(spec_paths), warn):
        family = inputs.family
        sources = SourceMap(family)
        plan = plan_family(family, sources)
        # A file of one variant names that variant's lineage, a family-wide file every spec.
        lineage = {
            v.name: {spec_display(doc.path, out_dir) for doc in s.lineage}
            for v, s in zip(family.variants, inputs.specs)
        }
        spec_files = tuple(sorted(set().union(*lineage.values())))
        files = render_files(
            plan.files,
            functools.partial(_spec_files_of, lineage),
            settings,
            inputs.license_header,
        )
        _refuse_oversized(files, inputs)
        # The MANIFEST is the family's one stamp of its inputs (the other headers carry only
        # their own content hash, so an edit rewrites only the files whose text changes).
        digest = inputs_hash([s.document.path for s in inputs.specs], out_dir)
        manifest = manifest_body(files, family.name)
        files[f"{family.name}/{MANIFEST}"] = (
            make_header(
                "#", spec_files, manifest, inputs_hash=digest, license_header=inputs.license_header
            )
            + manifest
        )
        results.append(
            BuildResult(out_dir, family.name, files, tuple(s.document.path for s in inputs.specs))
        )
    return results
