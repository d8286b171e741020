"""`diff --against GIT_REF`: the semantic change list and the generated diff, for reviewers."""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path

from ..emit.fastpath import MANIFEST
from ..emit.write import body_of
from ..errors import UsageError
from .pipeline import load_families
from .semdiff import (
    BEHAVIOUR,
    BREAKING,
    SEVERITY_ORDER,
    Change,
    GitError,
    SemanticDiff,
    TreeFinding,
    apply_waivers,
    code_shape,
    diff_variant,
    materialize_ref,
    repo_root,
    tmpdir,
    verify_cosmetic,
)

EXIT_UNWAIVED_BREAKING = 5
EXIT_TREE_DIFFERS = 3  # as `check`: the committed generated tree is not what the specs produce
EXIT_CHANGES = 1  # with --exit-code
# GitHub cuts a comment at 65,536 characters: the markdown stays under it, the diffs cut first.
MAX_MARKDOWN_CHARS = 60_000


def _variants(
    spec_paths: list[Path],
) -> tuple[dict[str, dict], dict[str, dict[str, str]], dict[str, frozenset[str]]]:
    """Resolved data, waivers and ancestors (by `extends`) of every variant in the families of
    spec_paths."""
    data, waivers, ancestors = {}, {}, {}
    for inputs in load_families(spec_paths):
        name_of = {
            spec.document.path: v.name for v, spec in zip(inputs.family.variants, inputs.specs)
        }
        for variant, spec in zip(inputs.family.variants, inputs.specs):
            data[variant.name] = spec.data
            waivers[variant.name] = dict(variant.accepted_breaking_changes)
            ancestors[variant.name] = frozenset(
                name_of[doc.path] for doc in spec.lineage[:-1] if doc.path in name_of
            )
    return data, waivers, ancestors


def _behaviours(spec_paths: list[Path]) -> dict[str, dict]:
    """variant -> what its generated code answers (plan.behaviour)."""
    from ..plan.behaviour import variant_behaviour
    from ..plan.sources import SourceMap

    found: dict[str, dict] = {}
    for inputs in load_families(spec_paths):
        family = inputs.family
        sources = SourceMap(family)
        found.update(variant_behaviour(family, sources))
    return found


def _caused_elsewhere(
    changes: list,
    before: dict[str, dict],
    after: dict[str, dict],
    ancestors: dict[str, frozenset[str]],
) -> list[Change]:
    """A variant whose own resolved spec and whose ancestors' did not change, but whose
    generated behaviour did: a sibling (or the generator) changed it. Reported under that
    variant, per section. (What an ancestor's change does to it is the ancestor's change.)"""
    spec_changed = {c.variant for c in changes}
    found = []
    for name in after:
        if name not in before or name in spec_changed or ancestors.get(name, set()) & spec_changed:
            continue
        for section in sorted(set(before[name]) | set(after[name])):
            old, new = before[name].get(section), after[name].get(section)
            if old != new:
                found.append(
                    Change(
                        name,
                        f"generated.{section}",
                        "changed",
                        old,
                        new,
                        BEHAVIOUR,
                        f"{section} behaviour changed although this variant's resolved spec did "
                        "not: another variant of the family (or the generator) changed it",
                    )
                )
    return found


def _built(spec_paths: list[Path], out_dir: Path, settings) -> list:
    from .pipeline import build_texts

    return build_texts(tuple(spec_paths), out_dir, settings=settings)


def _bodies(results: list) -> dict[str, str]:
    return {rel: body_of(text) for result in results for rel, text in result.files.items()}


