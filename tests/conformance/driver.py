"""Runs conformance cases in the vLLM 0.33.0 venv: ``python driver.py SITE < cases.json``.

This process imports vLLM 0.33.0 (installed --no-deps beside the CPU torch) and the committed
generated package (``generated/`` on PYTHONPATH, bound to vLLM's real classes). For each case
it records what vLLM's own code does and what the generated code does, as JSON outcomes
``{"ok": value}`` or ``{"raises": type name, "message": text}``, and prints
``{case_id: {"vllm": outcome, "generated": outcome}}`` as the last line of stdout. It never
judges: the tests compare. It does not import dsv41gen (the specs arrive as cases).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable


def outcome(call: Callable[[], object]) -> dict[str, object]:
    try:
        return {"ok": call()}
    except Exception as error:  # the outcome under comparison, whatever it is
        return {"raises": type(error).__name__, "message": str(error)}


def site_registry(cases: dict[str, dict]) -> dict[str, dict]:
    from vllm.model_executor.models import registry as engine

    answers = {}
    for case_id, case in cases.items():
        generated = importlib.import_module(f"{case['package']}.registry")
        table = case["table"]

        def engine_entry(arch=case["architecture"], table=table):
            return list(getattr(engine, table)[arch])

        def generated_entry(arch=case["architecture"], table=table, generated=generated):
            return list(getattr(generated, table.strip("_"))[arch])

        answers[case_id] = {"vllm": outcome(engine_entry), "generated": outcome(generated_entry)}
    return answers


SITES: dict[str, Callable[[dict[str, dict]], dict[str, dict]]] = {
    "registry": site_registry,
}


def main() -> None:
    site = sys.argv[1]
    cases = json.load(sys.stdin)
    print(json.dumps(SITES[site](cases), sort_keys=True, default=repr))


if __name__ == "__main__":
    main()
