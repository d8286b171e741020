"""The RoPE/KV-insert sources rendered on their own, for development builds (tests, benchmarks)
that compile one variant's extension without a whole family build."""

from __future__ import annotations

from pathlib import Path

from ..plan.rope_kv import RopeKvPlan, source_context
from .render import render


def render_rope_kv(plan: RopeKvPlan) -> dict[str, str]:
    """Render the variant's files; keys are paths relative to the family output directory."""
    return {src.path: render(src.template, **source_context(plan, src)) for src in plan.sources}


def write_rope_kv(plan: RopeKvPlan, directory) -> None:
    """Render the variant into ``directory`` for development builds (tests, benchmarks), leaving
    files whose text is unchanged untouched so an extension build there stays up to date, and
    removing the variant's csrc files the plan no longer has (an include there would shadow)."""
    texts = render_rope_kv(plan)
    csrc = Path(directory) / plan.csrc_dir
    if csrc.is_dir():
        for stale in csrc.iterdir():
            if stale.is_file() and f"{plan.csrc_dir}/{stale.name}" not in texts:
                stale.unlink()
    for relative, text in texts.items():
        path = Path(directory) / relative
        if path.is_file() and path.read_text() == text:
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
