"""Golden tests of `dsv41gen diff --against`: realistic spec edits and their classification."""

from __future__ import annotations

import re

import pytest
from reviewhelpers import drop_q_head_128_with_waiver, edit, review, run_cli

V4, V41 = "specs/deepseek_v4.yaml", "specs/deepseek_v41.yaml"

# (name, file, old text, new text, expected {(variant, path, kind): severity}, exit code)
EDITS = [
    (
        "rename a registry architecture",
        V4,
        "  DSparkDraftModel:\n    registry: speculative_decoding",
        "  DSparkV4DraftModel:\n    registry: speculative_decoding",
        None,  # needs a second edit: see test_rename_architecture
        5,
    ),
    (
        "registry target class changed",
        V41,
        "class: DeepseekV41ForCausalLM",
        "class: DSparkDeepseekV4ForCausalLM",
        {("deepseek_v41", "architectures.DeepseekV41ForCausalLM.class", "changed"): "BREAKING"},
        5,
    ),
    (
        "checkpoint weight renamed",
        V41,
        "          - main_norm\n",
        "          - main_nrm\n",
        {("deepseek_v41", "checkpoint.weight_sets.dspark.shared.required", "changed"): "BREAKING"},
        5,
    ),
    (
        "compiled instantiation removed",
        V4,
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128]",
        "num_heads_q_padded: [0, 8, 16, 32, 64]",
        {("deepseek_v4", "kernels.rope_kv_insert.num_heads_q_padded", "changed"): "BREAKING"},
        5,
    ),
    (
        "compiled instantiation added",
        V4,
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128]",
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128, 256]",
        {("deepseek_v4", "kernels.rope_kv_insert.num_heads_q_padded", "changed"): "BEHAVIOUR"},
        0,
    ),
    (
        "block sizes changed for one capability family",
        V41,
        "        sm100: [128]\n",
        "        sm100: [256]\n",
        {
            (
                "deepseek_v41",
                "attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm100",
                "changed",
            ): "BEHAVIOUR"
        },
        0,
    ),
    (
        "a runner mode newly forbidden",
        V41,
        "kv_cache: # [ref §3]\n",
        "runner:\n"
        "  forbidden_modes:\n"
        "    mrv1_v41:\n"
        "      architectures: [DeepseekV41ForCausalLM]\n"
        "      model_runner: v1\n"
        "      cudagraph_modes: [PIECEWISE]\n"
        "      message: DeepSeek V4.1 needs Model Runner V2.\n"
        "\n"
        "kv_cache: # [ref §3]\n",
        {("deepseek_v41", "runner.forbidden_modes.mrv1_v41", "added"): "BEHAVIOUR"},
        0,
    ),
    (
        "a tokens-per-round source changed",
        V4,
        "sources: [num_nextn_predict_layers] # n_predict = num_nextn_predict_layers",
        "sources: [n_predict]",
        {
            (
                "deepseek_v4",
                "speculative.methods.mtp.tokens_per_round.sources",
                "changed",
            ): "BEHAVIOUR"
        },
        0,
    ),
    (
        "a block-size note reworded",
        V4,
        'note: "Block sizes count uncompressed tokens: C4 indexer pages hold 64 rows."',
        'note: "Counted in uncompressed tokens (C4 indexer pages hold 64 rows)."',
        {
            (
                "deepseek_v4",
                "attention_backends.DeepseekV4IndexerBackend.kernel_block_sizes.note",
                "changed",
            ): "COSMETIC"
        },
        0,
    ),
    (
        "a reference config value",
        V41,
        "  hidden_size: 5120",
        "  hidden_size: 6144",
        {("deepseek_v41", "hf_config.hidden_size", "changed"): "COSMETIC"},
        0,
    ),
    (
        "a method label reworded, even into text that would be code in an f-string",
        V4,
        "      label: classic-MTP",
        "      label: \"classic-MTP{__import__('pathlib').Path('pwned').write_text('ran')}\"",
        {("deepseek_v4", "speculative.methods.mtp.label", "changed"): "COSMETIC"},
        0,
    ),
    (
        "a reference config value the generated code defaults to is not cosmetic",
        V4,
        # the stage offset of classic MTP's engine parameter names, when config.json lacks it
        "  num_hidden_layers: 43",
        "  num_hidden_layers: 44",
        {("deepseek_v4", "hf_config.num_hidden_layers", "changed"): "BEHAVIOUR"},
        0,
    ),
    # issue 26 item 7: a reworded message is COSMETIC (as the README says of reworded
    # messages); a rename target is what a shipped checkpoint weight loads into: BREAKING
    (
        "a compress-ratio message reworded",
        V41,
        "1 and 2 are supported.",
        "1 and 2 are the supported ratios.",
        {("deepseek_v41", "kv_cache.unsupported_compress_ratio_message", "changed"): "COSMETIC"},
        0,
    ),
    (
        "a forbidden-method message written over the derived one",
        V41,
        "      use_instead: dspark\n",
        "      use_instead: dspark\n      message: DeepSeek V4.1 drafts with DSpark only.\n",
        {("deepseek_v41", "speculative.forbidden.mtp.message", "added"): "COSMETIC"},
        0,
    ),
    (
        "a checkpoint rename target changed",
        V41,
        "        markov_head.head: markov_head.markov_w2",
        "        markov_head.head: markov_head.markov_w3",
        {
            (
                "deepseek_v41",
                "checkpoint.weight_sets.dspark.renames.markov_head.head",
                "changed",
            ): "BREAKING"
        },
        5,
    ),
    (
        "a comment and formatting only",
        V41,
        "  name: deepseek_v41\n",
        "  name:   deepseek_v41   # the variant\n",
        {},
        0,
    ),
]


