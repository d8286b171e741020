"""Write stage: headers, all-or-nothing replacement, and the stale / hand-edited comparison.

Each generated file starts with a header that names the specs it comes from, the generator
version and a hash of the file's own body. The family's MANIFEST is the one stamp of the inputs:
its header also carries the hash of every input (specs, templates, schema, generator version).
Keeping that hash out of the other files means one edited spec value rewrites only the files
whose text changes (and the MANIFEST), so torch's extension cache keeps every unchanged `.cu`.
Headers are not trusted: the tree is what a pull request controls, and anyone can write a
header with a matching hash. Whether a file is up to date is decided by comparing its bytes
with a fresh build's; the header only chooses the words (a body that no longer matches its own
header hash was edited by hand) and keeps `build` from discarding such an edit without --force.
"""

from __future__ import annotations

import contextlib
import ctypes
import difflib
import errno
import fcntl
import functools
import hashlib
import os
import re
import secrets
import shutil
import signal
import stat
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import __version__
from ..errors import UsageError
from ..faults import checkpoint
from ..plan.values import Comment
from ..spec.output_names import (
    DO_NOT_EDIT,
    GENERATED_MARK,
    HEADER_MARK,
    HEADER_RE,
    ORIGIN_RE,
    STAMP_MARK,
)

# The header's words live with the other names the output owns (spec/output_names.py), where
# validation reads them too: a license line must not read like a header line.
MAX_LICENSE_LINES = 8
MAX_HEADER_LINES = MAX_LICENSE_LINES + 3
SPECS_IN_MANIFEST = "specs listed in MANIFEST"


def short_hash(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "little"))
        digest.update(part)
    return digest.hexdigest()[:16]


def make_header(
    prefix: str,
    spec_files: tuple[str, ...],
    body: str,
    inputs_hash: str | None = None,
    license_header: tuple[str, ...] = (),
    width: int = 0,
) -> str:
    """The license lines, then two header lines; ``inputs_hash`` only for the family's stamp
    (the MANIFEST). ``width`` (0: none) is the formatter's line limit: a first line naming more
    specs than fit names the MANIFEST instead, so a formatter that reflows long comments
    (clang-format) leaves the header alone."""
    content = short_hash(body.encode())
    hashes = (
        f"{STAMP_MARK} {inputs_hash} content: {content}"
        if inputs_hash is not None
        else f"{HEADER_MARK} {content}"
    )
    origin = f"{prefix} {GENERATED_MARK} by dsv41gen {__version__} from {Comment.join(', ', spec_files)}."
    if width and len(origin) > width:
        origin = f"{prefix} {GENERATED_MARK} by dsv41gen {__version__} from {SPECS_IN_MANIFEST}."
    return (
        "".join(f"{prefix} {Comment(line)}".rstrip() + "\n" for line in license_header)
        + f"{origin}\n"
        f"{prefix} {hashes} {DO_NOT_EDIT}\n"
    )


@dataclass(frozen=True)
class Header:
    inputs: str | None  # the stamp's inputs hash; None in every other file
    content: str
    lines: int  # how many lines the header has (license lines included)
    specs: tuple[str, ...] | None  # the spec files it names; None: see the MANIFEST


def read_header(text: str) -> Header | None:
    head = text.split("\n", MAX_HEADER_LINES)[:MAX_HEADER_LINES]
    for index, line in enumerate(head):
        match = HEADER_RE.match(line.split("\n", 1)[0])
        if match:
            specs: tuple[str, ...] | None = None
            # the line above the hash line (two above it in an older package's header)
            above = [head[i] for i in (index - 1, index - 2) if i >= 0]
            origin = next((m for m in map(ORIGIN_RE.match, above) if m), None)
            if origin is not None and origin["specs"] != SPECS_IN_MANIFEST:
                specs = tuple(name.strip() for name in origin["specs"].split(","))
            return Header(match["inputs"], match["content"], index + 1, specs)
    return None


def body_of(text: str) -> str:
    header = read_header(text)
    return "".join(text.splitlines(keepends=True)[header.lines if header else 0 :])


def is_hand_edited(text: str) -> bool:
    header = read_header(text)
    return header is not None and short_hash(body_of(text).encode()) != header.content


def is_generated(text: str) -> bool:
    return read_header(text) is not None


