"""Each change's review severity, read from the declaration (``Field.review``, ``Map.entry``).

A change at a dotted path (``attention_backends.FlashMLA.name``) takes
the severity the field at that path declares for that kind of change; failing that, the nearest
enclosing field's that holds ``below`` (every field under it);
failing that, BEHAVIOUR. Lists are compared as whole values, so a path never goes inside one.
"""

from __future__ import annotations

from .declaration import SPEC
from .language import Change, Review, Severity, Type


def _shrinks(before: object, after: object) -> bool:
    """Did a list lose an element? (Anything that is not two lists counts as a loss.)"""
    if isinstance(before, list) and isinstance(after, list):
        return bool(set(map(repr, before)) - set(map(repr, after)))
    return True


def reviews_along(path: str) -> list[tuple[bool, tuple[Review, ...]]]:
    """The review entries of each field the path passes through, deepest first; the flag says
    whether the entry belongs to the changed field itself."""
    segments = path.split(".") if path else []
    found: list[tuple[bool, tuple[Review, ...]]] = []
    node: Type = SPEC
    for depth, segment in enumerate(segments):
        children = node.children()
        step = children.get(segment) or children.get("*")
        if step is None:
            break  # under a reference config value or a raw schema: nothing declared further
        node, reviews = step
        found.append((depth == len(segments) - 1, reviews))
    return found[::-1]


def classify(path: str, kind: str, before: object, after: object) -> tuple[Severity, str]:
    """The severity of one change and what it means, as the declaration states them."""
    change = Change(kind)
    for is_target, reviews in reviews_along(path):
        for review in reviews:
            if change not in review.changes or not (is_target or review.below):
                continue
            if review.when_shrinks and not _shrinks(before, after):
                continue  # only grew: what the enclosing fields say
            return review.severity, review.what
    if change is Change.ADDED:
        return Severity.BEHAVIOUR, "added"
    return Severity.BEHAVIOUR, "changed"