@pytest.mark.parametrize(
    ("name", "file", "old", "new", "expected", "code"),
    [e for e in EDITS if e[4] is not None],
    ids=lambda v: v if isinstance(v, str) and " " in v else "",
)
def test_classification(spec_repo, name, file, old, new, expected, code):
    edit(spec_repo / file, old, new)
    rc, report = review(spec_repo)
    got = {(c["variant"], c["path"], c["kind"]): c["severity"] for c in report["changes"]}
    assert got == expected
    assert rc == code
    assert report["unaccepted_breaking"] == (1 if code == 5 else 0)


def test_rename_architecture(spec_repo):
    edit(spec_repo / V4, "  DSparkDraftModel:\n    registry", "  DSparkV4DraftModel:\n    registry")
    edit(
        spec_repo / V4,
        "draft_architecture: DSparkDraftModel",
        "draft_architecture: DSparkV4DraftModel",
    )
    edit(spec_repo / V41, "  DSparkDraftModel: !delete", "  DSparkV4DraftModel: !delete")
    rc, report = review(spec_repo)
    got = {(c["variant"], c["path"], c["kind"]): c["severity"] for c in report["changes"]}
    assert got == {
        ("deepseek_v4", "architectures.DSparkDraftModel", "removed"): "BREAKING",
        ("deepseek_v4", "speculative.methods.dspark.draft_architecture", "changed"): "BREAKING",
        ("deepseek_v4", "architectures.DSparkV4DraftModel", "added"): "BEHAVIOUR",
    }
    assert rc == 5


def test_dropped_method_is_breaking(spec_repo):
    edit(
        spec_repo / V41,
        "  methods:\n    mtp: !delete\n    dspark:",
        "  methods:\n    mtp: !delete\n    dspark: !delete\n    _dropped:",
    )
    edit(
        spec_repo / V41,
        "  forbidden:\n    mtp:\n      use_instead: dspark\n",
        "  forbidden:\n    mtp: !delete\n",
    )
    edit(spec_repo / V41, "    _dropped:\n", "    _dropped_unused:\n")
    result = run_cli(spec_repo, "diff", "--against", "base")
    # the leftover dspark body under a bogus key is reported as a spec error, located
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "speculative.methods._dropped_unused" in result.stderr


def test_dropped_method_classification(spec_repo):
    path = spec_repo / V41
    text = path.read_text()
    start = text.index("    dspark:\n      draft_model_type: deepseek_v41")
    end = text.index("  forbidden:")
    rest = text[end:].replace("  forbidden:\n    mtp:\n      use_instead: dspark\n", "", 1)
    path.write_text(text[:start] + "    dspark: !delete\n" + rest)
    rc, report = review(spec_repo)
    got = {(c["variant"], c["path"], c["kind"]): c["severity"] for c in report["changes"]}
    assert got[("deepseek_v41", "speculative.methods.dspark", "removed")] == "BREAKING"
    assert got[("deepseek_v41", "speculative.forbidden", "removed")] == "BEHAVIOUR"
    assert rc == 5


def test_inherited_change_is_reported_once(spec_repo):
    edit(
        spec_repo / V4,
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128]",
        "num_heads_q_padded: [0, 8, 16, 32, 64]",
    )
    _, report = review(spec_repo)
    [change] = report["changes"]
    assert change["variant"] == "deepseek_v4"
    assert "inherited by deepseek_v41" in change["what"]


def test_waiver_in_the_spec_accepts_a_breaking_change(spec_repo):
    drop_q_head_128_with_waiver(
        spec_repo, "no deployment pads Q heads to 128; the instantiation only cost compile time"
    )
    rc, report = review(spec_repo)
    breaking = [c for c in report["changes"] if c["severity"] == "BREAKING"]
    assert [c["accepted_because"] for c in breaking] == [
        "no deployment pads Q heads to 128; the instantiation only cost compile time"
    ]
    assert rc == 0


