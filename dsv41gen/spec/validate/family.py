"""Family rules: what one spec alone cannot show. Unique identities and one definition per
shared name within a family (its generated package is one), and identities that must be unique
across every family. The pipeline gathers the families; the rules live here.
"""

from __future__ import annotations

from pathlib import Path

from ...errors import Diagnostics, dotted
from ..hierarchy import backend_cycle
from ..model import Variant
from ..resolve import ResolvedSpec


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


def family_checks(
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
    root_license = members[0].data.get("license_header")
    for spec, variant in zip(members, variants):
        if spec.data.get("license_header") != root_license:
            diagnostics.add(
                spec.where(("license_header",)),
                "license_header",
                f"differs from the root spec {members[0].file}'s; a family's generated files "
                "share one license header: set it in the root spec only",
            )
        for table, key, what in (
            (by_name, variant.name, "variant.name"),
            (by_model_type, variant.model_type, "variant.model_type"),
            # an alias selects its variant as the model type does
            *((by_model_type, a, "variant.model_type_aliases") for a in variant.model_type_aliases),
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
    _family_backend_names(members, variants, diagnostics)
    _kernel_module_names(members, variants, diagnostics)
    _backend_hierarchy(members, variants, diagnostics)


def _backend_hierarchy(
    members: list[ResolvedSpec], variants: list[Variant], diagnostics: Diagnostics
) -> None:
    """backends.py defines each class after its parent (spec.hierarchy.parent_first), which a
    cycle of parents makes impossible: an error at the parent of the cycle's first class."""
    cycle = backend_cycle(variants)
    if cycle is None:
        return
    first = cycle[0]
    spec = next(s for s, v in zip(members, variants) if any(b.key == first for b in v.backends))
    diagnostics.add(
        spec.where(("attention_backends", first, "parent")),
        f"attention_backends.{first}.parent",
        f"the backend classes' parents form a cycle: {' -> '.join(cycle)}; a class cannot "
        "derive from itself: give one of them another parent (a backend outside the cycle, "
        "or an engine class with parent_module)",
    )


def _kernel_module_names(
    members: list[ResolvedSpec], variants: list[Variant], diagnostics: Diagnostics
) -> None:
    """A variant that introduces its own MXFP8 format gets the modules mxfp8_<variant> and
    mxfp8_<variant>_reference (the root: mxfp8 and mxfp8_reference), whether or not it has one
    yet: no variant's name may give a module name another variant's modules already have (a
    variant named `reference` replaced the root's torch reference with its Triton module)."""
    owners: dict[str, str] = {}
    for index, (spec, variant) in enumerate(zip(members, variants)):
        module = "mxfp8" if index == 0 else f"mxfp8_{variant.name}"
        whose = "the root's" if index == 0 else f"{variant.name}'s"
        for name, kind in (
            (module, "Triton module"),
            (f"{module}_reference", "torch reference module"),
        ):
            if name in owners:
                diagnostics.add(
                    spec.where(("variant", "name")),
                    "variant.name",
                    f"{name!r} is already {owners[name]}: this variant's own kernel module "
                    "would take that name (mxfp8_<variant>, mxfp8_<variant>_reference); choose "
                    "another name",
                )
            owners.setdefault(name, f"{whose} {kind}")


def _family_backend_names(
    members: list[ResolvedSpec], variants: list[Variant], diagnostics: Diagnostics
) -> None:
    """backends.py is one module per family: a class name may not be an engine class another
    variant's backend imports under its own name, and a get_name() value (case-insensitively:
    a sparse backend's function is named after it in lower case) names one backend."""
    engine_parents = {
        b.parent for v in variants for b in v.backends if b.parent and b.parent_module is not None
    }
    names: dict[str, str] = {}
    for spec, variant in zip(members, variants):
        for backend in variant.backends:
            if backend.key in engine_parents:
                diagnostics.add(
                    spec.where(("attention_backends", backend.key)),
                    f"attention_backends.{backend.key}",
                    f"{backend.key!r} is the engine class another backend of the family "
                    "subclasses (imported under that name); choose another class name",
                )
            owner = names.setdefault(backend.name.casefold(), backend.key)
            if owner != backend.key:
                diagnostics.add(
                    spec.where(("attention_backends", backend.key, "name")),
                    f"attention_backends.{backend.key}.name",
                    f"{backend.name!r} is already the name of {owner} in this family (names "
                    "are compared ignoring case); each backend registers under its own name",
                )


def across_families(
    resolved: dict[Path, ResolvedSpec],
    roots: dict[Path, Path | None],
    requested_roots: set[Path | None],
    diagnostics: Diagnostics,
) -> None:
    """Identities that must be unique across ALL families, not only within one: a variant name
    (the root's names the package: two equal roots would overwrite each other's package), a
    model_type (the HF config value vLLM dispatches on) and an architecture (two plugins
    registering one architecture: the last one loaded wins). A clash is reported at the later
    family's spec, or at the requested family's when only one of the two is being built."""
    seen: dict[tuple[str, str], ResolvedSpec] = {}
    order = sorted(resolved.values(), key=lambda s: (str(s.root.path), len(s.lineage), s.file))
    for spec in order:
        variant = spec.data.get("variant") if isinstance(spec.data.get("variant"), dict) else {}
        archs = spec.data.get("architectures")
        identities = [
            ("variant.name", variant.get("name"), ("variant", "name")),
            ("variant.model_type", variant.get("model_type"), ("variant", "model_type")),
        ]
        aliases = variant.get("model_type_aliases")
        identities += [  # an alias is a model type the engine dispatches on, as model_type is
            ("variant.model_type", alias, ("variant", "model_type_aliases"))
            for alias in (aliases if isinstance(aliases, list) else [])
        ] + [
            (f"architectures.{name}", name, ("architectures", name))
            for name in (archs if isinstance(archs, dict) else {})
        ]
        for what, value, field_path in identities:
            if not isinstance(value, str):
                continue
            kind = what.split(".")[0] if what.startswith("architectures") else what
            first = seen.setdefault((kind, value), spec)
            if first.root.path == spec.root.path:
                continue  # within a family: family_checks' rules
            target, other = spec, first
            if roots[first.document.path] in requested_roots and (
                roots[spec.document.path] not in requested_roots
            ):
                target, other = first, spec
            family = "" if other.file == other.root.file else f" (extends {other.root.file})"
            diagnostics.add(
                target.where(field_path),
                dotted(field_path),
                f"{value!r} is also used by {other.file}{family}, another family; "
                + _UNIQUE_WHY[kind],
            )


_UNIQUE_WHY = {
    "variant.name": "variant names are unique across families (a root's name names its "
    "generated package, so two equal ones would overwrite each other): rename one",
    "variant.model_type": "an HF model_type selects one model: give each variant its own",
    "architectures": "an architecture is registered by one family's plugin only (two would "
    "race at registration): rename it, or move the variant into that family with `extends`",
}
