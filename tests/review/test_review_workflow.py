"""The review workflow as a PR sees it: grouping by `extends`, the markdown comment as GitHub
renders it, the generated diff, patches `git apply` takes, exit codes and CI annotations."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from reviewhelpers import edit, git, run_cli

V41 = "specs/deepseek_v41.yaml"


def _sibling(root, n: int, display_name: str | None = None) -> None:
    (root / f"specs/deepseek_v4{n}.yaml").write_text(
        "spec_version: 1\nextends: deepseek_v41.yaml\nvariant:\n"
        f"  name: deepseek_v4{n}\n  display_name: {display_name or f'DeepSeek V4.{n}'}\n"
        f"  model_type: deepseek_v4{n}\n"
    )


def _json_review(root) -> dict:
    result = run_cli(root, "diff", "--against", "base", "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_two_siblings_added_at_once_are_two_added_variants(spec_repo):
    _sibling(spec_repo, 2)
    _sibling(spec_repo, 3)
    changes = _json_review(spec_repo)["changes"]
    added = sorted(c["variant"] for c in changes if c["kind"] == "added" and c["path"] == "variant")
    assert added == ["deepseek_v42", "deepseek_v43"]
    assert not any("inherited by" in c["what"] for c in changes)


def test_a_change_a_child_inherits_is_still_reported_once(spec_repo):
    # V4.2 extends V4.1: a V4.1 edit reaches both, and is V4.1's change.
    _sibling(spec_repo, 2)
    git(spec_repo, "add", "specs")
    git(spec_repo, "commit", "-q", "-m", "v42")
    git(spec_repo, "tag", "-f", "base")
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    changes = _json_review(spec_repo)["changes"]
    [change] = [
        c for c in changes if c["path"].endswith("kernel_block_sizes.by_capability_family.sm90")
    ]
    assert change["variant"] == "deepseek_v41"
    assert "inherited by deepseek_v42" in change["what"]


def _table_rows(markdown: str) -> list[list[str]]:
    """The comment's table as GitHub-flavoured markdown renders it: each row's cell texts."""
    md = pytest.importorskip("markdown_it").MarkdownIt("commonmark").enable("table")
    rows, cells = [], None
    tokens = md.parse(markdown)
    for index, token in enumerate(tokens):
        if token.type == "tr_open":
            cells = []
        elif token.type in ("td_open", "th_open"):
            inline = tokens[index + 1]
            text = "".join(
                child.content
                for child in inline.children or ()
                if child.type in ("text", "code_inline")
            )
            html = [child.content for child in inline.children or () if "html" in child.type]
            assert not html, f"raw HTML reached the comment: {html}"
            cells.append(text)
        elif token.type == "tr_close":
            rows.append(cells)
    return rows


def test_markdown_cells_show_spec_text_as_written(spec_repo):
    name = "DeepSeek V4.1 | <b>bold</b> `code` *star* …"
    edit(spec_repo / V41, "display_name: DeepSeek V4.1\n", f"display_name: '{name}'\n")
    result = run_cli(spec_repo, "diff", "--against", "base", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert "\\u2026" not in result.stdout
    rows = _table_rows(result.stdout)
    assert rows[0] == ["severity", "field", "change"]
    assert all(len(row) == 3 for row in rows), rows
    [row] = [r for r in rows[1:] if "display_name" in r[1]]
    # the change cell: what changed, then before -> after, each value cut to 32 characters
    before, after = row[2].split(" → ")
    assert before.endswith('"DeepSeek V4.1"'), row
    written = json.dumps(name, ensure_ascii=False)
    assert after == written[:29] + "...", row  # the spec's own text, '|' and HTML as written


def test_generated_diff_does_not_open_with_manifest_churn(spec_repo):
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    result = run_cli(spec_repo, "diff", "--against", "base")
    assert result.returncode == 0, result.stderr
    files = re.findall(r"^\+\+\+ b/(\S+)", result.stdout, re.MULTILINE)
    assert files and not any(f.endswith("MANIFEST") for f in files), files
    assert "generated/deepseek_v4/MANIFEST: file hashes updated (not shown)" in result.stdout


def test_diff_is_a_patch_git_applies_at_the_repository_root(spec_repo):
    assert run_cli(spec_repo, "build").returncode == 0
    git(spec_repo, "add", "-A")
    git(spec_repo, "commit", "-q", "-m", "generated")
    clean = run_cli(spec_repo, "diff", "--exit-code")
    assert clean.returncode == 0, clean.stdout + clean.stderr
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    plain = run_cli(spec_repo, "diff")
    assert plain.returncode == 0  # without --exit-code, changes are not a failure
    result = run_cli(spec_repo, "diff", "--exit-code")
    assert result.returncode == 1, result.stderr
    assert result.stdout == plain.stdout
    files = re.findall(r"^--- a/(\S+)", result.stdout, re.MULTILINE)
    assert files[0] == "generated/deepseek_v4/backends.py"  # the change, not the hash churn
    assert files[-1] == "generated/deepseek_v4/MANIFEST"
    patch = spec_repo / "build.patch"
    patch.write_text(result.stdout)
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=spec_repo, check=True)
    subprocess.run(["git", "apply", str(patch)], cwd=spec_repo, check=True)
    patch.unlink()
    check = run_cli(spec_repo, "check")
    assert check.returncode == 0, check.stdout + check.stderr


def test_diff_against_exit_code(spec_repo):
    same = run_cli(spec_repo, "diff", "--against", "base", "--exit-code")
    assert same.returncode == 0, same.stderr
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    assert run_cli(spec_repo, "diff", "--against", "base").returncode == 0
    assert run_cli(spec_repo, "diff", "--against", "base", "--exit-code").returncode == 1


def test_spec_errors_as_github_annotations(spec_repo):
    edit(
        spec_repo / V41, "  model_type: deepseek_v41\n", "  model_type: deepseek_v41\n  bogus: 1\n"
    )
    line = spec_repo.joinpath(V41).read_text().splitlines().index("  bogus: 1") + 1
    result = run_cli(spec_repo, "check", "--output-format", "github")
    assert result.returncode == 1
    annotations = [x for x in result.stdout.splitlines() if x.startswith("::error ")]
    assert annotations == [
        f"::error file={V41},line={line},col=3,title=variant.bogus::unknown field 'bogus'; "
        "allowed: composite_model_types, display_name, model_type, model_type_aliases, name"
    ]
    # Without the option: the usual file:line:col lines, no workflow commands.
    plain = run_cli(spec_repo, "check")
    assert "::error" not in plain.stdout + plain.stderr
    assert f"{V41}:{line}:3: variant.bogus: unknown field 'bogus'" in plain.stderr


def test_stale_files_as_github_annotations(spec_repo):
    assert run_cli(spec_repo, "build").returncode == 0
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    result = run_cli(spec_repo, "check", "--output-format", "github")
    assert result.returncode == 3
    assert (
        "::error file=generated/deepseek_v4/backends.py::differs from what the specs generate"
        in result.stdout
    )