@dataclass
class Comparison:
    """How the files on disk differ from what a build would write.

    Only the bytes decide whether a file differs: a file is either exactly what the build
    writes or it is reported. The header (which the tree, and so a pull request, controls) only
    picks the words and what `build` may do without --force: a file whose body no longer
    matches its own header hash was edited by hand, and build keeps it without --force."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)  # differs (its header looks consistent)
    hand_edited: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)  # a non-generated file where we would write
    removed: list[str] = field(default_factory=list)  # has a header, no longer produced
    same: list[str] = field(default_factory=list)  # byte for byte what the build writes
    # Everything else in the package that the build does not write: path -> what it is (a
    # planted conftest.py, a symlink, a FIFO). build refuses without --force and removes with.
    unexpected: dict[str, str] = field(default_factory=dict)
    # Bytecode the interpreter would load instead of a generated module's source, or that no
    # generated module compiles to: path -> why. build drops every __pycache__ anyway.
    bytecode: dict[str, str] = field(default_factory=dict)
    diffs: list[str] = field(default_factory=list)
    diff_of: dict[str, str] = field(default_factory=dict)  # path -> its entry of diffs

    def add_diff(self, rel: str, diff: str) -> None:
        self.diffs.append(diff)
        self.diff_of[rel] = diff

    @property
    def clean(self) -> bool:
        return not (
            self.added
            or self.changed
            or self.hand_edited
            or self.foreign
            or self.removed
            or self.unexpected
            or self.bytecode
        )

    @property
    def blocking(self) -> list[str]:
        """What `build` refuses to overwrite or remove without --force: edits and files it did
        not write (the user's, or planted); never bytecode (a rebuilt tree has none)."""
        return sorted(set(self.hand_edited) | set(self.foreign) | set(self.unexpected))


# A generated file is a few hundred KiB at most. What sits in an output directory is input too
# (a repository's generated/ can hold anything): nothing larger is read, and nothing but a
# regular file (a FIFO would block the read forever).
MAX_GENERATED_BYTES = 16 << 20

# What _read gives for a FIFO, a device or a file over the limit where a generated file
# belongs: text that is no generated file, so a build refuses to replace it without --force.
NOT_A_GENERATED_FILE = f"(not a regular file of at most {MAX_GENERATED_BYTES} bytes)\n"


def read_output_bytes(path: Path) -> bytes | None:
    """At most MAX_GENERATED_BYTES of a regular file in an output directory; None when there
    is no such file or it is larger. Raises OSError for a missing file, and for a symlink: what
    a link in the tree points to is never read as the tree's content (compare reports it)."""
    from ..spec.load import SpecReadError, read_regular_bytes

    try:
        return read_regular_bytes(path, MAX_GENERATED_BYTES, follow=False)
    except SpecReadError:
        return None


def _read(path: Path) -> str | None:
    try:
        data = read_output_bytes(path)
    except OSError:
        return None
    if data is None:
        return NOT_A_GENERATED_FILE
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# More entries than any package holds (a few dozen files): a tree beyond this is not walked
# further, and says so, instead of costing minutes.
MAX_TREE_ENTRIES = 100_000


def tree_entries(directory: Path) -> dict[str, str]:
    """Everything below ``directory``, never following a symlink: relative POSIX path ->
    'file', 'dir', 'symlink' or 'special' (a FIFO, socket or device). A tree of more than
    MAX_TREE_ENTRIES entries stops there, with the entry '' -> 'too many'."""
    found: dict[str, str] = {}
    pending = [("", directory)]
    while pending:
        prefix, path = pending.pop()
        try:
            with os.scandir(path) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if len(found) >= MAX_TREE_ENTRIES:
                found[""] = "too many"
                return found
            rel = prefix + entry.name
            if entry.is_symlink():
                found[rel] = "symlink"
            elif entry.is_dir(follow_symlinks=False):
                found[rel] = "dir"
                pending.append((rel + "/", Path(entry.path)))
            elif entry.is_file(follow_symlinks=False):
                found[rel] = "file"
            else:
                found[rel] = "special"
    return found


# `<module>.<interpreter tag>[.opt-N].pyc`, what the import system writes to __pycache__.
_BYTECODE_NAME = re.compile(r"(?P<stem>[^./]+)\.[a-z]+-?[0-9a-z_]*(?:\.opt-[0-9]+)?\.pyc")
# The flags word of a .pyc (PEP 552): 0 checks the source's mtime and size, 0b11 its hash;
# 0b01 (an unchecked hash) is loaded without looking at the source at all.
_PYC_TIMESTAMP, _PYC_CHECKED_HASH = 0, 0b11


def bytecode_problem(inside: str, path: Path, files: set[str]) -> str | None:
    """None for bytecode the interpreter validates against a generated module's source before
    it uses it (what importing the package writes); else why it is refused."""
    parent, _, name = inside.rpartition("/")
    directory, _, cache = parent.rpartition("/")
    match = _BYTECODE_NAME.fullmatch(name)
    source = f"{directory}/{match['stem']}.py".lstrip("/") if match else None
    if cache != "__pycache__" or source is None or source not in files:
        return "not the bytecode of a generated module (no generated .py of that name beside it)"
    try:
        with open(path, "rb", opener=_nofollow) as handle:
            head = handle.read(16)
    except OSError:
        return "not readable"
    flags = int.from_bytes(head[4:8], "little") if len(head) == 16 else -1
    if flags == _PYC_TIMESTAMP or flags == _PYC_CHECKED_HASH:
        return None
    if flags == 0b01:
        return (
            "an unchecked-hash .pyc: Python runs it without comparing it with the source, "
            "so it replaces the generated module"
        )
    return "not a bytecode file Python validates against its source"


def _nofollow(path: str, flags: int) -> int:
    return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))


