"""Validate stage: the JSON Schema, then the semantic rules a schema cannot say.

Every problem becomes a located Diagnostic; nothing here raises for bad input. Semantic rules
read the resolved values defensively: when the schema already reported a malformed section, a
rule that trips over it is skipped instead of piling a second, confusing error on top.
"""

from __future__ import annotations

import functools
import json
import math
import re
import struct
import unicodedata
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import Diagnostic, Diagnostics, Location, did_you_mean, dotted
from . import capabilities
from .load import DELETE, Path_
from .model import (
    CacheFormat,
    CacheFormatKind,
    Method,
    MxFormat,
    PackedLayout,
    RopeKvInsertKernel,
    ScalarType,
    _parse_mx_format,
    _parse_rope_kv,
)
from .resolve import ResolvedSpec

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "schema.json"

E8M0_NAN = 255
FLOAT32_MAX = 3.4028234663852886e38

# What each identifier pattern means, in words a spec author can act on.
_PATTERN_HELP = {
    "^[A-Za-z_][A-Za-z0-9_]*": "must be a Python identifier (letters, digits and '_', not starting with a digit)",
    "^[a-z][a-z0-9_]*": "must be a snake_case identifier (lower-case letters, digits and '_')",
    "^[A-Z][A-Z0-9_]*": "must be an UPPER_CASE identifier (upper-case letters, digits and '_')",
    "^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)*": (
        "must be a dotted path of Python identifiers such as `vllm.models.deepseek_v4` "
        "(no '/', '..', spaces or newlines)"
    ),
    "^([A-Za-z_][A-Za-z0-9_]*\\.)*\\{i\\}\\.": "must be a dotted prefix ending in `{i}.`, e.g. `mtp.{i}.`",
    "^[A-Za-z0-9_.{}+]*": "may only hold letters, digits, '_', '.', '{', '}' and '+'",
    "^[0-9]+": "must be a non-negative integer",
    "^[0-9]{1,5}": "must be a non-negative integer of at most 5 digits",
}

# Fields the language had and dropped because they reached no generated code: what a spec
# that still writes one should do instead.
RETIRED_FIELDS = {
    ("kv_cache", "layouts"): (
        ": the language no longer has it: its fields (block sizes, bytes per token, page "
        "alignment, block-size rules) reached no generated code; remove the section and keep "
        "any facts it recorded as comments"
    ),
}


def _matches(path: tuple, pattern: tuple) -> bool:
    return len(path) == len(pattern) and all(p in ("*", q) for p, q in zip(pattern, path))


def _stage_count_hint(value: object) -> str:
    """stage_count was a field name or a number; it is now {sources: [...], default: N}."""
    if isinstance(value, str):
        shape = f"{{sources: [{value}]}}"
    elif isinstance(value, list) and all(isinstance(v, str) for v in value):
        shape = f"{{sources: [{', '.join(value)}]}}"
    elif isinstance(value, int) and not isinstance(value, bool):
        shape = f"{{sources: [num_nextn_predict_layers], default: {value}}}"
    else:
        shape = "{sources: [num_nextn_predict_layers], default: 1}"
    return (
        f"; write `stage_count: {shape}` (the HF config fields that count the stages, first "
        "set wins, and the loader's fallback as `default`)"
    )


# A value of an old or wrong shape: what to write instead, keyed by field path ("*": any key).
_SHAPE_HINTS = ((("checkpoint", "weight_sets", "*", "stage_count"), _stage_count_hint),)

# A required field that is missing: an example of it, keyed by the path of its mapping.
_REQUIRED_EXAMPLES = {
    (("checkpoint", "weight_sets", "*"), "maps_to"): (
        "; the engine parameter prefix each stage loads into, e.g. "
        '`maps_to: "model.layers.{num_hidden_layers+i}."` for MTP stages that continue the '
        "target's decoder layers (V4's classic MTP), `maps_to: \"model.layers.{i}.\"` for a "
        "draft model with layers of its own (EAGLE-3: vLLM loads its midlayer.* there; DSpark)"
    ),
}

# An enum value the language knows of but does not implement: why, instead of "did you mean".
_UNIMPLEMENTED_VALUES = {
    (("quantization", "mxfp8", "value_dtype"), "float8_e5m2"): (
        "float8_e5m2 is not implemented: the MXFP8 emitter generates e4m3 values only "
        "(float8_e4m3fn, max 448); e5m2 elements (max 57344) need their own quantize and "
        "dequantize kernels. Use value_dtype: float8_e4m3fn"
    ),
}

_TYPE_WORDS = {
    "object": "a mapping",
    "array": "a list",
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "null": "null",
}


@functools.lru_cache(maxsize=1)
def schema() -> dict:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def _validator():
    import jsonschema  # imported here: a no-op rebuild never needs it

    # JSON Schema counts 8.0 as an integer; the generated code would then print it as one
    # (`{0, 8.0}` in a C++ int array, BLOCK_SIZE=8.0 in Triton, range(8.0)): an integer field
    # takes an int only.
    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool)
    )
    return jsonschema.validators.extend(base, type_checker=checker)(schema())


def _type_name(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {
        dict: "a mapping",
        list: "a list",
        str: "a string",
        int: "an integer",
        float: "a number",
    }.get(type(value), type(value).__name__)


def _non_finite(spec: ResolvedSpec, diagnostics: Diagnostics) -> list[Path_]:
    """Report every `.inf` / `.nan` of the spec (a schema `maximum` lets NaN through, since
    no comparison with NaN is true); return their paths."""
    found: list[Path_] = []

    def walk(value: object, path: Path_) -> None:
        if isinstance(value, float) and not math.isfinite(value):
            found.append(path)
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"must be a finite number, not {value!r}: generated code and kernels hold "
                "every number as a finite value",
            )
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(item, path + (key,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, path + (i,))

    walk(spec.data, ())
    return found


def _number(value: object) -> str:
    """A number as a message shows it: a 400-digit integer is abbreviated, not printed whole."""
    text = repr(value)
    return text if len(text) <= 24 else f"{text[:10]}...{text[-6:]} ({len(text)} characters)"


def _pattern_help(pattern: str) -> str:
    return _PATTERN_HELP.get(pattern.split("$")[0], f"must match {pattern}")


def _schema_errors(spec: ResolvedSpec, diagnostics: Diagnostics) -> list[Path_]:
    """Report schema violations; return the field paths they were reported at."""
    reported: list[Path_] = _non_finite(spec, diagnostics)
    not_finite = set(reported)
    for error in _validator().iter_errors(spec.data):
        path = tuple(error.absolute_path)
        if path in not_finite:
            continue  # `.inf` is also above every maximum: one message is enough
        kind = error.validator
        if kind != "additionalProperties" and "propertyNames" not in error.schema_path:
            reported.append(path)  # an unknown or badly named key leaves its siblings valid
        if kind == "pattern" and "propertyNames" in error.schema_path:
            # jsonschema reports a bad key at the mapping that holds it; point at the key.
            key = error.instance
            reported.append(path + (key,))
            diagnostics.add(
                spec.where(path + (key,)),
                dotted(path + (key,)),
                f"key {key!r} {_pattern_help(error.validator_value)}",
            )
        elif kind == "additionalProperties":
            allowed = sorted(error.schema.get("properties", {}))
            what = (
                "compute-capability family" if path[-1:] == ("by_capability_family",) else "field"
            )
            for key in sorted(set(error.instance) - set(allowed)):
                hint = (
                    RETIRED_FIELDS.get(path + (key,))
                    or did_you_mean(key, allowed)
                    or (f"; allowed: {', '.join(allowed)}" if allowed else "")
                )
                reported.append(path + (key,))
                diagnostics.add(
                    spec.where(path + (key,)),
                    dotted(path + (key,)),
                    f"unknown {what} {key!r}{hint}",
                )
        elif kind == "required":
            missing = error.message.split("'")[1] if "'" in error.message else error.message
            deleted = _deleted_at(spec, path + (missing,))
            if deleted is not None:  # the spec that removed it is where the fix goes
                diagnostics.add(
                    deleted,
                    dotted(path + (missing,)),
                    f"`!delete` removes the field {missing!r}, which every spec needs; write "
                    "this variant's own value instead",
                )
            else:
                example = next(
                    (
                        text
                        for (pattern, field_name), text in _REQUIRED_EXAMPLES.items()
                        if field_name == missing and _matches(path, pattern)
                    ),
                    "",
                )
                diagnostics.add(
                    spec.where(path), dotted(path), f"missing required field {missing!r}{example}"
                )
        elif kind == "enum" and any(
            value == error.instance and _matches(path, pattern)
            for pattern, value in _UNIMPLEMENTED_VALUES
        ):
            text = next(
                t
                for (pattern, value), t in _UNIMPLEMENTED_VALUES.items()
                if value == error.instance and _matches(path, pattern)
            )
            diagnostics.add(spec.where(path), dotted(path), text)
        elif kind == "enum":
            allowed = [str(v) for v in error.validator_value]
            hint = did_you_mean(error.instance, allowed)
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"{error.instance!r} is not one of {', '.join(allowed)}{hint}",
            )
        elif kind == "const":
            diagnostics.add(spec.where(path), dotted(path), f"must be {error.validator_value!r}")
        elif kind == "type":
            wanted = (
                error.validator_value
                if isinstance(error.validator_value, list)
                else [error.validator_value]
            )
            words = " or ".join(_TYPE_WORDS.get(w, w) for w in wanted)
            whole = (
                f"; write it without the fraction ({_number(int(error.instance))})"
                if "integer" in wanted
                and isinstance(error.instance, float)
                and error.instance.is_integer()
                else ""
            )
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"expected {words}, got {_type_name(error.instance)} ({error.instance!r}){whole}"
                + next((h(error.instance) for pat, h in _SHAPE_HINTS if _matches(path, pat)), ""),
            )
        elif kind == "pattern":
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"{error.instance!r} {_pattern_help(error.validator_value)}",
            )
        elif kind == "propertyNames":
            key = error.instance
            sub = error.context[0].validator_value if error.context else ""
            diagnostics.add(
                spec.where(path + (key,)),
                dotted(path + (key,)),
                f"key {key!r} {_pattern_help(str(sub))}",
            )
        elif kind in ("minimum", "exclusiveMinimum"):
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"must be at least {error.validator_value}"
                if kind == "minimum"
                else f"must be greater than {error.validator_value}",
            )
        elif kind in ("maximum", "exclusiveMaximum"):
            # x-range: what the bound comes from, in words (the type the generated code holds
            # the value in, a hardware limit), so the author knows the bound is real
            why = error.schema.get("x-range")
            diagnostics.add(
                spec.where(path),
                dotted(path),
                (
                    f"{_number(error.instance)} is out of range: must be at most "
                    f"{error.validator_value}"
                    if kind == "maximum"
                    else f"must be less than {error.validator_value}"
                )
                + (f" ({why})" if why else ""),
            )
        elif kind in ("maxItems", "maxLength", "maxProperties"):
            what = {"maxItems": "item(s)", "maxLength": "character(s)", "maxProperties": "key(s)"}
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"too long: at most {error.validator_value} {what[kind]}",
            )
        elif kind == "minItems":
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"must list at least {error.validator_value} item(s)",
            )
        elif kind == "uniqueItems":
            diagnostics.add(
                spec.where(path), dotted(path), "lists the same value twice; keep each value once"
            )
        elif kind == "minLength" and error.validator_value > 1:
            diagnostics.add(
                spec.where(path),
                dotted(path),
                f"too short: at least {error.validator_value} characters",
            )
        elif kind in ("minLength", "minProperties"):
            diagnostics.add(spec.where(path), dotted(path), "must not be empty")
        elif kind in ("oneOf", "anyOf"):
            message = _alternatives(error)
            if message is not None:
                diagnostics.add(spec.where(path), dotted(path), message)
        else:  # pragma: no cover - a schema keyword this table does not word yet
            diagnostics.add(spec.where(path), dotted(path), error.message)
    return reported


