"""The schema stage: the derived JSON Schema, every error at its `file:line:col`."""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path

from ...errors import Diagnostics, Location, did_you_mean, dotted
from ..load import DELETE, Path_
from ..resolve import ResolvedSpec

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schema.json"


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


@functools.lru_cache(maxsize=1)
def _fast_validator():
    import jsonschema_rs

    return jsonschema_rs.validator_for(schema())


_EXACT_INT = 2**53  # beyond this a float cannot hold every integer: the Rust validator's
# comparisons with a bound could round, so such a spec is judged by jsonschema itself


def _surely_valid(data: object) -> bool:
    """True when the spec is valid for certain, so jsonschema (100 ms to import, 5-10 ms to
    walk a spec) need not run: jsonschema-rs finds it valid, and nothing in it is a value the
    two read differently. They differ on integral floats (8.0 is an integer to JSON Schema and
    to jsonschema-rs, not to the checker above), on integers beyond a float's exact range, and
    on what the Rust side cannot take at all (a non-string key, a lone surrogate, a `!delete`
    marker; it raises). Anything else that makes the Rust validator stricter (its regex `$`
    matches only at the very end) only sends a spec to the full path, which words every
    error."""
    if not _plain(data):
        return False
    try:
        return bool(_fast_validator().is_valid(data))
    except Exception:  # noqa: BLE001 - any value it cannot convert: the full path decides
        return False


def _plain(value: object) -> bool:
    """No value the two validators read differently (see _surely_valid)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value) and not value.is_integer()
    if isinstance(value, int):
        return -_EXACT_INT <= value <= _EXACT_INT
    return value is None or isinstance(value, str)


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
    if not reported and _surely_valid(spec.data):
        return reported
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
