"""Review severities come from the declaration (each field's ``review``): the most specific
declared field wins, an enclosing field's entry holds below it only where it says ``below``."""

from __future__ import annotations

import pytest

from dsv41gen.commands.semdiff import classify

BACKEND = "attention_backends.FlashMLA"


@pytest.mark.parametrize(
    ("path", "kind", "before", "after", "expected"),
    [
        (BACKEND, "removed", {}, None, ("BREAKING", "attention backend removed")),
        (f"{BACKEND}.name", "changed", "A", "B", ("BREAKING", "backend registered name changed")),
        (
            f"{BACKEND}.kernel_block_sizes.default",
            "changed",
            [64],
            [128],
            ("BEHAVIOUR", "kernel block sizes changed"),
        ),
        (
            f"{BACKEND}.kernel_block_sizes.by_capability_family.sm90",
            "added",
            None,
            [64],
            ("BEHAVIOUR", "kernel block sizes changed"),
        ),
        (
            f"{BACKEND}.kernel_block_sizes.note",
            "changed",
            "a",
            "b",
            ("COSMETIC", "block-size note"),
        ),
        # a list whose removal breaks users: only a loss is BREAKING
        (
            "kernels.rope_kv_insert.num_heads_q_padded",
            "changed",
            [0, 64],
            [0],
            ("BREAKING", "compiled kNumHeadsQPadded instantiation removed"),
        ),
        (
            "kernels.rope_kv_insert.num_heads_q_padded",
            "changed",
            [0],
            [0, 64],
            ("BEHAVIOUR", "changed"),
        ),
        (
            "hf_config.num_nextn_predict_layers",
            "changed",
            1,
            2,
            ("COSMETIC", "reference checkpoint config value"),
        ),
        (
            "speculative.methods.mtp",
            "removed",
            {},
            None,
            ("BREAKING", "speculative method dropped"),
        ),
        (
            "speculative.methods.mtp.label",
            "changed",
            "a",
            "b",
            ("COSMETIC", "method label (messages) changed"),
        ),
        (
            "speculative.forbidden.eagle",
            "added",
            None,
            {},
            ("BEHAVIOUR", "speculative method newly forbidden"),
        ),
        (
            "runner.forbidden_modes.x.message",
            "changed",
            "a",
            "b",
            ("COSMETIC", "runner-mode message reworded"),
        ),
        (
            "runner.forbidden_modes.x.cudagraph_modes",
            "changed",
            ["FULL"],
            ["NONE"],
            ("BEHAVIOUR", "forbidden runner modes changed"),
        ),
        ("kv_cache.compress_ratios", "changed", [4], [8], ("BEHAVIOUR", "changed")),
        ("kv_cache.compress_ratios", "added", None, [8], ("BEHAVIOUR", "added")),
    ],
)
def test_severity_is_the_declared_one(path, kind, before, after, expected):
    assert classify(path, kind, before, after) == expected


def test_a_field_own_severity_beats_an_enclosing_removal():
    """Dropping one capability family's block sizes leaves the backend registered (its sm90
    devices take the default sizes): the block sizes' BEHAVIOUR, not 'attention backend removed'
    (the path-pattern table matched the backend's removal rule first)."""
    path = f"{BACKEND}.kernel_block_sizes.by_capability_family.sm90"
    assert classify(path, "removed", [64], None) == ("BEHAVIOUR", "kernel block sizes changed")
    nst = "speculative.methods.mtp.num_speculative_tokens.maximum"
    assert classify(nst, "removed", 5, None) == ("BEHAVIOUR", "num_speculative_tokens rule changed")


def test_an_undeclared_path_is_behaviour():
    assert classify("no_such_section.x", "changed", 1, 2) == ("BEHAVIOUR", "changed")
