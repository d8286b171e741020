"""Spec messages raised for a variant."""

from __future__ import annotations

from ..spec.model import Variant


def with_display_name(message: str, variant: Variant) -> str:
    """A spec message may say `{display_name}`: an inherited message then names the variant it
    is raised for, not the spec that wrote it. Any other brace is literal text."""
    return message.replace("{display_name}", variant.display_name)
