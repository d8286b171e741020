"""How a conformance test compares vLLM 0.33.0's outcome with the generated code's.

Outcomes are the driver's JSON: ``{"ok": value}`` or ``{"raises": type name, "message": text}``.

- **Exact, by default.** A value compares exactly; a deliberate vLLM error (a ValueError, a
  NotImplementedError, pydantic's ValidationError, an AssertionError with a message, ...)
  compares its type and its exact message.
- **An engine crash** is vLLM failing without meaning to: an unhandled TypeError,
  AttributeError, KeyError or ZeroDivisionError, or an AssertionError with no message. The generated code may not
  reproduce it (a spec states what vLLM means, never how it breaks), nor quietly do something
  else: it must refuse the same config with a deliberate error of its own (not a crash type)
  whose message names the field the user has to set. vLLM 0.33.0's MTP draft without
  ``num_speculative_tokens`` is one such case (``None > 1`` before the default applies); a
  draft config with ``num_nextn_predict_layers: 0`` is the other (its divisibility check
  computes ``num_speculative_tokens % 0``).

The rule can fail: a generated value where vLLM crashes (a default applied), a generated crash,
or a refusal that does not name the field each fail (``test_conformance_rules.py``).
"""

from __future__ import annotations

import re

ENGINE_CRASH_TYPES = frozenset({"TypeError", "AttributeError", "KeyError", "ZeroDivisionError"})


def is_engine_crash(outcome: dict[str, object]) -> bool:
    """vLLM raised without meaning to: an unhandled TypeError, AttributeError, KeyError or
    ZeroDivisionError, or an AssertionError that says nothing."""
    raised = outcome.get("raises")
    if raised is None:
        return False
    return raised in ENGINE_CRASH_TYPES or (raised == "AssertionError" and not outcome["message"])


def conformance_failure(
    vllm: dict[str, object], generated: dict[str, object], field: str
) -> str | None:
    """Why ``generated`` does not conform to ``vllm``, or None when it does. ``field`` is what
    the user sets to avoid the failure (a refusal of an engine crash must name it)."""
    if not is_engine_crash(vllm):
        if generated != vllm:
            return f"vLLM 0.33.0: {vllm}; generated: {generated}"
        return None
    if "raises" not in generated:
        return (
            f"vLLM 0.33.0 crashes ({vllm['raises']}: {vllm['message']}); the generated code "
            f"must refuse the config, but gave {generated}"
        )
    if is_engine_crash(generated):
        return (
            f"vLLM 0.33.0 crashes ({vllm['raises']}); the generated code must refuse with a "
            f"deliberate error naming {field}, not crash too: {generated}"
        )
    if field not in str(generated["message"]):
        return (
            f"vLLM 0.33.0 crashes ({vllm['raises']}); the generated refusal must name "
            f"{field!r}: {generated['message']!r}"
        )
    return None


def assert_conforms(vllm: dict[str, object], generated: dict[str, object], field: str) -> None:
    failure = conformance_failure(vllm, generated, field)
    assert failure is None, failure


# vLLM 0.33.0's ModelConfig when the registry's inspection subprocess failed for the architecture
# (model_executor/models/registry.py, _raise_for_unsupported); the cause is only in its log.
_INSPECTION_FAILED = re.compile(
    r"Model architectures \[(?P<archs>'[^']+'(, '[^']+')*)\] failed to be inspected\. "
    r"Please check the logs for more details\."
)


def torchvision_inspection_failure(
    vllm: dict[str, object], inspection_failures: dict[str, str], raises: str = "ValueError"
) -> list[str]:
    """The architectures vLLM could not inspect because torchvision would not import, when
    ``vllm`` is exactly that error (``raises``: the type as the driver records it, the
    ValueError, or pydantic's ValidationError around it) and the driver recorded, for every
    architecture it names, a last traceback line naming torchvision; else []. The CPU venv has no
    torchvision that loads beside torch 2.13.0+cpu, and Qwen3.5 / Qwen4Exp's model modules
    import it (through transformers' Qwen2-VL image processor)."""
    if vllm.get("raises") != raises:
        return []
    named = _INSPECTION_FAILED.fullmatch(str(vllm.get("message", "")))
    if named is None:
        return []
    archs = re.findall(r"'([^']+)'", named["archs"])
    if all("torchvision" in inspection_failures.get(arch, "") for arch in archs):
        return archs
    return []


CPU_VENV_CANNOT_INSPECT = (
    "vLLM 0.33.0 cannot inspect {archs} in the CPU conformance venv: its model module imports "
    "torchvision, which does not load beside torch 2.13.0+cpu"
)


def xfail_where_vllm_cannot_inspect(answer: dict, compared_instead: str) -> None:
    """An asserted xfail for a case whose target vLLM could not build here: only when vLLM's
    outcome is exactly the inspection failure and the driver recorded torchvision as its cause
    (``torchvision_inspection_failure``); any other case returns and is compared normally.
    test_torchvision_xfails.py checks which cases those are, per site."""
    import pytest

    archs = torchvision_inspection_failure(answer["vllm"], answer.get("inspection_failures", {}))
    if archs:
        pytest.xfail(
            CPU_VENV_CANNOT_INSPECT.format(archs=", ".join(archs)) + "; " + compared_instead
        )
