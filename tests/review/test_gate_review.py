"""The review as a gate (issue 23, findings 5, 6, 7 and 9, and "a generated file whose committed
text differs from what its specs produce is a finding at the top of the review").

Each test here failed on the review before: it reported what the specs would generate and
believed the committed tree, so a tampered tree, a removed family or a "cosmetic" edit that
reaches code went by, and its comment was 78,876 characters of formatting churn."""

from __future__ import annotations

import json
import re
import shutil

import pytest
from familyhelpers import other_family_spec
from reviewhelpers import REPO, copy_specs, drop_q_head_128_with_waiver, edit, git, run_cli

V4, V41 = "specs/deepseek_v4.yaml", "specs/deepseek_v41.yaml"
PAYLOAD = "\nimport os\nos.system('touch /tmp/dsv41gen-review-pwned')\n"


@pytest.fixture
def committed_repo(tmp_path):
    """A consumer repository as the project is one: specs, its own ruff and clang-format
    settings, and generated/ built with them and committed; tagged `base`."""
    root = tmp_path / "repo"
    copy_specs(root / "specs")
    (root / "pyproject.toml").write_text(
        '[tool.ruff]\nline-length = 100\ntarget-version = "py310"\n'
    )
    shutil.copy(REPO / ".clang-format", root / ".clang-format")
    built = run_cli(root, "build")
    assert built.returncode == 0, built.stderr
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    git(root, "tag", "base")
    return root


def _review(root, fmt="json"):
    result = run_cli(root, "diff", "--against", "base", "--format", fmt)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def test_an_unchanged_tree_yields_an_empty_review(committed_repo):
    """The base ref was rendered without the repository's formatter settings: 810 lines of
    churn in 28 files for a pull request that changed nothing."""
    result = _review(committed_repo)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["generated_diff"] == ""
    assert report["changes"] == [] and report["tree"] == []
    markdown = _review(committed_repo, "markdown").stdout
    assert len(markdown) < 1_000, len(markdown)


