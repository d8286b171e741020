"""The names the generated code owns, at the bottom floor: the modules of a generated package,
the top-level names of the modules a spec-named class lands in, the packages the generated code
imports, and the words of a generated file's header.

Validation reads them to refuse a spec name that would shadow one, and the write stage reads
the header words from here too, so the two never disagree. This module imports nothing of
dsv41gen. It is declared, not scanned: `tests/core/test_output_names.py` parses every
generated module of the shipped specs (and the runtime in dsv41gen/kernels) and fails when a
template gains or drops a name that is not written here.
"""

from __future__ import annotations

import re

# The family's one stamp of its inputs, beside the generated modules.
MANIFEST = "MANIFEST"

# The modules and folders of every generated package (besides one `rope_kv_<variant>` module
# per variant, which a variant name cannot clash with: it carries the prefix).
PACKAGE_MODULES = frozenset(
    {
        "_binding",
        "backends",
        "checkpoint",
        "config_hooks",
        "csrc",
        "dispatch",
        "kv_cache",
        "mxfp8",
        "mxfp8_reference",
        "plugin",
        "plugin_status",
        "registry",
        "runner",
        "speculative",
        "tests",
    }
)

# Top-level names of the engine binding, which every other generated module imports from.
_BINDING = frozenset(
    {
        "CUDAGraphMode",
        "ClassVar",
        "TYPE_CHECKING",
        "ENGINE_NAMES",
        "EngineMismatchError",
        "KVCacheLayout",
        "ModelRegistry",
        "VLLM_AVAILABLE",
        "ValidationError",
        "_StandalonePlatform",
        "_check_engine",
        "_missing_engine_names",
        "__all__",
        "annotations",
        "current_platform",
        "enum",
        "importlib",
        "is_device_capability_family",
        "is_rocm",
        "literal_error",
    }
)

# The top-level names of each generated module that spec-named classes are written into: a
# backend class (backends.py) or a KV-cache spec type (kv_cache.py) named like one of these
# would replace it. Both modules also see the binding's names.
MODULE_NAMES: dict[str, frozenset[str]] = {
    "_binding": _BINDING,
    "backends": frozenset(
        {
            "SPARSE_MLA_KERNEL_BLOCK_SIZES",
            "SPARSE_MLA_PLATFORMS",
            "_binding",
            "_sizes_for_device",
            "annotations",
            "device_is_capability_family",
        }
    ),
    "kv_cache": frozenset(
        {
            "Any",
            "BACKEND",  # a hybrid family's linear-attention state (kv_cache.linear_attention)
            "CACHE_DTYPES",
            "Callable",
            "Mapping",
            "_STATE_LIKE",
            "_cache_dtype",
            "_divide",
            "_hf_field",
            "_is_kv_source",
            "annotations",
            "caps_state_group",
            "groups_for_anchor_bytes",
            "is_state_bucket",
            "linear_attention_state",
            "validate_compress_ratio",
        }
    ),
}

# Top-level packages outside the standard library that the generated code (tests included) and
# the runtime it binds to import, by statement, `importlib.import_module` or
# `pytest.importorskip`. A generated package named like one shadows it for every importer with
# the output directory on sys.path, and installing the plugin would overwrite its files.
IMPORTED_PACKAGES = frozenset(
    {
        "dsv41gen",
        "numpy",
        "pydantic_core",
        "pytest",
        "safetensors",
        "torch",
        "transformers",
        "triton",
        "vllm",
    }
)

# Header words. The header is the license lines a spec asks for (`license_header`), then two
# lines of ours (three in packages built before the do-not-edit note joined the hash line); the
# hash line ends it.
HEADER_MARK = "dsv41gen-content:"
STAMP_MARK = "dsv41gen-inputs:"
# The marker torchgen and Meta's tools use; review tools fold files that carry it.
GENERATED_MARK = "@generated"
# What a reader of a generated file must do instead of editing it: the end of the hash line
# (short enough for the 80 columns of the C++ files' style).
DO_NOT_EDIT = "(do not edit: change the spec and rebuild)"
HEADER_RE = re.compile(
    r"^(?P<prefix>#|//) dsv41gen-(?:inputs: (?P<inputs>[0-9a-f]{16}) content|content): "
    r"(?P<content>[0-9a-f]{16})(?: " + re.escape(DO_NOT_EDIT) + r")?$"
)
ORIGIN_RE = re.compile(r"^(?:#|//) (?:@generated|Generated) by dsv41gen \S+ from (?P<specs>.+)\.$")


def header_like(line: str) -> bool:
    """True when ``line``, as a comment, would be taken for a header line of ours."""
    return any(pattern.match(f"# {line}") for pattern in (HEADER_RE, ORIGIN_RE))
