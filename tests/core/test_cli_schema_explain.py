"""`schema`, `explain` and usage errors."""

from __future__ import annotations

import json
import re

import jsonschema
from corehelpers import REPO, V4, V41, line_of

# --- schema -----------------------------------------------------------------------------------


def _walk(node, path=()):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, path + (i,))


def test_schema_command_prints_valid_draft_2020_12(run_cli, tmp_path):
    result = run_cli("schema")
    assert result.rc == 0, result.output
    schema = json.loads(result.stdout)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    # The printed schema is the file the validator uses, byte for byte.
    assert result.stdout == (REPO / "dsv41gen" / "schema.json").read_text(encoding="utf-8")


def test_schema_closed_objects_and_anchored_patterns(run_cli):
    schema = json.loads(run_cli("schema").stdout)
    objects = 0
    for path, node in _walk(schema):
        if (
            "properties" in node
            and isinstance(node["properties"], dict)
            and path[-1:] != ("properties",)
        ):
            objects += 1
            assert node.get("additionalProperties") is False, "/".join(map(str, path))
        pattern = node.get("pattern") if path[-1:] != ("properties",) else None
        if isinstance(pattern, str):
            # Python's `$` also matches before a trailing newline ("X\n" would pass `^X$`).
            assert pattern.startswith("^") and pattern.endswith(r"$(?![\s\S])"), (path, pattern)
    assert objects >= 20


def test_schema_patterns_reject_trailing_newline(run_cli):
    schema = json.loads(run_cli("schema").stdout)
    identifier = schema["properties"]["architectures"]["additionalProperties"]["properties"][
        "class"
    ]
    checker = jsonschema.Draft202012Validator(identifier)
    assert checker.is_valid("DeepseekV41ForCausalLM")
    for bad in ("X\n", "X:\n    import os", "1X", "X Y", ""):
        assert not checker.is_valid(bad), repr(bad)
    module = schema["properties"]["architectures"]["additionalProperties"]["properties"]["module"]
    checker = jsonschema.Draft202012Validator(module)
    assert checker.is_valid("vllm.models.deepseek_v41")
    for bad in ("../../etc", "/abs", "a..b", "a.", "a\n", "a/b"):
        assert not checker.is_valid(bad), repr(bad)


# --- explain ----------------------------------------------------------------------------------


def _section(text: str, name: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {name}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("==")), len(lines))
    return lines[start:end]


def _row(section: list[str], field: str) -> tuple[str, str]:
    rows = [line for line in section if line.split(" = ", 1)[0] == field]
    assert len(rows) == 1, (field, rows)
    value, where = rows[0].split(" = ", 1)[1].rsplit("  # ", 1)
    return value.strip(), where


def test_explain_shows_provenance(reference_build, run_cli):
    specs = reference_build / "specs"
    result = run_cli("explain", f"specs/{V41}", cwd=reference_build)
    assert result.rc == 0, result.output
    v41 = _section(result.stdout, "deepseek_v41 (")
    assert v41[0] == "== deepseek_v41 (specs/deepseek_v4.yaml -> specs/deepseek_v41.yaml)"
    # Inherited unchanged: V4's line.
    assert _row(v41, "speculative.methods.dspark.label") == (
        "'DSpark'",
        f"specs/deepseek_v4.yaml:{line_of(specs / V4, 'label: DSpark')}:7",
    )
    # Overridden: V4.1's line.
    assert _row(v41, "speculative.methods.dspark.draft_architecture") == (
        "'DSparkV41DraftModel'",
        f"specs/deepseek_v41.yaml:{line_of(specs / V41, 'draft_architecture: DSparkV41DraftModel')}:7",
    )
    # A list replaced whole by the child.
    assert _row(v41, "kv_cache.compress_ratios") == (
        "[0, 1, 2]",
        f"specs/deepseek_v41.yaml:{line_of(specs / V41, 'compress_ratios: [0, 1, 2]')}:3",
    )
    # Deleted by the child: gone from its resolved spec, still in the parent's.
    assert not any(line.startswith("speculative.methods.mtp.") for line in v41)
    v4 = _section(result.stdout, "deepseek_v4 (")
    assert _row(v4, "speculative.methods.mtp.label") == (
        "'classic-MTP'",
        f"specs/deepseek_v4.yaml:{line_of(specs / V4, 'label: classic-MTP')}:7",
    )
    assert _row(v4, "speculative.methods.dspark.draft_architecture")[0] == "'DSparkDraftModel'"
    # Every value row names a file:line:column.
    for line in v4[1:] + v41[1:]:
        if line:
            assert re.search(r"  # specs/deepseek_v41?\.yaml:\d+:\d+$", line), line


