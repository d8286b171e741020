"""Format stage: generated code comes out the way the consumer's own formatters would leave it.

A repository that commits generated/ usually runs formatters over it (vLLM's pre-commit runs
`ruff format` and `clang-format`). If their output differed from ours, their hooks would rewrite
generated files and `check` would then call them hand-edited. So the format stage uses the
consumer's configuration, found the way the tools themselves find it, starting at the output
directory:

- Python: `ruff` (import sorting, then `ruff format`) with the first `.ruff.toml`, `ruff.toml`
  or `pyproject.toml` holding a `[tool.ruff]` table, in the output directory or above it. With
  none, ruff's own defaults (`--isolated`), which is what `ruff format` does in such a
  repository. A user-level ruff configuration is never read: output must not depend on whose
  machine built it.
- C++ / CUDA: `clang-format` (the PyPI package, a dependency) with the first `.clang-format` or
  `_clang-format` in the output directory or above it; with none, the shipped
  `clang-format.yaml` (vLLM's style: Google based, 80 columns). A `.clang-format` holding
  `DisableFormat: true` in generated/ is how a consumer keeps clang-format out of it.

Determinism: `check` runs the same discovery from the same output directory, so it compares
against the same formatting. The formatter versions and the effective configuration
(`FormatSettings.fingerprint`) are kept in this machine's build record, not in the tree, so the
no-op fast path never vouches for a tree formatted under other settings, while a machine with
another formatter release whose output is byte-identical passes `check` (staleness is decided
by content; a `check` that fails names the formatter releases it compared with). For
byte-identical output on every machine, pin ruff and clang-format (to one minor / one major
release) in the lock file.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import UsageError
from ..faults import checkpoint
from .scratch import scratch_directory

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
DEFAULT_CLANG_FORMAT = _PACKAGE_DIR / "clang-format.yaml"
_RUFF_CONFIG_NAMES = (".ruff.toml", "ruff.toml", "pyproject.toml")  # ruff's own order
_CLANG_FORMAT_NAMES = (".clang-format", "_clang-format")
_CPP_SUFFIXES = (".h", ".cuh", ".cu", ".cpp", ".cc", ".hpp")
# The prose wrap runs inside the Python formatter: its code is part of what formatted text
# depends on, so a change to it never reuses cached text.
_WRAP_DIGEST = hashlib.sha256((Path(__file__).parent / "wrap.py").read_bytes()).hexdigest()[:16]
_TOOL_RUFF = re.compile(r"^\s*\[\s*tool\s*\.\s*ruff\s*[\].]", re.MULTILINE)


class FormatError(UsageError):
    """A formatter that cannot run or format (a consumer's configuration it cannot read, say):
    its own words, exit 2, never an internal error (exit 70)."""


def _tool_ruff_table(pyproject: Path) -> object | None:
    """The `[tool.ruff]` table of a pyproject.toml, or None when it has none."""
    text = pyproject.read_text(encoding="utf-8", errors="replace")
    try:
        import tomllib
    except ImportError:  # Python 3.10: no TOML parser in the standard library
        return text if _TOOL_RUFF.search(text) else None
    try:
        return tomllib.loads(text).get("tool", {}).get("ruff")
    except tomllib.TOMLDecodeError:
        return text if _TOOL_RUFF.search(text) else None


def _requires_python(pyproject: Path) -> object:
    try:
        import tomllib
    except ImportError:  # Python 3.10: the whole file stands for it
        return pyproject.read_text(encoding="utf-8", errors="replace")
    try:
        text = pyproject.read_text(encoding="utf-8", errors="replace")
        return tomllib.loads(text).get("project", {}).get("requires-python")
    except tomllib.TOMLDecodeError:
        return None


def _upwards(start: Path):
    start = start.resolve()
    yield start
    yield from start.parents


def find_ruff_config(start: Path) -> Path | None:
    """The configuration `ruff` would use for files under start (ruff's discovery order)."""
    for directory in _upwards(start):
        for name in _RUFF_CONFIG_NAMES:
            candidate = directory / name
            if candidate.is_file() and (
                name != "pyproject.toml" or _tool_ruff_table(candidate) is not None
            ):
                return candidate
    return None


def find_clang_format_config(start: Path) -> Path | None:
    """The `.clang-format` clang-format would use for files under start."""
    for directory in _upwards(start):
        for name in _CLANG_FORMAT_NAMES:
            candidate = directory / name
            if candidate.is_file():
                return candidate
    return None


@functools.cache
def _version(distribution: str) -> str:
    """An installed distribution's version (once per process: importlib.metadata scans
    sys.path for it, and a build asks for each several times)."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "absent"


@dataclass(frozen=True)
class FormatSettings:
    """Which formatter configuration a build into one output directory uses."""

    ruff_config: Path | None  # None: ruff's defaults
    clang_format_config: Path  # the consumer's, or the shipped default

    @classmethod
    def discover(cls, out_dir: Path) -> FormatSettings:
        return cls(
            find_ruff_config(out_dir),
            find_clang_format_config(out_dir) or DEFAULT_CLANG_FORMAT,
        )

    def fingerprint(self) -> str:
        """'ruff 0.17 clang-format 23 config <hash>': the formatter releases whose output can
        differ (ruff changes its stable style only in minor releases, clang-format in major
        ones) and a hash of the effective configuration. Cheap (no subprocess): the no-op fast
        path computes it. Only pyproject.toml's `[tool.ruff]` table counts, so editing a
        dependency elsewhere in that file does not make generated/ stale."""
        ruff: object = "ruff defaults"
        if self.ruff_config is not None:
            if self.ruff_config.name == "pyproject.toml":
                # ruff also takes its target version from requires-python when unset
                ruff = [_tool_ruff_table(self.ruff_config), _requires_python(self.ruff_config)]
            else:
                ruff = self.ruff_config.read_text(encoding="utf-8", errors="replace")
        config = json.dumps(
            [ruff, self.clang_format_config.read_text(encoding="utf-8", errors="replace")],
            sort_keys=True,
            default=str,
        )
        ruff_release = ".".join(_version("ruff").split(".")[:2])
        clang_release = _version("clang-format").split(".")[0]
        digest = hashlib.sha256(config.encode()).hexdigest()[:16]
        return f"ruff {ruff_release} clang-format {clang_release} config {digest}"

    def cache_fingerprint(self) -> str:
        """What the formatted text depends on, for the format cache: the exact releases (the
        fingerprint's minor / major are what the MANIFEST records), the formatters' binaries
        and the configuration files' paths and texts."""
        return json.dumps(
            [
                self.fingerprint(),
                _WRAP_DIGEST,
                _version("ruff"),
                _version("clang-format"),
                str(self.ruff_config),
                str(self.clang_format_config),
            ]
        )


def _ruff() -> str:
    from ruff.__main__ import find_ruff_bin

    return str(find_ruff_bin())


def _clang_format() -> str:
    """The clang-format binary of the `clang-format` PyPI package installed with dsv41gen."""
    beside = Path(sys.executable).parent / ("clang-format" + (".exe" if os.name == "nt" else ""))
    if beside.is_file():
        return str(beside)
    try:
        import clang_format
    except ImportError as error:
        raise FormatError(
            "clang-format is not installed; `pip install dsv41gen` brings it (PyPI: clang-format)"
        ) from error
    return clang_format.get_executable("clang-format")


_PR_SET_PDEATHSIG = 1


def _die_with_parent_hook():
    """A preexec_fn that makes the child get SIGKILL when this process dies, however it dies
    (Linux prctl PR_SET_PDEATHSIG); None elsewhere. prctl is looked up here, before fork."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def hook() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the parent died before prctl took effect
            os._exit(1)

    return hook


def run_tool(args: list[str], step: str) -> tuple[int, str, str]:
    """Run a child to completion: (exit status, stdout, stderr). It dies with this process: on
    an exception here (SIGINT, SIGTERM) it is killed and reaped; on SIGKILL the kernel kills it."""
    with subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_die_with_parent_hook(),  # dsv41gen is single-threaded: fork-safe
    ) as process:
        try:
            checkpoint(step)
            stdout, stderr = process.communicate()
        except BaseException:
            process.kill()
            raise
    return process.returncode, stdout, stderr


def _run(command: list[str], names: dict[str, Path], what: str, step: str) -> None:
    returncode, stdout, stderr = run_tool(command, step)
    if returncode != 0:
        report = stderr.strip() or stdout.strip()
        for key, path in names.items():  # name the generated file, not the temp copy
            report = report.replace(str(path), key)
        raise FormatError(f"{what} could not format the generated code:\n{report}")


def _staged(sources: dict[str, str], root: Path) -> dict[str, Path]:
    """Write each source under root with its own suffix (the formatters pick the language from
    it) and a short unique name."""
    names = {}
    for i, (key, text) in enumerate(sorted(sources.items())):
        path = root / f"f{i}{Path(key).suffix}"
        path.write_text(text, encoding="utf-8", newline="\n")
        names[key] = path
    return names


def format_python(sources: dict[str, str], settings: FormatSettings) -> dict[str, str]:
    """Every ``*.py`` entry formatted by ruff under the consumer's configuration, its prose
    (comments, docstrings, message literals) then wrapped to the consumer's line length
    (``wrap.py``), and what that changed formatted again."""
    from .wrap import wrap_python  # never fails: an edit it cannot make safely, it leaves out

    python = {k: v for k, v in sources.items() if k.endswith(".py")}
    if not python:
        return {}
    # Import order is ruff's too (rule I, with the consumer's isort settings), so templates
    # need not sort what the planner emits.
    formatted = _ruff_format(python, settings, sort_imports=True)
    width = prose_width(settings)
    for _ in range(_WRAP_ROUNDS):
        wrapped = {key: wrap_python(text, width) for key, text in formatted.items()}
        changed = {key: text for key, text in wrapped.items() if text != formatted[key]}
        if not changed:
            break
        formatted.update(_ruff_format(changed, settings, sort_imports=False))
    return formatted


# ruff lays out what the wrap split (a literal's pieces, in brackets of their own) and may
# indent it deeper than the wrap assumed; a second round wraps that. None has needed a third.
_WRAP_ROUNDS = 3


def _ruff_format(sources: dict[str, str], settings: FormatSettings, sort_imports: bool):
    config = ["--config", str(settings.ruff_config)] if settings.ruff_config else ["--isolated"]
    steps = [["check", "--select", "I", "--fix", "--exit-zero"]] if sort_imports else []
    with scratch_directory("format") as tmp:
        names = _staged(sources, tmp)
        paths = [str(p) for p in names.values()]
        for command in [*steps, ["format"]]:
            _run(
                [_ruff(), *command, "--no-cache", *config, *paths],
                names,
                "ruff",
                step=f"format:ruff-{command[0]}",
            )
        return {key: path.read_text(encoding="utf-8") for key, path in names.items()}


_PYCODESTYLE_SETTING = re.compile(
    r"^linter\.pycodestyle\.(max_line_length|max_doc_length) = (\S+)$", re.MULTILINE
)


def _prose_width(settings: FormatSettings) -> int:
    config = ["--config", str(settings.ruff_config)] if settings.ruff_config else ["--isolated"]
    with scratch_directory("format") as tmp:
        probe = tmp / "probe.py"
        probe.write_text("", encoding="utf-8")
        returncode, stdout, stderr = run_tool(
            [_ruff(), "check", "--show-settings", "--no-cache", *config, str(probe)],
            step="format:ruff-settings",
        )
    settings_found = dict(_PYCODESTYLE_SETTING.findall(stdout))
    widths = [int(value) for value in settings_found.values() if value.isdigit()]
    if returncode != 0 or not settings_found.get("max_line_length", "").isdigit():
        where = settings.ruff_config or "ruff's defaults"
        raise FormatError(
            f"ruff does not say the line length of {where} "
            f"(`ruff check --show-settings`):\n{stderr.strip() or stdout.strip()[:500]}"
        )
    return min(widths)


def prose_width(settings: FormatSettings) -> int:
    """The line length the consumer's ruff holds Python to: E501's ``max-line-length`` (by
    default its ``line-length``), or W505's ``max-doc-length`` where that is shorter. Read
    from ruff itself (``--show-settings``), which resolves ``extend`` and every default the
    way a consumer's ``ruff check`` does; cached like formatted text."""
    cache = FormatCache.for_settings(settings)
    key = cache.key("ruff --show-settings prose width", "")
    cached = cache.get(key)
    if cached is not None and cached.isdigit():
        return int(cached)
    width = _prose_width(settings)
    cache.put(key, str(width))
    return width


def is_cpp(path: str) -> bool:
    return path.endswith(_CPP_SUFFIXES)


def format_cpp(sources: dict[str, str], settings: FormatSettings) -> dict[str, str]:
    """Every C++ / CUDA entry formatted by clang-format under the consumer's `.clang-format`."""
    cpp = {k: v for k, v in sources.items() if is_cpp(k)}
    if not cpp:
        return {}
    with scratch_directory("format") as tmp:
        names = _staged(cpp, tmp)
        style = f"--style=file:{settings.clang_format_config}"
        _run(
            [_clang_format(), style, "-i", *map(str, names.values())],
            names,
            "clang-format",
            step="format:clang-format",
        )
        return {key: path.read_text(encoding="utf-8") for key, path in names.items()}


def _clang_format_column_limit(settings: FormatSettings) -> int:
    returncode, stdout, stderr = run_tool(
        [
            _clang_format(),
            f"--style=file:{settings.clang_format_config}",
            "--assume-filename=header.cuh",
            "--dump-config",
        ],
        step="format:clang-format-config",
    )
    match = re.search(r"^ColumnLimit:\s*(\d+)", stdout, re.MULTILINE)
    if returncode != 0 or match is None:
        raise FormatError(
            f"clang-format cannot read {settings.clang_format_config}:\n{stderr.strip()}"
        )
    return int(match[1])


def clang_format_column_limit(settings: FormatSettings) -> int:
    """The ColumnLimit clang-format applies (0: none), so headers can be chosen to fit it.
    Cached like formatted text: by the configuration and clang-format's exact release."""
    cache = FormatCache.for_settings(settings)
    key = cache.key("clang-format --dump-config ColumnLimit", "")
    cached = cache.get(key)
    if cached is not None and cached.isdigit():
        return int(cached)
    limit = _clang_format_column_limit(settings)
    cache.put(key, str(limit))
    return limit


class FormatCache:
    """Formatted text by (language, exact formatter release, effective configuration, file
    suffix, unformatted text), one file per entry under ``$DSV41GEN_CACHE_DIR/format`` (default
    ``$XDG_CACHE_HOME/dsv41gen``, else ``~/.cache/dsv41gen``; ``DSV41GEN_CACHE_DIR=off`` turns it
    off). A formatter is a pure function of those inputs here: each file is formatted as a
    copy named ``f<N><suffix>`` in a scratch directory, so its real path, and the other files
    of the batch, never reach the formatter. So an entry is the formatter's output for every
    build that asks, and a build that changes one file formats only that file. Entries are
    written atomically (a temporary file renamed into place), so concurrent builds share the
    cache safely; an unreadable or unwritable cache is a cache miss, never an error."""

    def __init__(self, root: Path | None, fingerprint: str):
        self.root = root
        self.fingerprint = fingerprint

    @classmethod
    def for_settings(cls, settings: FormatSettings) -> FormatCache:
        return cls(cache_root("format"), settings.cache_fingerprint())

    def key(self, language: str, name_and_text: str) -> str:
        material = "\0".join((language, self.fingerprint, name_and_text))
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()

    def get(self, key: str) -> str | None:
        if self.root is None:
            return None
        try:
            return (self.root / key[:2] / key).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def put(self, key: str, text: str) -> None:
        if self.root is None:
            return
        directory = self.root / key[:2]
        try:
            directory.mkdir(parents=True, exist_ok=True)
            temporary = directory / f".{key}.{os.getpid()}.tmp"
            temporary.write_text(text, encoding="utf-8", newline="")
            os.replace(temporary, directory / key)
        except OSError:
            pass


def cache_root(kind: str) -> Path | None:
    """Where dsv41gen caches ``kind`` (None: caching is off)."""
    configured = os.environ.get("DSV41GEN_CACHE_DIR", "")
    if configured.lower() in ("off", "0", "none"):
        return None
    if configured:
        base = Path(configured)
    else:
        xdg = os.environ.get("XDG_CACHE_HOME", "")
        base = (Path(xdg) if xdg else Path.home() / ".cache") / "dsv41gen"
    return base / kind


def _cached(
    formatter, language: str, sources: dict[str, str], settings: FormatSettings
) -> dict[str, str]:
    """formatter's output for sources, running it (once, on the misses only) where the cache
    has no entry."""
    if not sources:
        return {}
    cache = FormatCache.for_settings(settings)
    keys = {
        path: cache.key(language, Path(path).suffix + "\0" + text) for path, text in sources.items()
    }
    out: dict[str, str] = {}
    misses: dict[str, str] = {}
    for path, key in keys.items():
        hit = cache.get(key)
        if hit is None:
            misses[path] = sources[path]
        else:
            out[path] = hit
    if misses:
        formatted = formatter(misses, settings)
        for path, text in formatted.items():
            cache.put(keys[path], text)
        out.update(formatted)
    return out


def subprocess_formatter(sources: dict[str, str], settings: FormatSettings) -> dict[str, str]:
    """The real formatters, behind the cache: ruff for Python, clang-format for C++ / CUDA
    (each run once per build on the files the cache lacks, or not at all)."""
    python = {k: v for k, v in sources.items() if k.endswith(".py")}
    cpp = {k: v for k, v in sources.items() if is_cpp(k)}
    return {
        **_cached(format_python, "python", python, settings),
        **_cached(format_cpp, "cpp", cpp, settings),
    }


# The formatter a build uses: (sources, settings) -> the formatted entries. Injectable (see
# use_formatter), so tests that are not about formatting can run the pipeline without the
# formatters; the default is the real one.
_formatter = subprocess_formatter


@contextlib.contextmanager
def use_formatter(formatter) -> Iterator[None]:
    """Build with formatter instead of the real formatters inside the block (tests)."""
    global _formatter
    previous, _formatter = _formatter, formatter
    try:
        yield
    finally:
        _formatter = previous


def format_sources(sources: dict[str, str], settings: FormatSettings) -> dict[str, str]:
    """sources with Python and C++ entries formatted; other entries unchanged."""
    return {**sources, **_formatter(sources, settings)}
