"""The README's test command runs the conformance suite on a fresh machine (issue 26 item 10):
an absent vLLM venv is built by the suite itself, a failed build fails, and only an explicit
opt-out skips."""

from __future__ import annotations

import pytest
import vllmvenv


def _fake_script(tmp_path, body: str):
    script = tmp_path / "fake_build.sh"
    script.write_text("set -eu\nvenv=$1\n" + body)
    return script


def test_an_absent_venv_is_built_then_used(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    calls = tmp_path / "calls"
    script = _fake_script(
        tmp_path,
        f'echo built >> {calls}\nmkdir -p "$venv/bin"\n: > "$venv/bin/python"\n'
        f': > "$venv/{vllmvenv.STAMP}"\n',
    )
    monkeypatch.setattr(vllmvenv, "BUILD_SCRIPT", script)
    monkeypatch.setenv(vllmvenv.VENV_VARIABLE, str(venv))
    assert vllmvenv.require_vllm_python() == venv / "bin" / "python"
    assert vllmvenv.require_vllm_python() == venv / "bin" / "python"  # reused, not rebuilt
    assert calls.read_text() == "built\n"


def test_a_failed_build_fails_never_skips(tmp_path, monkeypatch):
    script = _fake_script(tmp_path, "echo 'pip: no matching distribution for vllm' >&2\nexit 7\n")
    monkeypatch.setattr(vllmvenv, "BUILD_SCRIPT", script)
    monkeypatch.setenv(vllmvenv.VENV_VARIABLE, str(tmp_path / "venv"))
    with pytest.raises(pytest.fail.Exception, match="failed with exit 7:\npip: no matching"):
        vllmvenv.require_vllm_python()


def test_only_an_explicit_opt_out_skips(monkeypatch):
    monkeypatch.setenv(vllmvenv.VENV_VARIABLE, "off")
    monkeypatch.delenv("DSV41GEN_REQUIRE_CONFORMANCE", raising=False)
    with pytest.raises(pytest.skip.Exception, match="DSV41GEN_VLLM_VENV=off"):
        vllmvenv.require_vllm_python()
    monkeypatch.setenv("DSV41GEN_REQUIRE_CONFORMANCE", "1")
    with pytest.raises(pytest.fail.Exception):
        vllmvenv.require_vllm_python()