def _deleted_at(spec: ResolvedSpec, path: Path_) -> Location | None:
    """Where the nearest spec of the lineage wrote `key: !delete` for ``path``, if one did."""
    for doc in reversed(spec.lineage):
        value: object = doc.data
        for part in path:
            value = value.get(part) if isinstance(value, dict) else None
        if value is DELETE:
            return doc.where(path)
    return None


def _alternatives(error) -> str | None:
    """A oneOf / anyOf failure in words: what each alternative takes (jsonschema's own "is not
    valid under any of the given schemas" says neither what is wrong nor how to fix it). None
    when the value is no mapping at all: its type error is reported on its own."""
    branches = error.validator_value
    if all(set(b) == {"required"} for b in branches):
        if not isinstance(error.instance, dict):
            return None
        fields = [name for b in branches for name in b["required"]]
        present = [name for name in fields if name in error.instance]
        return f"needs exactly one of the fields {', '.join(fields)}" + (
            f"; it has {', '.join(present)}" if present else "; it has none"
        )
    words = []
    for branch in branches:
        if "enum" in branch:
            words.append(" or ".join(repr(v) for v in branch["enum"]))
            continue
        text = _TYPE_WORDS.get(branch.get("type"), "a value")
        bounds = [
            f"{label} {branch[key]}"
            for key, label in (
                ("minimum", "at least"),
                ("exclusiveMinimum", "greater than"),
                ("maximum", "at most"),
                ("exclusiveMaximum", "less than"),
            )
            if key in branch
        ]
        words.append(text + (f" {' and '.join(bounds)}" if bounds else ""))
    return f"{_number(error.instance)} is not valid: must be {', or '.join(words)}"


# ---------------------------------------------------------------------------------------------
# Semantic rules. Each takes (spec, report) and reports through report(path, message).

Report = Callable[[Path_, str], None]
_RULES: list[Callable[[ResolvedSpec, Report], None]] = []


def rule(
    function: Callable[[ResolvedSpec, Report], None],
) -> Callable[[ResolvedSpec, Report], None]:
    _RULES.append(function)
    return function


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_power_of_two(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value > 0
        and value & (value - 1) == 0
    )


def _lineage_section(spec: ResolvedSpec, section: str) -> dict:
    """The union of a top-level mapping over every spec in the lineage (deleted entries too):
    references such as `parent: DeepseekV4IndexerBackend` may name what an ancestor defines."""
    merged: dict = {}
    for doc in spec.lineage:
        value = doc.data.get(section)
        if isinstance(value, dict):
            merged.update({k: v for k, v in value.items() if isinstance(v, dict)})
    merged.update(spec.data.get(section, {}))
    return merged


@rule
def _method_allowed_and_forbidden(spec: ResolvedSpec, report: Report) -> None:
    speculative = spec.data.get("speculative", {})
    methods = speculative.get("methods", {})
    for method, forbid in speculative.get("forbidden", {}).items():
        here = ("speculative", "forbidden", method)
        if method in methods:
            report(
                here,
                f"method {method!r} is both allowed (speculative.methods.{method}) and forbidden; "
                f"remove one of them (a child spec drops an inherited method with `{method}: !delete`)",
            )
        instead = forbid.get("use_instead")
        if instead is not None and instead not in methods:
            report(
                here + ("use_instead",),
                f"suggests {instead!r}, which this variant does not allow"
                + did_you_mean(instead, methods),
            )
        if "message" not in forbid and _ancestor_method(spec, method) is None:
            report(
                here,
                f"cannot derive the rejection message: no parent spec allows {method!r}, so its weights "
                "are unknown; write `message:` for it",
            )


def _ancestor_method(spec: ResolvedSpec, method: str) -> dict | None:
    for doc in reversed(spec.lineage[:-1]):
        found = doc.data.get("speculative", {}).get("methods", {}).get(method)
        if isinstance(found, dict) and "weights" in found:
            return found
    return None


@rule
def _method_weights_declared(spec: ResolvedSpec, report: Report) -> None:
    sets = spec.data.get("checkpoint", {}).get("weight_sets", {})
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        weights = body.get("weights")
        if weights is not None and weights not in sets:
            report(
                ("speculative", "methods", method, "weights"),
                f"weight set {weights!r} is not declared under checkpoint.weight_sets"
                + (
                    did_you_mean(weights, sets)
                    or f"; declared: {', '.join(sorted(sets)) or 'none'}"
                ),
            )


@rule
def _draft_architecture_registered(spec: ResolvedSpec, report: Report) -> None:
    archs = _lineage_section(spec, "architectures")
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        arch = body.get("draft_architecture")
        if arch is None:
            continue
        here = ("speculative", "methods", method, "draft_architecture")
        if arch not in archs:
            report(
                here,
                f"unknown architecture {arch!r}; declare it under `architectures`"
                + did_you_mean(arch, archs),
            )
        elif archs[arch].get("registry") != "speculative_decoding":
            report(
                here,
                f"{arch!r} is registered as {archs[arch].get('registry')}; a draft architecture "
                "must be a speculative_decoding entry",
            )


def _shipped_names(body: dict) -> list[str]:
    shared = body.get("shared") or {}
    derived = body.get("derived") or {}
    return (
        list(body.get("required", []))
        + list(body.get("optional", []))
        + list(shared.get("required", []))
        + list(shared.get("optional", []))
        + [d.get("from") for d in derived.values() if isinstance(d, dict) and d.get("from")]
    )


def _names_or_prefix(item: str, names: list[str]) -> bool:
    return any(w == item or w.startswith(item + ".") or w.startswith(item) for w in names)


@rule
def _signature_names_declared_weights(spec: ResolvedSpec, report: Report) -> None:
    for name, body in spec.data.get("checkpoint", {}).get("weight_sets", {}).items():
        names = _shipped_names(body)
        for i, item in enumerate(body.get("signature", [])):
            if not _names_or_prefix(item, names):
                report(
                    ("checkpoint", "weight_sets", name, "signature", i),
                    f"{item!r} names no weight of this set (nor a prefix of one)"
                    + did_you_mean(item, names),
                )
        overlap = sorted(set(body.get("required", [])) & set(body.get("optional", [])))
        if overlap:
            report(
                ("checkpoint", "weight_sets", name, "optional"),
                f"{', '.join(overlap)} listed as both required and optional",
            )


