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
    """`otherfam`, a root spec that shares no package, class or model type with DeepSeek V4."""
    for old, new in _RENAMES:
        v4_text = v4_text.replace(old, new)
    return v4_text