def in_bytecode_cache(inside: str) -> bool:
    return "__pycache__" in inside.split("/")[:-1]


def _describe_entry(path: Path, kind: str) -> str:
    """What an entry nobody asked for is, in a few words."""
    if kind == "symlink":
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"a symlink (to {target})"
    if kind == "special":
        return "a FIFO, socket or device"
    if kind == "too many":
        return f"a tree of more than {MAX_TREE_ENTRIES} entries (the rest was not looked at)"
    return "a file"


def compare(out_dir: Path, package: str, files: dict[str, str], diff_root: str = "") -> Comparison:
    """files: path relative to out_dir -> full text (header included). Every entry of the
    package directory is accounted for: each file the build writes, byte for byte, and every
    other entry (never followed when it is a symlink). The diffs name files
    ``a/<diff_root>/<path>``: with the output directory as seen from the repository root,
    `git apply` takes them there."""
    refuse_non_directory(out_dir / package)
    result = Comparison()
    prefix = f"{package}/"
    entries = tree_entries(out_dir / package)
    links = {inside for inside, kind in entries.items() if kind == "symlink"}

    def through_a_link(inside: str) -> bool:
        parts = inside.split("/")
        return any("/".join(parts[:end]) in links for end in range(1, len(parts) + 1))

    for rel, text in sorted(files.items()):
        if through_a_link(rel[len(prefix) :]):
            continue  # reported as the symlink it is; its target is not the tree's content
        current = _read(out_dir / rel)
        if current is None:
            result.added.append(rel)
            result.add_diff(rel, _diff("", text, rel, diff_root))
            continue
        if current == text:
            result.same.append(rel)
            continue
        if not is_generated(current):
            result.foreign.append(rel)
        elif is_hand_edited(current):
            result.hand_edited.append(rel)
        else:
            result.changed.append(rel)
        result.add_diff(rel, _diff(current, text, rel, diff_root))
    inside_files = {rel[len(prefix) :] for rel in files}
    for inside, kind in sorted(entries.items()):
        full = f"{prefix}{inside}" if inside else package
        if kind == "dir" or (inside in inside_files and kind != "symlink"):
            continue
        path = out_dir / full
        if kind == "file" and in_bytecode_cache(inside):
            problem = bytecode_problem(inside, path, inside_files)
            if problem is not None:
                result.bytecode[full] = problem
            continue
        text = _read(path) if kind == "file" else None
        if text is not None and is_generated(text):
            result.removed.append(full)
            if is_hand_edited(text):
                # Removing it would lose the edit as surely as overwriting it: `build` must
                # refuse without --force here too.
                result.hand_edited.append(full)
            result.add_diff(full, _diff(text, "", full, diff_root))
            continue
        result.unexpected[full] = _describe_entry(path, kind)
        if text is not None and text != NOT_A_GENERATED_FILE:
            # what it holds, as the patch that deletes it: a reviewer sees the planted code
            result.add_diff(full, _diff(text, "", full, diff_root))
    return result


