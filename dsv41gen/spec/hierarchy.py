"""The family's backend classes in the order Python can define them: each after its parent.

A fact about the typed model, stated once: validation reports a cycle of parents where the spec
names it (validate.family), and the backends planner orders its classes by it.
"""

from __future__ import annotations

from .model import AttentionBackend

__all__ = ["BackendCycle", "backend_cycle", "parent_first", "unique_backends"]


def unique_backends(variants) -> list[tuple[str, AttentionBackend]]:
    """Each backend of the family once, as the first variant declaring it has it, in order."""
    seen: dict[str, AttentionBackend] = {}
    ordered = []
    for variant in variants:
        for backend in variant.backends:
            if backend.key in seen:
                continue
            seen[backend.key] = backend
            ordered.append((variant.name, backend))
    return ordered


class BackendCycle(ValueError):
    """Backends of a family whose parents lead back to themselves: no class can come first."""

    def __init__(self, cycle: tuple[str, ...]):
        super().__init__(" -> ".join(cycle))
        self.cycle = cycle  # the first name again at the end


def parent_first(
    backends: list[tuple[str, AttentionBackend]],
) -> list[tuple[str, AttentionBackend]]:
    """The (variant, backend) pairs ordered so that every class comes after its parent class
    of the family (Python binds a base class when the class statement runs, so a child emitted
    first raises NameError on import), and otherwise in the order the specs declare them.
    Iterative: a long chain of subclasses must not meet the recursion limit. Raises
    BackendCycle."""
    by_key = {backend.key: (variant, backend) for variant, backend in backends}
    placed: set[str] = set()
    ordered = []
    for _, backend in backends:
        chain: list[str] = []  # backend, its parent, ... up to one already placed or a root
        key: str | None = backend.key
        while key in by_key and key not in placed:
            if key in chain:
                raise BackendCycle(tuple(chain[chain.index(key) :]) + (key,))
            chain.append(key)
            key = by_key[key][1].parent
        for key in reversed(chain):
            placed.add(key)
            ordered.append(by_key[key])
    return ordered


def backend_cycle(variants) -> tuple[str, ...] | None:
    """The first cycle among the family's backend parents (names, the first again at the
    end), or None: a family check reports it where the spec names the parent."""
    try:
        parent_first(unique_backends(variants))
    except BackendCycle as cycle:
        return cycle.cycle
    return None
