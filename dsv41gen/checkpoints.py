"""`check-checkpoint`: runs the generated checkpoint module itself, so the CLI and the wiring
that ships can never disagree about what a checkpoint must contain."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path

from .errors import UsageError, did_you_mean

EXIT_CHECKPOINT_INCOMPLETE = 4


def _generated_module(spec: Path):
    from .pipeline import build_texts

    result = build_texts((spec,), Path("generated"))[0]
    text = result.files[f"{result.package}/checkpoint.py"]
    name = f"_dsv41gen_checkpoint_{result.package}"
    module = types.ModuleType(name)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    try:
        exec(compile(text, f"<generated {result.package}/checkpoint.py>", "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


def _variant(spec: Path):
    from .pipeline import load_families

    for inputs in load_families([spec]):
        for variant, resolved in zip(inputs.family.variants, inputs.specs):
            if resolved.document.path == spec.resolve():
                return variant
    raise UsageError(f"{spec}: not found among the loaded specs")  # pragma: no cover


def run_check_checkpoint(
    spec: Path,
    checkpoint: Path,
    method: str | None,
    echo: Callable[..., None],
    *,
    strict: bool = False,
) -> int:
    from .model import Method
    from .plan.speculative import forbidden_message

    variant = _variant(spec)
    module = _generated_module(spec)
    try:
        names = module.read_weight_names(checkpoint)
        hf_config = module.read_hf_config(checkpoint)
        # the stage count comes from the config or from tensor names: bounded, may be refused
        servable = module.servable_methods(variant.model_type, names, hf_config)
    except (OSError, ValueError) as error:  # CheckpointError names the file
        raise UsageError(f"cannot read checkpoint weight names: {error}") from error
    echo(f"{checkpoint}: {len(names)} tensors; {variant.display_name} ({variant.model_type})")
    echo(f"servable speculative methods: {', '.join(servable) if servable else 'none'}")
    if method is None:
        return 0
    forbidden = next((f for f in variant.forbidden if f.method.value == method), None)
    if forbidden is not None:
        echo(f"method {method!r}: {forbidden_message(variant, forbidden)}")
        return EXIT_CHECKPOINT_INCOMPLETE
    known = [m.method.value for m in variant.methods]
    if method not in known:
        valid = ", ".join(m.value for m in Method)
        if method not in valid.split(", "):
            raise UsageError(
                f"unknown speculative method {method!r}"
                f"{did_you_mean(method, [m.value for m in Method])}; methods: {valid}"
            )
        echo(
            f"method {method!r}: {variant.display_name} does not wire it (allowed: {', '.join(known)})"
        )
        return EXIT_CHECKPOINT_INCOMPLETE
    try:
        unloaded = module.unloaded_weights(variant.model_type, method, names, hf_config)
        rejected = module.rejected_weights(variant.model_type, method, names, hf_config)
    except (OSError, ValueError) as error:  # pragma: no cover - servable_methods raised first
        raise UsageError(f"cannot read checkpoint weight names: {error}") from error
    if not unloaded and not rejected:
        echo(f"method {method!r}: all required weights present")
        return 0
    fails = [(name, reason) for name, fatal, reason in unloaded if fatal]
    uninitialized = [(name, reason) for name, fatal, reason in unloaded if not fatal]
    if fails:
        echo(f"method {method!r}: {len(fails)} missing weight(s) the engine's loader fails on:")
        for name, reason in fails:
            echo(f"  {name}: {reason}")
    if uninitialized:
        quantized = " (config.json: quantized)" if module.is_quantized(hf_config) else ""
        echo(
            f"method {method!r}: {len(uninitialized)} missing weight(s) the engine loads "
            f"uninitialized{quantized}:"
        )
        for name, reason in uninitialized:
            echo(f"  warning: {name}: {reason}")
    if rejected:
        echo(f"method {method!r}: {len(rejected)} tensor(s) the engine's loader fails on:")
        for name, reason in rejected:
            echo(f"  {name}: {reason}")
    if fails or rejected or (strict and uninitialized):
        return EXIT_CHECKPOINT_INCOMPLETE
    if uninitialized:
        echo(f"method {method!r}: loads, with uninitialized weights (--strict: exit 4)")
    return 0
