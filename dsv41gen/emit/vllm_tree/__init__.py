"""`dsv41gen emit --vllm-tree PATH`: write every family's wiring into vLLM's own source tree.

Stages: read each site's file -> apply the sites of every family (sites.py; libcst, in
place) -> `ruff format` each changed file with the tree's own configuration -> compare or
write. Everything is computed in memory first; files are then replaced one by one with
os.replace (a file is never half-written), unchanged files are not touched, and the manifest
(`.dsv41gen/vllm-tree.json` at the tree root) records which keys each family owns so a variant
the specs drop is removed from the tree the next time.
"""

from __future__ import annotations

import difflib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from ...errors import UsageError
from ...spec.model import Family
from . import refactor
from .sites import SITES, Site, SiteError, StateBucketTable, state_bucket_types

MANIFEST = ".dsv41gen/vllm-tree.json"
MARKER_FILE = "vllm/config/speculative.py"  # a tree without it is no vLLM source tree


@dataclass
class TreePlan:
    tree: Path
    before: dict[str, str] = field(default_factory=dict)  # rel path -> current text
    after: dict[str, str] = field(default_factory=dict)  # rel path -> emitted text
    manifest_before: str | None = None
    manifest_after: str = ""
    notes: list[str] = field(default_factory=list)
    sites_by_file: dict[str, list[str]] = field(default_factory=dict)

    @property
    def changed(self) -> list[str]:
        return sorted(p for p in self.after if self.after[p] != self.before[p])

    def diff(self, rel: str) -> str:
        return "".join(
            difflib.unified_diff(
                self.before[rel].splitlines(True),
                self.after[rel].splitlines(True),
                f"a/{rel}",
                f"b/{rel}",
            )
        )


def _check_tree(tree: Path) -> None:
    if not tree.is_dir():
        raise UsageError(f"--vllm-tree {tree}: not a directory; name an unpacked vLLM source tree")
    if not (tree / MARKER_FILE).is_file():
        raise UsageError(
            f"--vllm-tree {tree}: no {MARKER_FILE}, so this is no vLLM source tree; "
            "scripts/fetch_vllm_sdist.py --extract unpacks vLLM 0.33.0's"
        )


def _read_manifest(tree: Path) -> tuple[str | None, dict]:
    path = tree / MANIFEST
    if not path.is_file():
        return None, {}
    text = path.read_text(encoding="utf-8")
    try:
        data = json.loads(text)
        families = data["families"]
        assert isinstance(families, dict)
    except (ValueError, KeyError, AssertionError, TypeError):
        raise UsageError(
            f"{path}: not a dsv41gen manifest (unreadable JSON or no 'families'); restore it "
            "from version control, or delete it to adopt the tree afresh"
        ) from None
    return text, families


def _format(tree: Path, rel: str, text: str) -> str:
    from ..format import _ruff, find_ruff_config, run_tool

    config = find_ruff_config((tree / rel).parent)
    args = ["--config", str(config)] if config else ["--isolated"]
    with tempfile.TemporaryDirectory(prefix="dsv41gen-emit-") as tmp:
        staged = Path(tmp) / Path(rel).name
        staged.write_text(text, encoding="utf-8")
        status, _out, err = run_tool(
            [_ruff(), "format", "--no-cache", *args, str(staged)], "emit:ruff-format"
        )
        if status != 0:
            raise SiteError(f"{rel}: ruff could not format the emitted file:\n{err.strip()}")
        return staged.read_text(encoding="utf-8")


def _apply_site(
    site: Site, module: cst.Module, family: Family, owned: set[str], plan: TreePlan
) -> tuple[cst.Module, list[str]]:
    missing = site.lacks(family)
    if missing and not owned:
        # nothing of the family's is there to update or remove: a stated skip, not an error
        plan.notes.append(
            f"{site.path}: site {site.name} skipped for family {family.name!r}: no variant "
            f"declares {missing}"
        )
        return module, []
    if isinstance(site, StateBucketTable) and refactor.needs_refactor(module):
        return _closure_only(site, module, family, owned, plan)
    result = site.apply(module, family, owned)
    plan.notes += result.notes
    return result.module, result.owned


def _closure_only(site, module, family, owned, plan):
    """Without the refactor the closure cannot be edited: fine while it already says what the
    specs say, an error (naming the refactor) when it would have to change."""
    always, unsplit = state_bucket_types(family)
    inner = refactor.c.find_all(
        module, cst.FunctionDef, lambda n: n.name.value == "is_state_bucket"
    )
    present = set()
    if len(inner) == 1 and len(inner[0].body.body) == 2:
        for stmt in inner[0].body.body:
            present |= set(refactor._isinstance_types(stmt) or ())
    previous = {k.partition(":")[2] for k in owned if k.startswith(("state:", "unsplit:"))}
    stale = (previous - set(always) - set(unsplit)) & present
    if not set(always) | set(unsplit) <= present or stale:
        raise SiteError(
            f"{site.path}: is_state_bucket is a closure in "
            f"{refactor.FUNCTION} (vLLM 0.33.0) that no tool can edit safely, and the specs "
            f"need it to change (state-like: {', '.join(always + unsplit) or 'none'}). Apply "
            "the one-time upstream refactor that makes it a table: `dsv41gen emit "
            "--vllm-tree PATH --refactor-upstream`"
        )
    plan.notes.append(
        f"{site.path}: is_state_bucket is a closure (vLLM 0.33.0); it already names "
        f"{', '.join(always + unsplit)}, so it was left as it is. --refactor-upstream makes it "
        "a table the emitter can edit"
    )
    return module, [f"state:{n}" for n in always] + [f"unsplit:{n}" for n in unsplit]


