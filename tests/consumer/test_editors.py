"""Editors: the YAML language server, driven headlessly over LSP, shows no false errors on the
real specs and the right one on a typo; the schemas work from any repository; check-jsonschema
validates a child spec against the child schema.

Settings are the ones the README gives: `yaml.customTags: ["!delete scalar"]`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from consumerhelpers import BIN, REPO, node_modules
from lspclient import YamlLanguageServer

from dsv41gen.spec.schemas import CHILD_SCHEMA_PATH, SCHEMA_PATH, child_schema

pytestmark = pytest.mark.slow
SETTINGS = {"validate": True, "customTags": ["!delete scalar"], "schemaStore": {"enable": False}}
V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"


@pytest.fixture(scope="module")
def server():
    lsp = YamlLanguageServer(node_modules(), SETTINGS)
    yield lsp
    lsp.close()


def _messages(diagnostics: list[dict]) -> list[tuple[int, str]]:
    return [(d["range"]["start"]["line"] + 1, d["message"]) for d in diagnostics]


def test_committed_child_schema_is_the_derived_one():
    full = json.loads(SCHEMA_PATH.read_text())
    assert json.loads(CHILD_SCHEMA_PATH.read_text()) == child_schema(full), (
        "schema.json changed: run `python -m dsv41gen.spec.derive`"
    )
    printed = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "schema", "--child"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert printed.stdout == CHILD_SCHEMA_PATH.read_text()


def test_real_specs_have_no_diagnostics(server):
    for name in (V4, V41):
        assert _messages(server.diagnostics(REPO / "specs" / name)) == [], name


def test_a_typo_in_the_child_is_the_one_diagnostic(server, tmp_path):
    shutil.copytree(REPO / "specs", tmp_path / "specs")
    shutil.copytree(
        REPO / "dsv41gen", tmp_path / "dsv41gen", ignore=shutil.ignore_patterns("*.py*")
    )
    child = tmp_path / "specs" / V41
    lines = child.read_text().splitlines(keepends=True)
    [index] = [i for i, line in enumerate(lines) if line.startswith("      draft_model_type:")]
    lines[index] = lines[index].replace("draft_model_type:", "draft_model_typ:")
    child.write_text("".join(lines))
    assert _messages(server.diagnostics(child)) == [
        (index + 1, "Property draft_model_typ is not allowed.")
    ]


def test_a_missing_required_field_in_the_root_is_still_reported(server, tmp_path):
    shutil.copytree(REPO / "specs", tmp_path / "specs")
    shutil.copytree(
        REPO / "dsv41gen", tmp_path / "dsv41gen", ignore=shutil.ignore_patterns("*.py*")
    )
    root = tmp_path / "specs" / V4
    root.write_text(root.read_text().replace("spec_version: 1\n", "", 1))
    assert any("spec_version" in m for _, m in _messages(server.diagnostics(root)))


def test_schemas_written_into_another_repository(server, tmp_path):
    """`dsv41gen schema --write` puts both schemas where that repository's specs can point."""
    consumer = tmp_path / "consumer"
    for child, name in ((False, "spec.schema.json"), (True, "child-spec.schema.json")):
        args = ["schema", *(["--child"] if child else []), "--write", f"schemas/{name}"]
        consumer.mkdir(exist_ok=True)
        subprocess.run([BIN / "dsv41gen", *args], cwd=consumer, check=True, capture_output=True)
    (consumer / "models").mkdir()
    for spec, schema in ((V4, "spec.schema.json"), (V41, "child-spec.schema.json")):
        text = (REPO / "specs" / spec).read_text().split("\n", 1)[1]
        (consumer / "models" / spec).write_text(
            f"# yaml-language-server: $schema=../schemas/{schema}\n{text}"
        )
        assert _messages(server.diagnostics(consumer / "models" / spec)) == [], spec


def test_check_jsonschema_validates_a_child_spec(tmp_path):
    """check-jsonschema's YAML loader rejects tags it does not know (it has no setting to
    declare one), so this child writes no `!delete`."""
    pytest.importorskip("check_jsonschema", reason="check-jsonschema is a test dependency")
    child = tmp_path / "deepseek_v42.yaml"
    child.write_text(
        "spec_version: 1\nextends: deepseek_v41.yaml\nvariant:\n  name: deepseek_v42\n"
        "  display_name: DeepSeek V4.2\n  model_type: deepseek_v42\n"
        "speculative:\n  methods:\n    dspark:\n      label: DSpark for V4.2\n"
    )

    def validate(schema):
        return subprocess.run(
            [BIN / "check-jsonschema", "--schemafile", str(schema), str(child)],
            capture_output=True,
            text=True,
            check=False,
        )

    ok = validate(CHILD_SCHEMA_PATH)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert validate(SCHEMA_PATH).returncode == 1  # the full schema wants what the parent has
    child.write_text(child.read_text().replace("label:", "lable:"))
    typo = validate(CHILD_SCHEMA_PATH)
    assert typo.returncode == 1 and "lable" in typo.stdout, typo.stdout
