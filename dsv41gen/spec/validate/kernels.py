"""Rules on the kernel sections: KV spec types, MXFP8, RoPE/KV insert, cache formats, compression."""

from __future__ import annotations

from ...errors import did_you_mean
from .. import capabilities
from ..limits import MAX_FILLED_MESSAGE_CHARS
from ..load import Path_
from ..model import (
    ScalarType,
    _parse_mx_format,
)
from ..resolve import ResolvedSpec
from .capability_rules import _is_float32, check_mx_capabilities
from .report import Report


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


def _kv_cache_spec_types(spec: ResolvedSpec, report: Report) -> None:
    kv = spec.data.get("kv_cache", {})
    types = kv.get("spec_types", {})
    caches = kv.get("cache_spec_types") or {}
    if caches and not types:
        # one error, not one per cache: the hierarchy itself is missing
        report(
            ("kv_cache", "cache_spec_types"),
            "names the KV spec types of the caches, but kv_cache.spec_types declares none; "
            "declare the types there (each with its parent and state_like)",
        )
        return
    for cache, name in caches.items():
        if isinstance(name, str) and name not in types:
            report(
                ("kv_cache", "cache_spec_types", cache),
                f"unknown KV spec type {name!r} for cache {cache!r}; name a key of "
                "kv_cache.spec_types (or declare the type there)" + did_you_mean(name, types),
            )


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
