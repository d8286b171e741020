"""`explain`: the resolved spec, one value per line, each with the file:line it comes from."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import UsageError, did_you_mean
from ..spec.load import Path_
from ..spec.resolve import ResolvedSpec
from .pipeline import FamilyInputs


@dataclass(frozen=True)
class ExplainFilter:
    """Which variants and merge/fork sites `explain` shows (empty: all)."""

    variants: tuple[str, ...]
    sites: tuple[str, ...]

    @classmethod
    def parse(cls, inputs: FamilyInputs, variants: tuple[str, ...], sites: tuple[str, ...]):
        names = [v.name for v in inputs.family.variants]
        for name in variants:
            if name not in names:
                raise UsageError(
                    f"--variant {name!r} is not a variant of the {inputs.family.name} family"
                    f"{did_you_mean(name, names)}"
                )
        return cls(tuple(variants), tuple(sites))

    def variant(self, name: str) -> bool:
        return not self.variants or name in self.variants

    def site(self, name: str) -> bool:
        return not self.sites or any(name.startswith(prefix) for prefix in self.sites)


ALL = ExplainFilter((), ())


def _leaves(value: object, path: Path_):
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list) and value and any(isinstance(v, (dict, list)) for v in value):
        for i, item in enumerate(value):
            yield from _leaves(item, path + (i,))
    else:
        yield path, value


def resolved_lines(spec: ResolvedSpec) -> list[str]:
    rows = []
    for path, value in _leaves(spec.data, ()):
        field = ".".join(str(p) for p in path)
        rows.append((field, _show(value), str(spec.where(path))))
    width = min(max((len(f) + len(v) + 3 for f, v, _ in rows), default=0), 100)
    return [f"{(f + ' = ' + v).ljust(width)}  # {where}" for f, v, where in rows]


def _show(value: object) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if isinstance(value, str):
        return repr(" ".join(value.split()))
    return repr(value) if value is not None else "null"


def merge_fork_table(
    inputs: FamilyInputs, chosen: ExplainFilter = ALL, width: int = 100
) -> list[str]:
    """Site, value per variant, merged or forked, and where the differing values are written.

    One row per site while the padded columns fit in ``width``; else (a large family) one
    block per site, listing each distinct value once with the variants that have it."""
    from ..plan.dispatch import plan_sites
    from ..plan.sources import SourceMap

    family = inputs.family
    sources = SourceMap(family)
    names = [v.name for v in family.variants if chosen.variant(v.name)]
    sites = [site for site in plan_sites(family, sources) if chosen.site(site.name)]
    if chosen.sites and not sites:
        known = [site.name for site in plan_sites(family, sources)]
        raise UsageError(
            f"--site {', '.join(chosen.sites)}: no such merge/fork site"
            f"{did_you_mean(chosen.sites[0], known)}; sites: {', '.join(known)}"
        )
    rows = [["site", *names, "decision", "fields that differ"]]
    for site in sites:
        values = dict(site.values)
        differ = ""
        if site.decision == "forked":
            written = [
                f"{sources.location(name, *site.field.split('.'))}"
                for name in names
                if values[name] is not None
            ]
            differ = f"{site.field} ({' vs '.join(dict.fromkeys(written))})"
        rows.append([site.name, *(_show_value(values[n]) for n in names), site.decision, differ])
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    if sum(widths) + 2 * (len(widths) - 1) > width:
        return _site_blocks(rows, names, width)
    lines = []
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)] + [row[-1]]
        lines.append("  ".join(cells).rstrip())
    return lines


def _site_blocks(rows: list[list[str]], names: list[str], width: int) -> list[str]:
    """The table turned on its side, for families too wide for the terminal: each distinct
    value once, with the variants that have it; long lines wrapped to ``width``."""
    import textwrap

    def wrapped(text: str, indent: str) -> list[str]:
        return textwrap.wrap(
            text,
            max(width, 40),
            initial_indent=indent,
            subsequent_indent=indent + "    ",
            break_on_hyphens=False,
        )

    lines = []
    for row in rows[1:]:
        site, values, decision, differ = row[0], row[1:-2], row[-2], row[-1]
        lines.extend(wrapped(f"{site}: {decision}", ""))
        by_value: dict[str, list[str]] = {}
        for name, value in zip(names, values):
            by_value.setdefault(value, []).append(name)
        for value, holders in by_value.items():
            lines.extend(wrapped(f"{value}: {', '.join(holders)}", "    "))
        if differ:
            lines.extend(wrapped(f"differs: {differ}", "    "))
    return lines


def _show_value(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, tuple):
        return ",".join(str(v) for v in value)
    return str(value)


# Plugin sites whose vLLM 0.33.0 function the plugin plan does not name (it prints "(no
# function in vLLM 0.33.0)"): the function is there, in the sdist and the wheel alike, and
# `emit --vllm-tree` writes it (dsv41gen/emit/vllm_tree/sites.py, DsparkBackendReuse).
ENGINE_FUNCTIONS = {
    "speculative.dspark.kv_layout": (
        "vllm.v1.worker.gpu.spec_decode.dspark.utils._resolve_dspark_attention_backend"
    ),
}


def tree_site_lines() -> list[str]:
    """The sites `dsv41gen emit --vllm-tree` writes in vLLM's own source tree."""
    from ..emit.vllm_tree.sites import SITES

    lines = []
    for site in SITES:
        lines.append(site.name)
        lines.append(f"    file:  {site.path}")
        lines.append(f"    what:  {site.what}")
    return lines


def site_table(inputs: FamilyInputs) -> list[str]:
    """The vLLM wiring sites of the family's plugin: hooked ones, then the ones no plugin can
    hook, with the reason."""
    from ..plan.plugin import plan_plugin, site_table
    from ..plan.sources import SourceMap

    family = inputs.family
    sources = SourceMap(family)
    plan = plan_plugin(family, sources)
    if plan is None:
        return [f"(no plugin: {family.variants[0].spec_file} names no `engine`)"]
    lines = []
    for row in site_table(plan):
        site, function, hook, reads = row
        if function.startswith("(") and site in ENGINE_FUNCTIONS:
            function = ENGINE_FUNCTIONS[site]
            hook = (
                "not hooked by the plugin; `dsv41gen emit --vllm-tree` writes this function's "
                "model_type test in vLLM's own tree"
            )
        lines.append(f"{site}")
        lines.append(f"    vLLM:  {function}")
        lines.append(f"    hook:  {hook}")
        lines.append(f"    reads: {reads}")
    return lines


def explain_text(inputs: FamilyInputs, chosen: ExplainFilter = ALL, width: int = 100) -> str:
    out = []
    for variant, spec in zip(inputs.family.variants, inputs.specs):
        if not chosen.variant(variant.name):
            continue
        chain = " -> ".join(doc.file for doc in spec.lineage)
        out.append(f"== {variant.name} ({chain})")
        out.extend(resolved_lines(spec))
        out.append("")
    out.append(f"== merge / fork table of the {inputs.family.name} family")
    out.extend(merge_fork_table(inputs, chosen, width))
    out.append("")
    out.append(f"== vLLM wiring sites of the {inputs.family.name} plugin")
    out.extend(site_table(inputs))
    out.append("")
    out.append(f"== vLLM source-tree sites of `emit --vllm-tree` ({inputs.family.name})")
    out.extend(tree_site_lines())
    out.append("")
    return "\n".join(out) + "\n"
