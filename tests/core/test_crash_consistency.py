"""Crash consistency and concurrency of the write phase, with real kills and real processes.

The writer calls `dsv41gen.faults.checkpoint(step)` at every point where a kill leaves a
different state on disk; `DSV41GEN_FAULT_AT=N` makes the process SIGKILL itself at the N-th.
The sweeps below kill a writer at N = 1, 2, ... until one run completes, so every step is
visited without this file listing them, and after each kill they check, by comparing bytes
with the two trees the specs produce:

- the package path holds the whole old tree or the whole new tree (with the two-rename
  fallback, it may also be missing between the renames, with the whole old tree at `.old`);
- the next command (`check`, `build`: the real CLI, through the no-op fast path) reports what
  it recovered and leaves exactly one whole tree and nothing beside it.

The concurrency tests freeze one real process at a chosen step (`DSV41GEN_FAULT_SIGNAL=SIGSTOP`)
and race a second one against it, so the race happens every time instead of by chance.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest
from corehelpers import NO_FORMAT_CACHE, SPECS, V4, V41, cli, edit, tree_bytes

from dsv41gen import faults
from dsv41gen.emit.write import LOCK_TIMEOUT, SWAP_MODE, locked_output, recover, write_package

PKG = "deepseek_v4"


@dataclass(frozen=True)
class Texts:
    old: dict[str, str]  # out-relative path -> text, from old/specs
    new: dict[str, str]  # from new/specs: files dropped, others changed or kept


def _lay_out_specs(root: Path) -> None:
    shutil.copytree(SPECS, root / "old" / "specs")
    shutil.copytree(SPECS, root / "new" / "specs")
    edit(
        root / "new" / "specs" / V4,
        "num_heads_q_padded: [0, 8, 16, 32, 64, 128]",
        "num_heads_q_padded: [0, 8, 16, 32, 64]",
    )


@pytest.fixture(scope="module")
def texts(tmp_path_factory) -> Texts:
    from dsv41gen.commands.pipeline import build_texts

    root = tmp_path_factory.mktemp("texts")
    _lay_out_specs(root)
    (old,) = build_texts((root / "old" / "specs" / V41,), root / "out")
    (new,) = build_texts((root / "new" / "specs" / V41,), root / "out")
    assert set(new.files) < set(old.files), "the new specs must drop files"
    return Texts(old.files, new.files)


def _expected(files: dict[str, str]) -> dict[str, bytes]:
    return {rel.split("/", 1)[1]: text.encode() for rel, text in files.items()}


@dataclass(frozen=True)
class Site:
    """tmp_path laid out as old/specs, new/specs and out/, out holding the old tree."""

    root: Path
    texts: Texts

    @property
    def out(self) -> Path:
        return self.root / "out"

    def tree(self, name: str = PKG) -> dict[str, bytes] | None:
        path = self.out / name
        return tree_bytes(path) if path.is_dir() else None

    def which(self, name: str = PKG) -> str:
        """'old', 'new' or 'missing'; anything else (a mixture) fails the test here."""
        tree = self.tree(name)
        if tree is None and not os.path.lexists(self.out / name):
            return "missing"
        if tree == _expected(self.texts.old):
            return "old"
        if tree == _expected(self.texts.new):
            return "new"
        raise AssertionError(f"{name} holds neither whole tree: {sorted(tree or {})}")

    def reset(self) -> None:
        shutil.rmtree(self.out, ignore_errors=True)
        write_package(self.out, PKG, self.texts.old)
        assert self.which() == "old"

    def cli(self, *args: str, env: dict[str, str] | None = None):
        return cli(args, self.root, env)

    def popen(self, *args: str, env: dict[str, str], stderr_file: Path) -> subprocess.Popen:
        full_env = {k: v for k, v in os.environ.items() if k != "DSV41GEN_DEBUG"} | env
        return subprocess.Popen(
            [sys.executable, "-m", "dsv41gen", *args],
            cwd=self.root,
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=stderr_file.open("w"),
            text=True,
        )


@pytest.fixture
def site(tmp_path, texts):
    """On tmpfs where there is one: the sweeps write a tree per kill, and fsync on a shared disk
    costs more than all the rest. fsync only matters for power loss, which no kill exercises;
    renames and renameat2 behave alike on both."""
    shm = Path("/dev/shm")
    root = Path(tempfile.mkdtemp(dir=shm)) if shm.is_dir() and os.access(shm, os.W_OK) else tmp_path
    try:
        _lay_out_specs(root)
        result = Site(root, texts)
        result.reset()
        yield result
    finally:
        if root != tmp_path:
            shutil.rmtree(root, ignore_errors=True)


# What a killed process runs: a fresh interpreter (or a fork of one) doing one write or one
# recovery under the output lock, exactly as the CLI does them.
_CHILD = """
import json, sys
from pathlib import Path
from dsv41gen.emit.write import locked_output, write_package
out = Path(sys.argv[1])
with locked_output(out, write=True, notify=lambda line: None):
    if sys.argv[2:]:
        write_package(out, "deepseek_v4", json.loads(Path(sys.argv[2]).read_text()))
