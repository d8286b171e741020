"""emit --vllm-tree on vLLM 0.33.0's real tree: no-op on the pristine tree, the V4.1 round
trip against seed 000 (the pull request that added V4.1), drift, and clear errors.

The expected lines of the round trip are seed 000's hunks ("before" = the tree without V4.1,
"after" = with it), adapted to 0.33.0 where 0.33.0 differs from the PR (the lines it states
are 0.33.0's; see docs/vllm-source-tree.md); they are not computed by the emitter.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from vtreehelpers import SPECS, copy_tree

from dsv41gen.commands.pipeline import load_families
from dsv41gen.emit.vllm_tree import MANIFEST, check_plan, plan_tree, write_plan
from dsv41gen.emit.vllm_tree.sites import SITES, SiteError

SITE_FILES = sorted({s.path for s in SITES})


def families(spec_dir: Path):
    return [i.family for i in load_families(sorted(spec_dir.glob("*.yaml")))]


def emit(tree: Path, spec_dir: Path = SPECS, refactor: bool = True) -> list[str]:
    return write_plan(plan_tree(tree, families(spec_dir), refactor_upstream=refactor))


def snapshot(tree: Path) -> dict[str, str]:
    return {rel: (tree / rel).read_text() for rel in SITE_FILES}


def diff_lines(before: dict[str, str], after: dict[str, str], rel: str) -> tuple[list, list]:
    removed, added = [], []
    for line in difflib.unified_diff(before[rel].splitlines(), after[rel].splitlines(), n=0):
        if line.startswith("-") and not line.startswith("---"):
            removed.append(line[1:])
        elif line.startswith("+") and not line.startswith("+++"):
            added.append(line[1:])
    return removed, added


def test_pristine_emit_changes_nothing(tree):
    before = snapshot(tree)
    plan = plan_tree(tree, families(SPECS))
    assert plan.changed == []
    write_plan(plan)
    assert snapshot(tree) == before  # only the manifest was added
    assert (tree / MANIFEST).is_file()


def test_refactor_is_confined_to_the_state_bucket_closure(tree):
    before = snapshot(tree)
    emit(tree)
    after = snapshot(tree)
    assert [rel for rel in SITE_FILES if before[rel] != after[rel]] == [
        "vllm/v1/core/kv_cache_planning.py"
    ]
    removed, added = diff_lines(before, after, "vllm/v1/core/kv_cache_planning.py")
    assert [line.strip() for line in removed] == [
        "if isinstance(spec.first_spec, (MambaSpec, CircularBufferSpec)):",
        "spec.first_spec, SlidingWindowSpec",
    ]
    stripped = [line.strip() for line in added]
    assert "if isinstance(spec.first_spec, _STATE_BUCKET_SPEC_TYPES):" in stripped
    assert "MambaSpec," in stripped and "CircularBufferSpec," in stripped
    assert (
        "_UNSPLIT_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (SlidingWindowSpec,)"
        in added
    )


def test_reemit_is_a_noop(tree):
    emit(tree)
    stamps = {rel: os.stat(tree / rel).st_mtime_ns for rel in [*SITE_FILES, MANIFEST]}
    assert emit(tree) == []
    assert {rel: os.stat(tree / rel).st_mtime_ns for rel in stamps} == stamps


# Seed 000's hunks without V4.1 -> with V4.1, as lines of vLLM 0.33.0 (stripped).
SEED_HUNKS = {
    "1a": (
        "vllm/config/speculative.py",
        ['if hf_config.model_type == "deepseek_v4":',
         '{"n_predict": n_predict, "architectures": ["DeepSeekV4MTPModel"]}'],
        ['if hf_config.model_type in ("deepseek_v4", "deepseek_v41"):',
         'is_v41 = hf_config.model_type == "deepseek_v41"',
         'overrides = {"n_predict": n_predict}', "if not is_v41:",
         'overrides["architectures"] = ["DeepSeekV4MTPModel"]', "hf_config.update(overrides)"],
    ),
    "1b": (
        "vllm/config/speculative.py",
        [],
        ['== "deepseek_v41"', '"DeepSeek V4.1 has no classic-MTP draft: its "',
         '"checkpoints ship DSpark stages under mtp.* "',
         '"(main_proj/markov_head/confidence_head) and carry "',
         '"no e_proj/h_proj/enorm/hnorm/hc_head weights. Use "',
         "\"speculative method 'dspark' instead of 'mtp'.\""],
    ),
    "1c": (
        "vllm/config/speculative.py",
        ["# DeepSeek-V4 DSpark reuses the full DeepSeek-V4 config",
         'self.draft_model_config.hf_config.model_type = "deepseek_v4"',
         "self.draft_model_config.hf_config.architectures = [", '"DSparkDraftModel"'],
        ["# DeepSeek-V4(.1) DSpark reuses the full target config",
         'self.target_model_config.hf_config.model_type == "deepseek_v41"',
         "draft_hf_config = self.draft_model_config.hf_config",
         '"deepseek_v41" if is_v41 else "deepseek_v4"',
         '"DSparkV41DraftModel" if is_v41 else "DSparkDraftModel"'],
    ),
    "2": (
        "vllm/v1/attention/backends/mla/indexer.py",
        [],
        ["class DeepseekV41IndexerBackend(DeepseekV4IndexerBackend):",
         'return "DEEPSEEK_V41_INDEXER"',
         "return [64 if current_platform.is_device_capability_family(90) else 128]"],
    ),
    # 4a as 0.33.0 holds it after the one-time refactor (refactor.py): the closure's
    # `(MambaSpec, CircularBufferSpec)` is the module-level table
    "4a": (
        "vllm/v1/core/kv_cache_planning.py",
        ["_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (MambaSpec,)"],
        # the import, and the table (one line too long for vLLM's 88, so ruff explodes it)
        ["CircularBufferSpec,", "_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (",
         "MambaSpec,", "CircularBufferSpec,", ")"],
    ),
    "7a": (
        "vllm/model_executor/models/registry.py",
        [],
        ['"DeepseekV41ForCausalLM": (', '"vllm.models.deepseek_v41",',
         '"DeepseekV41ForCausalLM",', '"DSparkV41DraftModel": (', '"DSparkDeepseekV4ForCausalLM",'],
    ),
    "7b": (
        "vllm/v1/worker/gpu/spec_decode/dspark/utils.py",
        ["# DeepSeek-V4 draft layers share the target's KV-cache layout. Other",
         'if draft_model_config.hf_config.model_type == "deepseek_v4":'],
        ["# DeepSeek-V4(.1) draft layers share the target's KV-cache layout. Other",
         'if draft_model_config.hf_config.model_type in ("deepseek_v4", "deepseek_v41"):'],
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def round_trip(pristine_tree, tmp_path_factory):
    """(with V4.1 as 0.33.0 ships it, after dropping V4.1, after adding it back)."""
    tmp = tmp_path_factory.mktemp("round-trip")
    tree = copy_tree(pristine_tree, tmp / "tree")
    specs4 = tmp / "specs-v4"
    specs4.mkdir()
    (specs4 / "deepseek_v4.yaml").write_text((SPECS / "deepseek_v4.yaml").read_text())
    emit(tree)
    shipped = snapshot(tree)
    emit(tree, specs4)
    without = snapshot(tree)
    emit(tree)
    return shipped, without, snapshot(tree)


@pytest.mark.parametrize("hunk", sorted(SEED_HUNKS))
def test_adding_v41_back_reproduces_seed_000_hunk(round_trip, hunk):
    _shipped, without, back = round_trip
    rel, before_lines, after_lines = SEED_HUNKS[hunk]
    removed, added = diff_lines(without, back, rel)
    removed, added = [x.strip() for x in removed], [x.strip() for x in added]
    for line in before_lines:
        assert line in removed, (hunk, line)
    for line in after_lines:
        assert line in added, (hunk, line)


EAGLE3 = "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py"
BACKEND_REGISTRY = "vllm/v1/attention/backends/registry.py"


def test_round_trip_restores_the_shipped_tree_but_one_comment_wrap(round_trip):
    shipped, _without, back = round_trip
    differing = [rel for rel in SITE_FILES if shipped[rel] != back[rel]]
    # eagle3_utils.py: the layer-id branch comes back with dsv41gen's comment, not vLLM's;
    # the backend registry without vLLM's comment (test_backend_registry_members_...)
    assert differing == ["vllm/config/speculative.py", BACKEND_REGISTRY, EAGLE3]
    removed, added = diff_lines(shipped, back, EAGLE3)
    assert all(x.strip().startswith("#") for x in removed + added)
    removed, added = diff_lines(shipped, back, "vllm/config/speculative.py")
    # 0.33.0's comment is hand-wrapped (a phrase was cut out of it); the emitter wraps at 80
    words = [" ".join(lines).replace("#", " ").split() for lines in (removed, added)]
    assert words[0] == words[1] and len(removed) == len(added) == 2


def test_dropping_v41_leaves_no_v41_wiring_at_the_sites_it_owns(round_trip):
    _shipped, without, _back = round_trip
    for rel in (
        "vllm/model_executor/models/registry.py",
        "vllm/config/speculative.py",
        "vllm/v1/worker/gpu/spec_decode/dspark/utils.py",
    ):
        for name in ("deepseek_v41", "DeepseekV41", "DSparkV41"):
            assert name not in without[rel], (rel, name)
    assert (
        "class DeepseekV41IndexerBackend"
        not in without["vllm/v1/attention/backends/mla/indexer.py"]
    )
    # only V4.1's caches use CircularBufferSpec (kv_cache.cache_spec_types): it leaves the
    # table and the import; vLLM's own MambaSpec and SlidingWindowSpec stay
    planning = without["vllm/v1/core/kv_cache_planning.py"]
    assert "CircularBufferSpec" not in planning
    assert "_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (MambaSpec,)" in planning
    assert "_UNSPLIT_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = (" in planning


# Not in seed 000 (0.33.0 added it later), but V4.1 wiring at its real site: the model types
# dsa_indexer_uses_fp4 lets through to the ROCm MXFP4 indexer cache, and their names.
ROCM_GATE_WITHOUT = [
    'if model_config is None or model_config.hf_config.model_type != "deepseek_v4":',
    "\"indexer_kv_dtype='mxfp4' on ROCm is only supported for DeepSeek-V4.\"",
]
ROCM_GATE_BACK = [
    "if model_config is None or model_config.hf_config.model_type not in (",
    '"deepseek_v4",', '"deepseek_v41",', "):",
    "\"indexer_kv_dtype='mxfp4' on ROCm is only supported for \"",
    '"DeepSeek-V4 and DeepSeek-V4.1."',
]  # fmt: skip


def test_rocm_mxfp4_gate_follows_the_variants_with_a_rocm_mxfp4_indexer(round_trip):
    shipped, without, back = round_trip
    rel = "vllm/v1/attention/backends/mla/indexer.py"
    removed, added = diff_lines(without, back, rel)
    # (the file's last removed line is the engine set rocm_flattened_query_lens's, below)
    assert [x.strip() for x in removed][: len(ROCM_GATE_WITHOUT)] == ROCM_GATE_WITHOUT
    assert [x.strip() for x in added][: len(ROCM_GATE_BACK)] == ROCM_GATE_BACK
    assert back[rel] == shipped[rel]


def test_dspark_layer_ids_as_is_only_for_variants_of_offset_0(round_trip):
    _shipped, without, back = round_trip
    removed, added = diff_lines(without, back, EAGLE3)
    assert [x.strip() for x in removed] == ["layer_ids = [i + 1 for i in dspark_layer_ids]"]
    code = [x.strip() for x in added if not x.strip().startswith("#")]
    assert code == [
        'if getattr(hf_config, "model_type", None) == "deepseek_v41":',
        "layer_ids = list(dspark_layer_ids)",
        "else:",
        "layer_ids = [i + 1 for i in dspark_layer_ids]",
    ]
    assert "deepseek_v41" not in without[EAGLE3]


# Not in seed 000 either: the engine-wide architecture sets (architectures.<name>.engine_sets)
# where vLLM 0.33.0 spells them; V4.1's DeepseekV41ForCausalLM is in all four.
ENGINE_SET_HUNKS = {
    "vllm/config/vllm.py": (
        ["return frozenset()"],
        ['"DeepseekV41ForCausalLM",', 'return frozenset({"DeepseekV41ForCausalLM"})'],
    ),
    "vllm/config/kernel.py": ([], ['"DeepseekV41ForCausalLM",']),
    "vllm/v1/attention/backends/mla/indexer.py": (
        ['and "DeepseekV4ForCausalLM" in model_config.architectures'],
        ["and (", '"DeepseekV4ForCausalLM" in model_config.architectures',
         'or "DeepseekV41ForCausalLM" in model_config.architectures', ")"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("rel", sorted(ENGINE_SET_HUNKS))
def test_engine_sets_follow_the_architectures_that_name_them(round_trip, rel):
    shipped, without, back = round_trip
    removed, added = [[x.strip() for x in d] for d in diff_lines(without, back, rel)]
    expected_removed, expected_added = ENGINE_SET_HUNKS[rel]
    if rel.endswith("indexer.py"):  # the ROCm MXFP4 gate and hunk 2 are in this file too
        assert removed[-1:] == expected_removed
        at = added.index(expected_added[0])
        assert added[at : at + len(expected_added)] == expected_added
    else:
        assert removed == expected_removed
        assert added == expected_added
    assert back[rel] == shipped[rel]
    # the members V4's entries state stay
    assert '"DeepseekV4ForCausalLM"' in without[rel]


# v1/attention/backends/registry.py: a member per sparse MLA backend of the specs
# (attention_backends.<name>.class_path), V4.1's four as 0.33.0 writes them. They come back
# after V4's last member in spec order (the MEGA_ATTN member second, not last as in 0.33.0),
# without vLLM's three-line comment above them.
BACKEND_MEMBERS_BACK = [
    "FLASHMLA_SPARSE_DSV41 = (",
    '"vllm.models.deepseek_v41.sparse_mla.DeepseekV4FlashMLABackend"', ")",
    "FLASHMLA_MEGA_ATTN_DSV41 = (",
    '"vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAttnBackend"', ")",
    "FLASHINFER_MLA_SPARSE_DSV41 = (",
    '"vllm.models.deepseek_v41.nvidia.flashinfer_sparse."',
    '"DeepseekV4FlashInferMLASparseBackend"', ")",
    "ROCM_FLASHMLA_SPARSE_DSV41 = (",
    '"vllm.models.deepseek_v41.amd.rocm.DeepseekV41ROCMAiterMLASparseBackend"', ")",
]  # fmt: skip


def test_backend_registry_members_follow_the_sparse_mla_backends(round_trip):
    shipped, without, back = round_trip
    removed, added = diff_lines(without, back, BACKEND_REGISTRY)
    assert removed == []
    # difflib starts the added block one line early: the ")" that closes V4's last member
    stripped = [x.strip() for x in added]
    assert stripped[1:] + [stripped[0]] == BACKEND_MEMBERS_BACK or stripped == BACKEND_MEMBERS_BACK
    assert "DSV41" not in without[BACKEND_REGISTRY]
    assert "ROCM_FLASHMLA_SPARSE_DSV4 = (" in without[BACKEND_REGISTRY]  # V4's stay
    # against 0.33.0: the same members, but for the comment and the MEGA_ATTN member's place
    removed, added = diff_lines(shipped, back, BACKEND_REGISTRY)
    assert [x for x in removed if x.strip().startswith("#")] == [
        "    # DeepSeek V4.1 sparse MLA backends (model-driven; selected via the V4.1",
        "    # layer). Separate names from DSV4 so a V4.1 model never resolves the",
        "    # V4.0 backend classes through this enum.",
    ]
    assert sorted(x for x in removed if not x.strip().startswith("#")) == sorted(added)


@pytest.mark.parametrize(
    ("rel", "old", "new"),
    [
        (
            BACKEND_REGISTRY,
            '"vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAttnBackend"',
            '"vllm.models.deepseek_v41.sparse_mla.MyBackend"',
        ),
        (EAGLE3, "layer_ids = list(dspark_layer_ids)", "layer_ids = list(dspark_layer_ids)[1:]"),
        ("vllm/config/kernel.py", '        "DeepseekV41ForCausalLM",\n', ""),
        (
            "vllm/config/vllm.py",
            'return frozenset({"DeepseekV41ForCausalLM"})',
            "return frozenset()",
        ),
        (
            "vllm/v1/attention/backends/mla/indexer.py",
            '            or "DeepseekV41ForCausalLM" in model_config.architectures\n',
            "",
        ),
        ("vllm/v1/attention/backends/mla/indexer.py", '            "deepseek_v41",\n', ""),
        ("vllm/v1/core/kv_cache_planning.py", "    CircularBufferSpec,\n)", ")"),
    ],
    ids=[
        "backend-registry",
        "eagle3-layer-ids",
        "flashinfer-moe-ep",
        "breakable-cudagraph-rocm",
        "rocm-flattened-query-lens",
        "rocm-mxfp4-gate",
        "state-bucket-table",
    ],
)
def test_check_reports_a_hand_edit_in_the_new_regions(tree, dsv41gen, rel, old, new):
    assert dsv41gen("emit", "--vllm-tree", str(tree), "--refactor-upstream")[0] == 0
    path = tree / rel
    text = path.read_text()
    assert text.count(old) == 1
    path.unlink()  # a hard-linked copy: never write through it
    path.write_text(text.replace(old, new))
    rc, _out, err = dsv41gen("check", "--vllm-tree", str(tree))
    assert rc == 3
    assert f"{Path(rel).name}: edited by hand inside a generated region" in err


def test_test_registry_entries_come_back_with_their_hub_facts(round_trip):
    shipped, without, back = round_trip
    rel = "tests/models/registry.py"
    assert '"DSparkV41DraftModel": _HfExamplesInfo(' not in without[rel]
    assert back[rel] == shipped[rel]


def test_check_reports_a_hand_edit_in_a_generated_region(tree, dsv41gen):
    # a first emit adopts the tree: the refactor is no hand edit to refuse
    assert dsv41gen("emit", "--vllm-tree", str(tree), "--refactor-upstream")[0] == 0
    assert dsv41gen("check", "--vllm-tree", str(tree))[0] == 0
    path = tree / "vllm/v1/attention/backends/mla/indexer.py"
    text = path.read_text()
    path.unlink()  # a hard-linked copy: never write through it
    path.write_text(text.replace('return "DEEPSEEK_V41_INDEXER"', 'return "MY_INDEXER"'))
    rc, out, err = dsv41gen("check", "--vllm-tree", str(tree))
    assert rc == 3
    assert "indexer.py: edited by hand inside a generated region" in err
    assert '-        return "MY_INDEXER"' in out
    rc, _out, err = dsv41gen("emit", "--vllm-tree", str(tree))
    assert rc == 3 and "refusing to overwrite it" in err
    assert dsv41gen("emit", "--vllm-tree", str(tree), "--force")[0] == 0
    assert dsv41gen("check", "--vllm-tree", str(tree))[0] == 0


def test_edits_outside_generated_regions_survive_and_pass_check(tree, dsv41gen):
    emit(tree)
    path = tree / "vllm/model_executor/models/registry.py"
    text = path.read_text()
    path.unlink()
    edited = text.replace(
        '    "DeepseekV4ForCausalLM":', '    # a reviewer\'s note\n    "DeepseekV4ForCausalLM":'
    )
    path.write_text(edited)
    assert dsv41gen("check", "--vllm-tree", str(tree))[0] == 0
    assert emit(tree) == [MANIFEST]  # the file's recorded hash; its text is kept
    assert path.read_text() == edited


def test_check_says_when_the_specs_changed(tree, v4_only_specs, dsv41gen):
    emit(tree)
    rc, _out, err = dsv41gen(
        "check", "--vllm-tree", str(tree), str(v4_only_specs / "deepseek_v4.yaml")
    )
    assert rc == 3
    assert "registry.py: stale (the specs changed since the last emit" in err


def test_the_closure_is_refused_when_it_would_have_to_change(tree, v4_only_specs):
    emit(tree, refactor=False)  # the manifest records SlidingWindowSpec as the family's
    spec = v4_only_specs / "deepseek_v4.yaml"
    text = spec.read_text()
    line = "SlidingWindowSpec: {parent: AttentionSpec, state_like: when_unsplit}"
    assert line in text
    spec.write_text(text.replace(line, "SlidingWindowSpec: {parent: AttentionSpec}"))
    with pytest.raises(SiteError, match="is_state_bucket is a closure .* --refactor-upstream"):
        plan_tree(tree, families(v4_only_specs), refactor_upstream=False)
    # with the refactor, the same specs edit the table
    plan = plan_tree(tree, families(v4_only_specs), refactor_upstream=True)
    assert (
        "_UNSPLIT_STATE_BUCKET_SPEC_TYPES: tuple[type[KVCacheSpec], ...] = ()"
        in plan.after["vllm/v1/core/kv_cache_planning.py"]
    )


def test_no_vllm_tree_is_a_usage_error(tmp_path, dsv41gen):
    rc, out, err = dsv41gen("emit", "--vllm-tree", str(tmp_path))
    assert rc == 2
    assert "no vllm/config/speculative.py, so this is no vLLM source tree" in err
    assert "Traceback" not in out + err


def test_a_tree_of_another_shape_is_a_clear_error(tree, dsv41gen):
    path = tree / "vllm/v1/worker/gpu/spec_decode/dspark/utils.py"
    text = path.read_text()
    path.unlink()
    path.write_text(text.replace("_resolve_dspark_attention_backend", "_renamed"))
    rc, out, err = dsv41gen("emit", "--vllm-tree", str(tree))
    assert rc == 2
    assert "dspark/utils.py: no function _resolve_dspark_attention_backend" in err
    assert "Traceback" not in out + err
    assert not (tree / MANIFEST).exists()  # nothing written


def test_check_plan_without_manifest_says_never_emitted(tree):
    drifts = check_plan(plan_tree(tree, families(SPECS)))
    assert [d.kind for d in drifts] == ["not emitted"]


def test_a_dividing_mxfp8_kernel_gets_seed_000_hunk_3(tree):
    """Hunk 3 is not V4.1's (the root spec's quantization.mxfp8.scaling decides it, and the
    spec language has only the reciprocal form): the tree before the PR divided by
    exp2(sb - 127); emitting into it writes the PR's lines."""
    rel = "vllm/model_executor/layers/quantization/utils/mxfp8_utils.py"
    path = tree / rel
    text = path.read_text()
    start = text.index("        # Scale by the reciprocal")
    last = "        xq = (x * rescale[:, None]).to(xq_ptr.dtype.element_ty)\n"
    end = text.index(last) + len(last)
    divide = (
        "        descale = tl.exp2(sb - 127.0)\n"
        "        xq = (x / descale[:, None]).to(xq_ptr.dtype.element_ty)\n"
    )
    path.unlink()
    path.write_text(text[:start] + divide + text[end:])
    before = {rel: path.read_text()}
    emit(tree, refactor=False)
    removed, added = diff_lines(before, {rel: path.read_text()}, rel)
    assert [x.strip() for x in removed] == [
        "descale = tl.exp2(sb - 127.0)",
        "xq = (x / descale[:, None]).to(xq_ptr.dtype.element_ty)",
    ]
    assert [x.strip() for x in added][-2:] == [
        "rescale = tl.exp2(127.0 - sb)",
        "xq = (x * rescale[:, None]).to(xq_ptr.dtype.element_ty)",
    ]
    words = " ".join(added[:-2]).replace("#", " ").split()
    assert (
        words
        == " ".join(text[start : text.index("        rescale =")].split("\n"))
        .replace("#", " ")
        .split()
    )