def test_a_real_change_is_the_first_thing_in_the_generated_diff(committed_repo):
    edit(committed_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    report = json.loads(_review(committed_repo).stdout)
    diff = report["generated_diff"].splitlines()
    assert diff[0] == "--- a/generated/deepseek_v4/backends.py", diff[:3]
    assert "+        return _sizes_for_device({90: [32]}, [128])" in diff[:40]
    files = [line[6:] for line in diff if line.startswith("+++ b/")]
    tests = [f for f in files if "/tests/" in f]
    assert files[: len(files) - len(tests)] == [f for f in files if "/tests/" not in f]


def _forge_committed(root, rel="registry.py"):
    """Finding 1 as a pull request does it: code appended to a generated file, its header
    hash and its MANIFEST line rewritten to match."""
    from dsv41gen.emit.fastpath import file_digest
    from dsv41gen.emit.write import body_of, short_hash

    path = root / "generated" / "deepseek_v4" / rel
    text = path.read_text() + PAYLOAD
    stamp = re.search(r"dsv41gen-content: ([0-9a-f]{16})", text)[1]
    text = text.replace(stamp, short_hash(body_of(text).encode()), 1)
    path.write_text(text)
    manifest = root / "generated" / "deepseek_v4" / "MANIFEST"
    manifest.write_text(
        re.sub(
            rf"^[0-9a-f]{{16}}  {re.escape(rel)}$",
            f"{file_digest(text.encode())}  {rel}",
            manifest.read_text(),
            flags=re.M,
        )
    )


def test_a_committed_file_the_specs_do_not_produce_is_the_first_finding(committed_repo):
    _forge_committed(committed_repo)
    (committed_repo / "generated/deepseek_v4/tests/conftest.py").write_text("import os\n")
    edit(committed_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    result = _review(committed_repo)
    assert result.returncode == 3, result.stderr
    report = json.loads(result.stdout)
    tree = {f["path"]: f for f in report["tree"]}
    registry = tree["generated/deepseek_v4/registry.py"]
    assert registry["what"] == "committed text differs from what its specs produce"
    assert "-os.system('touch /tmp/dsv41gen-review-pwned')" in registry["diff"].splitlines()
    assert (
        "a file the build does not write" in tree["generated/deepseek_v4/tests/conftest.py"]["what"]
    )
    # the spec change is still reviewed, below the tree's findings
    assert [c["path"] for c in report["changes"]] == [
        "attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm90"
    ]
    markdown = _review(committed_repo, "markdown").stdout
    first_finding = markdown.index("`generated/deepseek_v4/registry.py`")
    assert first_finding < markdown.index("| severity |")
    assert markdown.index("-os.system(") < markdown.index("<details>")  # its diff, unfolded
    text = _review(committed_repo, "text").stdout
    assert text.startswith("The committed generated tree is not what the specs produce")


def test_removing_a_whole_family_is_breaking(committed_repo):
    """The review looked only at the specs the working tree still has: a family whose specs
    were deleted reported 0 changes and exit 0."""
    other = other_family_spec((REPO / "specs" / "deepseek_v4.yaml").read_text())
    (committed_repo / "specs" / "otherfam.yaml").write_text(other)
    assert run_cli(committed_repo, "build").returncode == 0
    git(committed_repo, "add", ".")
    git(committed_repo, "commit", "-q", "-m", "a second family")
    git(committed_repo, "tag", "-f", "base")
    (committed_repo / "specs" / "otherfam.yaml").unlink()
    shutil.rmtree(committed_repo / "generated" / "otherfam")
    result = _review(committed_repo)
    assert result.returncode == 5, result.stderr
    changes = json.loads(result.stdout)["changes"]
    assert [(c["variant"], c["path"], c["kind"], c["severity"]) for c in changes] == [
        ("otherfam", "variant", "removed", "BREAKING")
    ]
    assert "--- a/generated/otherfam/registry.py" in json.loads(result.stdout)["generated_diff"]


def test_cosmetic_is_verified_change_by_change(spec_repo):
    """hf_config.n_routed_experts 256 -> 1 is BEHAVIOUR alone (checkpoint.py defaults to it);
    next to a block-size change it was called COSMETIC."""
    edit(spec_repo / V4, "  n_routed_experts: 256", "  n_routed_experts: 1")
    edit(spec_repo / V41, "        sm90: [64]\n", "        sm90: [32]\n")
    edit(spec_repo / V41, "  hidden_size: 5120", "  hidden_size: 6144")  # truly cosmetic
    result = run_cli(spec_repo, "diff", "--against", "base", "--format", "json")
    assert result.returncode == 0, result.stderr
    got = {(c["variant"], c["path"]): c["severity"] for c in json.loads(result.stdout)["changes"]}
    assert got[("deepseek_v4", "hf_config.n_routed_experts")] == "BEHAVIOUR"
    assert got[("deepseek_v41", "hf_config.hidden_size")] == "COSMETIC"


WAIVER = (
    "@org/team and @someone: see #12 and org/repo#34, https://evil.example/x, www.evil.example "
    "and <https://evil.example> :x:"
)


def _text_outside_code(markdown: str) -> str:
    """Every piece of text GitHub's mention, issue-link and autolink filters would see: the
    text nodes outside code spans and code blocks."""
    md = pytest.importorskip("markdown_it").MarkdownIt("commonmark").enable("table")
    seen = []
    for token in md.parse(markdown):
        if token.type == "inline":
            seen += [c.content for c in token.children or () if c.type in ("text", "html_inline")]
            seen += [c.attrs.get("href", "") for c in token.children or () if c.type == "link_open"]
        elif token.type in ("html_block", "paragraph_open"):
            seen.append(token.content)
    return "\n".join(seen)


def test_waiver_text_is_inert_in_the_comment(spec_repo):
    drop_q_head_128_with_waiver(spec_repo, json.dumps(WAIVER))
    result = run_cli(spec_repo, "diff", "--against", "base", "--format", "markdown")
    assert result.returncode == 0, result.stderr
    assert WAIVER.replace("|", "\\|") in result.stdout  # shown, as written
    live = _text_outside_code(result.stdout)
    for needle in ("@org", "@someone", "#12", "#34", "evil.example", ":x:"):
        assert needle not in live, needle


def test_a_waiver_reason_has_a_length_limit(spec_repo):
    drop_q_head_128_with_waiver(spec_repo, "a very long reason " * 40)
    result = run_cli(spec_repo, "diff", "--against", "base")
    assert result.returncode == 1, result.stdout
    assert re.search(
        r"specs/deepseek_v4\.yaml:\d+:\d+: review\.accepted_breaking_changes\.0\.reason",
        result.stderr,
    ), result.stderr


def test_the_comment_stays_under_githubs_limit_and_no_diff_line_escapes_its_block():
    """A diff line holding ``` closed the block: everything after it was live markdown. And
    the comment had no size limit (GitHub cuts at 65,536 characters)."""
    from dsv41gen.commands.review import MAX_MARKDOWN_CHARS, render_markdown
    from dsv41gen.commands.semdiff import SemanticDiff, TreeFinding

    hostile = "+x = '```'\n+@org/team see #12 https://evil.example\n"
    result = SemanticDiff(
        [],
        hostile + "".join(f"+line {i}\n" for i in range(20_000)),
        [TreeFinding("generated/p/registry.py", "committed text differs", "-a\n+```\n+@org\n")],
    )
    markdown = render_markdown(result, "base")
    assert len(markdown) <= MAX_MARKDOWN_CHARS
    assert "more lines not shown here: run `dsv41gen diff --against base`" in markdown
    live = _text_outside_code(markdown)
    assert "@org" not in live and "#12" not in live and "evil.example" not in live
