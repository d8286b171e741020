"""The typed stage: a spec's well-formed sections parsed into the typed model, for the rules
that read types instead of dicts.

A section is parsed only on first use, and only a rule whose sections the schema found well
formed uses it (validate_spec sees to that): the parse follows the declaration, so it cannot
fail on what the schema admitted.
"""

from __future__ import annotations

import functools

from ..model import AttentionBackend
from ..resolve import ResolvedSpec


class TypedSpec:
    # The top-level section each attribute parses (a typed rule declares them as its reads).
    SECTIONS = {"backends": "attention_backends"}

    def __init__(self, spec: ResolvedSpec):
        self.spec = spec

    @functools.cached_property
    def backends(self) -> tuple[AttentionBackend, ...]:
        section = self.spec.data.get(self.SECTIONS["backends"], {})
        return tuple(AttentionBackend.parse(key, body) for key, body in section.items())
