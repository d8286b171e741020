"""`diff --against GIT_REF`: the semantic change list and the generated diff, for reviewers."""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable
from pathlib import Path

from .errors import UsageError
from .fastpath import MANIFEST
from .pipeline import load_families
from .semdiff import (
    BEHAVIOUR,
    BREAKING,
    SEVERITY_ORDER,
    Change,
    GitError,
    SemanticDiff,
    apply_waivers,
    diff_variant,
    materialize_ref,
    repo_root,
    tmpdir,
    verify_cosmetic,
)
from .write import body_of

EXIT_UNWAIVED_BREAKING = 5
EXIT_CHANGES = 1  # with --exit-code


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
    from .plan.behaviour import variant_behaviour
    from .plan.sources import SourceMap

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


def _copy_formatter_configs(out_dir: Path, repo: Path, old_root: Path) -> None:
    """Give the ref's build the formatter configuration the working tree's build uses (the
    ruff and clang-format files found from out_dir, at the same place below old_root). Built
    with the formatters' defaults instead, the ref's tree differed from the working tree's in
    layout alone, which read as a change of generated code (a COSMETIC edit reported as
    "reaches generated code") and filled the generated diff with reformatted lines."""
    import shutil

    from .format import find_clang_format_config, find_ruff_config

    for config in (find_ruff_config(out_dir), find_clang_format_config(out_dir)):
        if config is None:
            continue
        inside = config.resolve().is_relative_to(repo.resolve())
        target = old_root / (
            config.resolve().relative_to(repo.resolve()) if inside else config.name
        )
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(config, target)


def _generated(spec_paths: list[Path], out_dir: Path) -> dict[str, str]:
    from .pipeline import build_texts

    files: dict[str, str] = {}
    for result in build_texts(tuple(spec_paths), out_dir):
        files.update({rel: body_of(text) for rel, text in result.files.items()})
    return files


def _generated_diff(before: dict[str, str], after: dict[str, str], out_name: str) -> str:
    """The diff of the generated bodies. The MANIFEST lists a hash of every file, so every
    change rewrites it: its churn is summed up in one line at the end instead of leading the
    diff (build and check still compare it in full)."""
    chunks = []
    manifests = []
    for rel in sorted(set(before) | set(after)):
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


def semantic_diff(spec_paths: tuple[Path, ...], ref: str) -> SemanticDiff:
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
    after, waivers, ancestors = _variants(current_paths)
    with tmpdir() as tmp:
        old_root = Path(tmp)
        try:
            materialize_ref(ref, repo, sorted({p.parent for p in current_paths}), old_root)
        except GitError as error:
            raise UsageError(f"cannot read specs at {ref!r}: {error}") from error
        old_paths = [old_root / p.relative_to(repo.resolve()) for p in current_paths]
        existing = [p for p in old_paths if p.is_file()]
        before, _, _ = _variants(existing) if existing else ({}, {}, {})
        _copy_formatter_configs(repo / "generated", repo, old_root)
        generated_before = _generated(existing, old_root / "generated") if existing else {}
        behaviour_before = _behaviours(existing) if existing else {}
    generated_after = _generated(current_paths, repo / "generated")
    changes = []
    order = list(after) + [name for name in before if name not in after]  # parents first
    for name in order:
        changes += diff_variant(name, before.get(name), after.get(name))
    changes += _caused_elsewhere(changes, behaviour_before, _behaviours(current_paths), ancestors)
    changes = apply_waivers(_inherited_once(changes, ancestors), waivers)
    changes = verify_cosmetic(changes, generated_before, generated_after)
    changes.sort(key=lambda c: (SEVERITY_ORDER[c.severity], c.variant, c.path))
    return SemanticDiff(changes, _generated_diff(generated_before, generated_after, "generated"))


def _short(value: object) -> str:
    # ensure_ascii=False: a reviewer reads "…", not "\\u2026".
    text = (
        json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)
        if value is not None
        else "—"
    )
    return text if len(text) <= 80 else text[:77] + "..."


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


def render_text(result: SemanticDiff, ref: str) -> str:
    lines = [f"Semantic changes against {ref}: {len(result.changes)}"]
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
    counts = {s: sum(1 for c in result.changes if c.severity == s) for s in SEVERITY_ORDER}
    out = [
        f"### dsv41gen: spec changes against `{ref}`",
        "",
        " · ".join(f"**{n}** {s.lower()}" for s, n in counts.items()),
        "",
    ]
    if result.changes:
        out += [
            "| severity | variant | field | change | before | after |",
            "|---|---|---|---|---|---|",
        ]
        for c in result.changes:
            severity = (
                f"{c.severity} (accepted: {md_text(c.waived_because)})"
                if c.waived_because
                else c.severity
            )
            cells = [
                severity,
                md_code(c.variant),
                md_code(c.path),
                md_text(c.what),
                md_code(_short(c.before)),
                md_code(_short(c.after)),
            ]
            out.append("| " + " | ".join(cells) + " |")
    if result.unwaived_breaking:
        out += [
            "",
            f":x: {len(result.unwaived_breaking)} breaking change(s) not accepted in the spec.",
        ]
    out += ["", "<details><summary>Generated code diff</summary>", "", "```diff"]
    out.append(result.generated_diff.rstrip("\n") or "# generated code unchanged")
    out += ["```", "", "</details>", ""]
    return "\n".join(out)


def render_json(result: SemanticDiff, ref: str) -> str:
    return (
        json.dumps(
            {
                "against": ref,
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
) -> int:
    """The exit status: 5 on an unaccepted breaking change; with exit_code, 1 when anything
    changed (a spec field or the generated code), as `git diff --exit-code`."""
    result = semantic_diff(specs, ref)
    render = {"text": render_text, "markdown": render_markdown, "json": render_json}[fmt]
    echo(render(result, ref), nl=False)
    if result.unwaived_breaking:
        return EXIT_UNWAIVED_BREAKING
    return EXIT_CHANGES if exit_code and (result.changes or result.generated_diff) else 0


__all__ = ["run_review", "semantic_diff", "BREAKING"]
