"""Semantic diff of specs: what a spec edit means, classified by how much it can hurt.

The resolved specs of every variant at a git ref are compared field by field with the working
tree. Each changed field is classified by the severity its declaration states
(``review=`` in dsv41gen/spec/declaration.py; see spec/review.py for how a path finds it):

- BREAKING: something users or checkpoints rely on disappears or is renamed (an architecture,
  a registry target, a required checkpoint weight, a speculative method, a compiled kernel
  instantiation the host dispatch used to accept, a cache format or dtype);
- BEHAVIOUR: generated behaviour changes (block sizes per capability family, a runner mode
  newly forbidden, a tokens-per-round source, limits, messages, additions);
- COSMETIC: nothing generated behaves differently (notes, labels of reference values).

A spec may accept a breaking change on purpose, with the reason, under
``review.accepted_breaking_changes``; the waiver lives in the YAML the reviewer reads.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..spec.review import classify as declared_severity

BREAKING, BEHAVIOUR, COSMETIC = "BREAKING", "BEHAVIOUR", "COSMETIC"
SEVERITY_ORDER = {BREAKING: 0, BEHAVIOUR: 1, COSMETIC: 2}


@dataclass(frozen=True)
class Change:
    variant: str
    path: str
    kind: str  # added / removed / changed
    before: object
    after: object
    severity: str
    what: str
    waived_because: str | None = None

    @property
    def key(self) -> str:
        """Stable id a waiver names: '<variant>:<path>:<kind>'."""
        return f"{self.variant}:{self.path}:{self.kind}"


def classify(path: str, kind: str, before: object, after: object) -> tuple[str, str]:
    """The severity the declaration gives this change of the field at ``path``, and what the
    change means (dsv41gen/spec/declaration.py: each field's ``review``)."""
    severity, what = declared_severity(path, kind, before, after)
    return severity.value, what


def _walk(
    before: object, after: object, path: tuple[str, ...], out: list[tuple[str, str, object, object]]
):
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key not in after:
                out.append((".".join(path + (key,)), "removed", before[key], None))
            elif key not in before:
                out.append((".".join(path + (key,)), "added", None, after[key]))
            else:
                _walk(before[key], after[key], path + (key,), out)
    elif before != after:
        out.append((".".join(path), "changed", before, after))


def diff_variant(name: str, before: dict | None, after: dict | None) -> list[Change]:
    raw: list[tuple[str, str, object, object]] = []
    if before is None or after is None:
        kind = "added" if before is None else "removed"
        severity = BEHAVIOUR if before is None else BREAKING
        return [
            Change(
                name, "variant", kind, before and "…", after and "…", severity, f"variant {kind}"
            )
        ]
    _walk(_strip(before), _strip(after), (), raw)
    changes = []
    for path, kind, old, new in raw:
        severity, what = classify(path, kind, old, new)
        changes.append(Change(name, path, kind, old, new, severity, what))
    return changes


def _strip(data: dict) -> dict:
    """Fields that are bookkeeping, not meaning."""
    return {k: v for k, v in data.items() if k not in ("extends", "spec_version")}


@dataclass(frozen=True)
class TreeFinding:
    """A committed generated file that is not what the pull request's own specs produce (or
    an entry of the output tree no build writes): the review's first finding, since neither
    the spec diff nor the generated diff can show it."""

    path: str  # as the repository names it (generated/<package>/...)
    what: str
    diff: str = ""  # committed text -> what the specs produce


@dataclass
class SemanticDiff:
    changes: list[Change] = field(default_factory=list)
    generated_diff: str = ""
    tree: list[TreeFinding] = field(default_factory=list)

    @property
    def unwaived_breaking(self) -> list[Change]:
        return [c for c in self.changes if c.severity == BREAKING and c.waived_because is None]


def apply_waivers(changes: list[Change], waivers: dict[str, dict[str, str]]) -> list[Change]:
    """waivers: variant -> {change key or path: reason}."""
    result = []
    for change in changes:
        accepted = waivers.get(change.variant, {})
        reason = accepted.get(change.key) or accepted.get(change.path)
        if reason and change.severity == BREAKING:
            change = Change(**{**change.__dict__, "waived_because": reason})
        result.append(change)
    return result


def resolve_commit(ref: str, repo: Path) -> str:
    """The commit id ``ref`` names. Anything else is refused: a tree or blob (`HEAD:specs`), a
    name that is no ref, or an option in disguise (`--output=...`, which `git show` would obey)."""
    result = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    commit = result.stdout.strip()
    if result.returncode != 0 or not commit:
        raise GitError(
            "not a commit; name a branch, tag or commit id (e.g. HEAD, origin/main, v0.1.0)"
        )
    return commit


def materialize_ref(ref: str, repo: Path, spec_dirs: list[Path], into: Path) -> None:
    """Write the ``*.yaml`` files of spec_dirs as they are at git ``ref`` below ``into``,
    keeping their paths relative to the repository root. A file over the spec size limit is
    refused before it is read."""
    from ..spec.load import MAX_FILE_BYTES

    commit = resolve_commit(ref, repo)
    for directory in spec_dirs:
        rel = directory.resolve().relative_to(repo.resolve()).as_posix()
        listing = subprocess.run(
            ["git", "ls-tree", "-l", "-z", commit, "--", f"{rel}/"],
            cwd=repo,
            capture_output=True,
            check=False,
        )
        if listing.returncode != 0:
            raise GitError(
                listing.stderr.decode(errors="replace").strip() or f"git ls-tree {ref} failed"
            )
        for entry in listing.stdout.decode(errors="surrogateescape").split("\0"):
            info, _, name = entry.partition("\t")
            fields = info.split()
            if not entry:
                continue
            base = name[len(rel) + 1 :] if name.startswith(f"{rel}/") else ""
            if "/" in base or base in ("", ".", ".."):
                # git's own commands make no such tree, but a fetch takes it unchecked: written
                # out, `../../x.yaml` would land anywhere the user can write
                raise GitError(
                    f"{name!r} is not a spec file of the directory {rel}/ (a tree entry "
                    "holding '/' or '..': the ref's tree is corrupt or hostile)"
                )
            if not name.endswith(".yaml") or len(fields) != 4 or fields[1] != "blob":
                continue
            if not fields[3].isdigit() or int(fields[3]) > MAX_FILE_BYTES:
                raise GitError(f"{name} is {fields[3]} bytes, over the {MAX_FILE_BYTES}-byte limit")
            blob = subprocess.run(
                ["git", "cat-file", "blob", fields[2]], cwd=repo, capture_output=True, check=False
            )
            if blob.returncode != 0:
                raise GitError(blob.stderr.decode(errors="replace").strip())
            target = into / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if fields[0] == "120000":
                # a symlink stays one: the loader's rule (it must resolve inside the spec
                # directory) judges it as it judges the working tree's, instead of its target
                # path being read as the spec's YAML
                os.symlink(os.fsdecode(blob.stdout), target)
            else:
                target.write_bytes(blob.stdout)


class GitError(Exception):
    pass


def repo_root(start: Path) -> Path:
    result = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=start,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        raise GitError("not inside a git repository: `diff --against` compares with a git ref")
    return Path(result.stdout.strip())


def tmpdir():
    """Where a ref's specs are checked out: removed on every exit (see scratch.py)."""
    from ..emit.scratch import scratch_directory

    return scratch_directory("ref")


def code_shape(files: dict[str, str]) -> dict[str, str]:
    """What generated modules do, with what they merely say left out: Python as its syntax tree
    without docstrings and with every string value blanked (messages, labels), C/C++ without
    comments and string literals; the generated tests (their inputs) are left out. Two trees of
    one shape differ only in wording."""
    import ast
    import re

    shapes = {}
    for rel, text in files.items():
        if "/tests/" in f"/{rel}" or rel.endswith("MANIFEST"):
            continue  # the generated tests' inputs and the file list are not behaviour
        if rel.endswith(".py"):
            try:
                tree = ast.parse(text)
            except SyntaxError:
                shapes[rel] = text
                continue
            for node in ast.walk(tree):
                body = getattr(node, "body", None)
                if (
                    isinstance(body, list)
                    and body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)
                ):
                    body[0].value.value = ""
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    node.value = ""
            shapes[rel] = ast.dump(tree)
        elif rel.endswith((".cu", ".cuh", ".cpp", ".h")):
            code = re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', " ", text, flags=re.S)
            shapes[rel] = " ".join(code.split())
    return shapes


def verify_cosmetic(
    changes: list[Change],
    before: dict[str, str],
    after: dict[str, str],
    reaches_code: Callable[[Change], bool] | None = None,
) -> list[Change]:
    """COSMETIC is a claim: nothing generated behaves differently. It is checked change by
    change: when the generated code's shape (code_shape) differs between the two trees at all,
    each COSMETIC change is asked, through ``reaches_code``, whether undoing it alone changes
    the generated shape; one that does (a label that became part of an expression, a reference
    config value the code defaults to) is BEHAVIOUR, whatever else changed beside it. Without
    ``reaches_code`` every COSMETIC change is then BEHAVIOUR (none can be vouched for)."""
    if not any(c.severity == COSMETIC for c in changes):
        return changes
    if code_shape(before) == code_shape(after):
        return changes  # nothing generated behaves differently: every claim holds
    result = []
    for change in changes:
        if change.severity == COSMETIC and (reaches_code is None or reaches_code(change)):
            change = Change(
                **{
                    **change.__dict__,
                    "severity": BEHAVIOUR,
                    "what": change.what + " (reaches generated code, not only its wording)",
                }
            )
        result.append(change)
    return result
