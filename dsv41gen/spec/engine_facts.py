"""Facts about the engine release dsv41gen generates for, at the bottom floor: this module imports
nothing of dsv41gen, so the declaration, validation and the planners all read the same facts
without validation reaching into the planner (plan/engine.py re-exports them).
"""

from __future__ import annotations

# The vLLM release whose wiring sites dsv41gen knows; a spec's `engine:` must name it.
VLLM_VERSION = "0.33.0"

# Compute-capability families as vLLM groups devices (`DeviceCapability.major * 10`): sm90 is
# every 9.x device (H100, H200, H20, H800). A spec names them; generated code compares numbers.
CAPABILITY_FAMILIES = ("sm70", "sm80", "sm90", "sm100", "sm110", "sm120")


def capability_number(family: str) -> int:
    """'sm90' -> 90, the family's major version times ten (the one place the name is read)."""
    if family not in CAPABILITY_FAMILIES:
        raise ValueError(f"not a capability family: {family!r}")
    return int(family.removeprefix("sm"))


# The names vLLM 0.33.0 has that a spec may use (KV spec types, the model modules and what
# they bind), read from the wheel by scripts/engine_names.py and committed as engine_names.json:
# a build never reads an installed vLLM (tests/conformance/test_engine_names.py keeps the file
# current against the conformance venv).
ENGINE_NAMES_FILE = "engine_names.json"


def engine_names() -> dict:
    """The committed facts file, parsed once."""
    global _ENGINE_NAMES
    if _ENGINE_NAMES is None:
        import json  # plain imports: this floor imports nothing from a package
        import pathlib

        path = pathlib.Path(__file__).with_name(ENGINE_NAMES_FILE)
        _ENGINE_NAMES = json.loads(path.read_text(encoding="utf-8"))
    return _ENGINE_NAMES


_ENGINE_NAMES: dict | None = None