def _tree_findings(out_dir: Path, results: list, spec_paths: list[Path], shown: str) -> list:
    """Every way the committed output tree differs from a fresh build of the pull request's own
    specs, each with its diff. A repository that does not commit its output (no such
    directory) has none."""
    from ..emit.write import compare, locked_output, output_dir_extras

    if not out_dir.is_dir():
        return []
    findings: list[TreeFinding] = []
    with locked_output(out_dir, write=False, notify=lambda line: None):
        for result in results:
            if not (out_dir / result.package).is_dir():
                findings.append(
                    TreeFinding(
                        f"{shown}/{result.package}",
                        "missing: the specs generate this package, the tree does not hold it",
                    )
                )
                continue
            comparison = compare(out_dir, result.package, result.files, shown)
            for rel in comparison.added:
                findings.append(TreeFinding(f"{shown}/{rel}", "missing", ""))
            for rel in sorted(
                set(comparison.changed + comparison.hand_edited + comparison.foreign)
            ):
                findings.append(
                    TreeFinding(
                        f"{shown}/{rel}",
                        "committed text differs from what its specs produce",
                        comparison.diff_of.get(rel, ""),
                    )
                )
            for rel in comparison.removed:
                findings.append(
                    TreeFinding(
                        f"{shown}/{rel}",
                        "no spec produces it",
                        comparison.diff_of.get(rel, ""),
                    )
                )
            for rel, what in {**comparison.unexpected, **comparison.bytecode}.items():
                findings.append(
                    TreeFinding(
                        f"{shown}/{rel}",
                        f"{what} the build does not write",
                        comparison.diff_of.get(rel, ""),
                    )
                )
        built = {Path(p).resolve() for r in results for p in r.members}
        if all(p.resolve() in built for p in spec_paths):
            for name, what in output_dir_extras(out_dir, {r.package for r in results}).items():
                findings.append(TreeFinding(f"{shown}/{name}", f"{what} that no spec generates"))
    return sorted(findings, key=lambda f: f.path)


_MISSING = object()


def _get(data: object, path: tuple[str, ...]) -> object:
    for key in path:
        if not isinstance(data, dict) or key not in data:
            return _MISSING
        data = data[key]
    return data


def _undone(data: dict, path: tuple[str, ...], value: object) -> dict:
    """A copy of data with the field at path set to value (removed for _MISSING)."""
    import copy

    result = copy.deepcopy(data)
    node = result
    for key in path[:-1]:
        node = node.setdefault(key, {})
    if value is _MISSING:
        node.pop(path[-1], None)
    else:
        node[path[-1]] = copy.deepcopy(value)
    return result


def _code_shape_of(inputs, overrides: dict) -> dict[str, str]:
    """The generated code's shape (semdiff.code_shape) for a family whose resolved spec data
    is replaced by ``overrides`` (document path -> data). Rendered without the formatters: the
    shape ignores layout, and it is compared only with other shapes rendered this way."""
    from ..emit.render import render
    from ..plan import plan_family
    from ..plan.sources import SourceMap
    from ..spec.model import Family, Provenance, Variant

    variants, parsed = [], {}
    for spec in inputs.specs:  # parents before children
        ancestors = tuple(
            parsed[doc.path] for doc in reversed(spec.lineage[:-1]) if doc.path in parsed
        )
        variant = Variant.parse(
            overrides.get(spec.document.path, spec.data),
            spec.file,
            ancestors,
            Provenance(spec.file, spec.provenance),
        )
        parsed[spec.document.path] = variant
        variants.append(variant)
    family = Family(variants[0].name, tuple(variants))
    plan = plan_family(family, SourceMap(family))
    return code_shape({o.path: render(o.template, **dict(o.context)) for o in plan.files})


def _reaches_code(families: list, before: dict[str, dict]) -> Callable[[Change], bool]:
    """Whether undoing one change alone (in every variant that made or inherited it) changes
    the shape of the code the working tree's specs generate. Anything that cannot be undone
    alone and re-planned (the spec is then no longer valid) counts as reaching code."""
    by_variant = {v.name: inputs for inputs in families for v in inputs.family.variants}
    shapes: dict[str, dict[str, str]] = {}

    def reaches(change: Change) -> bool:
        inputs = by_variant.get(change.variant)
        if inputs is None:
            return True
        path = tuple(change.path.split("."))
        was = _MISSING if change.kind == "added" else change.before
        now = _MISSING if change.kind == "removed" else change.after
        overrides = {}
        for variant, spec in zip(inputs.family.variants, inputs.specs):
            old = before.get(variant.name)
            if old is not None and _get(old, path) == was and _get(spec.data, path) == now:
                overrides[spec.document.path] = _undone(spec.data, path, was)
        try:
            if inputs.family.name not in shapes:
                shapes[inputs.family.name] = _code_shape_of(inputs, {})
            return _code_shape_of(inputs, overrides) != shapes[inputs.family.name]
        except Exception:  # noqa: BLE001 - the spec without this change alone is not valid
            return True

    return reaches