"""


def _killable(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run _CHILD with args and env: (exit status, or -signal; its stderr). A fork of this
    process when it is single-threaded (fast: nothing to import), else a fresh interpreter."""
    if len(os.listdir("/proc/self/task")) > 1:
        full_env = {k: v for k, v in os.environ.items() if k != "DSV41GEN_DEBUG"} | env
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, *args], env=full_env, capture_output=True, text=True
        )
        return proc.returncode, proc.stderr
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        code = 1
        try:
            os.close(read_end)
            sys.stderr = open(write_end, "w", closefd=False)  # closed by _exit
            sys.argv = ["-c", *args]
            os.environ.update(env)
            faults._Counter.reached = 0
            exec(_CHILD, {"__name__": "__main__"})
            code = 0
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(code)
    os.close(write_end)
    with open(read_end) as stream:
        stderr = stream.read()
    _, status = os.waitpid(pid, 0)
    return (-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)), stderr


def _write_new(site: Site) -> list[str]:
    files = site.root / "new-files.json"
    files.write_text(json.dumps(site.texts.new))
    return [str(site.out), str(files)]


def _kill_sweep(args: list[str], env: dict[str, str], after_kill) -> list[str]:
    """Kill the child at checkpoint 1, 2, ... until it completes; after_kill(step, n) checks."""
    steps = []
    for index in itertools.count(1):
        status, stderr = _killable(args, {faults.FAULT_AT: str(index), **env})
        if status == 0:
            return steps
        assert status == -signal.SIGKILL, stderr
        match = re.search(rf"fault injected at step {index} \((.+?)\): SIGKILL", stderr)
        assert match, stderr
        steps.append(match[1])
        after_kill(match[1], index)
        assert index < 500, "the sweep does not end"
    raise AssertionError("unreachable")


# Steps after which the next command is the real CLI (the others recover in-process: every
# staged file leaves the same kind of state, a partial staging tree beside the old package).
_CLI_AFTER = re.compile(
    r"lock:held|stage:created|stage:__init__\.py|stage:synced|swap:.*|remove:.*"
)


def _next_command(site: Site, step: str, index: int) -> None:
    """The command after a kill: it recovers, says so, and leaves one whole tree, alone."""
    had_leftovers = sorted(os.listdir(site.out)) != [PKG]
    expected = "new" if site.which() == "new" else "old"
    if _CLI_AFTER.fullmatch(step):
        command = ("check", "build")[index % 2]  # both go through recovery, then the fast path
        result = site.cli(command, f"{expected}/specs/{V41}", "--out", "out")
        assert result.rc == 0, (step, result.output)
        count = len(getattr(site.texts, expected))
        assert result.stdout == f"out/{PKG}: up to date ({count} files)\n", step
        assert ("left by an interrupted build" in result.stderr) == had_leftovers, result.stderr
    else:
        notes = recover(site.out)
        assert bool(notes) == had_leftovers
    assert sorted(os.listdir(site.out)) == [PKG], step
    assert site.which() == expected, step


def _exchange_supported(directory: Path) -> bool:
    from dsv41gen.emit.write import _exchange

    (directory / "a").mkdir()
    (directory / "b").mkdir()
    try:
        return _exchange(directory / "a", directory / "b")
    finally:
        shutil.rmtree(directory / "a")
        shutil.rmtree(directory / "b")


