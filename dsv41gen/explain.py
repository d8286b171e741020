"""`explain`: the resolved spec, one value per line, each with the file:line it comes from."""

from __future__ import annotations

from .load import Path_
from .pipeline import FamilyInputs
from .resolve import ResolvedSpec


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


def explain_text(inputs: FamilyInputs) -> str:
    out = []
    for variant, spec in zip(inputs.family.variants, inputs.specs):
        chain = " -> ".join(doc.file for doc in spec.lineage)
        out.append(f"== {variant.name} ({chain})")
        out.extend(resolved_lines(spec))
        out.append("")
    return "\n".join(out) + "\n"