def _generated_diff(before: dict[str, str], after: dict[str, str], out_name: str) -> str:
    """The diff of the generated bodies. The MANIFEST lists a hash of every file, so every
    change rewrites it: its churn is summed up in one line at the end instead of leading the
    diff (build and check still compare it in full)."""
    chunks = []
    manifests = []
    # What the package does first, then its generated tests (their expectations follow the
    # code), then the one-line MANIFEST note.
    order = sorted(set(before) | set(after), key=lambda rel: ("/tests/" in f"/{rel}", rel))
    for rel in order:
        old, new = before.get(rel, ""), after.get(rel, "")
        if old == new:
            continue
        if rel.rsplit("/", 1)[-1] == MANIFEST:
            manifests.append(rel)
            continue
        chunks.append(
            "".join(
                difflib.unified_diff(
                    old.splitlines(keepends=True),
                    new.splitlines(keepends=True),
                    fromfile=f"a/{out_name}/{rel}" if old else "/dev/null",
                    tofile=f"b/{out_name}/{rel}" if new else "/dev/null",
                )
            )
        )
    if chunks and manifests:
        chunks.append(
            f"# {', '.join(f'{out_name}/{m}' for m in manifests)}: file hashes updated (not shown)\n"
        )
    return "".join(chunks)


def _inherited_once(changes: list, ancestors: dict[str, frozenset[str]]) -> list:
    """A change a child inherits from its parent is reported once, under the ancestor that wrote
    it, with the variants that inherit it named. Grouping follows `extends`: two siblings that
    make the same change each report it (neither inherits it from the other)."""
    first: dict[tuple, list] = {}
    heirs: dict[int, list[str]] = {}
    for change in changes:  # parents before children
        key = (
            change.path,
            change.kind,
            json.dumps(change.before, sort_keys=True, default=str),
            json.dumps(change.after, sort_keys=True, default=str),
        )
        writers = first.setdefault(key, [])
        origin = next(
            (w for w in writers if w.variant in ancestors.get(change.variant, frozenset())), None
        )
        if origin is not None:
            heirs[id(origin)].append(change.variant)
        else:
            writers.append(change)
            heirs[id(change)] = []
    result = []
    for writers in first.values():
        for change in writers:
            if heirs[id(change)]:
                change = type(change)(
                    **{
                        **change.__dict__,
                        "what": f"{change.what} (inherited by {', '.join(heirs[id(change)])})",
                    }
                )
            result.append(change)
    return result


def semantic_diff(
    spec_paths: tuple[Path, ...], ref: str, out_dir: Path = Path("generated")
) -> SemanticDiff:
    from ..emit.format import FormatSettings

    cwd = Path.cwd()
    try:
        repo = repo_root(cwd)
    except GitError as error:
        raise UsageError(str(error)) from error
    current_paths = [p.resolve() for p in spec_paths]
    for path in current_paths:
        if not path.is_relative_to(repo.resolve()):
            raise UsageError(
                f"{path} is outside the git repository {repo}; `diff --against` compares the "
                "specs a repository tracks with their state at a ref"
            )
    out_dir = (cwd / out_dir).resolve()
    shown = os.path.relpath(out_dir, repo.resolve()).replace(os.sep, "/")
    if shown.startswith(".."):
        shown, inside = "generated", repo.resolve() / "generated"
    else:
        inside = out_dir
    # Both sides are rendered with the working tree's formatter settings, found from the
    # output directory as `build` finds them: a ref checked out in a temporary directory has
    # none around it, and its layout would differ from every committed file's.
    settings = FormatSettings.discover(inside)
    after_families = load_families(current_paths)
    after, waivers, ancestors = _variants(current_paths)
    with tmpdir() as tmp:
        old_root = Path(tmp)
        try:
            materialize_ref(ref, repo, sorted({p.parent for p in current_paths}), old_root)
        except GitError as error:
            raise UsageError(f"cannot read specs at {ref!r}: {error}") from error
        old_paths = [old_root / p.relative_to(repo.resolve()) for p in current_paths]
        existing = [p for p in old_paths if p.is_file()]
        # A spec the ref has beside them that the working tree no longer has: its variants
        # (a whole family, when its root went) were removed, which is a change to review.
        for directory in sorted({p.parent for p in old_paths}):
            for spec in sorted(directory.glob("*.yaml")):
                gone = not (repo / spec.relative_to(old_root)).exists()
                if gone and spec not in existing:
                    existing.append(spec)
        before, _, _ = _variants(existing) if existing else ({}, {}, {})
        built_before = _built(existing, old_root / shown, settings) if existing else []
        behaviour_before = _behaviours(existing) if existing else {}
    built_after = _built(current_paths, inside, settings)
    tree = _tree_findings(inside, built_after, current_paths, shown)
    generated_before, generated_after = _bodies(built_before), _bodies(built_after)
    changes = []
    order = list(after) + [name for name in before if name not in after]  # parents first
    for name in order:
        changes += diff_variant(name, before.get(name), after.get(name))
    changes += _caused_elsewhere(changes, behaviour_before, _behaviours(current_paths), ancestors)
    changes = apply_waivers(_inherited_once(changes, ancestors), waivers)
    changes = verify_cosmetic(
        changes, generated_before, generated_after, _reaches_code(after_families, before)
    )
    changes.sort(key=lambda c: (SEVERITY_ORDER[c.severity], c.variant, c.path))
    return SemanticDiff(changes, _generated_diff(generated_before, generated_after, shown), tree)


