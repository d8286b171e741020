"""Resolve stage: follow ``extends`` and merge each spec over its parent, keeping provenance.

Merge rules (also in the README):
- mappings merge key by key, recursively;
- lists and scalars in the child replace the parent's value whole (no list concatenation: what
  a child writes is what it gets);
- ``key: !delete`` removes the key the parent has; deleting a key the parent lacks is an error.

Every resolved field remembers the file:line:column it was written at, so errors and
``explain`` point at the spec that decided the value, not at the one being built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import Diagnostics, Location, did_you_mean, dotted
from .load import DELETE, LoadedDocument, Path_, load_document

MAX_EXTENDS_DEPTH = 16
# How far resolve() follows `extends` before it has reached a root: well past the depth limit,
# so a chain too deep is reported at the spec that makes it too deep (found from the root, the
# same whichever spec a build starts from), and bounded, so a chain of thousands of files is
# neither a RecursionError nor quadratic work.
MAX_EXTENDS_WALK = 4 * MAX_EXTENDS_DEPTH


@dataclass
class ResolvedSpec:
    """One variant after ``extends``: merged values plus where each one was written."""

    document: LoadedDocument  # the spec that was asked for
    lineage: tuple[LoadedDocument, ...]  # root first, this spec last
    data: dict
    provenance: dict[Path_, Location] = field(repr=False)

    @property
    def file(self) -> str:
        return self.document.file

    @property
    def root(self) -> LoadedDocument:
        return self.lineage[0]

    def where(self, path: Path_) -> Location:
        path = tuple(path)
        while path:
            if path in self.provenance:
                return self.provenance[path]
            path = path[:-1]
        return self.provenance.get((), Location(self.file, 1, 1))


def _own_provenance(doc: LoadedDocument) -> dict[Path_, Location]:
    provenance = dict(doc.positions)
    provenance.update(doc.key_positions)  # a field is reported at its key
    return provenance


def _copy_provenance(
    value: object, path: Path_, source: dict[Path_, Location], target: dict[Path_, Location]
) -> None:
    """Copy the positions of ``value`` and of everything below it from ``source``.

    Walks the value, so the cost is the size of the subtree: merging is linear in the number
    of keys (scanning every recorded path for each key made 19,500 keys take 36 s)."""
    location = source.get(path)
    if location is not None:
        target[path] = location
    if isinstance(value, dict):
        for key, item in value.items():
            _copy_provenance(item, path + (key,), source, target)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _copy_provenance(item, path + (i,), source, target)


def _merge(
    parent: dict,
    child: dict,
    path: Path_,
    child_doc: LoadedDocument,
    child_prov: dict[Path_, Location],
    parent_prov: dict[Path_, Location],
    provenance: dict[Path_, Location],
    diagnostics: Diagnostics,
) -> dict:
    """The child merged over the parent; fills ``provenance`` with the position of every field
    of the result (the child's where it wrote the value, else the parent's)."""
    merged = dict(parent)
    written: set[object] = set()  # keys whose value (and positions) come from the child
    for key, value in child.items():
        here = path + (key,)
        if value is DELETE:
            if key not in merged:
                diagnostics.add(
                    child_doc.where(here),
                    dotted(here),
                    "`!delete` removes nothing: the parent spec has no such key"
                    + did_you_mean(key, merged),
                )
                continue
            del merged[key]
            written.discard(key)
            continue
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(
                merged[key],
                value,
                here,
                child_doc,
                child_prov,
                parent_prov,
                provenance,
                diagnostics,
            )
            provenance[here] = child_prov[here]
            continue
        # A whole new value (or one replacing the parent's): nothing under it can be deleted.
        merged[key] = _strip_deletes(
            value, here, child_doc, diagnostics, "the parent spec has no such key"
        )
        written.add(key)
    for key, value in merged.items():
        here = path + (key,)
        if key in written:
            _copy_provenance(value, here, child_prov, provenance)
        elif here not in provenance:  # untouched by the child: the parent's positions
            _copy_provenance(value, here, parent_prov, provenance)
    return merged


def _strip_deletes(
    value: object,
    path: Path_,
    doc: LoadedDocument,
    diagnostics: Diagnostics,
    why: str = "this spec extends no parent",
) -> object:
    """Report and drop every ``!delete`` in a value that has nothing below it to delete from:
    a root spec (no parent), or a subtree the parent lacks. Left in place, the marker would
    reach validation as a value."""
    if isinstance(value, dict):
        kept = {}
        for key, item in value.items():
            if item is DELETE:
                diagnostics.add(
                    doc.where(path + (key,)),
                    dotted(path + (key,)),
                    f"`!delete` removes nothing: {why}",
                )
                continue
            kept[key] = _strip_deletes(item, path + (key,), doc, diagnostics, why)
        return kept
    if isinstance(value, list):
        kept_items = []
        for i, item in enumerate(value):
            if item is DELETE:
                diagnostics.add(
                    doc.where(path + (i,)),
                    dotted(path + (i,)),
                    "`!delete` removes a mapping key; it cannot stand for a list item "
                    "(a child's list replaces the parent's whole: write the list without it)",
                )
                continue
            kept_items.append(_strip_deletes(item, path + (i,), doc, diagnostics, why))
        return kept_items
    return value


def _parent_path(doc: LoadedDocument, diagnostics: Diagnostics) -> Path | None:
    """The file named by ``extends``, or None. Only relative paths below the child's directory."""
    if "extends" not in doc.data:
        return None
    target = doc.data["extends"]
    where = doc.where(("extends",))
    if target is None:  # `extends:` or `extends: ~`: a root spec leaves the key out
        diagnostics.add(
            where,
            "extends",
            "names no parent spec (null); write the parent's file name, e.g. "
            "`extends: deepseek_v4.yaml`, or remove the key if this spec is a root",
        )
        return None
    if not isinstance(target, str) or not target:
        diagnostics.add(
            where, "extends", "must be the file name of the parent spec, e.g. `deepseek_v4.yaml`"
        )
        return None
    pure = PurePosixPath(target.replace("\\", "/"))
    if pure.is_absolute() or ".." in pure.parts or ":" in target:
        diagnostics.add(
            where,
            "extends",
            f"{target!r} leaves the spec directory; name a spec beside this one or below it "
            "(relative, no '..', not absolute)",
        )
        return None
    candidate = doc.path.parent.joinpath(*pure.parts)
    try:
        return _checked_parent(candidate, target, where, doc, diagnostics)
    except OSError as error:  # a name too long for the filesystem, a permission problem
        diagnostics.add(
            where, "extends", f"cannot open the parent spec {target!r}: {error.strerror or error}"
        )
        return None


