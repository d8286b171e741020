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