# characters of a value shown in the review table (the JSON output has every value whole)
TABLE_VALUE = 32


def _path_lines(path: str, width: int = 44) -> list[str]:
    """A field path cut at its dots into lines of about ``width`` characters (a code span does
    not wrap, and a path of five keys is wider than the table's column)."""
    lines = [""]
    for key in path.split("."):
        piece = key if not lines[-1] else f".{key}"
        if lines[-1] and len(lines[-1]) + len(piece) > width:
            lines.append(piece)
        else:
            lines[-1] += piece
    return lines


def _short(value: object, limit: int = 80) -> str:
    # ensure_ascii=False: a reviewer reads "…", not "\\u2026".
    text = (
        json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
        if value is not None
        else "—"
    )
    return text if len(text) <= limit else text[: limit - 3] + "..."


_MARKDOWN_SPECIAL = str.maketrans(
    {c: "\\" + c for c in "\\`*_[]|~>"} | {"<": "&lt;", "&": "&amp;", "\n": " ", "\r": " "}
)


def md_text(text: str) -> str:
    """Spec text in a markdown table cell, shown as it is: no markup, no HTML, no cell break."""
    return text.translate(_MARKDOWN_SPECIAL)


def md_code(text: str) -> str:
    """Spec text as inline code in a table cell. A code span shows its content literally except
    for `|` (GitHub splits table cells first, so it is escaped) and the backticks that delimit
    it (the fence is longer than any run of backticks inside)."""
    text = text.replace("\n", " ").replace("\r", " ").replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _fenced(text: str, info: str = "") -> list[str]:
    """A fenced code block that nothing inside can close: the fence is longer than any run
    of backticks in the text (a generated or committed line holding ``` would otherwise end
    the block and turn the rest of the diff into live markdown)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", text.rstrip("\n"), fence]


def _cut(text: str, budget: int, ref: str) -> str:
    """text, or as many of its first lines as fit in budget characters, with a note."""
    if len(text) <= budget:
        return text
    kept, size = [], 0
    lines = text.splitlines(keepends=True)
    for line in lines:
        if size + len(line) > budget:
            break
        kept.append(line)
        size += len(line)
    return "".join(kept) + (
        f"# ... {len(lines) - len(kept)} more lines not shown here: run "
        f"`dsv41gen diff --against {ref}` for all of it\n"
    )


def _tree_text(result: SemanticDiff) -> list[str]:
    if not result.tree:
        return []
    lines = [
        f"The committed generated tree is not what the specs produce ({len(result.tree)} "
        "entries; `dsv41gen check` fails on each):"
    ]
    lines += [f"  {f.path}: {f.what}" for f in result.tree]
    lines += [f.diff.rstrip("\n") for f in result.tree if f.diff]
    return lines + [""]


def render_text(result: SemanticDiff, ref: str) -> str:
    lines = _tree_text(result)
    lines.append(f"Semantic changes against {ref}: {len(result.changes)}")
    for c in result.changes:
        waived = f" [accepted: {c.waived_because}]" if c.waived_because else ""
        lines.append(
            f"  {c.severity:<9} {c.key}  {c.what}: {_short(c.before)} -> {_short(c.after)}{waived}"
        )
    if result.unwaived_breaking:
        lines.append(
            f"{len(result.unwaived_breaking)} breaking change(s) not accepted: fix them, or record each under "
            "review.accepted_breaking_changes (change: <id above>, reason: ...) in the spec."
        )
    lines.append("")
    lines.append(result.generated_diff or "(generated code unchanged)")
    return "\n".join(lines).rstrip("\n") + "\n"


def render_markdown(result: SemanticDiff, ref: str) -> str:
    """The PR comment: the tree's findings first (with their diffs), then the spec changes,
    BREAKING first, then the generated diff, folded. Spec text is shown as code (inert: no
    mention, issue link or autolink), and the whole stays under GitHub's comment limit."""
    counts = {s: sum(1 for c in result.changes if c.severity == s) for s in SEVERITY_ORDER}
    out = [f"### dsv41gen: spec changes against {md_code(ref)}", ""]
    tree_diff = "".join(f.diff for f in result.tree if f.diff)
    if result.tree:
        out += [
            f"#### :x: The committed generated code is not what the specs produce "
            f"({len(result.tree)})",
            "",
            "A fresh build of this pull request's own specs differs from what it commits: an "
            "edit the specs do not explain. `dsv41gen check` fails on each.",
            "",
        ]
        out += [f"- {md_code(f.path)}: {md_text(f.what)}" for f in result.tree]
        out.append("")
    out += [" · ".join(f"**{n}** {s.lower()}" for s, n in counts.items()), ""]
    if result.changes:
        # three columns, each cell's parts short code spans with spaces between them, where
        # the browser wraps (a code span itself does not): a GitHub comment is about 800 px
        # wide (six columns needed about 1,150 px). No <br>: the comment holds no raw HTML.
        out += ["| severity | field | change |", "|---|---|---|"]
        for c in result.changes:
            severity = (
                f"{c.severity} (accepted: {md_code(c.waived_because)})"
                if c.waived_because
                else c.severity
            )
            cells = [
                severity,
                " ".join([md_code(c.variant), *map(md_code, _path_lines(c.path))]),
                f"{md_text(c.what)} {md_code(_short(c.before, TABLE_VALUE))} → "
                f"{md_code(_short(c.after, TABLE_VALUE))}",
            ]
            out.append("| " + " | ".join(cells) + " |")
    if result.unwaived_breaking:
        out += [
            "",
            f":x: {len(result.unwaived_breaking)} breaking change(s) not accepted in the spec.",
        ]
    head = "\n".join(out)
    budget = MAX_MARKDOWN_CHARS - len(head) - 400
    tree_part = _cut(tree_diff, max(budget // 2, budget - len(result.generated_diff)), ref)
    generated = _cut(result.generated_diff, budget - len(tree_part), ref)
    if tree_part:
        out += ["", *_fenced(tree_part, "diff")]
    out += ["", "<details><summary>Generated code diff</summary>", ""]
    out += _fenced(generated or "# generated code unchanged\n", "diff")
    out += ["", "</details>", ""]
    return "\n".join(out)


def render_json(result: SemanticDiff, ref: str) -> str:
    return (
        json.dumps(
            {
                "against": ref,
                "tree": [{"path": f.path, "what": f.what, "diff": f.diff} for f in result.tree],
                "changes": [
                    {
                        "id": c.key,
                        "severity": c.severity,
                        "variant": c.variant,
                        "path": c.path,
                        "kind": c.kind,
                        "what": c.what,
                        "before": c.before,
                        "after": c.after,
                        "accepted_because": c.waived_because,
                    }
                    for c in result.changes
                ],
                "unaccepted_breaking": len(result.unwaived_breaking),
                "generated_diff": result.generated_diff,
            },
            indent=2,
            sort_keys=True,
            default=str,
        )
        + "\n"
    )


def run_review(
    specs: tuple[Path, ...],
    ref: str,
    fmt: str,
    echo: Callable[..., None],
    exit_code: bool = False,
    out_dir: Path = Path("generated"),
) -> int:
    """The exit status: 3 when the committed output tree is not what the specs produce (as
    `check`); else 5 on an unaccepted breaking change; with exit_code, 1 when anything
    changed (a spec field or the generated code), as `git diff --exit-code`."""
    result = semantic_diff(specs, ref, out_dir)
    render = {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt]
    echo(render(result, ref), nl=False)
    if result.tree:
        return EXIT_TREE_DIFFERS
    if result.unwaived_breaking:
        return EXIT_UNWAIVED_BREAKING
    return EXIT_CHANGES if exit_code and (result.changes or result.generated_diff) else 0


__all__ = ["run_review", "semantic_diff", "BREAKING"]