@pytest.mark.parametrize("swap", ["exchange", "rename"])
def test_kill_at_every_step_of_the_write_phase(site, swap):
    if swap == "exchange" and not _exchange_supported(site.root):
        pytest.skip("this filesystem has no renameat2(RENAME_EXCHANGE); the rename case covers it")
    env = {SWAP_MODE: swap}
    seen = {"old": 0, "new": 0, "missing": 0}

    def after_kill(step: str, index: int) -> None:
        state = site.which()
        seen[state] += 1
        if state == "missing":
            # The one window of the fallback: between its two renames, the old tree whole at .old.
            assert (swap, step) == ("rename", "swap:old-aside")
            assert site.which(f".{PKG}.old") == "old"
        _next_command(site, step, index)
        if site.which() == "new":
            site.reset()

    steps = _kill_sweep(_write_new(site), env, after_kill)
    assert site.which() == "new" and sorted(os.listdir(site.out)) == [PKG]

    staged = {f"stage:{rel.split('/', 1)[1]}" for rel in site.texts.new}
    assert staged <= set(steps)
    swap_steps = ["swap:exchanged"] if swap == "exchange" else ["swap:old-aside", "swap:new-in"]
    assert [s for s in steps if s.startswith("swap:")] == [*swap_steps, "swap:synced"]
    assert {"lock:held", "stage:created", "stage:synced"} <= set(steps)
    assert any(s.startswith("remove:") for s in steps)
    assert seen["old"] and seen["new"]
    assert bool(seen["missing"]) == (swap == "rename")


def test_kill_at_every_step_of_recovery(site):
    """Recovery is itself killed at every step: a second recovery still ends in the old tree."""
    status, _ = _killable(
        _write_new(site), {faults.FAULT_AT: "swap:old-aside", SWAP_MODE: "rename"}
    )
    assert status == -signal.SIGKILL and site.which() == "missing"
    (site.out / f".{PKG}.new-0dd1eft").mkdir()  # and an older build's staging leftover
    (site.out / f".{PKG}.new-0dd1eft" / "partial.py").write_text("")
    snapshot = site.root / "snapshot"
    shutil.copytree(site.out, snapshot, symlinks=True)

    def after_kill(step: str, index: int) -> None:
        state = site.which()
        assert state == "old" or (state == "missing" and site.which(f".{PKG}.old") == "old")
        assert recover(site.out) or state == "old"
        assert sorted(os.listdir(site.out)) == [PKG] and site.which() == "old"
        shutil.rmtree(site.out)
        shutil.copytree(snapshot, site.out, symlinks=True)

    steps = _kill_sweep([str(site.out)], {}, after_kill)
    assert steps[0] == "recover:restored" and "lock:held" in steps
    assert sum(s.startswith("remove:") for s in steps) >= 3
    assert sorted(os.listdir(site.out)) == [PKG] and site.which() == "old"


def test_fast_path_and_diff_recover_leftovers_instead_of_saying_up_to_date(site):
    """Today's bug: the no-op fast path said "up to date" over a package renamed aside."""
    os.rename(site.out / PKG, site.out / f".{PKG}.old")
    (site.out / f".{PKG}.new-abc123").mkdir()
    result = site.cli("check", f"old/specs/{V41}", "--out", "out")
    assert result.rc == 0, result.output
    assert result.stderr.splitlines() == [
        f"out/{PKG}: an interrupted build had moved it aside; restored it from .{PKG}.old",
        f"out/.{PKG}.new-abc123: removed (left by an interrupted build)",
    ]
    assert sorted(os.listdir(site.out)) == [PKG] and site.which() == "old"

    (site.out / f".{PKG}.new-def456").mkdir()
    result = site.cli("diff", f"old/specs/{V41}", "--out", "out")
    assert result.rc == 0, result.output
    assert "left by an interrupted build" in result.stderr
    assert sorted(os.listdir(site.out)) == [PKG]


@pytest.mark.parametrize("kind", ["symlink", "file"])
def test_non_directory_package_is_refused_not_moved_aside(site, kind):
    real = site.root / "elsewhere"
    os.rename(site.out / PKG, real)
    if kind == "symlink":
        (site.out / PKG).symlink_to(real)  # even a link to a valid, up-to-date tree
    else:
        (site.out / PKG).write_text("not a package\n")
    before = os.readlink(site.out / PKG) if kind == "symlink" else (site.out / PKG).read_text()
    what = "a symlink" if kind == "symlink" else "a regular file"
    commands = [("build",), ("check",)]
    if kind == "symlink":
        commands += [("build", "--force"), ("diff",)]
    for command in commands:
        result = site.cli(command[0], f"new/specs/{V41}", "--out", "out", *command[1:])
        assert result.rc == 3, (command, result.output)
        assert f"out/{PKG} is not a generated directory ({what})" in result.stderr
    after = os.readlink(site.out / PKG) if kind == "symlink" else (site.out / PKG).read_text()
    assert after == before and sorted(os.listdir(site.out)) == [PKG]
    assert tree_bytes(real) == _expected(site.texts.old)