@rule
def _weight_set_loader_rules(spec: ResolvedSpec, report: Report) -> None:
    """The loader rules of a weight set can all hold at once: some weight is required, a weight
    is per stage or model-level (not both), renames and rejections name what the set ships or
    must not, derived parameters have a model-level prefix, and maps_to's offset field is an
    hf_config field the family reads."""
    hf = spec.data.get("hf_config", {})
    for name, body in spec.data.get("checkpoint", {}).get("weight_sets", {}).items():
        at = ("checkpoint", "weight_sets", name)
        shared = body.get("shared") or {}
        per_stage = list(body.get("required", [])) + list(body.get("optional", []))
        model_level = list(shared.get("required", [])) + list(shared.get("optional", []))
        if not body.get("required") and not shared.get("required"):
            report(
                (*at, "required"),
                "the set requires no weight: list the weights every stage has under `required` "
                "or the model-level ones under `shared.required`",
            )
        for both in sorted(set(per_stage) & set(model_level)):
            report(
                (*at, "shared"),
                f"{both!r} is listed per stage and in `shared`: the engine loads a weight either "
                "per stage or once at model level",
            )
        shipped = _shipped_names(body)
        for source in body.get("renames", {}) or {}:
            if source not in shipped:
                report(
                    (*at, "renames", source),
                    f"{source!r} renames no weight of this set (renames go from a checkpoint name "
                    "the set lists to the engine's parameter name)" + did_you_mean(source, shipped),
                )
        for i, item in enumerate(body.get("rejected", []) or []):
            clash = [w for w in shipped if w == item or w.startswith(item + ".")]
            if clash:
                report(
                    (*at, "rejected", i),
                    f"{item!r} is rejected but the set ships {', '.join(clash)}: a checkpoint "
                    "could never satisfy both",
                )
        block = body.get("block") or {}
        routed = (block.get("experts") or {}).get("prefix", "").split("{e}")[0].rstrip(".")
        weights = list(
            dict.fromkeys(
                [
                    *shipped,
                    *(body.get("derived") or {}),
                    *block.get("required", []),
                    *block.get("optional", []),
                    *([routed] if routed else []),  # every routed expert's weights
                ]
            )
        )
        completeness = body.get("completeness") or {}
        for i, item in enumerate(completeness.get("untracked", []) or []):
            if item not in weights:
                report(
                    (*at, "completeness", "untracked", i),
                    f"{item!r} is no weight of this set: `untracked` names a weight the set "
                    "lists (its checkpoint name; a derived parameter by its own name; a block "
                    "weight; the routed experts by their prefix before `{e}`)"
                    + did_you_mean(item, weights),
                )
        if body.get("derived") and "shared" not in body:
            report(
                (*at, "derived"),
                "derived parameters are model-level: declare `shared.maps_to` (the model-level "
                "prefix they are built under)",
            )
        maps_to = body.get("maps_to")
        if isinstance(maps_to, str) and "+i}" in maps_to:
            field = maps_to.split("{", 1)[1].split("+", 1)[0]
            if field not in hf:
                report(
                    (*at, "maps_to"),
                    f"{field!r} is not an hf_config field: the stage offset is read from the "
                    "checkpoint's config.json, with the spec's hf_config value as the fallback"
                    + did_you_mean(field, hf),
                )
            elif not _is_count(hf[field]) and hf[field] != 0:
                report(
                    (*at, "maps_to"),
                    f"hf_config.{field} is {_number(hf[field])}: the stage offset must be a "
                    "non-negative integer",
                )


MAX_EXPERTS = 1024  # routed experts per decoder block: the generated check names each one


@rule
def _weight_set_block(spec: ResolvedSpec, report: Report) -> None:
    """A weight set's decoder block: every stacked or renamed name is a block weight, the
    shards of one merged parameter are distinct, a block weight is not also a weight of the set
    itself nor rejected, and the routed experts' count has a value the check can fall back on
    (the spec's hf_config: the reference checkpoint's)."""
    hf = spec.data.get("hf_config", {})
    for name, body in spec.data.get("checkpoint", {}).get("weight_sets", {}).items():
        block = body.get("block")
        if not isinstance(block, dict):
            continue
        at = ("checkpoint", "weight_sets", name, "block")
        names = list(block.get("required", [])) + list(block.get("optional", []))
        for both in sorted(set(block.get("required", [])) & set(block.get("optional", []))):
            report((*at, "optional"), f"{both!r} is listed as both required and optional")
        for key in ("stacked", "renames"):
            for source in block.get(key, {}) or {}:
                if source not in names:
                    report(
                        (*at, key, source),
                        f"{source!r} is no weight of the block: list it under `block.required` "
                        "(or `optional`); stacked and renamed names go from a checkpoint name "
                        "the block ships to the engine's parameter" + did_you_mean(source, names),
                    )
        for source in sorted(
            set(block.get("stacked", {}) or {}) & set(block.get("renames", {}) or {})
        ):
            report(
                (*at, "renames", source),
                f"{source!r} is both stacked and renamed: the engine's loader applies one rule "
                "to a name; keep it under `stacked` (a shard of a merged parameter) or `renames`",
            )
        shards: dict[tuple[str, object], str] = {}
        for source, target in (block.get("stacked", {}) or {}).items():
            key = (target.get("into"), target.get("shard"))
            if key in shards:
                report(
                    (*at, "stacked", source, "shard"),
                    f"{source!r} and {shards[key]!r} both load shard {key[1]!r} of {key[0]!r}: "
                    "each checkpoint tensor of a merged parameter fills its own shard; give "
                    f"{source!r} another shard id",
                )
            shards.setdefault(key, source)
        shared = body.get("shared") or {}
        # a derived parameter's source may be a block weight (V4 DSpark's attn.wkv loads into
        # the block and is copied into context_wkv_proj)
        set_names = [
            *body.get("required", []),
            *body.get("optional", []),
            *shared.get("required", []),
            *shared.get("optional", []),
        ]
        for weight in names:
            if weight in set_names:
                report(
                    (*at, "required" if weight in block.get("required", []) else "optional"),
                    f"{weight!r} is a weight of the set and of its block: the engine loads a "
                    "stage weight into the stage (maps_to) or into its decoder block "
                    "(maps_to + block.maps_to), not both; list it once",
                )
            for i, item in enumerate(body.get("rejected", []) or []):
                if weight == item or weight.startswith(item + "."):
                    report(
                        ("checkpoint", "weight_sets", name, "rejected", i),
                        f"{item!r} is rejected but the block ships {weight!r}: a checkpoint "
                        "could never satisfy both",
                    )
        experts = block.get("experts")
        if not isinstance(experts, dict):
            continue
        expert_shards: dict[tuple[str, object], str] = {}
        for weight, target in (experts.get("weights", {}) or {}).items():
            key = (target.get("into"), target.get("shard"))
            if key in expert_shards:
                report(
                    (*at, "experts", "weights", weight, "shard"),
                    f"{weight!r} and {expert_shards[key]!r} both load shard {key[1]!r} of "
                    f"{key[0]!r} for every expert; give {weight!r} another shard id",
                )
            expert_shards.setdefault(key, weight)
        sources = (experts.get("count") or {}).get("sources", [])
        if sources and not any(_is_count(hf.get(s)) for s in sources):
            report(
                (*at, "experts", "count", "sources"),
                f"no source ({', '.join(sources)}) has a value in hf_config: a checkpoint whose "
                "config.json sets none is checked with the spec's value (the reference "
                f"checkpoint's); state it, e.g. `hf_config: {{{sources[-1]}: 256}}`",
            )


@rule
def _block_sizes_powers_of_two(spec: ResolvedSpec, report: Report) -> None:
    for backend, body in spec.data.get("attention_backends", {}).items():
        sizes = body.get("kernel_block_sizes", {})
        lists = [(("default",), sizes.get("default", []))]
        lists += [
            (("by_capability_family", f), v)
            for f, v in sizes.get("by_capability_family", {}).items()
        ]
        for sub, values in lists:
            for i, value in enumerate(values):
                if not _is_power_of_two(value):
                    report(
                        ("attention_backends", backend, "kernel_block_sizes") + sub + (i,),
                        f"block size {value!r} is not a positive power of two (e.g. 64, 128, 256)",
                    )


@rule
def _backend_parents(spec: ResolvedSpec, report: Report) -> None:
    backends = _lineage_section(spec, "attention_backends")
    for backend, body in spec.data.get("attention_backends", {}).items():
        parent = body.get("parent")
        here = ("attention_backends", backend)
        if body.get("kind", "indexer") == "sparse_mla":
            if "metadata_builder" in body:
                report(
                    here + ("metadata_builder",),
                    "a sparse_mla entry records a name and block sizes only; remove `metadata_builder`",
                )
            if parent is not None:
                report(
                    here + ("parent",),
                    "a sparse_mla entry records a name and block sizes only; remove `parent`",
                )
            if "kernel_block_sizes" not in body:
                report(
                    here,
                    "a sparse_mla entry must state kernel_block_sizes: it has no parent to inherit them from",
                )
            continue
        if parent is None:
            report(
                here,
                "missing required field 'parent' (another backend of the family, or an engine class with parent_module)",
            )
        elif parent not in backends and "parent_module" not in body:
            report(
                here + ("parent",),
                f"unknown parent {parent!r}: not a backend of this family; name one, or give "
                "`parent_module` for an engine class" + did_you_mean(parent, backends),
            )
        elif parent in backends and "parent_module" in body:
            report(
                here + ("parent_module",),
                f"{parent!r} is a backend of this family; drop `parent_module`",
            )
        elif parent == backend:
            report(here + ("parent",), "a backend cannot be its own parent")
        elif (
            isinstance(backends.get(parent), dict) and backends[parent].get("kind") == "sparse_mla"
        ):
            # a sparse_mla entry is a registered name with block sizes: no class to derive from
            report(
                here + ("parent",),
                f"{parent!r} is a sparse_mla entry, which generates no class; name an indexer "
                "backend of the family, or an engine class with `parent_module`",
            )
        if parent not in backends and "parent_module" in body and "kernel_block_sizes" not in body:
            report(here, "an engine-parented backend must state kernel_block_sizes")
        if parent not in backends and "parent_module" in body:
            _engine_parent_binds_once(spec, backend, parent, body["parent_module"], report)


def _engine_parent_binds_once(
    spec: ResolvedSpec, backend: str, parent: object, module: object, report: Report
) -> None:
    """The generated _binding module imports each engine parent by its name, beside the KV spec
    types: one name, one class. A parent named like a KV spec type (or imported from two
    modules) would bind one name twice (ruff F811) and silently pick one of them."""
    here = ("attention_backends", backend, "parent")
    kv_types: set[object] = set()
    for data in [doc.data for doc in spec.lineage] + [spec.data]:
        # a spec's own text may say `kv_cache: !delete` or `spec_types: !delete`
        kv = data.get("kv_cache")
        types = kv.get("spec_types") if isinstance(kv, dict) else None
        kv_types |= set(types) if isinstance(types, dict) else set()
    if parent in kv_types:
        report(
            here,
            f"{parent!r} is also a KV spec type (kv_cache.spec_types.{parent}); the generated "
            "binding module binds each engine name once: name the engine class this backend "
            "extends, or rename the spec type",
        )
    for other, body in spec.data.get("attention_backends", {}).items():
        if (
            other < backend
            and body.get("parent") == parent
            and body.get("parent_module", module) != module
        ):
            report(
                here,
                f"{parent!r} is imported from {body.get('parent_module')!r} by {other} and from "
                f"{module!r} here; one name binds one class: use the same parent_module",
            )


