"""The limits a spec and a checkpoint are held to are stated once, in dsv41gen/spec/limits.py at
the bottom floor, and the declaration (so the derived schema), validation and the planners read
them from there."""

from __future__ import annotations

import ast
import json
import re

import pytest
from repohelpers import REPO

import dsv41gen.spec.limits as limits
import dsv41gen.spec.output_names as output_names

PACKAGE = REPO / "dsv41gen"
LIMITS = ["MAX_EXPERTS", "MAX_STAGES", "MAX_TOKENS_PER_ROUND", "MAX_SPECULATIVE_TOKENS"]
LIMITS.append("MAX_FILLED_MESSAGE_CHARS")


@pytest.mark.parametrize("module", [limits, output_names])
def test_the_module_sits_at_the_bottom_floor(module):
    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    assert all(not (name or "").startswith(("dsv41gen", ".")) for name in imported), imported
    assert not any(isinstance(n, ast.ImportFrom) and n.level for n in ast.walk(tree))


def test_no_other_module_of_the_compiler_states_a_limit():
    stated = re.compile(r"^(?:" + "|".join(LIMITS) + r")\s*(?::[^=]*)?=", re.MULTILINE)
    where = [
        p.relative_to(REPO).as_posix()
        for p in PACKAGE.rglob("*.py")
        if "kernels" not in p.parts and stated.search(p.read_text(encoding="utf-8"))
    ]
    assert where == ["dsv41gen/spec/limits.py"]


def test_the_stage_limit_reaches_the_schema_and_the_generated_reader():
    assert limits.MAX_STAGES == 64
    assert limits.MAX_EXPERTS == 1024
    schema = json.loads((PACKAGE / "schema.json").read_text(encoding="utf-8"))
    weight_set = schema["properties"]["checkpoint"]["properties"]["weight_sets"]
    default = weight_set["additionalProperties"]["properties"]["stage_count"]["properties"]
    assert default["default"]["maximum"] == 64
    assert default["default"]["x-range"] == "the 64 stages a checkpoint may have"
    tokens = schema["$defs"]["method"]["properties"]["num_speculative_tokens"]["properties"]
    assert tokens["maximum"]["maximum"] == tokens["warn_above"]["maximum"] == 1024
    reader = (REPO / "generated" / "deepseek_v4" / "checkpoint.py").read_text(encoding="utf-8")
    assert "\nMAX_STAGES = 64\n" in reader
    assert "\nMAX_EXPERTS = 1024\n" in reader