def _checked_parent(
    candidate: Path, target: str, where: Location, doc: LoadedDocument, diagnostics: Diagnostics
) -> Path | None:
    if candidate.exists():
        resolved = candidate.resolve()
        if not resolved.is_relative_to(doc.path.parent):
            diagnostics.add(
                where,
                "extends",
                f"{target!r} resolves through a symlink to {str(resolved)!r}, outside the spec "
                "directory; name a spec beside this one or below it",
            )
            return None
        if not resolved.is_file():
            diagnostics.add(
                where,
                "extends",
                f"{target!r} is not a regular file; name the parent spec's YAML file",
            )
            return None
    if not candidate.is_file():
        siblings = sorted(p.name for p in doc.path.parent.glob("*.yaml"))
        diagnostics.add(
            where,
            "extends",
            f"unknown parent spec {target!r}: no such file next to this spec"
            + did_you_mean(target, siblings),
        )
        return None
    return candidate


class Resolver:
    """Resolves specs, caching each file so a family of 500 variants reads its root once."""

    def __init__(self, diagnostics: Diagnostics):
        self.diagnostics = diagnostics
        self.documents: dict[Path, LoadedDocument | None] = {}
        self.resolved: dict[Path, ResolvedSpec | None] = {}

    def document(self, path: Path) -> LoadedDocument | None:
        key = path.resolve()
        if key not in self.documents:
            self.documents[key] = load_document(path, self.diagnostics)
        return self.documents[key]

    def resolve(self, path: Path, chain: tuple[Path, ...] = ()) -> ResolvedSpec | None:
        key = path.resolve()
        if key in self.resolved:
            return self.resolved[key]
        doc = self.document(path)
        if doc is None:
            self.resolved[key] = None
            return None
        if key in chain:
            names = " -> ".join(p.name for p in chain[chain.index(key) :] + (key,))
            self.diagnostics.add(
                doc.where(("extends",)),
                "extends",
                f"`extends` cycle: {names}; one spec in the cycle must stop extending",
            )
            return None
        if len(chain) >= MAX_EXTENDS_WALK:
            self.diagnostics.add(
                doc.where(("extends",)),
                "extends",
                f"more than {MAX_EXTENDS_WALK} specs below this one extend each other without "
                f"reaching a root; a family is at most {MAX_EXTENDS_DEPTH} specs deep",
            )
            return None
        parent_path = _parent_path(doc, self.diagnostics)
        own = _own_provenance(doc)
        if parent_path is None:
            if "extends" in doc.data:
                # the error was reported by _parent_path; checking the child as a root spec
                # would only add follow-on errors (its !delete markers, the parent's fields)
                result = None
            else:
                data = _strip_deletes(doc.data, (), doc, self.diagnostics)
                result = ResolvedSpec(doc, (doc,), data, own)
        else:
            parent = self.resolve(parent_path, chain + (key,))
            if parent is None:
                result = None
            elif len(parent.lineage) >= MAX_EXTENDS_DEPTH:
                root = parent.lineage[0].path.name
                self.diagnostics.add(
                    doc.where(("extends",)),
                    "extends",
                    f"this spec would be generation {len(parent.lineage) + 1} of the family of "
                    f"{root}; a family is at most {MAX_EXTENDS_DEPTH} specs deep: extend a spec "
                    "nearer the root",
                )
                result = None
            else:
                provenance = {(): parent.provenance[()]} if () in parent.provenance else {}
                body = {k: v for k, v in doc.data.items() if k != "extends"}
                data = _merge(
                    parent.data, body, (), doc, own, parent.provenance, provenance, self.diagnostics
                )
                data["extends"] = doc.data["extends"]
                provenance[("extends",)] = own[("extends",)]
                result = ResolvedSpec(doc, parent.lineage + (doc,), data, provenance)
        self.resolved[key] = result
        return result