@rule
def _num_speculative_tokens_default(spec: ResolvedSpec, report: Report) -> None:
    for name, body in spec.data.get("speculative", {}).get("methods", {}).items():
        rules = body.get("num_speculative_tokens", {})
        here = ("speculative", "methods", name, "num_speculative_tokens")
        if rules.get("default") == "draft_config_fields" and "default_sources" not in rules:
            if _deleted_at(spec, here + ("default_sources",)) is not None:
                report(  # at the child's `!delete`, where the fix goes
                    here + ("default_sources",),
                    "`!delete` removes default_sources, which the inherited `default: "
                    "draft_config_fields` reads the default from; also set `default: "
                    "tokens_per_round` (the draft's n_predict) or `default: none` (no default), "
                    "or keep default_sources",
                )
                continue
            report(
                here + ("default",),
                "default: draft_config_fields needs `default_sources` (the draft config fields "
                "the default is read from)",
            )
        if rules.get("default") != "draft_config_fields" and "default_sources" in rules:
            report(
                here + ("default_sources",),
                "`default_sources` is read only with `default: draft_config_fields`",
            )


@rule
def _runner_architectures_known(spec: ResolvedSpec, report: Report) -> None:
    archs = _lineage_section(spec, "architectures")
    runner = spec.data.get("runner", {})
    for arch in runner.get("default_model_runner", {}):
        if arch not in archs:
            report(
                ("runner", "default_model_runner", arch),
                f"unknown architecture {arch!r}" + did_you_mean(arch, archs),
            )
    for name, mode in runner.get("forbidden_modes", {}).items():
        for i, arch in enumerate(mode.get("architectures", [])):
            if arch not in archs:
                report(
                    ("runner", "forbidden_modes", name, "architectures", i),
                    f"unknown architecture {arch!r}" + did_you_mean(arch, archs),
                )
        if len(set(mode.get("cudagraph_modes", []))) != len(mode.get("cudagraph_modes", [])):
            report(
                ("runner", "forbidden_modes", name, "cudagraph_modes"), "lists the same mode twice"
            )
    # A requirement names a method of the language, not necessarily one this variant wires (a
    # child that drops a method keeps the engine's rule for it harmlessly).
    known = [m.value for m in Method]
    for name, requirement in runner.get("requires_model_runner", {}).items():
        method = requirement.get("speculative_method")
        if method is not None and method not in known:
            report(
                ("runner", "requires_model_runner", name, "speculative_method"),
                f"unknown speculative method {method!r}" + did_you_mean(method, known),
            )


@rule
def _kv_spec_types(spec: ResolvedSpec, report: Report) -> None:
    kv = spec.data.get("kv_cache", {})
    types = kv.get("spec_types", {})
    for name, body in types.items():
        seen = {name}
        parent = body.get("parent")
        if parent is not None and parent not in types:
            report(
                ("kv_cache", "spec_types", name, "parent"),
                f"unknown KV spec type {parent!r}" + did_you_mean(parent, types),
            )
            continue
        while parent is not None and parent in types:
            if parent in seen:
                report(
                    ("kv_cache", "spec_types", name, "parent"),
                    f"KV spec type hierarchy has a cycle through {parent!r}",
                )
                break
            seen.add(parent)
            parent = types[parent].get("parent")


@rule
def _kv_cache_spec_types(spec: ResolvedSpec, report: Report) -> None:
    kv = spec.data.get("kv_cache", {})
    types = kv.get("spec_types", {})
    for cache, name in (kv.get("cache_spec_types") or {}).items():
        if isinstance(name, str) and name not in types:
            report(
                ("kv_cache", "cache_spec_types", cache),
                f"unknown KV spec type {name!r} for cache {cache!r}; name a key of "
                "kv_cache.spec_types (or declare the type there)" + did_you_mean(name, types),
            )


@rule
def _mx_format(spec: ResolvedSpec, report: Report) -> None:
    fmt = spec.data.get("quantization", {}).get("mxfp8")
    if fmt is None:
        return
    here = ("quantization", "mxfp8")
    if fmt.get("scaling") == "divide":
        report(
            here + ("scaling",),
            "the divide form is rejected: dividing by exp2(sb - 127) makes the divisor 2^-127 when "
            "sb == 0 (an all-zero block), an fp32 subnormal that flushes to zero on GPUs that flush "
            "subnormals (AMD CDNA) and turns the block into 0/0 = NaN; write "
            "`scaling: multiply_reciprocal` (both forms are exact powers of two, so results are "
            "otherwise identical)",
        )
        return  # the typed model has no divide form: the capability checks need one that parses
    check_mx_capabilities(
        _parse_mx_format("mxfp8", fmt), lambda path, message: report(here + path, message)
    )


_ITEMSIZE = {"uint8": 1, "float8_e4m3fn": 1, "bfloat16": 2}


@rule
def _rope_kv_insert(spec: ResolvedSpec, report: Report) -> None:
    kernel = spec.data.get("kernels", {}).get("rope_kv_insert")
    if kernel is None:
        return
    here = ("kernels", "rope_kv_insert")
    head, nope, rope = kernel.get("head_dim"), kernel.get("nope_dim"), kernel.get("rope_dim")
    if nope + rope != head:
        report(
            here + ("head_dim",),
            f"head_dim ({head}) must equal nope_dim ({nope}) + rope_dim ({rope})",
        )
    if rope % 2:
        report(here + ("rope_dim",), f"rope_dim ({rope}) must be even: GPT-J RoPE rotates pairs")
    if kernel.get("threads_per_block") % 32:
        report(here + ("threads_per_block",), "must be a multiple of the warp size, 32")
    padded = kernel.get("num_heads_q_padded", [])
    if list(padded) != sorted(set(padded)):
        report(
            here + ("num_heads_q_padded",),
            f"must be sorted and unique, e.g. {sorted(set(padded))}",
        )
    for i, value in enumerate(padded):
        if value % 8:
            report(
                here + ("num_heads_q_padded", i),
                f"{value} is not a multiple of 8 (a warp-per-slot block holds 8 slots; 0 means KV-only)",
            )
    for name, fmt in kernel.get("cache_formats", {}).items():
        _check_cache_format(name, fmt, kernel, here + ("cache_formats", name), report)
        _check_cache_numerics(name, fmt, here + ("cache_formats", name), report)
    _check_fp8_max(kernel, here, report)
    _check_packed_cache_format(kernel, here + ("packed_cache_format",), report)


# float8_e4m3fn, the dtype of the cache's e4m3 values: its largest finite value.
E4M3_MAX = capabilities.MXFP8.value_max[ScalarType.FLOAT8_E4M3FN]


def _is_e4m3_value(value: float) -> bool:
    """A normal float8_e4m3fn value up to E4M3_MAX: (1 + m / 8) * 2^e, 3-bit m, e in [-6, 8]."""
    import math

    if not 0 < value <= E4M3_MAX:
        return False
    mantissa, exponent = math.frexp(value)  # value = mantissa * 2^exponent, mantissa in [0.5, 1)
    return exponent - 1 >= -6 and (mantissa * 16) == int(mantissa * 16)


def _check_fp8_max(kernel: dict, here: Path_, report: Report) -> None:
    """The kernel saturates e4m3 values to +-fp8_max, so fp8_max must be an e4m3 value."""
    value = kernel.get("fp8_max")
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return
    if not _is_float32(float(value)):
        return  # check_rope_kv_capabilities reports it, once
    if not _is_e4m3_value(float(value)):
        report(
            here + ("fp8_max",),
            f"{value!r} is not a float8_e4m3fn value up to its maximum {E4M3_MAX:g} (the values "
            "are stored as e4m3 and saturate at fp8_max); use e.g. 448, 240 or 224",
        )


# Which numerics field each cache kind must state, and which it must not (ref §0).
_NUMERICS_FIELDS = {
    "fp8_ds_mla": (
        "rope_contraction",
        "round_before_quantize",
        "amax_floor",
        "infinite_amax",
        "fp8_nan",
    ),
    "mxfp8": (
        "rope_contraction",
        "round_before_quantize",
        "amax_floor",
        "infinite_amax",
        "fp8_nan",
    ),
    "bf16": ("rope_contraction",),
    "fp8": ("rope_contraction", "round_before_quantize", "per_tensor_scaling", "fp8_nan"),
}
_ALL_NUMERICS = (
    "rope_contraction",
    "round_before_quantize",
    "amax_floor",
    "per_tensor_scaling",
    "infinite_amax",
    "fp8_nan",
)


def _check_cache_numerics(name: str, fmt: dict, here: Path_, report: Report) -> None:
    kind = fmt.get("kind")
    if kind not in _NUMERICS_FIELDS:
        return
    needed = _NUMERICS_FIELDS[kind]
    for field in _ALL_NUMERICS:
        if field in needed and field not in fmt:
            report(
                here,
                f"a {kind} cache format must state `{field}` (how the kernel rounds; vLLM "
                "0.33.0's choices are in ../shared/reference §0)",
            )
        elif field not in needed and field in fmt:
            report(here + (field,), f"a {kind} cache format has no use for `{field}`; remove it")


