"""Fresh vLLM processes without paying vLLM's import each time: a fork server.

Every driver run of the conformance suite (``driver.py SITE``) and of the plugin tests
(``tests/plugin/vllm_driver.py``) used to be ``subprocess.run`` of the vLLM venv's python, and
each spent about 13 CPU-seconds importing vLLM (``vllm.config`` pulls in torch._dynamo,
torch._inductor, transformers, openai) before its first case: 21 such processes per suite run.

Here one server process per import environment imports those modules once, then forks a child
per run. The child is what a fresh ``python SCRIPT ARGS`` with the run's environment would be at
the point where the script starts: the run's ``os.environ``, ``sys.argv``, working directory,
``sys.path`` (the script's directory, then the run's ``PYTHONPATH``, then the interpreter's
own), stdin, stdout and stderr from and to files; the script runs as ``__main__``. It differs
from a fresh process only in that the modules below are already imported, which both drivers
import before anything of theirs runs that a module's import could see (the plugin driver's
prelude and plugin load, the conformance driver's site code, both come after their own vLLM
imports); the import environment (every variable but those in ``PER_RUN``) is the run's own,
so the server is keyed by it. Each run forks from the server, never from an
earlier run: no state passes from one run to the next.

One more difference: runs forked from one server share its str hash seed (fresh processes
each draw one), so the order of a set that vLLM prints in a message is the same across them;
no test compares such an order. ``DSV41GEN_VLLM_FORK=0`` runs every driver as a fresh process
instead; on 2026-12-01 both ways gave the same output for every driver run of
tests/conformance and tests/plugin/test_plugin_in_vllm.py, up to that set order.

``DSV41GEN_FORK_PRELOAD`` (comma-separated module names), in a run's environment, names other
modules to import first (a server per value, since it is part of the import environment): the
payload corpus's driver, which imports the generated package, whose platform answers import
torch, runs forked from a server that imported torch (tests/security/test_payloads.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# What both drivers import before any of their own code can make a difference (see above).
PRELOAD = (
    "vllm.config",
    "vllm.plugins",
    "vllm.model_executor.models.registry",
    "vllm.transformers_utils.config",
)
# Variables a run sets that the imports above do not read (pytest sets PYTEST_CURRENT_TEST
# per test): the one server serves runs that differ only in these.
PER_RUN = ("PYTHONPATH", "DSV41GEN_DRIVER_PRELUDE", "PYTEST_CURRENT_TEST")


# --- the server (runs in the vLLM venv; stdlib and vLLM only) --------------------------------


def _child(request: dict, base_path: list[str]) -> None:
    """Become ``python SCRIPT ARGS`` for ``request``; never returns."""
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, path, flags in (
            (0, request["stdin"], os.O_RDONLY),
            (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(path, flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        script = request["argv"][0]
        extra = [p for p in request["env"].get("PYTHONPATH", "").split(os.pathsep) if p]
        sys.path[:] = [str(Path(script).resolve().parent), *extra, *base_path]
        sys.argv[:] = request["argv"]
        import runpy

        try:
            runpy.run_path(script, run_name="__main__")
            code = 0
        except SystemExit as done:
            if done.code is None:
                code = 0
            elif isinstance(done.code, int):
                code = done.code
            else:
                print(done.code, file=sys.stderr)
                code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        os._exit(code)


def serve() -> None:
    import importlib

    # requests arrive on the original stdin, answers leave on the original stdout; fd 0 and 1
    # themselves are left to the children
    requests = os.fdopen(os.dup(0), "r")
    answers = os.fdopen(os.dup(1), "w")
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    preload = os.environ.get("DSV41GEN_FORK_PRELOAD")
    for name in preload.split(",") if preload else PRELOAD:
        importlib.import_module(name)
    base_path = sys.path[1:]  # sys.path[0] is this file's directory
    sys.stdout.flush()  # nothing the imports printed may reach a child's stdout
    sys.stderr.flush()
    answers.write("ready\n")
    answers.flush()
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            requests.close()
            answers.close()
            _child(request, base_path)
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}) + "\n")
        answers.flush()


# --- the client (runs in the test process) ----------------------------------------------------


class _Server:
    def __init__(self, python: str, env: dict[str, str], cwd: str):
        self.errors = tempfile.TemporaryFile()  # what the imports print (warnings), for failures
        self.process = subprocess.Popen(
            [python, __file__],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            env=env,
            cwd=cwd,
            text=True,
            start_new_session=True,
        )
        if self.process.stdout.readline() != "ready\n":
            self.close()
            self.errors.seek(0)
            stderr = self.errors.read().decode(errors="replace")[-4000:]
            raise RuntimeError(f"the vLLM fork server did not start ({python}):\n{stderr}")

    def run(self, request: dict, timeout: float) -> int:
        import select

        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if not ready:
            self.close()
            raise subprocess.TimeoutExpired(request["argv"], timeout)
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the vLLM fork server died")
        return json.loads(line)["returncode"]

    def close(self) -> None:
        import signal

        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


_SERVERS: dict[tuple, _Server] = {}


def _close_all() -> None:
    for server in _SERVERS.values():
        server.close()
    _SERVERS.clear()


def run(
    python: Path | str,
    argv: list[str],
    *,
    env: dict[str, str],
    cwd: Path | str | None = None,
    input: str = "",
    timeout: float = 900,
) -> subprocess.CompletedProcess:
    """``subprocess.run([python, *argv], input=input, env=env, cwd=cwd, capture_output=True,
    text=True, timeout=timeout)``, forked from the fork server of ``python`` and this
    environment (started on first use); see the module docstring."""
    cwd = str(cwd or os.getcwd())
    if os.environ.get("DSV41GEN_VLLM_FORK") == "0":
        return subprocess.run(
            [str(python), *argv],
            input=input,
            env=env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    base = {k: v for k, v in env.items() if k not in PER_RUN}
    key = (str(python), tuple(sorted(base.items())))
    if key not in _SERVERS or _SERVERS[key].process.poll() is not None:
        if not _SERVERS:
            import atexit

            atexit.register(_close_all)
        _SERVERS[key] = _Server(str(python), base, cwd)
    with tempfile.TemporaryDirectory(prefix="vllm-run-") as tmp:
        files = {name: str(Path(tmp) / name) for name in ("stdin", "stdout", "stderr")}
        Path(files["stdin"]).write_text(input, encoding="utf-8")
        request = {"argv": [str(a) for a in argv], "env": env, "cwd": cwd, **files}
        returncode = _SERVERS[key].run(request, timeout)
        return subprocess.CompletedProcess(
            [str(python), *argv],
            returncode,
            Path(files["stdout"]).read_text(encoding="utf-8"),
            Path(files["stderr"]).read_text(encoding="utf-8"),
        )


if __name__ == "__main__":
    serve()