def test_explain_merge_fork_table(reference_build, run_cli):
    # 120 columns: the real family's table (its DSpark default sources make it 101 wide)
    result = run_cli("explain", f"specs/{V41}", cwd=reference_build, env={"COLUMNS": "120"})
    table = _section(result.stdout, "merge / fork table of the deepseek_v4 family")
    rows = {line.split()[0]: line.split() for line in table[2:] if line.strip()}
    assert rows["dspark_draft_architecture"][1:4] == [
        "DSparkDraftModel",
        "DSparkV41DraftModel",
        "forked",
    ]
    assert rows["dspark_target_quantization"][1:4] == ["force", "force", "merged"]


def test_explain_lists_every_vllm_site(reference_build, run_cli):
    result = run_cli("explain", f"specs/{V41}", cwd=reference_build)
    table = _section(result.stdout, "vLLM wiring sites of the deepseek_v4 plugin")
    sites = {line: table[i + 1 : i + 4] for i, line in enumerate(table) if not line.startswith(" ")}
    assert sites["speculative.config"][0].split() == [
        "vLLM:",
        "vllm.config.speculative.SpeculativeConfig.__post_init__",
    ]
    assert sites["speculative.config"][1].split() == [
        "hook:",
        "plugin.speculative_config_post_init",
    ]
    assert "speculative.forbidden" in sites["speculative.config"][2]
    # a closure: the plugin checks vLLM's answers for the caches' types, and widens the tables
    # the one-time refactor makes
    assert sites["kv_cache.state_bucket"][1].startswith("    hook:  plugin.widen_state_buckets")
    assert "kv_cache.cache_spec_types" in sites["kv_cache.state_bucket"][2]


def test_explain_reports_spec_errors(specs_copy, run_cli, tmp_path):
    text = (specs_copy / V41).read_text()
    (specs_copy / V41).write_text(text.replace("sm100: [128]", "sm100: [96]"))
    result = run_cli("explain", f"specs/{V41}")
    assert result.rc == 1
    assert "block size 96 is not a positive power of two" in result.stderr
    assert "Traceback" not in result.output


# --- usage errors -----------------------------------------------------------------------------


def test_missing_spec_file(specs_copy, run_cli, tmp_path):
    for command in ("build", "check", "diff", "explain"):
        result = run_cli(command, "specs/deepseek_v42.yaml")
        assert result.rc == 2, (command, result.output)
        assert result.stderr.splitlines() == [
            "error: no such spec file: specs/deepseek_v42.yaml; did you mean 'deepseek_v4.yaml'?"
        ]
        assert "Traceback" not in result.output
    assert not (tmp_path / "generated").exists()


def test_missing_spec_directory(run_cli, tmp_path):
    result = run_cli("build", "nodir/x.yaml", "--out", "out")
    assert result.rc == 2
    assert result.stderr.splitlines() == ["error: no such spec file: nodir/x.yaml"]


def test_unknown_option_and_missing_argument(specs_copy, run_cli, tmp_path):
    result = run_cli("build", "--bogus", f"specs/{V41}")
    assert result.rc == 2
    assert "No such option '--bogus'" in result.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    result = run_cli("build", cwd=empty)  # no SPEC: defaults to specs/*.yaml, and there is none
    assert result.rc == 2
    assert result.stderr.splitlines() == ["error: no SPEC given and no specs/*.yaml here"]
    assert list(empty.iterdir()) == []
    result = run_cli("frobnicate")
    assert result.rc == 2
    assert "No such command 'frobnicate'" in result.stderr


def test_spec_is_a_directory_and_out_is_a_file(specs_copy, run_cli, tmp_path):
    result = run_cli("build", "specs")
    assert result.rc == 2
    assert "is a directory" in result.stderr
    (tmp_path / "afile").write_text("")
    result = run_cli("build", f"specs/{V41}", "--out", "afile")
    assert result.rc == 2
    assert "is a file" in result.stderr
    assert (tmp_path / "afile").read_text() == ""