def _check_packed_cache_format(kernel: dict, here: Path_, report: Report) -> None:
    """Each capability family's packed format (and the default) names a packed cache format."""
    formats = kernel.get("cache_formats", {})
    packed = sorted(n for n, f in formats.items() if f.get("kind") in ("fp8_ds_mla", "mxfp8"))
    section = kernel.get("packed_cache_format")
    if packed and not (isinstance(section, dict) and "default" in section):
        report(
            here,
            "a variant with a packed cache format must say which one each capability family "
            f"uses: packed_cache_format: {{by_capability_family: {{}}, default: {packed[0]}}}",
        )
    if not isinstance(section, dict):
        return
    if not packed:
        report(here, "names packed cache formats, but cache_formats has none; remove it")
        return
    named = [(("default",), section.get("default"))] + [
        (("by_capability_family", family), value)
        for family, value in sorted(section.get("by_capability_family", {}).items())
    ]
    for path, value in named:
        if isinstance(value, str) and value not in packed:
            report(
                here + path,
                f"{value!r} is not a packed cache format of cache_formats; use one of "
                + ", ".join(packed),
            )


def _check_cache_format(name: str, fmt: dict, kernel: dict, here: Path_, report: Report) -> None:
    head, nope = kernel["head_dim"], kernel["nope_dim"]
    kind = fmt["kind"]
    fp8, bf16 = fmt.get("fp8_values", 0), fmt.get("bf16_values", 0)
    group, scale_bytes = fmt.get("scale_group", 0), fmt.get("scale_bytes", 0)
    expected = {
        "fp8_ds_mla": ("uint8", nope, head - nope),
        "mxfp8": ("uint8", head, 0),
        "bf16": ("bfloat16", 0, head),
        "fp8": ("float8_e4m3fn", head, 0),
    }[kind]
    dtype, want_fp8, want_bf16 = expected
    if fmt["cache_dtype"] != dtype:
        report(
            here + ("cache_dtype",),
            f"a {kind} cache is stored as {dtype}, not {fmt['cache_dtype']}",
        )
    if (fp8, bf16) != (want_fp8, want_bf16):
        report(
            here,
            f"a {kind} record holds {want_fp8} e4m3 and {want_bf16} bf16 values for head_dim {head} "
            f"(nope {nope}); the spec says fp8_values={fp8}, bf16_values={bf16}",
        )
    packed = kind in ("fp8_ds_mla", "mxfp8")
    if packed:
        if not group or fp8 % group:
            report(
                here + ("scale_group",),
                f"scale_group={group} must divide the {fp8} e4m3 values: the last group could never be filled",
            )
        else:
            needed = fp8 // group
            if scale_bytes < needed:
                report(
                    here + ("scale_bytes",),
                    f"{fp8} values in groups of {group} need {needed} scale bytes, not {scale_bytes}",
                )
        if fmt.get("layout") not in ("token_data_then_scales", "interleaved"):
            report(
                here + ("layout",),
                "packed formats use layout token_data_then_scales or interleaved",
            )
    elif group or scale_bytes:
        report(here, f"a {kind} cache has no per-group scales; remove scale_group / scale_bytes")
    if kind == "fp8" and not fmt.get("per_tensor_scale"):
        report(
            here + ("per_tensor_scale",),
            "a plain fp8 cache needs `per_tensor_scale: true` (one float32 scale)",
        )
    width_bytes = fp8 + 2 * bf16 + scale_bytes
    if fmt["bytes_per_token"] != width_bytes:
        report(
            here + ("bytes_per_token",),
            f"is {fmt['bytes_per_token']}, but {fp8} e4m3 + {bf16} bf16 values + {scale_bytes} scale "
            f"bytes take {width_bytes}",
        )
    itemsize = _ITEMSIZE.get(fmt["cache_dtype"], 1)
    if fmt["record_width"] * itemsize != fmt["bytes_per_token"]:
        report(
            here + ("record_width",),
            f"record_width {fmt['record_width']} x {itemsize} byte(s) per {fmt['cache_dtype']} element "
            f"!= bytes_per_token {fmt['bytes_per_token']}",
        )


@rule
def _compress_ratio_message_fields(spec: ResolvedSpec, report: Report) -> None:
    """The message becomes an f-string: it may name only the two values the check has."""
    kv_cache = spec.data.get("kv_cache", {})
    message = kv_cache.get("unsupported_compress_ratio_message")
    checked = message is not None or "unsupported_compress_ratio_error" in kv_cache
    if "compress_ratio_floor" in kv_cache and not checked:
        report(
            ("kv_cache", "compress_ratio_floor"),
            "compress_ratio_floor applies to the compress-ratio check, which this spec does not "
            "generate: set kv_cache.unsupported_compress_ratio_error (and compress_ratios), or "
            "delete the floor",
        )
    if message is None:
        if "unsupported_compress_ratio_error" in kv_cache and "compress_ratios" not in kv_cache:
            report(
                ("kv_cache", "compress_ratios"),
                "unsupported_compress_ratio_error is raised for the ratios outside "
                "kv_cache.compress_ratios, which is missing (deleted?): list the supported "
                "ratios, or delete the error too (`unsupported_compress_ratio_error: !delete`)",
            )
        return
    here = ("kv_cache", "unsupported_compress_ratio_message")
    if "compress_ratios" not in spec.data["kv_cache"]:
        report(
            ("kv_cache", "compress_ratios"),
            "unsupported_compress_ratio_message rejects the ratios outside "
            "kv_cache.compress_ratios, which is missing (deleted?): list the supported ratios, "
            "or delete the message too (`unsupported_compress_ratio_message: !delete`)",
        )
    _compress_ratio_template(spec, report, here, message)


@rule
def _kv_source_compressor(spec: ResolvedSpec, report: Report) -> None:
    """The kv-source compressor's check runs after the layer's own compress-ratio check (vLLM
    builds the compressor with the ratio the layer accepted), and its message becomes an
    f-string like the layer's."""
    kv_cache = spec.data.get("kv_cache", {})
    compressor = kv_cache.get("kv_source_compressor")
    if not isinstance(compressor, dict):
        return
    here = ("kv_cache", "kv_source_compressor")
    checked = (
        "unsupported_compress_ratio_message" in kv_cache
        or "unsupported_compress_ratio_error" in kv_cache
    )
    if not checked or "compress_ratios" not in kv_cache:
        report(
            here,
            "kv_source_compressor is checked after the layer's compress-ratio check, which "
            "needs kv_cache.compress_ratios and kv_cache.unsupported_compress_ratio_error (or "
            "_message): set them, or delete kv_source_compressor",
        )
    elif (
        _int_list(compressor.get("compress_ratios"))
        and _int_list(kv_cache["compress_ratios"])
        and not set(compressor["compress_ratios"]) & set(kv_cache["compress_ratios"])
    ):
        report(
            here + ("compress_ratios",),
            "the compressor accepts none of the ratios the layer accepts "
            "(kv_cache.compress_ratios): every kv-source layer would fail; list the ratios the "
            "compressor takes",
        )
    message = compressor.get("unsupported_compress_ratio_message")
    if isinstance(message, str):
        _compress_ratio_template(
            spec, report, here + ("unsupported_compress_ratio_message",), message
        )


def _int_list(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    )


def _compress_ratio_template(spec: ResolvedSpec, report: Report, here: tuple, message: str) -> None:
    """A compress-ratio message becomes an f-string: it may name only the values the check
    has, and {display_name} filled in must stay bounded."""
    import string

    try:
        parts = list(string.Formatter().parse(message))
    except ValueError as error:
        report(
            here,
            f"is not a valid message template ({error}); write a literal brace as '{{{{' or '}}}}'",
        )
        return
    for _, name, spec_, conversion in parts:
        if name is None:
            continue
        if name not in ("layer_id", "compress_ratio", "display_name") or spec_ or conversion:
            report(
                here,
                f"may only use the fields {{layer_id}}, {{compress_ratio}} and {{display_name}} "
                f"(found {{{name}}}); write a literal brace as '{{{{' or '}}}}'",
            )
    # {display_name} becomes the variant's display name as literal text in the generated
    # check: bounded, or a few placeholders multiply a long name into a module of gigabytes
    count = sum(name == "display_name" for _, name, _, _ in parts)
    display = spec.data.get("variant", {}).get("display_name")
    if count and isinstance(display, str):
        filled = len(" ".join(message.split())) + count * (len(display) - len("{display_name}"))
        if filled > MAX_FILLED_MESSAGE_CHARS:
            report(
                here,
                f"is {filled} characters once its {count} {{display_name}} fields are filled in, "
                f"more than {MAX_FILLED_MESSAGE_CHARS}; name the variant fewer times or shorten "
                "its display_name",
            )


def _display_name_messages(data: dict) -> list[tuple[tuple, str]]:
    """The spec messages that may say {display_name}, with their field paths."""
    found = []
    for name, body in data.get("speculative", {}).get("forbidden", {}).items():
        found.append((("speculative", "forbidden", name, "message"), (body or {}).get("message")))
    for name, body in data.get("runner", {}).get("forbidden_modes", {}).items():
        found.append((("runner", "forbidden_modes", name, "message"), (body or {}).get("message")))
    kv = data.get("kv_cache", {})
    found.append(
        (
            ("kv_cache", "unsupported_compress_ratio_message"),
            kv.get("unsupported_compress_ratio_message"),
        )
    )
    compressor = kv.get("kv_source_compressor") or {}
    found.append(
        (
            ("kv_cache", "kv_source_compressor", "unsupported_compress_ratio_message"),
            compressor.get("unsupported_compress_ratio_message"),
        )
    )
    return [(path, message) for path, message in found if isinstance(message, str)]


def _display_name(data: object) -> str | None:
    variant = data.get("variant") if isinstance(data, dict) else None
    name = variant.get("display_name") if isinstance(variant, dict) else None
    return name if isinstance(name, str) else None


