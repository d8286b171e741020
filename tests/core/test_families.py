"""Families are isolated: identities are unique across all families, and a broken spec of
another family is reported without blocking the family being built.

Every fixture is written here, in a temporary directory: a second family is the V4 root with
its identities renamed, so the tests do not depend on which variants the shipped specs hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from corehelpers import V4, V41, line_of, tree_bytes

RENAMES = [
    ("DeepseekV4", "OtherV4"),
    ("DeepSeekV4", "OtherSeekV4"),
    ("DSparkDraftModel", "OtherDSparkDraftModel"),
    ("name: deepseek_v4", "name: other_v4"),
    ("model_type: deepseek_v4", "model_type: other_v4"),
]
# the engine targets (registry and backend class paths) stay V4's: the build checks them against vLLM 0.33.0's own names, and
# two families may run one model class (it is not an identity)
TARGETS = ("    module: ", "    class: ", "    class_path: ")


def other_family(specs: Path, undo: tuple[str, ...] = ()) -> Path:
    """specs/other.yaml: a root of its own, V4 with every identity renamed except `undo`."""
    lines = (specs / V4).read_text(encoding="utf-8").splitlines(keepends=True)
    for old, new in RENAMES:
        if old not in undo:
            lines = [line if line.startswith(TARGETS) else line.replace(old, new) for line in lines]
    text = "".join(lines)
    path = specs / "other.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_second_family_builds_beside_the_first(specs_copy, run_cli, tmp_path):
    other_family(specs_copy)
    result = run_cli("build", "--out", "out")
    assert result.rc == 0, result.output
    assert (tmp_path / "out/deepseek_v4/registry.py").is_file()
    assert (tmp_path / "out/other_v4/registry.py").is_file()


def test_broken_spec_of_another_family_warns_and_does_not_block(specs_copy, run_cli, tmp_path):
    other = other_family(specs_copy)
    other.write_text(
        other.read_text(encoding="utf-8").replace(
            "spec_version: 1", "spec_version: 1\nno_such_section: 1"
        ),
        encoding="utf-8",
    )
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 0, result.output
    line = line_of(other, "no_such_section")
    assert f"warning: specs/other.yaml:{line}:1: no_such_section: unknown field" in result.stderr
    assert "their family was not built" in result.stderr
    assert (tmp_path / "out/deepseek_v4/registry.py").is_file()
    assert not (tmp_path / "out/other_v4").exists()
    # Named on the command line, the same spec is an error of the build.
    named = run_cli("build", "specs/other.yaml", "--out", "out")
    assert named.rc == 1, named.output
    assert f"specs/other.yaml:{line}:1: no_such_section: unknown field" in named.stderr
    assert "warning:" not in named.stderr


def test_broken_sibling_of_the_same_family_still_blocks(specs_copy, run_cli, tmp_path):
    child = specs_copy / "child.yaml"
    child.write_text(
        f"spec_version: 1\nextends: {V41}\nvariant:\n  name: child\n  bogus: 1\n",
        encoding="utf-8",
    )
    result = run_cli("build", f"specs/{V4}", "--out", "out")
    assert result.rc == 1, result.output
    assert "specs/child.yaml:5:3: variant.bogus: unknown field" in result.stderr
    assert not (tmp_path / "out").exists()


def test_spec_that_does_not_load_blocks_every_build(specs_copy, run_cli, tmp_path):
    """Its `extends` cannot be read, so it may be a member of the family being built: leaving it
    out could drop a variant from the package without a word."""
    (specs_copy / "half_written.yaml").write_text("variant: [unclosed\n", encoding="utf-8")
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 1, result.output
    assert "specs/half_written.yaml:2:1: invalid YAML" in result.stderr
    assert not (tmp_path / "out").exists()


def test_root_with_another_familys_package_name_is_an_error(specs_copy, run_cli, tmp_path):
    assert run_cli("build", "--out", "out").rc == 0
    before = tree_bytes(tmp_path / "out")
    other = other_family(specs_copy, undo=("name: deepseek_v4",))
    line = line_of(other, "name: deepseek_v4")
    for args in (["specs/other.yaml"], [f"specs/{V41}"], []):
        result = run_cli("build", *args, "--out", "out")
        assert result.rc == 1, (args, result.output)
        assert "variant names are unique across families" in result.stderr
        assert tree_bytes(tmp_path / "out") == before, args
    # Built alone, the new root is blamed; built alone, the old family is blamed at its own
    # spec (it is the one being built, and the clash must block it).
    alone = run_cli("build", "specs/other.yaml", "--out", "out")
    assert f"specs/other.yaml:{line}:3: variant.name: 'deepseek_v4' is also used by" in (
        alone.stderr
    )
    check = run_cli("check", "--out", "out")
    assert check.rc == 1, check.output


@pytest.mark.parametrize(
    ("kept", "field", "needle"),
    [
        ("model_type: deepseek_v4", "variant.model_type", "  model_type: deepseek_v4"),
        ("DeepseekV4", "architectures.DeepseekV4ForCausalLM", "  DeepseekV4ForCausalLM:"),
    ],
)
def test_identity_shared_with_another_family_is_an_error(specs_copy, run_cli, kept, field, needle):
    other = other_family(specs_copy, undo=(kept,))
    result = run_cli("build", "specs/other.yaml", "--out", "out")
    assert result.rc == 1, result.output
    line = next(  # the first: the architectures section comes before the runner's use of it
        i
        for i, text in enumerate(other.read_text(encoding="utf-8").splitlines(), 1)
        if needle in text
    )
    assert f"specs/other.yaml:{line}:3: {field}: " in result.stderr
    assert f"is also used by specs/{V4}, another family" in result.stderr


def _parent_in_a_subdirectory(specs: Path, parent: str) -> None:
    """V4.1 extends `parent` (below specs/, or not named *.yaml): a place `extends` allows
    but the sibling glob does not look at."""
    (specs / parent).parent.mkdir(parents=True, exist_ok=True)
    (specs / V4).rename(specs / parent)
    v41 = specs / V41
    v41.write_text(
        v41.read_text(encoding="utf-8").replace(f"extends: {V4}", f"extends: {parent}"),
        encoding="utf-8",
    )


@pytest.mark.parametrize("parent", ["base/deepseek_v4.yaml", "deepseek_v4.spec"])
def test_a_parent_the_sibling_glob_does_not_see_is_still_in_the_family(
    specs_copy, run_cli, tmp_path, parent
):
    """The ancestors of a named spec are members of its family wherever `extends` finds them:
    a parent below the spec directory was left out of the family (its child was planned as the
    root without it: exit 70), unless it was named on the command line too."""
    _parent_in_a_subdirectory(specs_copy, parent)
    alone = run_cli("build", f"specs/{V41}", "--out", "alone")
    assert alone.rc == 0, alone.output
    both = run_cli("build", f"specs/{V41}", f"specs/{parent}", "--out", "both")
    assert both.rc == 0, both.output
    assert tree_bytes(tmp_path / "alone") == tree_bytes(tmp_path / "both")
    assert "deepseek_v4" in (tmp_path / "alone/deepseek_v4/registry.py").read_text()
    check = run_cli("check", f"specs/{V41}", "--out", "alone")
    assert check.rc == 0, check.output


def test_a_parent_outside_the_glob_named_like_a_root_beside_it_is_an_identity_clash(
    specs_copy, run_cli
):
    """A copy of the root under another name, extended by the child: two roots of one name,
    reported as such (it was exit 70: the copy was no member of any family)."""
    (specs_copy / "base.spec").write_bytes((specs_copy / V4).read_bytes())
    edit_v41 = specs_copy / V41
    edit_v41.write_text(edit_v41.read_text().replace(f"extends: {V4}", "extends: base.spec"))
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 1, result.output
    assert "internal error" not in result.stderr
    assert "variant.name: 'deepseek_v4' is also used by specs/" in result.stderr, result.stderr
