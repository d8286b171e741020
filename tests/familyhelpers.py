"""A second family for tests that need one: V4's spec with every name of its family renamed."""

from __future__ import annotations

_RENAMES = (
    ("deepseek_v4", "otherfam"),
    ("DeepseekV4", "OtherFam"),
    ("DeepSeek V4", "Other Fam"),
    ("DSparkDraftModel", "OtherDSparkDraftModel"),
    ("DeepSeekV4MTPModel", "OtherMTPModel"),
)


def other_family_spec(v4_text: str) -> str:
    """`otherfam`, a root spec that shares no package, architecture name or model type with
    DeepSeek V4. Its engine targets (`module:` / `class:` / `class_path:` lines) stay V4's: the build checks
    every target against what vLLM 0.33.0 has, and a YAML-only family runs a model class vLLM
    ships."""
    renamed = v4_text
    for old, new in _RENAMES:
        renamed = renamed.replace(old, new)
    kept = (
        original if original.lstrip().startswith(("module:", "class:", "class_path:")) else line
        for original, line in zip(v4_text.splitlines(True), renamed.splitlines(True), strict=True)
    )
    return "".join(kept)