def test_leftover_that_is_not_a_directory_is_refused(site):
    (site.out / f".{PKG}.old").symlink_to(site.out / PKG)
    result = site.cli("build", f"new/specs/{V41}", "--out", "out")
    assert result.rc == 3, result.output
    assert f"out/.{PKG}.old is not a generated directory (a symlink)" in result.stderr
    assert site.which() == "old" and (site.out / f".{PKG}.old").is_symlink()


def test_package_directory_honours_the_umask(site):
    shutil.rmtree(site.out)
    result = subprocess.run(
        [
            "sh",
            "-c",
            f'umask 027 && exec "{sys.executable}" -m dsv41gen build old/specs/{V41} --out out',
        ],
        cwd=site.root,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    assert (site.out / PKG).stat().st_mode & 0o777 == 0o750
    assert (site.out / PKG / "csrc").stat().st_mode & 0o777 == 0o750
    assert (site.out / PKG / "registry.py").stat().st_mode & 0o777 == 0o640


def _wait_until(condition, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def _stopped(process: subprocess.Popen) -> bool:
    stat = Path(f"/proc/{process.pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0] == "T"


@pytest.fixture
def frozen(site, tmp_path):
    """frozen(*args, at=step, env=...) starts the CLI and returns it stopped at that step; every
    process it started is continued and reaped at the end of the test."""
    started: list[subprocess.Popen] = []

    def start(*args: str, at: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        fault = {faults.FAULT_AT: at, faults.FAULT_SIGNAL: "SIGSTOP", **(env or {})}
        process = site.popen(*args, env=fault, stderr_file=tmp_path / f"frozen{len(started)}.err")
        started.append(process)
        _wait_until(lambda: _stopped(process) or process.poll() is not None, f"the stop at {at}")
        assert process.poll() is None, "it ended instead of stopping"
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.send_signal(signal.SIGCONT)
            process.wait(timeout=60)


def test_second_build_waits_for_the_first_and_finds_its_tree(site, frozen, tmp_path):
    first = frozen("build", f"new/specs/{V41}", "--out", "out", at="lock:held")
    err = tmp_path / "second.err"
    second = site.popen("build", f"new/specs/{V41}", "--out", "out", env={}, stderr_file=err)
    _wait_until(lambda: "waiting up to" in err.read_text(), "the second build to wait")
    assert second.poll() is None and site.which() == "old"
    first.send_signal(signal.SIGCONT)
    assert first.wait(timeout=60) == 0
    assert second.wait(timeout=60) == 0, err.read_text()
    assert re.fullmatch(rf"out/{PKG}: \d+ updated, \d+ removed\n", first.stdout.read())
    # The second ran after the first had swapped: the fast path finds the first one's tree.
    assert second.stdout.read() == f"out/{PKG}: up to date ({len(site.texts.new)} files)\n"
    assert site.which() == "new" and sorted(os.listdir(site.out)) == [PKG]


def test_lock_timeout_is_a_clear_error_and_touches_nothing(site, frozen):
    frozen("build", f"new/specs/{V41}", "--out", "out", at="stage:synced")
    result = site.cli(
        "build", f"new/specs/{V41}", "--out", "out", env={"DSV41GEN_LOCK_TIMEOUT": "0.3"}
    )
    assert result.rc == 2, result.output
    assert result.stderr.splitlines()[-1] == (
        "error: out is still locked by another dsv41gen process after 0.3 s; nothing was done. "
        "Retry when it has finished."
    )
    assert site.which() == "old"


def test_check_waits_for_a_build_stopped_between_its_renames(site, frozen, tmp_path):
    """Without the lock, check would find the package missing and fail."""
    build = frozen(
        "build", f"new/specs/{V41}", "--out", "out", at="swap:old-aside", env={SWAP_MODE: "rename"}
    )
    assert site.which() == "missing"
    err = tmp_path / "check.err"
    check = site.popen("check", f"new/specs/{V41}", "--out", "out", env={}, stderr_file=err)
    _wait_until(lambda: "waiting up to" in err.read_text(), "check to wait")
    build.send_signal(signal.SIGCONT)
    assert build.wait(timeout=60) == 0
    assert check.wait(timeout=60) == 0, err.read_text()
    assert check.stdout.read() == f"out/{PKG}: up to date ({len(site.texts.new)} files)\n"


def test_two_builds_started_together_both_succeed_with_one_tree(site, tmp_path):
    builds = [
        site.popen(
            "build", f"new/specs/{V41}", "--out", "out", env={}, stderr_file=tmp_path / f"{i}.err"
        )
        for i in range(2)
    ]
    outputs = sorted(b.communicate(timeout=60)[0] for b in builds)
    assert [b.returncode for b in builds] == [0, 0], [
        (tmp_path / f"{i}.err").read_text() for i in range(2)
    ]
    assert outputs[1] == f"out/{PKG}: up to date ({len(site.texts.new)} files)\n", outputs
    assert "updated" in outputs[0] and "removed" in outputs[0], outputs
    assert site.which() == "new" and sorted(os.listdir(site.out)) == [PKG]


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_signal_during_format_removes_its_directory_and_its_ruff(site, tmp_path, signame):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {
        "TMPDIR": str(tmp),
        faults.FAULT_AT: "format:ruff-check",
        faults.FAULT_SIGNAL: signame,
        **NO_FORMAT_CACHE,  # ruff must run for the signal to find it
    }
    result = site.cli("build", f"new/specs/{V41}", "--out", "out", env=env)
    assert result.rc == 128 + signal.Signals[signame], result.output
    assert result.stderr.splitlines()[-1] == f"dsv41gen: stopped by {signame}"
    assert os.listdir(tmp) == []
    assert not _processes_mentioning(str(tmp))
    assert site.which() == "old" and sorted(os.listdir(site.out)) == [PKG]


def test_sigterm_during_the_swap_waits_for_the_swap(site):
    """Signals are held during the renames: the build stops after them, with the new tree."""
    env = {faults.FAULT_AT: "swap:old-aside", faults.FAULT_SIGNAL: "SIGTERM", SWAP_MODE: "rename"}
    result = site.cli("build", f"new/specs/{V41}", "--out", "out", env=env)
    assert result.rc == 128 + signal.SIGTERM, result.output
    assert site.which() == "new" and sorted(os.listdir(site.out)) == [PKG]


def _processes_mentioning(needle: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if needle.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_child_tool_dies_with_a_killed_parent(tmp_path):
    """run_tool (how ruff is run) makes the kernel kill the child when the parent is SIGKILLed."""
    marker = str(tmp_path / "sleeper")
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from dsv41gen.emit.format import run_tool; "
            "run_tool([sys.executable, '-c', 'import time; time.sleep(60)', sys.argv[1]], 'x')",
            marker,
        ]
    )
    children: list[int] = []
    try:

        def sleeper() -> list[int]:
            return [pid for pid in _processes_mentioning(marker) if pid != parent.pid]

        _wait_until(lambda: len(sleeper()) == 1, "the child to start")
        children = sleeper()
        parent.kill()
        parent.wait(timeout=10)
        _wait_until(lambda: not _alive(children[0]), "the child to die with its parent", timeout=10)
    finally:
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_format_directory_of_a_sigkilled_build_is_removed_by_the_next(site, tmp_path):
    """SIGKILL runs no cleanup: its ruff dies with it (PR_SET_PDEATHSIG), and its scratch
    directory, no longer flock'ed by anyone, is removed by the next build's format stage."""
    import fcntl

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"TMPDIR": str(tmp), faults.FAULT_AT: "format:ruff-check", **NO_FORMAT_CACHE}
    result = site.cli("build", f"new/specs/{V41}", "--out", "out", env=env)
    assert result.rc == -signal.SIGKILL, result.output
    (orphan,) = tmp.iterdir()
    _wait_until(lambda: not _processes_mentioning(str(tmp)), "ruff to die with the build")
    busy, young = tmp / "dsv41gen-format-busy", tmp / "dsv41gen-format-young"
    busy.mkdir()
    young.mkdir()
    held = os.open(busy, os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)  # as a live build holds its own
    try:
        long_ago = time.time() - 600
        for path in (orphan, busy):
            os.utime(path, (long_ago, long_ago))
        result = site.cli(
            "build", f"new/specs/{V41}", "--out", "out", env={"TMPDIR": str(tmp), **NO_FORMAT_CACHE}
        )
        assert result.rc == 0, result.output
    finally:
        os.close(held)
    assert sorted(os.listdir(tmp)) == [busy.name, young.name]
    assert site.which() == "new"


_READER = """
import json, sys
from pathlib import Path
manifest, stop = Path(sys.argv[1]), Path(sys.argv[2])
known = {Path(p).read_bytes(): name for p, name in zip(sys.argv[3:5], ("old", "new"))}
seen = {"old": 0, "new": 0, "missing": 0, "other": 0}
seen[known[manifest.read_bytes()]] += 1  # before any swap: the old tree
print("ready", flush=True)
last = None
while not (stop.exists() and last == "new"):  # the writer ends on the new tree
    try:
        last = known.get(manifest.read_bytes(), "other")
    except FileNotFoundError:
        last = "missing"
    seen[last] += 1
print(json.dumps(seen), flush=True)
"""


def test_a_reader_never_finds_the_package_missing_while_builds_swap_it(site):
    """What an importing process sees: each path lookup lands in one whole tree, every time.
    (With DSV41GEN_SWAP=rename the same loop finds the package missing: 9 times in 120 swaps
    when this was written.)"""
    if not _exchange_supported(site.root):
        pytest.skip("this filesystem has no renameat2(RENAME_EXCHANGE): the package can be missing")
    manifests = {}
    for name in ("old", "new"):
        manifests[name] = site.root / f"{name}.MANIFEST"
        manifests[name].write_text(getattr(site.texts, name)[f"{PKG}/MANIFEST"])
    stop = site.root / "stop"
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(site.out / PKG / "MANIFEST"), str(stop)]
        + [str(manifests["old"]), str(manifests["new"])],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert reader.stdout.readline() == "ready\n"
        for _ in range(40):
            write_package(site.out, PKG, site.texts.new)
            write_package(site.out, PKG, site.texts.old)
        write_package(site.out, PKG, site.texts.new)
    finally:
        stop.touch()
        seen = json.loads(reader.communicate(timeout=30)[0])
    assert seen["missing"] == 0 and seen["other"] == 0, seen
    assert seen["old"] and seen["new"], seen


def test_bad_lock_timeout_is_a_usage_error(site, frozen):
    frozen("build", f"new/specs/{V41}", "--out", "out", at="lock:held")
    for value in ("soon", "-1", "nan"):
        result = site.cli("check", f"old/specs/{V41}", "--out", "out", env={LOCK_TIMEOUT: value})
        assert result.rc == 2, result.output
        assert result.stderr.splitlines()[-1] == (
            f"error: {LOCK_TIMEOUT}={value!r} is not a number of seconds (0 or more)"
        )


def test_a_filesystem_without_flock_warns_and_runs_unserialized(site, monkeypatch):
    import errno
    import fcntl

    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    notes: list[str] = []
    with locked_output(site.out, write=True, notify=notes.append):
        write_package(site.out, PKG, site.texts.new)
    assert notes == [
        f"warning: {site.out}: cannot be locked (No locks available); concurrent runs are not "
        "serialized"
    ]
    assert site.which() == "new"


def test_a_new_scratch_directory_removes_only_unlocked_old_ones_of_its_kind(tmp_path, monkeypatch):
    """The same sweep serves `diff --against`'s checkout of a ref (dsv41gen-ref-*)."""
    import fcntl

    from dsv41gen.emit.scratch import scratch_directory

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    names = ("dsv41gen-ref-orphan", "dsv41gen-ref-busy", "dsv41gen-ref-young", "dsv41gen-format-x")
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "spec.yaml").write_text("")
    long_ago = time.time() - 600
    for name in ("dsv41gen-ref-orphan", "dsv41gen-ref-busy", "dsv41gen-format-x"):
        os.utime(tmp_path / name, (long_ago, long_ago))
    held = os.open(tmp_path / "dsv41gen-ref-busy", os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    try:
        with scratch_directory("ref") as scratch:
            assert scratch.parent == tmp_path and scratch.name.startswith("dsv41gen-ref-")
    finally:
        os.close(held)
    assert sorted(os.listdir(tmp_path)) == sorted(set(names) - {"dsv41gen-ref-orphan"})
