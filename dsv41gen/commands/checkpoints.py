"""`check-checkpoint`: runs the generated checkpoint module itself, so the CLI and the wiring
that ships can never disagree about what a checkpoint must contain."""

from __future__ import annotations

import os
import stat
import sys
import types
from collections.abc import Callable
from pathlib import Path, PurePosixPath

from ..errors import UsageError, did_you_mean

EXIT_CHECKPOINT_INCOMPLETE = 4
INDEX = "model.safetensors.index.json"


def _checkpoint_files(checkpoint: Path, module) -> tuple[Path, dict[str, str] | None, list[str]]:
    """(the checkpoint directory, the index's weight_map or None, the shard names the engine's
    loader opens): an index's shards when there is one (vLLM 0.33.0 keeps only the files the
    index names), else every *.safetensors file of the directory, else the one file named."""
    directory = checkpoint if checkpoint.is_dir() else checkpoint.parent
    index = directory / INDEX if checkpoint.is_dir() else checkpoint
    if checkpoint.is_dir() and not (index.exists() or index.is_symlink()):
        return directory, None, sorted(p.name for p in directory.glob("*.safetensors"))
    if not index.name.endswith(".json"):
        return directory, None, [checkpoint.name]
    _inside(directory, index.name, directory)
    # the generated module read and bounded it already (read_weight_names): a weight_map of
    # tensor name -> shard file name
    weight_map = module._read_json(index)["weight_map"]
    return directory, weight_map, sorted(set(weight_map.values()))


def _inside(directory: Path, name: str, checkpoint: Path) -> Path:
    """A checkpoint file by name, once symlinks are followed inside the checkpoint directory:
    a shard linked to /etc/passwd, or to another checkpoint, is not this checkpoint's. The one
    link out that is allowed is the Hugging Face hub cache's: snapshots/<revision>/<file> ->
    ../../blobs/<hash>, which is how every downloaded checkpoint is laid out."""
    path = directory / name
    pure = PurePosixPath(name)
    resolved = path.resolve()
    home = directory.resolve()
    hub_blobs = home.parent.parent / "blobs" if home.parent.name == "snapshots" else None
    if (
        pure.is_absolute()
        or ".." in pure.parts
        or not (
            resolved.is_relative_to(home)
            or (hub_blobs is not None and resolved.is_relative_to(hub_blobs))
        )
    ):
        raise UsageError(
            f"cannot load checkpoint {checkpoint}: {path} resolves to {resolved}, outside the "
            "checkpoint directory; put the file itself in the checkpoint directory"
        )
    try:
        mode = os.stat(resolved).st_mode
    except OSError as error:
        raise UsageError(
            f"cannot load checkpoint {checkpoint}: {path}: {error.strerror or error}"
        ) from error
    if not stat.S_ISREG(mode):
        raise UsageError(f"cannot load checkpoint {checkpoint}: {path} is not a regular file")
    return resolved


def _tensors(path: Path, shown: Path, checkpoint: Path) -> frozenset[str]:
    """The tensors of one file, as the safetensors library (which vLLM's loader opens every
    shard with) reads it: it refuses offsets that overlap, leave gaps or pass the end of the
    file, a shape whose element count times the dtype's size is not the tensor's byte count, an
    unknown dtype, a duplicate name, a file shorter than its header."""
    try:
        from safetensors import SafetensorError, safe_open
    except ImportError as error:  # pragma: no cover - the checkpoint extra installs it
        raise UsageError(
            "check-checkpoint opens each file with safetensors: pip install 'dsv41gen[checkpoint]'"
        ) from error
    try:
        with safe_open(str(path), framework="numpy") as handle:
            return frozenset(handle.keys())
    except (SafetensorError, OSError, ValueError) as error:
        raise UsageError(
            f"cannot load checkpoint {checkpoint}: {shown}: safetensors refuses the file, so the "
            f"engine's loader does too: {error}"
        ) from error


def verify_checkpoint_files(checkpoint: Path, module) -> None:
    """Every file the engine's loader would open is inside the checkpoint and is one that
    safetensors loads; an index's entries are where it says. UsageError otherwise."""
    directory, weight_map, shards = _checkpoint_files(checkpoint, module)
    held: dict[str, str] = {}
    by_shard: dict[str, frozenset[str]] = {}
    for shard in shards:
        by_shard[shard] = _tensors(
            _inside(directory, shard, checkpoint), directory / shard, checkpoint
        )
        for tensor in sorted(by_shard[shard]):
            other = held.setdefault(tensor, shard)
            if other != shard:
                raise UsageError(
                    f"cannot load checkpoint {checkpoint}: tensor {tensor!r} is in both {other} "
                    f"and {shard}; the loader would load it twice, keeping whichever comes last"
                )
    for tensor, shard in sorted((weight_map or {}).items()):
        if tensor not in by_shard[shard]:
            raise UsageError(
                f"cannot load checkpoint {checkpoint}: {INDEX} maps {tensor!r} to {shard}, "
                f"which does not hold it; the loader reads the shards' own tensors, so the "
                "index must list each tensor in the shard that holds it"
            )


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
    from ..plan.speculative import forbidden_message
    from ..spec.model import Method

    variant = _variant(spec)
    module = _generated_module(spec)
    try:
        names = module.read_weight_names(checkpoint)
        verify_checkpoint_files(checkpoint, module)
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
