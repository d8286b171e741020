"""A run forked from the vLLM fork server is what a fresh process of the venv's python is, as
far as a script can see: argv, working directory, environment, sys.path (the run's PYTHONPATH
included), __name__, stdin, stdout, stderr and exit status; and no run sees an earlier one's
state (vllm_forkserver.py's docstring says what may differ: the modules it imported first)."""

from __future__ import annotations

import json
import os

import pytest
import vllm_forkserver

PROBE = """\
import json, os, sys
import vllm_forkserver_probe_target as target
seen = getattr(target, "marker", None)
target.marker = sys.argv[1]
print("the probe's stderr", file=sys.stderr)
print(json.dumps({
    "argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "path": sys.path,
    "name": __name__, "stdin": sys.stdin.read(), "seen": seen,
}))
sys.exit(int(sys.argv[2]))
"""


@pytest.mark.parametrize("code", [0, 3])
def test_a_forked_run_is_a_fresh_process(vllm_python, tmp_path, monkeypatch, code):
    scripts, extra, cwd = tmp_path / "scripts", tmp_path / "extra", tmp_path / "cwd"
    for directory in (scripts, extra, cwd):
        directory.mkdir()
    (scripts / "probe.py").write_text(PROBE)
    (extra / "vllm_forkserver_probe_target.py").write_text("")  # found through PYTHONPATH
    env = {**os.environ, "PYTHONPATH": str(extra), "PROBE_VARIABLE": "a value"}
    env.pop("PYTEST_CURRENT_TEST", None)

    def run(tag: str):
        return vllm_forkserver.run(
            vllm_python,
            [str(scripts / "probe.py"), tag, str(code)],
            env=env,
            cwd=cwd,
            input=f"stdin of {tag}",
            timeout=300,
        )

    first, second = run("first"), run("second")
    monkeypatch.setenv("DSV41GEN_VLLM_FORK", "0")
    fresh = run("second")

    assert first.returncode == second.returncode == fresh.returncode == code
    assert first.stderr == second.stderr == fresh.stderr == "the probe's stderr\n"
    forked, expected = json.loads(second.stdout), json.loads(fresh.stdout)
    assert forked == expected
    assert expected["env"]["PROBE_VARIABLE"] == "a value"
    assert expected["path"][:2] == [str(scripts), str(extra)]
    assert expected["name"] == "__main__" and expected["stdin"] == "stdin of second"
    # the second forked run does not see what the first one did to a module
    assert json.loads(first.stdout)["seen"] is None and forked["seen"] is None