def plan_tree(tree: Path, families: list[Family], *, refactor_upstream: bool = False) -> TreePlan:
    """What emitting ``families`` into ``tree`` writes, without writing it."""
    _check_tree(tree)
    plan = TreePlan(tree)
    plan.manifest_before, recorded = _read_manifest(tree)
    modules: dict[str, cst.Module] = {}
    for site in SITES:
        if site.path in plan.before:
            continue
        path = tree / site.path
        if not path.is_file():
            raise UsageError(f"{path}: missing; vLLM 0.33.0's source tree has it")
        text = path.read_text(encoding="utf-8")
        plan.before[site.path] = text
        if refactor_upstream and site.path == refactor.PATH:
            text = refactor.refactor_state_bucket(text)
        try:
            modules[site.path] = cst.parse_module(text)
        except cst.ParserSyntaxError as error:
            raise UsageError(
                f"{path}:{error.raw_line}:{error.raw_column}: {error.message}"
            ) from None
    manifest: dict[str, dict[str, list[str]]] = {}
    for family in sorted(families, key=lambda f: f.name):
        owned_before = recorded.get(family.name, {})
        manifest[family.name] = {}
        for site in SITES:
            owned = set(owned_before.get(site.name, ()))
            modules[site.path], keys = _apply_site(site, modules[site.path], family, owned, plan)
            manifest[family.name][site.name] = sorted(set(keys))
            plan.sites_by_file.setdefault(site.path, []).append(site.name)
    # families the specs no longer name keep nothing: their keys are forgotten only once
    # their entries are gone, which needs their specs; say so instead of guessing
    for gone in sorted(set(recorded) - set(manifest)):
        plan.notes.append(
            f"{MANIFEST}: family {gone!r} was emitted before but is not among the specs; its "
            "wiring stays in the tree (emit it with its specs to update it)"
        )
        manifest[gone] = recorded[gone]
    for rel, module in modules.items():
        text = module.code
        if text != plan.before[rel]:
            text = _format(tree, rel, text)
        plan.after[rel] = text
    plan.manifest_after = json.dumps({"families": manifest}, indent=2, sort_keys=True) + "\n"
    finalize_manifest(plan)
    return plan


def _replace(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(
        "w", encoding="utf-8", dir=path.parent, prefix=f".{path.name}.", delete=False
    ) as handle:
        handle.write(text)
    if path.exists():
        os.chmod(handle.name, path.stat().st_mode & 0o777)
    os.replace(handle.name, path)


def write_plan(plan: TreePlan) -> list[str]:
    """Replace the files the plan changes (and the manifest); the paths written."""
    written = []
    for rel in plan.changed:
        _replace(plan.tree / rel, plan.after[rel])
        written.append(rel)
    if plan.manifest_after != plan.manifest_before:
        _replace(plan.tree / MANIFEST, plan.manifest_after)
        written.append(MANIFEST)
    return written


@dataclass(frozen=True)
class Drift:
    path: str
    kind: str  # "hand-edited" | "stale" | "not emitted"
    diff: str


def check_plan(plan: TreePlan) -> list[Drift]:
    """What in the tree differs from a fresh emit, and why (the last emit's file hash tells a
    hand edit from specs that changed since)."""
    import hashlib

    drifts = []
    if plan.manifest_before is None:
        drifts.append(Drift(MANIFEST, "not emitted", ""))
    last = {}
    if plan.manifest_before is not None:
        last = json.loads(plan.manifest_before).get("files", {})
    for rel in plan.changed:
        digest = hashlib.sha256(plan.before[rel].encode()).hexdigest()
        kind = "stale" if last.get(rel) == digest else "hand-edited"
        drifts.append(Drift(rel, kind, plan.diff(rel)))
    # the recorded file hashes follow edits outside the regions, which are fine; what each
    # family owns must match
    if not drifts and plan.manifest_before is not None:
        if json.loads(plan.manifest_after)["families"] != json.loads(plan.manifest_before).get(
            "families"
        ):
            drifts.append(Drift(MANIFEST, "stale", ""))
    return drifts


def finalize_manifest(plan: TreePlan) -> None:
    """Record each site file's hash as emitted, so check can tell a hand edit from a spec
    change."""
    import hashlib

    data = json.loads(plan.manifest_after)
    data["files"] = {
        rel: hashlib.sha256(text.encode()).hexdigest() for rel, text in sorted(plan.after.items())
    }
    plan.manifest_after = json.dumps(data, indent=2, sort_keys=True) + "\n"