# What may sit in an output directory beside the packages: the formatter configuration the
# build reads (format.py looks for it from the output directory up) and git's attributes.
_OUTPUT_DIR_CONFIG = frozenset(
    {".clang-format", "_clang-format", ".ruff.toml", "ruff.toml", ".gitattributes"}
)


def output_dir_extras(out_dir: Path, packages: set[str]) -> dict[str, str]:
    """Top-level entries of out_dir that are neither one of ``packages`` nor formatter
    configuration: name -> what it is. (A `conftest.py` or `pyproject.toml` here is read by
    pytest when it collects the generated tests; a stray package is importable.)"""
    found: dict[str, str] = {}
    try:
        with os.scandir(out_dir) as listing:
            entries = sorted(listing, key=lambda e: e.name)
    except (FileNotFoundError, NotADirectoryError):
        return found
    for entry in entries:
        if entry.name in packages and entry.is_dir(follow_symlinks=False):
            continue
        if entry.name in _OUTPUT_DIR_CONFIG and entry.is_file(follow_symlinks=False):
            continue
        if _LEFTOVER.fullmatch(entry.name):
            continue  # an interrupted build's: recovered under the lock
        if entry.is_symlink():
            kind = "symlink"
        elif entry.is_dir(follow_symlinks=False):
            found[entry.name] = (
                "a directory no spec being checked generates (a package of a removed family, "
                "or one nobody generated)"
            )
            continue
        else:
            kind = "file" if entry.is_file(follow_symlinks=False) else "special"
        found[entry.name] = (
            _describe_entry(Path(entry.path), kind)
            .replace("a generated package", "an output directory")
            .replace("the build does not write", "no build writes here")
        )
    return found


def _diff(old: str, new: str, rel: str, diff_root: str = "") -> str:
    shown = f"{diff_root}/{rel}" if diff_root else rel
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{shown}" if old else "/dev/null",
            tofile=f"b/{shown}" if new else "/dev/null",
        )
    )


# --- Writing: lock, staging, swap, recovery -------------------------------------------------
#
# At every instant the package path holds a whole tree, the old one or the new one, and every
# state a kill can leave beside it is finished by `recover_package`, which every command that
# reads or writes an output directory runs first (under the lock):
#
#   1. the new tree is staged in `.<package>.new-<hex>`: files written and fsynced, directories
#      fsynced (unchanged files are hard links to the old tree's);
#   2. swap: renameat2(RENAME_EXCHANGE) swaps staging and package in one atomic step (Linux);
#      where the kernel or filesystem cannot, two renames: package -> `.<package>.old`, staging
#      -> package. Between those two the package path is missing;
#   3. the output directory is fsynced, then the old tree (at the staging name after an
#      exchange, at `.old` after two renames) is removed.
#
# Recovery: when the package path exists it is whole, and everything else is removed. When it
# is missing and `.old` exists, the kill fell between the two renames: `.old` is renamed back,
# since a build that did not finish did not happen. (`.old` can be partly removed only in step
# 3, after the package is in place, so what is renamed back is always whole.)

SWAP_MODE = "DSV41GEN_SWAP"  # test seam: "rename" forces the two-rename swap
LOCK_TIMEOUT = "DSV41GEN_LOCK_TIMEOUT"
DEFAULT_LOCK_TIMEOUT_S = 120.0
_LEFTOVER = re.compile(r"\.(?P<package>[A-Za-z_][A-Za-z0-9_]*)\.(?:old|new-[A-Za-z0-9_]+)")
_DEFERRED_SIGNALS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP}


class NotGeneratedDirectory(Exception):
    """A file, symlink or other non-directory where a family package (or the staging and old
    trees beside it) belongs: not ours to move aside, replace or remove."""

    def __init__(self, path: Path, what: str):
        super().__init__(
            f"{path} is not a generated directory ({what}); refusing to replace or remove it. "
            "Move it away, then rerun `dsv41gen build`."
        )


