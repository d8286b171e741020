"""The command-line faces of the vLLM-tree emitter (cli.py wires them in)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..emit.vllm_tree import check_plan, plan_tree, write_plan
from ..emit.vllm_tree.sites import SiteError
from ..errors import UsageError

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_OUT_OF_DATE = 3  # check's code for stale or hand-edited generated output


def _plan(specs: tuple[Path, ...], tree: Path, refactor_upstream: bool, warn):
    from .pipeline import load_families

    families = [inputs.family for inputs in load_families(list(specs), warn)]
    try:
        return plan_tree(tree, families, refactor_upstream=refactor_upstream)
    except SiteError as error:
        raise UsageError(str(error)) from None


def run_emit(
    specs: tuple[Path, ...],
    tree: Path,
    refactor_upstream: bool,
    dry_run: bool,
    force: bool,
    echo: Callable[..., None],
    warn: Callable[[str], None],
) -> int:
    plan = _plan(specs, tree, refactor_upstream, warn)
    for note in plan.notes:
        echo(f"note: {note}", err=True)
    if dry_run:
        for rel in plan.changed:
            echo(plan.diff(rel), nl=False)
        return EXIT_OK
    # a first emit adopts the tree as it is: only a tree dsv41gen wrote before has hand edits
    edited = [d for d in check_plan(plan) if d.kind == "hand-edited"]
    if plan.manifest_before is None:
        edited = []
    if edited and not force:
        for drift in edited:
            echo(
                f"error: {tree / drift.path} was edited by hand inside a generated region; "
                "refusing to overwrite it.",
                err=True,
            )
        echo(
            "Move the edit into the spec, or rerun with --force to discard it. Nothing was "
            "written.",
            err=True,
        )
        return EXIT_OUT_OF_DATE
    written = write_plan(plan)
    if not written:
        echo(f"{tree}: up to date ({len(plan.after)} files)")
    for rel in written:
        echo(f"{tree / rel}: written")
    return EXIT_OK


def run_check(
    specs: tuple[Path, ...],
    tree: Path,
    echo: Callable[..., None],
    warn: Callable[[str], None],
) -> int:
    # check never refactors: a tree that was emitted with the refactor has the tables already
    plan = _plan(specs, tree, False, warn)
    drifts = check_plan(plan)
    labels = {
        "hand-edited": "edited by hand inside a generated region (move the edit into the "
        "spec, or re-run `dsv41gen emit --vllm-tree` to discard it)",
        "stale": "stale (the specs changed since the last emit; run `dsv41gen emit --vllm-tree`)",
        "not emitted": "no manifest: dsv41gen never emitted into this tree",
    }
    for drift in drifts:
        echo(f"{tree / drift.path}: {labels[drift.kind]}", err=True)
        if drift.diff:
            echo(drift.diff, nl=False)
    if drifts:
        return EXIT_OUT_OF_DATE
    echo(f"{tree}: up to date ({len(plan.after)} files)")
    return EXIT_OK