def test_markdown_report_and_generated_diff(spec_repo):
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    result = run_cli(spec_repo, "diff", "--against", "base", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("### dsv41gen: spec changes against `base`")
    assert "| BEHAVIOUR | `deepseek_v41` `" in result.stdout
    # it fits a GitHub comment (about 800 px, some 100 characters of code): the widest piece
    # the browser cannot wrap (a code span, or a word) of each column's cells, summed
    rows = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    columns = zip(*(row.strip("|").split(" | ") for row in rows), strict=True)
    width = sum(
        max(len(piece) for cell in column for piece in re.findall(r"`[^`]*`|[^ `]+", cell))
        for column in columns
    )
    assert width <= 100, (width, rows)
    assert "-        return _sizes_for_device({90: [64]}, [128])" in result.stdout
    assert "+        return _sizes_for_device({90: [32]}, [128])" in result.stdout


def test_unknown_ref_is_a_usage_error(spec_repo):
    result = run_cli(spec_repo, "diff", "--against", "no-such-ref")
    assert result.returncode == 2
    assert "cannot read specs at 'no-such-ref'" in result.stderr


SIBLING = """\
spec_version: 1
extends: deepseek_v4.yaml
variant:
  name: sibling
  display_name: Sibling
  model_type: sibling
architectures:
  SiblingForCausalLM:
    registry: text_generation
    module: vllm.models.deepseek_v41
    class: DeepseekV41ForCausalLM
speculative:
  methods:
    eagle3:
      label: EAGLE-3
      weights: dspark
      draft_model_type: sibling_eagle3
      tokens_per_round: {sources: [num_nextn_predict_layers]}
      num_speculative_tokens: {default: tokens_per_round, divisibility: none}
kv_cache:
  spec_types:
    SlidingWindowSpec: {state_like: never}
runner:
  forbidden_modes:
    sibling_full:
      architectures: [ARCHITECTURES]
      model_runner: v1
      cudagraph_modes: [FULL]
      message: "{display_name} needs Model Runner V2 for FULL CUDA graphs."
"""


def _sibling_changes(spec_repo, architectures: str) -> list[dict]:
    (spec_repo / "specs" / "sibling.yaml").write_text(
        SIBLING.replace("ARCHITECTURES", architectures), encoding="utf-8"
    )
    _, report = review(spec_repo)
    return report["changes"]


def test_a_sibling_that_keeps_to_itself_changes_no_existing_variant(spec_repo):
    """A new method, a state_like change and a runner guard of its own architecture: the
    existing variants' generated behaviour is what it was, and the report says only 'added'."""
    changes = _sibling_changes(spec_repo, "SiblingForCausalLM")
    assert [(c["variant"], c["path"], c["kind"]) for c in changes] == [
        ("sibling", "variant", "added")
    ]


def test_a_sibling_that_changes_an_existing_variant_is_reported_under_it(spec_repo):
    """A guard on V4's own architecture, written in a sibling, changes what V4's generated
    runner check does: reported as V4's behaviour change, not hidden as 'variant added'."""
    changes = _sibling_changes(spec_repo, "DeepseekV4ForCausalLM")
    got = {(c["variant"], c["path"], c["kind"]): c["severity"] for c in changes}
    assert got == {
        ("sibling", "variant", "added"): "BEHAVIOUR",
        ("deepseek_v4", "generated.runner", "changed"): "BEHAVIOUR",
    }
    [v4] = [c for c in changes if c["variant"] == "deepseek_v4"]
    assert "Sibling needs Model Runner V2 for FULL CUDA graphs." in str(v4["after"])
    assert "another variant of the family" in v4["what"]


def test_a_change_reaching_only_generated_tests_is_cosmetic_under_the_repos_formatters(spec_repo):
    """issue 26 item 7: in a repository with its own ruff and clang-format configuration (as
    this one and vLLM have), the ref's tree was built with the formatters' defaults, so a
    reference value that reaches only the generated tests read as "reaches generated code",
    and the generated diff was full of reformatted lines."""
    from reviewhelpers import git

    (spec_repo / "pyproject.toml").write_text("[tool.ruff]\nline-length = 100\n")
    (spec_repo / ".clang-format").write_text(
        "BasedOnStyle: Google\nColumnLimit: 100\nCpp11BracedListStyle: false\n"
    )
    git(spec_repo, "add", "pyproject.toml", ".clang-format")
    git(spec_repo, "commit", "-q", "-m", "formatters")
    git(spec_repo, "tag", "-f", "base")
    edit(spec_repo / V41, "  hidden_size: 5120", "  hidden_size: 6144")
    rc, report = review(spec_repo)
    got = {(c["variant"], c["path"], c["kind"]): c["severity"] for c in report["changes"]}
    assert got == {("deepseek_v41", "hf_config.hidden_size", "changed"): "COSMETIC"}
    assert rc == 0
    markdown = run_cli(spec_repo, "diff", "--against", "base", "--format", "markdown").stdout
    touched = sorted(
        line.removeprefix("+++ b/") for line in markdown.splitlines() if line.startswith("+++ b/")
    )
    assert touched and all("/tests/" in path for path in touched), touched
