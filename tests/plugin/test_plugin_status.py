"""The plugin-status command of docs/plugin.md against vLLM 0.33.0's own plugin selection.

vLLM imports no code of a general plugin that ``VLLM_PLUGINS`` does not select, so the family's
plugin cannot warn about it; the docs give a command instead. Here that command, read from the
docs as written, runs with the conformance venv's python and the generated plugin wheel
installed (beside a second, harmless general plugin), under each setting below. The oracle is
vLLM's own ``load_plugins_by_group`` in the same environment: the plugins the command calls
"loaded" are exactly the ones vLLM loads, and when the family's is not among them the command
says "NOT selected" and names the setting that fixes it.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest
from pluginhelpers import REPO, vllm_forkserver

DOCS = REPO / "docs" / "plugin.md"
PLUGIN = "deepseek_v4"
OTHER = "other_plugin"  # a second general plugin: its entry point loads json.dumps
# VLLM_PLUGINS as the user sets it (None: unset)
SETTINGS = {
    "unset": None,
    "the plugin": PLUGIN,
    "typo": "deepseek_v5",
    "another plugin only": OTHER,
    "empty": "",
}
# what the command must say for each setting where vLLM does not load the family's plugin
FIXES = {
    "typo": [
        "VLLM_PLUGINS names 'deepseek_v5', which no installed vLLM plugin has; "
        "did you mean 'deepseek_v4'?",
        "the deepseek_v4 plugin is installed but NOT selected by VLLM_PLUGINS: "
        "set VLLM_PLUGINS=deepseek_v4",
    ],
    "another plugin only": [
        "the deepseek_v4 plugin is installed but NOT selected by VLLM_PLUGINS: "
        "set VLLM_PLUGINS=other_plugin,deepseek_v4"
    ],
    "empty": [
        "the deepseek_v4 plugin is installed but NOT selected by VLLM_PLUGINS: "
        "set VLLM_PLUGINS=deepseek_v4"
    ],
}

# Runs in the vLLM venv: which general plugins vLLM itself loads under each setting, and the
# entry-point groups vLLM 0.33.0 has (the generated module's GROUPS must be all of them).
ORACLE = textwrap.dedent(
    """\
    import json, os, sys
    import vllm.plugins as plugins

    settings = json.loads(sys.argv[1])
    loaded = {}
    for label, value in settings.items():
        os.environ.pop("VLLM_PLUGINS", None)
        if value is not None:
            os.environ["VLLM_PLUGINS"] = value
        loaded[label] = sorted(plugins.load_plugins_by_group(plugins.DEFAULT_PLUGINS_GROUP))
    groups = sorted(v for k, v in vars(plugins).items() if k.endswith("_PLUGINS_GROUP"))
    print(json.dumps({"loaded": loaded, "groups": groups}))
    """
)


def documented_command() -> list[str]:
    """The plugin-status command docs/plugin.md gives, as argv."""
    found = re.findall(r"^ {4}(python -m \S+\.plugin_status)\s*$", DOCS.read_text(), re.M)
    assert len(found) == 1, f"docs/plugin.md should give the command once: {found}"
    return shlex.split(found[0])


def add_other_plugin(site: Path) -> None:
    """A second installed general plugin, as an installer writes its metadata."""
    info = site / "other_plugin-1.0.dist-info"
    info.mkdir(exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: other-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[vllm.general_plugins]\n{OTHER} = json:dumps\n")


def environment(site: Path, value: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VLLM_PLUGINS")}
    env["PYTHONPATH"] = str(site)
    if value is not None:
        env["VLLM_PLUGINS"] = value
    return env


@pytest.fixture(scope="module")
def site(real_family, tmp_path_factory) -> Path:
    """A copy of the family's install site with the second plugin added: the shared site stays
    as other tests expect it (a general plugin `json:dumps` there would run in their vLLM)."""
    _, shared = real_family
    site = tmp_path_factory.mktemp("plugin-status-site") / "site"
    shutil.copytree(shared, site, symlinks=True)
    add_other_plugin(site)
    return site


@pytest.fixture(scope="module")
def oracle(vllm_python, site, tmp_path_factory) -> dict:
    script = tmp_path_factory.mktemp("plugin-status") / "oracle.py"
    script.write_text(ORACLE)
    result = vllm_forkserver.run(
        vllm_python, [str(script), json.dumps(SETTINGS)], env=environment(site, None)
    )
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout)


def run_status(vllm_python: Path, site: Path, value: str | None) -> subprocess.CompletedProcess:
    argv = documented_command()
    assert argv[0] == "python"
    return subprocess.run(
        [str(vllm_python), *argv[1:]],
        env=environment(site, value),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_documented_command_names_the_generated_module():
    assert documented_command() == ["python", "-m", f"{PLUGIN}.plugin_status"]


def test_the_oracle_sees_both_plugins_when_unset(oracle):
    # the comparison below means something only when vLLM finds both plugins installed here
    # (beside the general plugins vLLM's own wheel declares)
    assert {PLUGIN, OTHER} <= set(oracle["loaded"]["unset"])
    assert oracle["loaded"]["the plugin"] == [PLUGIN]


@pytest.mark.parametrize("label", list(SETTINGS))
def test_the_command_agrees_with_vllms_selection(label, vllm_python, site, oracle):
    result = run_status(vllm_python, site, SETTINGS[label])
    lines = result.stdout.splitlines()
    states = dict(re.findall(r"^  (\S+) -> \S+: (.*)$", result.stdout, re.M))
    assert sorted(states) == oracle["loaded"]["unset"], result.stdout
    said_loaded = sorted(name for name, state in states.items() if state == "loaded")
    assert said_loaded == oracle["loaded"][label], result.stdout
    for name, state in states.items():
        if name not in oracle["loaded"][label]:
            assert state == "NOT selected: add it to VLLM_PLUGINS", result.stdout
    loads = PLUGIN in oracle["loaded"][label]
    assert result.returncode == (0 if loads else 1), result.stdout + result.stderr
    if loads:
        assert label not in FIXES and "NOT selected by" not in result.stdout, result.stdout
    else:
        assert lines[-len(FIXES[label]) :] == FIXES[label], result.stdout


def test_the_command_names_every_group_vllm_filters(site, vllm_python, oracle):
    """A name in VLLM_PLUGINS may be a plugin of any group: the module keeps those in the
    setting it proposes, so it must know every group vLLM 0.33.0 filters."""
    code = f"import {PLUGIN}.plugin_status as s; print(sorted(s.GROUPS))"
    result = subprocess.run(
        [str(vllm_python), "-c", code],
        env=environment(site, None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == str(oracle["groups"])


def test_the_command_says_when_the_plugin_is_not_installed(vllm_python, tmp_path):
    """Without the wheel on the path, the module is not there to run: python says so itself.
    With only its module (no entry point installed) it says the plugin is not installed."""
    module_dir = tmp_path / PLUGIN
    module_dir.mkdir()
    generated = REPO / "generated" / PLUGIN
    for name in ("__init__.py", "plugin_status.py"):
        (module_dir / name).write_text((generated / name).read_text())
    result = run_status(vllm_python, tmp_path, None)
    assert result.returncode == 1
    assert f"the {PLUGIN} plugin is not installed for {vllm_python}" in result.stdout
