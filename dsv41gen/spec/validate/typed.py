"""The typed stage: a spec's well-formed sections parsed into the typed model, for the rules
that read types instead of dicts.

A section is parsed only on first use, and only a rule whose sections the schema found well
formed uses it (validate_spec sees to that): the parse follows the declaration, so it cannot
fail on what the schema admitted.

The lineage views (``lineage_*``) read every spec of the lineage, deleted entries included: a
reference such as ``parent: DeepseekV4IndexerBackend`` may name what an ancestor defines. An
ancestor's own document is not validated when its child is (its schema errors are reported at
the ancestor), so these views are total over any YAML value: what is not of the declared shape
reads as unknown (None), never as an error.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass

from ..model import AttentionBackend, BackendKind, SpeculativeMethod, WeightSet
from ..resolve import ResolvedSpec


@dataclass(frozen=True)
class LineageBackend:
    """A backend some spec of the lineage defines (a later spec may have deleted it): what a
    reference to it can rely on."""

    key: str
    kind: BackendKind | None  # None: not a kind of the language (an ancestor's own error)


def _kind(value: object) -> BackendKind | None:
    known = {kind.value: kind for kind in BackendKind}
    return known.get(value) if isinstance(value, str) else None


class TypedSpec:
    # The top-level section each attribute parses (a typed rule declares them as its reads).
    SECTIONS = {
        "backends": "attention_backends",
        "lineage_backends": "attention_backends",
        "lineage_kv_spec_types": "kv_cache",
        "weight_sets": "checkpoint",
        "methods": "speculative",
        "hf_config": "hf_config",
    }

    def __init__(self, spec: ResolvedSpec, well_formed: Mapping[str, bool]):
        """``well_formed``: whether the schema found each top-level section well formed."""
        self.spec = spec
        self.well_formed = well_formed

    def _lineage_mappings(self, section: str) -> list[dict]:
        """The section as each spec of the lineage writes it (where it is a mapping), root
        first, this spec's resolved section last."""
        found = [doc.data.get(section) for doc in self.spec.lineage] + [self.spec.data.get(section)]
        return [value for value in found if isinstance(value, dict)]

    @functools.cached_property
    def backends(self) -> tuple[AttentionBackend, ...]:
        section = self.spec.data.get(self.SECTIONS["backends"], {})
        return tuple(AttentionBackend.parse(key, body) for key, body in section.items())

    @functools.cached_property
    def lineage_backends(self) -> dict[str, LineageBackend]:
        """Every backend of the lineage by key: the nearest spec that writes an entry states
        its kind (an entry without one is an indexer, as the declaration's default says); this
        spec's own backends as parsed."""
        found: dict[str, LineageBackend] = {}
        for section in self._lineage_mappings(self.SECTIONS["lineage_backends"])[:-1]:
            for key, body in section.items():
                if isinstance(key, str) and isinstance(body, dict):
                    found[key] = LineageBackend(key, _kind(body.get("kind", "indexer")))
        for backend in self.backends:
            found[backend.key] = LineageBackend(backend.key, backend.kind)
        return found

    @functools.cached_property
    def lineage_kv_spec_types(self) -> frozenset[str]:
        """The KV spec type names any spec of the lineage declares (a spec's own text may say
        `kv_cache: !delete` or `spec_types: !delete`)."""
        names: set[str] = set()
        for kv in self._lineage_mappings(self.SECTIONS["lineage_kv_spec_types"]):
            types = kv.get("spec_types")
            if isinstance(types, dict):
                names |= {name for name in types if isinstance(name, str)}
        return frozenset(names)

    @functools.cached_property
    def weight_sets(self) -> dict[str, WeightSet]:
        """The weight sets by name, in the spec's order."""
        section = self.spec.data.get(self.SECTIONS["weight_sets"], {})
        sets = section.get("weight_sets", {})
        return {name: WeightSet.parse(name, body) for name, body in sets.items()}

    @functools.cached_property
    def methods(self) -> tuple[SpeculativeMethod, ...]:
        """The allowed methods, in the spec's order. A `weights:` reference resolves against
        the weight sets only where the schema found the checkpoint well formed; elsewhere it
        stays unresolved, and no rule that reads it runs (it reads the checkpoint too)."""
        section = self.spec.data.get(self.SECTIONS["methods"], {})
        sets = self.weight_sets if self.well_formed.get(self.SECTIONS["weight_sets"]) else {}
        return tuple(
            SpeculativeMethod.parse(name, body, sets)
            for name, body in section.get("methods", {}).items()
        )

    @functools.cached_property
    def hf_config(self) -> Mapping[str, object]:
        """The reference checkpoint's config.json values: any YAML value each."""
        return self.spec.data.get(self.SECTIONS["hf_config"], {})