def test_a_family_a_site_does_not_apply_to_gets_a_note_not_an_error(tree):
    """The Qwen family declares no DSpark draft, no sparse MLA or indexer backends, no
    `kv_cache.spec_types` and no MXFP8 kernel: those sites say so and leave vLLM's text; its
    variants' own MTP drafts keep vLLM's `hf_config_override` branches, with their lines."""
    qwen = [f for f in families(SPECS) if f.name == "qwen3_next"]
    assert qwen, "specs/ holds the Qwen family"
    before = snapshot(tree)
    plan = plan_tree(tree, qwen)
    assert plan.changed == []
    skipped = [n for n in plan.notes if "skipped for family 'qwen3_next'" in n]
    for site_file in (
        "vllm/v1/worker/gpu/spec_decode/dspark/utils.py",
        "vllm/v1/attention/backends/mla/indexer.py",
        "vllm/v1/core/kv_cache_planning.py",
    ):
        assert any(n.startswith(site_file + ":") for n in skipped), (site_file, plan.notes)
    draft = [n for n in plan.notes if "hf_config_override left as it is" in n]
    assert len(draft) == 1 and "vllm/config/speculative.py:908" in draft[0], plan.notes
    assert all(t in draft[0] for t in ("qwen3_5_mtp", "qwen3_next_mtp", "qwen4_exp_mtp")), draft
    write_plan(plan)
    assert snapshot(tree) == before
