"""The pipeline: load -> resolve -> validate -> typed model -> plan -> render -> format.

The CLI, review and check-checkpoint all drive it through ``build_texts``; no module imports
the CLI.

A build covers whole families: the specs named on the command line, their ancestors, and the
other specs beside them that extend the same root. Merge/fork dispatch compares every variant
of a family, so building one variant must see its siblings.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import Diagnostics, SpecError, UsageError, did_you_mean
from .inputs import discover_specs
from .model import Family, Variant
from .resolve import ResolvedSpec, Resolver
from .validate import validate_spec


@dataclass(frozen=True)
class FamilyInputs:
    family: Family
    specs: tuple[ResolvedSpec, ...]  # same order as family.variants


def _root_of(spec: ResolvedSpec) -> Path:
    return spec.root.path


class _OneDefinition:
    """A name the family's generated code defines once (an architecture's registry entry, a
    backend class): every variant that carries it must carry the same definition."""

    def __init__(self, section: str, explain):
        self.section = section
        self.explain = explain  # (key, other spec file) -> the message
        self.first: dict[str, tuple[object, ResolvedSpec]] = {}

    def check(self, key: str, value: object, spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
        if key in self.first and self.first[key][0] != value:
            diagnostics.add(
                spec.where((self.section, key)),
                f"{self.section}.{key}",
                self.explain(key, self.first[key][1].file),
            )
        self.first.setdefault(key, (value, spec))


def _family_checks(
    members: list[ResolvedSpec], variants: list[Variant], diagnostics: Diagnostics
) -> None:
    """Rules that compare variants: unique identities, and one meaning per shared name."""
    by_name: dict[str, ResolvedSpec] = {}
    by_model_type: dict[str, ResolvedSpec] = {}
    archs = _OneDefinition(
        "architectures",
        lambda key, other: (
            f"also declared by {other} with a different entry; one architecture has one "
            "registry entry (delete it in the child with `!delete`, or rename it)"
        ),
    )
    # Generated classes exist once per family: a child that changed an inherited backend in
    # place would be silently ignored, so it must subclass instead.
    backends = _OneDefinition(
        "attention_backends",
        lambda key, other: (
            f"changes the backend {key} that {other} defines; a backend class has one "
            f"definition per family: declare a subclass (`parent: {key}`) with the change, "
            f"and `{key}: !delete` here if this variant no longer uses it"
        ),
    )
    for spec, variant in zip(members, variants):
        for table, key, what in (
            (by_name, variant.name, "variant.name"),
            (by_model_type, variant.model_type, "variant.model_type"),
        ):
            if key in table:
                diagnostics.add(
                    spec.where(tuple(what.split("."))),
                    what,
                    f"{key!r} is already used by {table[key].file}; each variant of a family needs its own",
                )
            else:
                table[key] = spec
        for arch in variant.architectures:
            archs.check(arch.name, arch, spec, diagnostics)
        for backend in variant.backends:
            backends.check(backend.key, backend, spec, diagnostics)


def load_families(spec_paths: list[Path]) -> list[FamilyInputs]:
    """Everything up to the typed model, or SpecError with every problem found."""
    diagnostics = Diagnostics()
    resolver = Resolver(diagnostics)
    for path in spec_paths:
        if not path.is_file():
            candidates = (
                sorted(p.name for p in path.parent.glob("*.yaml")) if path.parent.is_dir() else []
            )
            raise UsageError(f"no such spec file: {path}" + did_you_mean(path.name, candidates))
    requested = {p.resolve() for p in spec_paths}
    resolved: dict[Path, ResolvedSpec] = {}
    for path in discover_specs(spec_paths):
        # A broken sibling is reported with everything else: it may belong to the family.
        spec = resolver.resolve(path)
        if spec is not None:
            resolved[path] = spec
    # Ancestors first: validate_spec reports an error a child merely inherits only once.
    for spec in sorted(resolved.values(), key=lambda s: len(s.lineage)):
        validate_spec(spec, diagnostics)
    if diagnostics:
        raise SpecError(diagnostics.items)

    roots = {_root_of(resolved[p]) for p in resolved if p in requested}
    families: list[FamilyInputs] = []
    for root in sorted(roots):
        members = [s for s in resolved.values() if _root_of(s) == root]
        members.sort(key=lambda s: (len(s.lineage), s.document.file))
        variants: list[Variant] = []
        for spec in members:
            parent = spec.lineage[-2] if len(spec.lineage) > 1 else None
            parent_spec = resolved.get(parent.path) if parent is not None else None
            ancestors = tuple(
                resolved[doc.path].data
                for doc in reversed(spec.lineage[:-1])
                if doc.path in resolved
            )
            variants.append(
                Variant.parse(
                    spec.data,
                    spec.file,
                    parent_spec.data["variant"]["name"] if parent_spec is not None else None,
                    ancestors,
                )
            )
        _family_checks(members, variants, diagnostics)
        if diagnostics:
            raise SpecError(diagnostics.items)
        families.append(FamilyInputs(Family(variants[0].name, tuple(variants)), tuple(members)))
    return families


@dataclass(frozen=True)
class BuildResult:
    out_dir: Path
    package: str
    files: dict[str, str]


def _spec_display(path: Path, base: Path) -> str:
    """A spec's name in headers: relative to the output directory's parent, so it is the same
    on every machine and checkout."""
    try:
        return os.path.relpath(path, base.resolve()).replace(os.sep, "/")
    except ValueError:
        return path.name


def build_texts(spec_paths: tuple[Path, ...], out_dir: Path) -> list[BuildResult]:
    """load -> resolve -> validate -> model -> plan -> render, for every family named."""
    from .fastpath import MANIFEST, manifest_body
    from .inputs import inputs_hash
    from .plan import plan_family
    from .plan.sources import SourceMap
    from .render import render_files
    from .write import make_header

    results = []
    for inputs in load_families(list(spec_paths)):
        family = inputs.family
        sources = SourceMap({v.name: s for v, s in zip(family.variants, inputs.specs)})
        plan = plan_family(family, sources)
        spec_files = tuple(
            sorted(_spec_display(s.document.path, out_dir.resolve().parent) for s in inputs.specs)
        )
        digest = inputs_hash([s.document.path for s in inputs.specs])
        files = render_files(plan.files, digest, spec_files)
        manifest = manifest_body(files, family.name)
        files[f"{family.name}/{MANIFEST}"] = (
            make_header("#", spec_files, digest, manifest) + manifest
        )
        results.append(BuildResult(out_dir, family.name, files))
    return results