def _not_a_directory(path: Path) -> str | None:
    """None for a real directory or nothing at all, else what is there."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        return "a symlink"
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def refuse_non_directory(path: Path) -> None:
    what = _not_a_directory(path)
    if what is not None:
        raise NotGeneratedDirectory(path, what)


def _lock_timeout() -> float:
    raw = os.environ.get(LOCK_TIMEOUT, "")
    try:
        seconds = float(raw) if raw else DEFAULT_LOCK_TIMEOUT_S
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:  # also NaN, which would wait forever
        raise UsageError(f"{LOCK_TIMEOUT}={raw!r} is not a number of seconds (0 or more)")
    return seconds


def _lock(fd: int, mode: int, out_dir: Path, notify: Callable[[str], None]) -> None:
    """flock with a timeout: poll, so the wait is bounded and says once that it waits."""
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    except OSError as error:
        if error.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
            raise
        # A filesystem without flock (some NFS setups): refusing to build there would be worse
        # than running unserialized, so say it and go on.
        notify(
            f"warning: {out_dir}: cannot be locked ({error.strerror}); concurrent runs are not serialized"
        )
        return
    timeout = _lock_timeout()
    notify(
        f"{out_dir}: another dsv41gen process is writing or reading it; waiting up to "
        f"{timeout:g} s for it to finish ({LOCK_TIMEOUT} sets the limit)"
    )
    deadline = time.monotonic() + timeout
    delay = 0.01
    while True:
        time.sleep(delay)
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise UsageError(
                    f"{out_dir} is still locked by another dsv41gen process after {timeout:g} s; "
                    "nothing was done. Retry when it has finished."
                ) from None
        delay = min(delay * 2, 0.2)


@contextmanager
def locked_output(out_dir: Path, *, write: bool, notify: Callable[[str], None]) -> Iterator[None]:
    """Hold out_dir's lock for a whole command, after recovering what a killed build left.

    `build` holds it exclusively from the fast path to the swap, so two builds run one after the
    other and the second sees the first one's tree; `check` and `diff` share it, so they never
    read a tree while a build swaps it. The lock is flock(2) on the output directory itself: no
    lock file to commit or leave behind, and the kernel drops it however the process ends, so a
    killed build never blocks the next one. ``notify`` gets one line per recovery action and
    the notice that the command waits.
    """
    _check_output_directory(out_dir)
    created = write and not out_dir.is_dir()
    fd = _open_locked(out_dir, write, notify)
    if fd is None:
        yield  # check or diff of an output directory that does not exist: nothing to guard
        return
    try:
        if leftovers(out_dir):
            if not write:  # recovery renames and removes: exclusive while it does
                _lock(fd, fcntl.LOCK_EX, out_dir, notify)
            for note in recover(out_dir):
                notify(note)
            if not write:
                _lock(fd, fcntl.LOCK_SH, out_dir, notify)
        checkpoint("lock:held")
        yield
    finally:
        if created:  # a build that wrote nothing leaves no empty output directory behind
            with contextlib.suppress(OSError):
                out_dir.rmdir()
        os.close(fd)  # releases the lock


def _check_output_directory(out_dir: Path) -> None:
    """`--out` names a directory, or nothing yet: a dangling symlink or a device was reported
    in mkdir's words ("File exists"), which say neither what is wrong nor what to do."""
    from ..errors import UsageError

    if out_dir.is_symlink() and not out_dir.exists():
        raise UsageError(
            f"--out {out_dir} is a symlink to {os.readlink(out_dir)}, which does not exist; "
            "create that directory or name another"
        )
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(
            f"--out {out_dir} is not a directory; name a directory (build makes it when it "
            "is missing)"
        )


