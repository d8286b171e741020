"""The conformance matrices, generated from the specs (never from the generated code).

Each function returns ``{case_id: case}``; a case is plain JSON that ``driver.py`` runs in the
vLLM venv. A new variant, architecture, backend or method in ``specs/`` adds cases here
without new test code.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from dsv41gen.model import Family
from dsv41gen.pipeline import load_families

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"


@cache
def families() -> tuple[Family, ...]:
    return tuple(f.family for f in load_families(sorted(SPECS.glob("*.yaml"))))


def registry_cases() -> dict[str, dict]:
    """Every architecture of every variant: its table and (module, class) in vLLM's registry,
    and its resolution through vLLM's ModelRegistry once the plugin registered it."""
    cases: dict[str, dict] = {}
    for family in families():
        for variant in family.variants:
            for arch in variant.architectures:
                cases[f"{variant.name}:{arch.name}"] = {
                    "package": family.name,
                    "architecture": arch.name,
                    "table": arch.registry.dict_name,
                }
    return cases