@rule
def _inherited_messages_name_their_variant(spec: ResolvedSpec, report: Report) -> None:
    """A message this variant inherits must not name the ancestor that wrote it: raised for
    this variant, it would name the wrong model. {display_name} names the variant it is raised
    for."""
    import re

    own = _display_name(spec.data)
    # The ancestors' own documents, not yet validated when this child is (an ancestor's schema
    # error is reported at the ancestor): read them as data that may be of any shape.
    ancestors = {_display_name(doc.data) for doc in spec.lineage[:-1]} - {own, None}
    for path, message in _display_name_messages(spec.data):
        if spec.where(path).file == spec.file:
            continue  # the variant's own words: it may name another model on purpose
        for name in sorted(ancestors):
            # a whole name only: "DeepSeek V4" in "DeepSeek V4.1" is not V4's name
            if re.search(rf"(?<![\w.]){re.escape(name)}(?!\.?\w)", message):
                report(
                    path,
                    f"names {name!r}, but {own} inherits this message and would raise it "
                    f"naming {name}; write {{display_name}} where the name goes (each "
                    "variant's own display_name fills it in)",
                )
                break


# A message with its {display_name} fields filled in (a generated string literal)
MAX_FILLED_MESSAGE_CHARS = 16384


MAX_STAGES = 64  # checkpoint stages (MTP / DSpark layers) a weight set may have
MAX_TOKENS_PER_ROUND = 64


@rule
def _hf_config_counts(spec: ResolvedSpec, report: Report) -> None:
    """The hf_config values the generated code counts with: a stage count becomes one list of
    weight names per stage (100,000 stages once wrote a 518 MB test module), tokens per round
    become divisibility checks. Each must be a small positive integer."""
    hf = spec.data.get("hf_config", {})
    uses: dict[str, str] = {}
    for name, body in spec.data.get("checkpoint", {}).get("weight_sets", {}).items():
        for source in (body.get("stage_count") or {}).get("sources", []):
            uses.setdefault(source, f"checkpoint.weight_sets.{name}.stage_count.sources")
        experts = (body.get("block") or {}).get("experts") or {}
        for source in (experts.get("count") or {}).get("sources", []):
            uses.setdefault(source, f"checkpoint.weight_sets.{name}.block.experts.count.sources")
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        for source in body.get("tokens_per_round", {}).get("sources", []):
            uses.setdefault(source, f"speculative.methods.{method}.tokens_per_round.sources")
    for field_name, use in uses.items():
        if field_name not in hf or hf[field_name] is None:
            continue
        value = hf[field_name]
        if ".experts." in use:
            limit = MAX_EXPERTS
        elif use.startswith("checkpoint."):
            limit = MAX_STAGES
        else:
            limit = MAX_TOKENS_PER_ROUND
        if not _is_count(value) or value > limit:
            report(
                ("hf_config", field_name),
                f"{_number(value)} is out of range: {use} counts with it, so it must be an "
                f"integer from 1 to {limit}",
            )


def _default_within_maximum(
    hf: dict, method: str, body: dict, maximum: int, report: Report
) -> None:
    """The default num_speculative_tokens the reference hf_config gives must meet the maximum:
    otherwise the variant's own checkpoint cannot be served without naming the count."""
    rules = body.get("num_speculative_tokens", {})
    default = rules.get("default", "tokens_per_round")
    if default == "draft_config_fields":
        fields = rules.get("default_sources", [])
    elif default == "tokens_per_round":
        fields = body.get("tokens_per_round", {}).get("sources", [])
    else:
        return
    field = next((f for f in fields if _is_count(hf.get(f))), None)
    if field is None or not isinstance(maximum, int) or hf[field] <= maximum:
        return
    report(
        ("speculative", "methods", method, "num_speculative_tokens", "maximum"),
        f"maximum {maximum} is below the default num_speculative_tokens, {hf[field]} "
        f"(hf_config.{field}): a request that names no count would be refused; raise the "
        f"maximum to at least {hf[field]} or lower hf_config.{field}",
    )


@rule
def _speculative_token_limits(spec: ResolvedSpec, report: Report) -> None:
    hf = spec.data.get("hf_config", {})
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        rules = body.get("num_speculative_tokens", {})
        maximum = rules.get("maximum")
        if maximum is None:
            continue
        _default_within_maximum(hf, method, body, maximum, report)
        sources = body.get("tokens_per_round", {}).get("sources", [])
        source = next((s for s in sources if _is_count(hf.get(s))), None)
        if source is None:
            continue
        per_round = hf[source]
        if rules.get("divisibility") == "always" and maximum < per_round:
            report(
                ("speculative", "methods", method, "num_speculative_tokens", "maximum"),
                f"maximum {maximum} is below tokens per round ({per_round}, hf_config.{source}): no "
                f"num_speculative_tokens can be both <= {maximum} and divisible by {per_round}; "
                f"raise the maximum to at least {per_round} or relax `divisibility`",
            )
        warn = rules.get("warn_above")
        if isinstance(warn, int) and warn >= maximum:
            report(
                ("speculative", "methods", method, "num_speculative_tokens", "warn_above"),
                f"warn_above ({warn}) >= maximum ({maximum}): the warning could never fire",
            )


@rule
def _engine_known(spec: ResolvedSpec, report: Report) -> None:
    from .engine_facts import VLLM_VERSION

    engine = spec.data.get("engine")
    if engine is not None and engine != f"vllm=={VLLM_VERSION}":
        report(
            ("engine",),
            f"dsv41gen knows the wiring sites of vllm=={VLLM_VERSION} only, not {engine!r}; "
            f"write `engine: vllm=={VLLM_VERSION}` (and check the spec against that release)",
        )