def _open_locked(out_dir: Path, write: bool, notify: Callable[[str], None]) -> int | None:
    """An fd of out_dir, locked; None when reading a directory that does not exist. Retried
    when the directory was replaced while we waited (a failed first build removes the empty
    directory it created), so the lock is always on the directory the path names."""
    while True:
        if write:
            out_dir.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(out_dir, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except FileNotFoundError:
            if write:
                continue
            return None
        try:
            _lock(fd, fcntl.LOCK_EX if write else fcntl.LOCK_SH, out_dir, notify)
            if os.path.samestat(os.fstat(fd), os.stat(out_dir)):
                return fd
        except FileNotFoundError:
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def leftovers(out_dir: Path) -> list[Path]:
    """Staging and old trees beside the packages, i.e. what an interrupted build left."""
    try:
        names = sorted(os.listdir(out_dir))
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [out_dir / name for name in names if _LEFTOVER.fullmatch(name)]


def recover(out_dir: Path) -> list[str]:
    """Recover every package of out_dir that has leftovers; one note per action."""
    packages = sorted({_LEFTOVER.fullmatch(p.name)["package"] for p in leftovers(out_dir)})
    notes: list[str] = []
    for package in packages:
        notes += recover_package(out_dir, package)
    return notes


def recover_package(out_dir: Path, package: str) -> list[str]:
    """Leave out_dir/package whole and nothing beside it (see the comment above)."""
    target = out_dir / package
    old = out_dir / f".{package}.old"
    found = [p for p in leftovers(out_dir) if p.name.startswith(f".{package}.")]
    for path in found:
        refuse_non_directory(path)
    notes = []
    if old in found and not os.path.lexists(target):
        os.rename(old, target)
        _fsync_dir(out_dir)
        checkpoint("recover:restored")
        found.remove(old)
        notes.append(
            f"{target}: an interrupted build had moved it aside; restored it from {old.name}"
        )
    for path in found:
        _remove_tree(path, "old" if path == old else "staging")
        notes.append(f"{path}: removed (left by an interrupted build)")
    return notes


def _remove_tree(path: Path, label: str) -> None:
    """rmtree, with a checkpoint after each subdirectory so a kill can land midway."""
    for entry in sorted(os.scandir(path), key=lambda e: e.name):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
            checkpoint(f"remove:{label}/{entry.name}")
    shutil.rmtree(path)
    checkpoint(f"remove:{label}")


def write_package(
    out_dir: Path,
    package: str,
    files: dict[str, str],
    after_file: Callable[[str], None] | None = None,
) -> Comparison:
    """Replace out_dir/package with exactly ``files``, all or nothing (see the comment above).

    Nothing else is carried over: the new tree is the build's files and nothing more (callers
    refuse first, without --force, when the old tree holds files the build did not write).
    ``after_file`` is a test seam called after each file is staged.
    """
    if out_dir.is_dir():
        recover_package(out_dir, package)
    comparison = compare(out_dir, package, files)
    if comparison.clean:
        return comparison
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / package
    unchanged = set(comparison.same)
    staging = _make_staging(out_dir, package)
    checkpoint("stage:created")
    try:
        for rel, text in sorted(files.items()):
            inside = rel.split("/", 1)[1]
            destination = staging / inside
            destination.parent.mkdir(parents=True, exist_ok=True)
            if rel in unchanged:  # never a file reached through a symlink: compare skips those
                _link_or_copy(out_dir / rel, destination)
            else:
                _write_durably(destination, text.encode("utf-8"))
            checkpoint(f"stage:{inside}")
            if after_file is not None:
                after_file(rel)
        for directory, _, _ in os.walk(staging, topdown=False):
            _fsync_dir(Path(directory))
        checkpoint("stage:synced")
        with _signals_deferred():
            _swap(staging, target)
    finally:
        # Success or not, what remains beside the package is what recovery removes: the old
        # tree after a swap; the staging tree before one.
        recover_package(out_dir, package)
    return comparison


def _make_staging(out_dir: Path, package: str) -> Path:
    while True:
        path = out_dir / f".{package}.new-{secrets.token_hex(4)}"
        try:
            # os.mkdir honours the umask (mkdtemp's 0700 would become the package's mode).
            os.mkdir(path)
        except FileExistsError:
            continue
        return path


def _swap(staging: Path, target: Path) -> None:
    if not os.path.lexists(target):
        os.rename(staging, target)
        checkpoint("swap:renamed")
    elif os.environ.get(SWAP_MODE) != "rename" and _exchange(staging, target):
        checkpoint("swap:exchanged")
    else:
        os.rename(target, target.parent / f".{target.name}.old")
        checkpoint("swap:old-aside")
        os.rename(staging, target)
        checkpoint("swap:new-in")
    _fsync_dir(target.parent)
    checkpoint("swap:synced")


@contextmanager
def _signals_deferred() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP that arrive during the swap take effect right after it."""
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@functools.cache
def _renameat2():
    try:
        function = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None  # not glibc >= 2.28 (macOS, musl): two renames
    function.argtypes = [
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.c_char_p,
        ctypes.c_uint,
    ]
    function.restype = ctypes.c_int
    return function


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the kernel or the filesystem cannot."""
    renameat2 = _renameat2()
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    error = ctypes.get_errno()
    if error in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(error, os.strerror(error), str(b))


def _write_durably(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    """Make a directory's entries (created, renamed) durable."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno != errno.EINVAL:  # a filesystem that cannot sync directories
            raise
    finally:
        os.close(fd)


def _link_or_copy(source: Path, destination: Path) -> None:
    try:
        os.link(source, destination)
    except OSError:
        shutil.copy2(source, destination)
        fd = os.open(destination, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