def validate_spec(spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
    """Schema first; semantic rules after, skipping a rule that trips over malformed input.

    Validate a family's ancestors before their children (the pipeline does): an error a child
    inherits unchanged is then reported once, and an error that only the child's values cause
    in an inherited field says which spec it is about.
    """
    _check_file_names(spec, diagnostics)
    diagnostics = _Inherited(spec, diagnostics)
    schema_errors = _schema_errors(spec, diagnostics)
    malformed = {p for p in schema_errors if p}

    def report(path: Path_, message: str) -> None:
        path = tuple(path)
        if any(path[:n] in malformed for n in range(1, len(path) + 1)):
            return  # the schema already reported this field (or the section holding it)
        # a field a spec of the lineage deleted is reported at that `!delete`
        diagnostics.add(_deleted_at(spec, path) or spec.where(path), dotted(path), message)

    for check in _RULES:
        try:
            check(spec, report)
        except (TypeError, KeyError, AttributeError, ValueError, ArithmeticError):
            if not schema_errors:
                raise  # a well-formed spec must never trip a rule: that is a bug here


class _Inherited:
    """Adds diagnostics for one spec; marks those located in an ancestor's file."""

    def __init__(self, spec: ResolvedSpec, diagnostics: Diagnostics):
        self.spec = spec
        self.diagnostics = diagnostics

    def add(self, location: Location, path: str, message: str) -> None:
        if location.file != self.spec.file:
            if Diagnostic(location, path, message) in self.diagnostics:
                return  # the ancestor itself has this error; the child only inherits it
            message += f" (in {self.spec.file}, which inherits this value)"
        self.diagnostics.add(location, path, message)


def iter_rules() -> Iterator[str]:
    return (r.__name__.lstrip("_") for r in _RULES)


# ---------------------------------------------------------------------------------------------
# Capability rules: what the kernel emitters implement (capabilities.py), checked on the typed
# model of one section, every violation at its own field. The planners only assert these.

FieldReport = Callable[[Path_, str], None]


def check_mx_capabilities(fmt: MxFormat, report: FieldReport) -> None:
    caps = capabilities.MXFP8
    if fmt.block_size not in caps.block_sizes:
        report(
            ("block_size",),
            f"is {fmt.block_size}; the MXFP8 emitter implements block_size "
            f"{_one_of(caps.block_sizes)} (its kernels tile [rows, blocks, 32] and the swizzled "
            "scale layout assumes 32-value blocks)",
        )
    value_max = caps.value_max.get(fmt.value_dtype)
    if value_max is None:
        report(
            ("value_dtype",),
            f"{fmt.value_dtype.value} has no exact rounding path here; use "
            + _one_of([t.value for t in caps.value_max]),
        )
    elif fmt.value_max != value_max:
        report(
            ("value_max",),
            f"{fmt.value_dtype.value}'s largest finite value is {value_max:g}, not "
            f"{fmt.value_max:g}",
        )
    if fmt.scale_encoding not in caps.scale_encodings:
        report(("scale", "encoding"), "only E8M0 scales are implemented")
    if fmt.scale_dtype not in caps.scale_dtypes:
        report(("scale", "dtype"), "E8M0 scales are stored as uint8")
    if fmt.scale_bias != caps.scale_bias:
        report(("scale", "bias"), f"E8M0 has bias {caps.scale_bias}, not {fmt.scale_bias}")
    low, high = caps.scale_byte_range
    if fmt.scale_min < low:
        report(("scale", "min"), "an E8M0 scale byte cannot be negative")
    if fmt.scale_max > high:
        report(
            ("scale", "max"),
            f"must be at most {high}: the byte {E8M0_NAN} encodes NaN in E8M0",
        )
    if fmt.scale_min > fmt.scale_max:
        report(("scale",), f"min ({fmt.scale_min}) is greater than max ({fmt.scale_max})")
    for i, layout in enumerate(fmt.layouts):
        if layout not in caps.layouts:
            report(("layouts", i), f"the {layout.value} scale layout is not implemented")
    if len(set(fmt.layouts)) == 1:
        # The emitted kernels switch on a LAYOUT constexpr with one branch per layout; a switch
        # of one branch has no form there yet (it rendered `if:` with no condition).
        report(
            ("layouts",),
            f"lists only {fmt.layouts[0].value}; the MXFP8 emitter generates its scale layouts "
            f"together, so list {', '.join(layout.value for layout in caps.layouts)}",
        )
    launch = fmt.launch
    for key, value in (
        ("block_m", launch.block_m),
        ("block_k", launch.block_k),
        ("num_warps", launch.num_warps),
    ):
        if not _is_power_of_two(value):
            report(("launch", key), f"{value!r} is not a power of two (Triton tiles need one)")
    if _is_power_of_two(launch.block_k) and launch.block_k % fmt.block_size:
        report(
            ("launch", "block_k"),
            f"block_k={launch.block_k} is not a multiple of block_size={fmt.block_size}: a tile "
            f"would split a scale block, which can never be computed; use a multiple of "
            f"{fmt.block_size}",
        )
    if launch.num_warps > caps.max_num_warps:
        report(("launch", "num_warps"), f"must be at most {caps.max_num_warps} (Triton's limit)")


@rule
def _rope_kv_capabilities(spec: ResolvedSpec, report: Report) -> None:
    kernel = spec.data.get("kernels", {}).get("rope_kv_insert")
    if kernel is None:
        return
    here = ("kernels", "rope_kv_insert")
    check_rope_kv_capabilities(
        _parse_rope_kv(kernel), lambda path, message: report(here + path, message)
    )


def check_rope_kv_capabilities(kernel: RopeKvInsertKernel, report: FieldReport) -> None:
    caps = capabilities.ROPE_KV
    lane = caps.values_per_lane
    if kernel.head_dim not in caps.head_dims:
        report(
            ("head_dim",),
            f"is {kernel.head_dim}; the RoPE + KV emitter implements head_dim "
            f"{_one_of(caps.head_dims)} (one warp per row: {caps.warp_size} lanes x {lane} "
            "16-bit values, two 16-byte accesses a lane)",
        )
    if kernel.nope_dim % lane:
        report(
            ("nope_dim",),
            f"{kernel.nope_dim} is not a multiple of {lane}: each lane holds {lane} values, and "
            "a lane is either all NoPE or all RoPE",
        )
    for i, dtype in enumerate(kernel.input_dtypes):
        if dtype not in caps.input_dtypes:
            report(
                ("input_dtypes", i),
                f"{dtype.value} is not implemented; use {_one_of([t.value for t in caps.input_dtypes])}",
            )
    if not _is_float32(kernel.fp8_max):
        report(
            ("fp8_max",),
            f"{kernel.fp8_max!r} is not exactly a float32 value: the kernel compares and "
            "saturates in float32, so the bound must be one (e.g. 448)",
        )
    kinds: dict[CacheFormatKind, str] = {}
    dtypes: dict[ScalarType, list[CacheFormat]] = {}
    for fmt in kernel.cache_formats:
        at = ("cache_formats", fmt.name)
        _check_cache_capabilities(fmt, at, report)
        if fmt.kind in kinds:
            report(
                at + ("kind",),
                f"{kinds[fmt.kind]} already has kind {fmt.kind.value}; each kind may appear once",
            )
        kinds.setdefault(fmt.kind, fmt.name)
        dtypes.setdefault(fmt.cache_dtype, []).append(fmt)
    for dtype, same in dtypes.items():
        # The KV-only op tells the two packed uint8 formats apart by `kv_mxfp8`; any other pair
        # of formats on one cache dtype could not be told apart at run time.
        mx = sum(f.kind is CacheFormatKind.MXFP8 for f in same)
        if len(same) > 1 and not (len(same) == 2 and mx == 1):
            report(
                ("cache_formats", same[-1].name, "cache_dtype"),
                f"{', '.join(f.name for f in same)} share cache dtype {dtype.value}; the "
                "insert could not tell them apart (only an mxfp8 format may share one, told "
                "apart by kv_mxfp8)",
            )


def _is_float32(value: float) -> bool:
    """Exactly a finite float32 (struct refuses to pack what overflows one)."""
    if not math.isfinite(value) or abs(value) > FLOAT32_MAX:
        return False
    return struct.unpack("<f", struct.pack("<f", value))[0] == value


_PACKED_KINDS = (CacheFormatKind.FP8_DS_MLA, CacheFormatKind.MXFP8)


def _check_cache_capabilities(fmt: CacheFormat, at: Path_, report: FieldReport) -> None:
    caps = capabilities.ROPE_KV
    lane = caps.values_per_lane
    if fmt.cache_dtype not in caps.cache_dtypes:
        report(at + ("cache_dtype",), f"{fmt.cache_dtype.value} caches are not implemented")
    if fmt.fp8_values % lane:
        report(
            at + ("fp8_values",),
            f"{fmt.fp8_values} is not a multiple of {lane}: a lane quantizes all {lane} of its "
            "values or none",
        )
    if (2 * fmt.bf16_values) % caps.vector_bytes:
        report(
            at + ("bf16_values",),
            f"{fmt.bf16_values} bf16 values are not a whole number of {caps.vector_bytes}-byte "
            "accesses",
        )
    if fmt.scale_group:
        lanes = fmt.scale_group // lane
        if fmt.scale_group % lane or lanes & (lanes - 1):
            report(
                at + ("scale_group",),
                f"{fmt.scale_group} is not a power-of-two multiple of {lane}: a scale group "
                "spans whole lanes, reduced by a butterfly",
            )
    packed_layout = fmt.layout in (PackedLayout.TOKEN_DATA_THEN_SCALES, PackedLayout.INTERLEAVED)
    if packed_layout and fmt.kind not in _PACKED_KINDS:
        report(at + ("layout",), f"a {fmt.kind.value} cache is plain rows: write `layout: none`")
    lanes = fmt.scale_group // lane
    if fmt.scale_group and fmt.scale_group % lane == 0 and not lanes & (lanes - 1):
        # rope_kv_core.cuh store_scales: lane 0 writes a token's scale bytes with one 4-, 8- or
        # 16-byte store, gathering slot i from lane i * (scale_group / values per lane).
        data_bytes = fmt.fp8_values + 2 * fmt.bf16_values
        if (
            fmt.scale_bytes not in (4, 8, 16)
            or fmt.scale_bytes * lanes > caps.warp_size
            or data_bytes % fmt.scale_bytes
        ):
            report(
                at + ("scale_bytes",),
                f"{fmt.scale_bytes} is not implemented: a token's scale bytes are written with one "
                f"4-, 8- or 16-byte store gathering one byte per {lanes} lanes (so at most "
                f"{caps.warp_size // lanes}), aligned by a token record of a multiple of them",
            )
    if fmt.per_tensor_scale and fmt.kind is not CacheFormatKind.FP8:
        report(
            at + ("per_tensor_scale",),
            f"a per-tensor scale applies to plain fp8 rows only, not to a {fmt.kind.value} cache",
        )


def _one_of(values) -> str:
    values = [str(v) for v in values]
    return values[0] if len(values) == 1 else ", ".join(values[:-1]) + " or " + values[-1]


# ---------------------------------------------------------------------------------------------
# Names: what a spec names becomes a file, a Python package or module, a class or a C++ name.
# None of it may shadow what the language, the standard library or the generated modules
# themselves define; a spec file name reaches generated files (headers, source-map comments)
# and must be plain too.

SPEC_FILE_NAME = re.compile(r"[A-Za-z0-9_.-]+")


def _bad_file_name(name: str) -> str | None:
    if SPEC_FILE_NAME.fullmatch(name) and name not in (".", ".."):
        return None
    return (
        f"the spec file name {name!r} may only hold letters, digits, '_', '.' and '-' "
        "(it is written into every generated file)"
    )


def _check_file_names(spec: ResolvedSpec, diagnostics: Diagnostics) -> None:
    """The spec's own file name (reported at its first line) and its ``extends`` target."""
    problem = _bad_file_name(Path(spec.file).name)
    if problem:
        diagnostics.add(Location(spec.file, 1, 1), "", problem + "; rename the file")
    target = spec.document.data.get("extends")
    if isinstance(target, str):
        problem = _bad_file_name(Path(target).name)
        if problem:
            where = spec.document.where(("extends",))
            diagnostics.add(where, "extends", problem + "; rename the parent spec")


@functools.lru_cache(maxsize=1)
def generated_module_names() -> tuple[frozenset[str], dict[str, frozenset[str]]]:
    """(modules of a generated package, names each generated Python module defines), read off
    the templates themselves: a template that gains a function or a module is covered without a
    list here to keep up to date."""
    from ..emit.inputs import templates_dir

    modules: set[str] = {"tests", "csrc"}
    defined: dict[str, frozenset[str]] = {}
    for template in sorted(templates_dir().rglob("*.py.j2")):
        text = template.read_text(encoding="utf-8")
        names = set()
        for line in text.splitlines():
            match = re.match(r"\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", line)
            match = match or re.match(r"\s*([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)", line)
            if match:
                names.add(match[1])
            imported = re.match(r"\s*(?:from\s+(\.*)([\w.]*)\s+)?import\s+(.+)", line)
            if imported:
                dots, module, what = imported.groups()
                listed = [w.split(" as ")[-1].strip(" ()") for w in what.split(",")]
                names.update(n for n in listed if n.isidentifier())
                if dots and module:
                    modules.add(module.split(".")[0])
                elif dots:
                    modules.update(n for n in listed if n.isidentifier())
        defined[template.name.removesuffix(".py.j2")] = frozenset(names)
        if template.parent.name == "triton":
            modules.add(template.name.removesuffix(".py.j2"))  # mxfp8, mxfp8_reference
    return frozenset(modules), defined


def _name_clash(name: str, *, module_names: frozenset[str] = frozenset()) -> str | None:
    """Why ``name`` cannot be a generated identifier, or None (keywords: see
    _names_are_not_keywords, which covers every name field)."""
    import builtins

    if hasattr(builtins, name):
        return f"{name!r} is a Python builtin"
    if name in module_names:
        return f"{name!r} is already a name of the generated module"
    return None


# Modules Python imports by itself from sys.path at start-up (site): a generated package of
# that name would run at every interpreter start of whoever puts the output directory there.
_STARTUP_MODULES = frozenset({"sitecustomize", "usercustomize"})
_IMPORTS = re.compile(
    r"^\s*from ([A-Za-z_]\w*)[\w.]* import |^\s*import ([A-Za-z_]\w*)[\w.]*(?: as \w+)?\s*$"
    r'|import_module\("([A-Za-z_]\w*)',
    re.MULTILINE,
)


@functools.lru_cache(maxsize=1)
def imported_packages() -> frozenset[str]:
    """Top-level packages other than the standard library's that the generated code imports,
    read off the templates and the kernel runtime they bind to (dsv41gen, vllm, torch, triton,
    pytest, ...). A generated package named like one shadows it for every importer with the
    output directory on sys.path, and installing the plugin would overwrite its files."""
    import sys

    from ..emit.inputs import templates_dir

    sources = sorted(templates_dir().rglob("*.j2")) + sorted(
        (Path(__file__).resolve().parents[1] / "kernels").glob("*.py")
    )
    found = set()
    for source in sources:
        for match in _IMPORTS.finditer(source.read_text(encoding="utf-8")):
            found.add(next(group for group in match.groups() if group))
    return frozenset(found - set(sys.stdlib_module_names) - {"__future__"})


def _package_clash(name: str) -> str | None:
    import sys

    modules, _ = generated_module_names()
    if name in sys.stdlib_module_names:
        return f"{name!r} is a Python standard-library module"
    if name in imported_packages() or name == __package__.partition(".")[0]:
        return (
            f"{name!r} is a package the generated code imports: a generated package of that "
            "name would shadow it (and installing the plugin would overwrite its files)"
        )
    if name in _STARTUP_MODULES:
        return f"{name!r} is a module Python imports by itself at every start (site)"
    if name in modules:
        return f"{name!r} is the name of a module of the generated package"
    where = installed_module(name)
    if where is not None:
        return (
            f"{name!r} is a module installed in this environment ({where}): a generated "
            "package of that name would shadow it for every importer with the output directory "
            "on sys.path, and installing the plugin wheel would overwrite its files"
        )
    return _name_clash(name)


@functools.lru_cache(maxsize=64)
def installed_module(name: str) -> str | None:
    """Where a top-level module ``name`` is importable from in the build's environment, or None.

    Asked of the import system itself, as ``import name`` would: every finder on sys.meta_path
    (an editable install's finder included) over sys.path, except the working directory that
    `python -m` puts first (a spec directory is no installed package). Nothing is imported. A
    package that dsv41gen generated (its MANIFEST says so) is not counted: it is this package,
    built or installed before."""
    import importlib.machinery
    import os
    import sys

    cwd = os.path.realpath(os.getcwd())
    path = [e for e in sys.path if e and os.path.realpath(e) != cwd]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            if finder is importlib.machinery.PathFinder:
                found = finder.find_spec(name, path)
            else:
                found = find(name, None)
        except (ImportError, ValueError, OSError):  # a finder's own trouble is no module
            continue
        if found is None:
            continue
        locations = list(found.submodule_search_locations or ())
        if any(_generated_by_dsv41gen(Path(location)) for location in locations):
            return None
        return (
            found.origin
            if found.origin not in (None, "built-in", "frozen")
            else (", ".join(locations) or found.origin or "built in")
        )
    return None


def _generated_by_dsv41gen(package: Path) -> bool:
    from ..emit.fastpath import MANIFEST

    try:
        with open(package / MANIFEST, encoding="utf-8") as handle:
            return handle.readline().startswith("# @generated by dsv41gen ")
    except (OSError, UnicodeDecodeError):
        return False


_RENAME = "; choose another name"


@rule
def _generated_names(spec: ResolvedSpec, report: Report) -> None:
    """Every name a spec gives that becomes a Python or C++ name of the generated code."""
    _, defined = generated_module_names()
    variant = spec.data.get("variant", {})
    if len(spec.lineage) == 1 and isinstance(variant.get("name"), str):
        problem = _package_clash(variant["name"])
        if problem:
            report(("variant", "name"), problem + " (the root variant names the package)" + _RENAME)
    in_backends = defined.get("backends", frozenset()) | defined.get("binding", frozenset())
    sparse_functions: dict[str, str] = {}
    for key, backend in (spec.data.get("attention_backends") or {}).items():
        if not isinstance(backend, dict):
            continue
        if backend.get("kind") == "sparse_mla":
            name = backend.get("name")
            if isinstance(name, str):
                # generated as _<name lower>_block_sizes(): names that differ only in case clash
                other = sparse_functions.setdefault(name.lower(), key)
                if other != key:
                    report(
                        ("attention_backends", key, "name"),
                        f"{name!r} and the name of {other} differ only in case; they would "
                        "generate one function" + _RENAME,
                    )
            continue
        problem = _name_clash(key, module_names=in_backends)
        if problem:
            report(("attention_backends", key), problem + " (it names a generated class)" + _RENAME)
        parent = backend.get("parent")
        if isinstance(parent, str) and backend.get("parent_module") is not None:
            problem = _name_clash(parent, module_names=in_backends)
            if problem:
                report(
                    ("attention_backends", key, "parent"),
                    problem + " (an engine parent is imported under its own name)",
                )
        for i, member in enumerate(backend.get("supported_kv_cache_layouts") or ()):
            if isinstance(member, str) and (member.startswith("_") or member in ("name", "value")):
                report(
                    ("attention_backends", key, "supported_kv_cache_layouts", i),
                    f"{member!r} cannot be an enum member name",
                )
    in_kv = defined.get("kv_cache", frozenset()) | defined.get("binding", frozenset())
    kv = spec.data.get("kv_cache") or {}
    spec_types = kv.get("spec_types") if isinstance(kv, dict) else None
    for key in spec_types or {}:
        problem = _name_clash(key, module_names=in_kv)
        if problem:
            report(
                ("kv_cache", "spec_types", key), problem + " (it names a generated class)" + _RENAME
            )


def _keyword_parts(text: object) -> list[str]:
    import keyword

    if not isinstance(text, str):
        return []
    return [part for part in text.split(".") if keyword.iskeyword(part)]


@rule
def _names_are_not_keywords(spec: ResolvedSpec, report: Report) -> None:
    """A field the declaration calls an identifier (or a dotted path of them) becomes a Python
    name somewhere in the generated code, where a keyword cannot stand."""
    from .declaration import SPEC
    from .language import NAME_PATTERNS, List, Map, Obj, OneOf, Ref, Str, Type

    def is_name(node: Type | None) -> bool:
        return isinstance(node, Str) and node.pattern in NAME_PATTERNS

    def keywords_in(text: object, path: Path_) -> None:
        for part in _keyword_parts(text):
            report(path, f"{part!r} is a Python keyword, which cannot be a generated name")

    def walk(node: Type, value: object, path: Path_) -> None:
        if isinstance(node, Ref):
            walk(node.target, value, path)
        elif isinstance(node, OneOf):
            for option in node.options:
                walk(option, value, path)
        elif is_name(node):
            keywords_in(value, path)
        elif isinstance(node, Map) and isinstance(value, dict):
            for key, item in value.items():
                if is_name(node.keys):
                    keywords_in(key, path + (key,))
                walk(node.values, item, path + (key,))
        elif isinstance(node, Obj) and isinstance(value, dict):
            for key, item in value.items():
                declared = node.field(key)
                if declared is not None:
                    walk(declared.type, item, path + (key,))
        elif isinstance(node, List) and node.items is not None and isinstance(value, list):
            for i, item in enumerate(value):
                walk(node.items, item, path + (i,))

    walk(SPEC, spec.data, ())


def _unprintable(text: str) -> str | None:
    """The first character of ``text`` that is not printable, named for the message."""
    for column, ch in enumerate(text, 1):
        if not ch.isprintable():
            return f"U+{ord(ch):04X} ({unicodedata.name(ch, 'a control character')}) at character {column}"
    return None


@rule
def _text_is_printable(spec: ResolvedSpec, report: Report) -> None:
    """Every string of a spec is printable text: no control, bidi, line-separator or NUL
    character. Spec text reaches generated code only escaped, but a message also reaches
    people at run time (the exception vLLM prints, its logs): a bidi control or an escape code
    there would make the terminal show something other than what the string says (Trojan
    Source, CVE-2021-42574). Comments clean such text; a message must not need cleaning."""

    def walk(value: object, path: Path_) -> None:
        if isinstance(value, str):
            found = _unprintable(value)
            if found is not None:
                report(
                    path,
                    f"must be printable text on one line, found {found}; write the text "
                    "without control, bidi or line-separator characters",
                )
        elif isinstance(value, dict):
            for key, item in value.items():
                if isinstance(key, str) and _unprintable(key) is not None:
                    report(path, f"the key {key!r} is not printable text: {_unprintable(key)}")
                walk(item, path + (key,))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, path + (i,))

    walk(spec.data, ())


@rule
def _license_lines_are_not_headers(spec: ResolvedSpec, report: Report) -> None:
    """A license line is printed above dsv41gen's own header, and the header is found as the
    first line that reads like one: a license line `dsv41gen-content: 0000000000000000` made
    every generated file look hand-edited (check failed, build refused without --force) and
    one reading `@generated by dsv41gen ... from X.` above it would name other spec files."""
    from ..emit.write import header_like

    lines = spec.data.get("license_header")
    for i, line in enumerate(lines if isinstance(lines, list) else ()):
        if isinstance(line, str) and header_like(line.rstrip()):
            report(
                ("license_header", i),
                f"{line!r} reads like dsv41gen's own header line, which follows the license "
                "lines; reword it (a license line cannot start with `dsv41gen-content:`, "
                "`dsv41gen-inputs:` or `@generated by dsv41gen`)",
            )
