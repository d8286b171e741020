"""The fuzz campaign: mutations of the real specs, each built by the real CLI, every outcome judged.

Each case copies the real specs, applies one to three mutations (keys deleted, duplicated,
renamed or retyped; values swapped across fields and files; extreme scalars; `!delete` where a
value was; shadowing names and class hierarchies out of order; broken YAML syntax) and runs ``dsv41gen build specs/deepseek_v41.yaml --out out``
in-process (click's CliRunner) over an output directory that already holds the build of the
unmutated specs. The verdict of a case is one of:

- ``built``: exit 0; every generated Python file compiles; later, every distinct generated
  Python file passes ``ruff check`` and every distinct generated package imports (both in
  subprocesses, on distinct outputs only: most mutations give outputs seen before);
- ``rejected``: exit 1, every message located (``file:line:col: ...``), the summary line last,
  and the previous tree untouched (every file's inode, mtime and size as before, no file
  added or removed);
- anything else is a bug: ``exit_<n>`` (e.g. 70, an internal error; 2, a usage error for a
  spec), ``exception`` (escaped the CLI), ``unlocated``, ``partial_tree``, ``not_compiling``,
  ``ruff``, ``import``.

Cost: a build spends most of its time in the formatters and in fsync. The campaign memoises
ruff format / clang-format per (file, text, settings), which is exact (both format a file on
its own), and makes fsync a no-op (durability is not what a fuzz case judges; the crash tests
do). Everything else is the real pipeline. A case whose mutated spec texts are those of a
case already judged (655 of 10,000: the same key deleted, the same `!delete` placed, the same
line dedented again) takes that case's verdict instead of building again: every case starts
from the same tree (a built case's tree is restored, a rejected one must leave it untouched),
so the same texts are the same build; its built output is the earlier case's, linted and
imported once. The workers share the verdicts through files named by the texts' digest.

Runs from the test suite (a quick profile) and as a script:

    python tests/core/fuzz_campaign.py --cases 10000 --workers 2 --record benchmarks/results/fuzz_campaign.json
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import hashlib
import json
import math
import multiprocessing
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[2]
SPECS = REPO / "specs"
V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"
GOOD = ("built", "rejected")
_LOCATED = re.compile(r"^(?P<file>[^\n:]+\.yaml):(?P<line>\d+):(?P<col>\d+): \S")
_SUMMARY = re.compile(r"\d+ errors?; nothing was written\.")

# --------------------------------------------------------------------------------------------
# YAML with `!delete`, both ways


class _Delete:
    """The `!delete` marker: one object, which copies and pickles keep (a parsed spec compares
    equal to its deep copy only if the markers in both are the same object)."""

    def __repr__(self) -> str:
        return "!delete"

    def __copy__(self) -> _Delete:
        return self

    def __deepcopy__(self, memo: dict) -> _Delete:
        return self

    def __reduce__(self) -> str:
        return "DELETE"  # the module global below


DELETE = _Delete()


# libyaml's parser and emitter where PyYAML has them: the campaign parses the real specs for
# every case, and the pure-Python parser was most of a case's time once the specs grew.
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    pass


_Loader.add_constructor("!delete", lambda loader, node: DELETE)


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):
    pass


_Dumper.add_representer(_Delete, lambda dumper, _: dumper.represent_scalar("!delete", ""))


def _load(text: str) -> dict:
    return yaml.load(text, Loader=_Loader)  # noqa: S506 - a safe loader plus one tag


@functools.lru_cache(maxsize=16)
def _load_original(text: str) -> dict:
    """The parsed real spec text, parsed once per process (callers deep-copy before mutating)."""
    return _load(text)


def _dump(data: object) -> str:
    return yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=100)


# --------------------------------------------------------------------------------------------
# Mutations

BIG_INT_MARK = "__fuzz_big_int__"
EXTREMES: list[object] = [
    0,
    -1,
    1,
    2**31 - 1,
    2**31,
    2**32 + 1,
    2**63,
    2**64,
    -(2**63) - 1,
    10**40,
    1e308,
    -1e308,
    math.inf,
    -math.inf,
    math.nan,
    0.1,
    448.0000001,
    5e-324,
    True,
    False,
    None,
    "",
    " ",
    "x" * 5000,
    "\u202eevil",
    "a\nb",
    "{}",
    "{layer_id}{",
    "{{ x }}",
    "*/",
    "#include <x>",
    "\x00",
    "\x1b[31m",
    "'\"",
    "__import__('os')",
    "sm95",
    "../x.yaml",
    "/etc/passwd",
    "mtp",
    "dspark",
    BIG_INT_MARK,
]
RETYPES: list[object] = [{}, [], "x", 0, -1, 1.5, True, None, [1], ["a", "b"], {"a": 1}, {"k": {}}]
SYNTAX_TOKENS = [
    "[",
    "{",
    "]",
    "}",
    "*a",
    "&a",
    "!delete",
    "!!python/name:os.system",
    "'",
    '"',
    "|",
    ": :",
    "- ",
    "\t",
    "<<: {}",
    "%YAML 1.1",
    "---",
    "...",
]


def _paths(node: object, path: tuple = ()) -> list[tuple]:
    """Every node's path below the root (mapping keys and list indices)."""
    found = []
    if isinstance(node, dict):
        for key, value in node.items():
            found.append(path + (key,))
            found += _paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.append(path + (i,))
            found += _paths(value, path + (i,))
    return found


def _get(data: object, path: tuple) -> object:
    for part in path:
        data = data[part]
    return data


def _set(data: object, path: tuple, value: object) -> None:
    _get(data, path[:-1])[path[-1]] = value


def _mapping_paths(data: dict) -> list[tuple]:
    return [()] + [p for p in _paths(data) if isinstance(_get(data, p), dict)]


def _text_mutation(text: str, rng: random.Random) -> tuple[str, str]:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    kind = rng.choice(
        ["delete_line", "dup_line", "indent", "dedent", "swap_chars", "token", "truncate"]
    )
    if kind == "delete_line":
        del lines[i]
    elif kind == "dup_line":  # a duplicated key, when the line holds one
        lines.insert(i, lines[i])
    elif kind == "indent":
        lines[i] = "  " + lines[i]
    elif kind == "dedent":
        lines[i] = lines[i][min(2, len(lines[i]) - len(lines[i].lstrip(" "))) :]
    elif kind == "token":
        j = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:j] + rng.choice(SYNTAX_TOKENS) + lines[i][j:]
    elif kind == "truncate":
        return text[: rng.randrange(len(text))], "syntax_truncate"
    else:
        j = rng.randrange(max(len(text) - 1, 1))
        return text[:j] + text[j + 1 : j + 2] + text[j : j + 1] + text[j + 2 :], "syntax_swap_chars"
    return "\n".join(lines), f"syntax_{kind}"


# Shadowing names (issue 23): modules installed where the build runs, the standard library's,
# the ones Python imports at start-up, names of the generated package's own modules.
SHADOWING_NAMES = [
    "numpy",
    "yaml",
    "typing_extensions",
    "jinja2",
    "click",
    "os",
    "json",
    "sitecustomize",
    "registry",
    "tests",
    "vllm",
    "dsv41gen",
]


def _shadow_mutation(docs: dict[str, dict], rng: random.Random) -> str:
    """A name that could shadow what is installed, or a class hierarchy out of order: the root
    named after an installed module; a spec's backends reversed (children before parents); a
    backend's parent made another backend of its spec (a cycle, where that one derives from
    it)."""
    kind = rng.choice(["root_name", "backend_order", "backend_parent"])
    root = next((d for d in docs.values() if "extends" not in d), None)
    if kind == "root_name" and root is not None and isinstance(root.get("variant"), dict):
        root["variant"]["name"] = rng.choice(SHADOWING_NAMES)
        return "shadow_root_name"
    data = docs[rng.choice(list(docs))]
    backends = data.get("attention_backends")
    if not isinstance(backends, dict) or len(backends) < 2:
        return "none"
    if kind == "backend_order":
        data["attention_backends"] = dict(reversed(list(backends.items())))
        return "shadow_backend_order"
    key, other = rng.sample(sorted(backends), 2)
    if isinstance(backends[key], dict):
        backends[key]["parent"] = other
        backends[key].pop("parent_module", None)
    return "shadow_backend_parent"


def _structural_mutation(docs: dict[str, dict], rng: random.Random) -> str:
    """Mutate the parsed specs in place; return the mutation's name."""
    name = rng.choice(list(docs))
    data = docs[name]
    paths = _paths(data)
    kind = rng.choice(
        [
            "delete_key",
            "retype",
            "swap",
            "extreme",
            "rename_key",
            "add_key",
            "delete_marker",
            "copy_subtree",
            "extreme",
            "shadow",
        ]
    )
    if kind == "shadow":
        return _shadow_mutation(docs, rng)
    if not paths:
        return "none"
    path = rng.choice(paths)
    parent = _get(data, path[:-1])
    if kind == "delete_key":
        if isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent.pop(path[-1])
    elif kind == "retype":
        _set(data, path, copy.deepcopy(rng.choice(RETYPES)))
    elif kind == "extreme":
        _set(data, path, rng.choice(EXTREMES))
    elif kind == "delete_marker":
        _set(data, path, DELETE)
    elif kind == "swap":  # values of two fields, possibly of the two specs
        other_doc = docs[rng.choice(list(docs))]
        other_paths = _paths(other_doc)
        other = rng.choice(other_paths)
        if other[: len(path)] == path or path[: len(other)] == other:
            return "swap_nested"  # one holds the other: nothing to swap
        a, b = _get(data, path), _get(other_doc, other)
        _set(data, path, copy.deepcopy(b))
        _set(other_doc, other, copy.deepcopy(a))
    elif kind == "rename_key" and isinstance(parent, dict):
        key = path[-1]
        new = rng.choice(
            [str(key) + "s", str(key)[:-1], str(key).upper(), "x" + str(key), "", "a.b", "\u00e9"]
        )
        if new not in parent:
            parent[new] = parent.pop(key)
    elif kind == "add_key":
        target = _get(data, rng.choice(_mapping_paths(data)))
        target[rng.choice(["extra", "name", "kind", "parent", "sm95", "weights", "default"])] = (
            copy.deepcopy(rng.choice(EXTREMES + RETYPES))
        )
    elif kind == "copy_subtree":
        target = _get(data, rng.choice(_mapping_paths(data)))
        target[str(path[-1])] = copy.deepcopy(_get(data, path))
    else:
        return "none"
    return kind


def mutate(texts: dict[str, str], rng: random.Random) -> tuple[dict[str, str], list[str]]:
    """One to three mutations of the real spec texts; text mutations last (they break syntax)."""
    docs = {name: copy.deepcopy(_load_original(text)) for name, text in texts.items()}
    applied = []
    count = rng.choice([1, 1, 2, 3])
    structural = [rng.random() < 0.7 for _ in range(count)]
    for is_structural in structural:
        if is_structural:
            applied.append(_structural_mutation(docs, rng))
    out = {}
    for name, data in docs.items():
        # keep the real text (comments, layout) for a spec no structural mutation touched
        untouched = data == _load_original(texts[name]) and BIG_INT_MARK not in str(data)
        out[name] = texts[name] if untouched else _dump(data).replace(BIG_INT_MARK, "9" * 5000)
    for is_structural in structural:
        if not is_structural:
            name = rng.choice(list(out))
            out[name], kind = _text_mutation(out[name], rng)
            applied.append(kind)
    return out, applied


# --------------------------------------------------------------------------------------------
# Running one case


def _tree_state(root: Path) -> dict[str, tuple[int, int, int]]:
    """Every entry below root (relative path -> inode, mtime_ns, size; directories too)."""
    state = {}
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        state[path.relative_to(root).as_posix()] = (info.st_ino, info.st_mtime_ns, info.st_size)
    return state


@dataclass
class CaseResult:
    index: int
    verdict: str
    mutations: list[str]
    detail: str = ""
    outputs: dict[str, str] = field(default_factory=dict)  # rel path -> text, for built cases
    repeat_of: int | None = None  # the earlier case with the same mutated texts (not rebuilt)


@contextlib.contextmanager
def _fast_build():
    """Memoised formatters and no fsync (see the module docstring); restored afterwards."""
    import dsv41gen.emit.format as fmt

    real = {"python": fmt.format_python, "cpp": fmt.format_cpp}
    caches: dict[str, dict] = {"python": {}, "cpp": {}}
    absent = object()

    def memoised(kind: str):
        def run(sources: dict[str, str], settings) -> dict[str, str]:
            cache = caches[kind]
            keys = {
                rel: (rel, hashlib.sha256(text.encode()).digest(), settings)
                for rel, text in sources.items()
            }
            todo = {rel: sources[rel] for rel, key in keys.items() if key not in cache}
            if todo:
                done = real[kind](todo, settings)
                for rel in todo:
                    cache[keys[rel]] = done.get(rel, absent)
            return {rel: cache[key] for rel, key in keys.items() if cache[key] is not absent}

        return run

    real_fsync = os.fsync
    fmt.format_python, fmt.format_cpp = memoised("python"), memoised("cpp")
    os.fsync = lambda fd: None
    try:
        yield
    finally:
        fmt.format_python, fmt.format_cpp = real["python"], real["cpp"]
        os.fsync = real_fsync


class Workspace:
    """One worker's directory: the specs to mutate, and an output tree built from the real ones."""

    def __init__(self, root: Path, judged: Path):
        from click.testing import CliRunner

        self.root = root
        self.judged = judged  # the campaign's verdicts by input digest (see the docstring)
        self.specs = root / "specs"
        self.out = root / "out"
        self.pristine = root / "pristine"
        self.runner = CliRunner()
        self.texts = {name: (SPECS / name).read_text(encoding="utf-8") for name in (V4, V41)}
        _write_ruff_config(root)
        self._write_specs(self.texts)
        result = self._build()
        assert result.exit_code == 0, result.output
        shutil.copytree(self.out, self.pristine, copy_function=shutil.copy2)
        self.state = _tree_state(self.out)

    def _write_specs(self, texts: dict[str, str]) -> None:
        if self.specs.exists():
            shutil.rmtree(self.specs)
        self.specs.mkdir()
        for name, text in texts.items():
            (self.specs / name).write_text(text, encoding="utf-8")

    def _build(self):
        with _cwd(self.root):
            return self.runner.invoke(main_command(), ["build", f"specs/{V41}", "--out", "out"])

    def _restore(self) -> None:
        shutil.rmtree(self.out)
        shutil.copytree(self.pristine, self.out, copy_function=shutil.copy2)
        self.state = _tree_state(self.out)

    def run(self, index: int, seed: int) -> CaseResult:
        rng = random.Random(f"{seed}:{index}")
        texts, applied = mutate(self.texts, rng)
        key = _digest(*[f"{name}\0{text}" for name, text in sorted(texts.items())])
        judged = self.judged / key
        if judged.is_file():
            first, verdict, detail = json.loads(judged.read_text(encoding="utf-8"))
            return CaseResult(index, verdict, applied, detail, repeat_of=first)
        self._write_specs(texts)
        result = self._build()
        verdict, detail, outputs = self._judge(result)
        # _judge says "rejected" only for a tree it found as it was (else "partial_tree"): any
        # other verdict restores it
        if verdict != "rejected":
            self._restore()
        # written whole, then renamed: the other worker reads a verdict whole or not at all
        part = self.judged / f"{key}.{os.getpid()}.part"
        part.write_text(json.dumps([index, verdict, detail]), encoding="utf-8")
        os.replace(part, judged)
        return CaseResult(index, verdict, applied, detail, outputs)

    def _judge(self, result) -> tuple[str, str, dict[str, str]]:
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return "exception", f"{type(result.exception).__name__}: {result.exception}", {}
        if result.exit_code == 1:
            lines = result.stderr.splitlines()
            if not lines or not _SUMMARY.fullmatch(lines[-1]):
                return "unlocated", result.stderr[-500:], {}
            for line in lines[:-1]:
                if not _LOCATED.match(line) and not line.startswith("warning: "):
                    return "unlocated", line[:500], {}
            if _tree_state(self.out) != self.state:
                return "partial_tree", "a rejected build changed the previous tree", {}
            return "rejected", "", {}
        if result.exit_code != 0:
            return f"exit_{result.exit_code}", result.output[-500:], {}
        outputs = {}
        for path in sorted(self.out.rglob("*.py")):
            rel = path.relative_to(self.out).as_posix()
            text = path.read_text(encoding="utf-8")
            try:
                compile(text, rel, "exec")
            except SyntaxError as error:
                return "not_compiling", f"{rel}: {error}", {}
            outputs[rel] = text
        return "built", "", outputs


def main_command():
    from dsv41gen.commands.cli import main

    return main


def _write_ruff_config(root: Path) -> None:
    """The repository's own ruff settings (its pyproject's [tool.ruff] tables, as a ruff.toml),
    so the format stage and `ruff check` see what they see for generated/ in the repository."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    kept, inside = [], False
    for line in text.splitlines():
        header = re.match(r"^\[(.*)\]\s*$", line)
        if header:
            inside = header[1] == "tool.ruff" or header[1].startswith("tool.ruff.")
            if inside and header[1] != "tool.ruff":
                kept.append(f"[{header[1][len('tool.ruff.') :]}]")
            continue
        if inside:
            kept.append(line)
    (root / "ruff.toml").write_text("\n".join(kept) + "\n", encoding="utf-8")


@contextlib.contextmanager
def _cwd(path: Path):
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


# --------------------------------------------------------------------------------------------
# The campaign


def _run_chunk(args: tuple[list[int], int, str]) -> list[CaseResult]:
    indices, seed, tmp = args
    results = []
    with tempfile.TemporaryDirectory(prefix="dsv41gen-fuzz-", dir=tmp) as root, _fast_build():
        workspace = Workspace(Path(root), Path(tmp) / "judged")
        for index in indices:
            results.append(workspace.run(index, seed))
    return results


def _ruff_check(files: dict[str, str], root: Path) -> dict[str, str]:
    """distinct file digest -> ruff's complaint, for every distinct file that fails."""
    root.mkdir(parents=True, exist_ok=True)
    _write_ruff_config(root)
    names = {}
    for digest, (rel, text) in files.items():
        path = root / "files" / digest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        names[str(path.relative_to(root))] = digest
    failed = {}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--output-format",
            "concise",
            "--no-cache",
            "files",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    for line in result.stdout.splitlines():
        file = line.split(":", 1)[0]
        if file in names:
            failed.setdefault(names[file], line)
    if result.returncode not in (0, 1) or (result.returncode == 1 and not failed):
        raise RuntimeError(f"ruff check did not run: {result.stderr[-1000:]}")
    return failed


_IMPORTER = r"""
import importlib, sys, traceback
from pathlib import Path
for line in sys.stdin:
    root, package = line.rstrip("\n").split("\t")
    sys.path.insert(0, root)
    try:
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]
        importlib.import_module(package)
        for path in sorted((Path(root) / package).glob("*.py")):
            importlib.import_module(f"{package}.{path.stem}" if path.stem != "__init__" else package)
        print("ok", flush=True)
    except BaseException as error:
        print("fail " + repr(traceback.format_exception_only(type(error), error)[-1].strip()), flush=True)
    finally:
        sys.path.remove(root)
"""


def _import_check(packages: dict[str, dict[str, str]], root: Path) -> dict[str, str]:
    """package digest -> the import failure, for every distinct package that does not import.
    One subprocess imports them all (torch and triton are imported once)."""
    requests = []
    for digest, files in packages.items():
        for rel, text in files.items():
            path = root / "packages" / digest / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        for package in sorted({rel.split("/", 1)[0] for rel in files}):
            requests.append((digest, str(root / "packages" / digest), package))
    if not requests:
        return {}
    proc = subprocess.run(
        [sys.executable, "-c", _IMPORTER],
        input="".join(f"{r}\t{p}\n" for _, r, p in requests),
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )
    answers = proc.stdout.splitlines()
    if len(answers) != len(requests):
        raise RuntimeError(f"the importer stopped: {proc.stderr[-2000:]}")
    return {digest: answer for (digest, _, _), answer in zip(requests, answers) if answer != "ok"}


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:20]


@dataclass
class Campaign:
    cases: int
    verdicts: Counter
    mutations: Counter
    bugs: list[CaseResult]
    distinct_outputs: int
    ruff_checked_files: int
    import_checked_packages: int
    repeated_inputs: int
    seconds: float
    cpu_seconds: float

    def as_json(self, seed: int, workers: int) -> dict:
        from importlib import metadata

        return {
            "what": "dsv41gen fuzz campaign: mutations of specs/deepseek_v4.yaml and specs/deepseek_v41.yaml, "
            "each built by the CLI over the previous tree (tests/core/fuzz_campaign.py)",
            "seed": seed,
            "cases": self.cases,
            "outcomes": dict(sorted(self.verdicts.items())),
            "bugs": len(self.bugs),
            "mutations_applied": dict(sorted(self.mutations.items())),
            "distinct_successful_outputs": self.distinct_outputs,
            "ruff_checked_distinct_files": self.ruff_checked_files,
            "import_checked_distinct_packages": self.import_checked_packages,
            "cases_repeating_an_earlier_cases_input": self.repeated_inputs,
            "seconds": round(self.seconds, 1),
            "cpu_seconds": round(self.cpu_seconds, 1),
            "workers": workers,
            "machine": {
                "cpus": os.cpu_count(),
                "python": platform.python_version(),
                "platform": platform.platform(),
            },
            "versions": {
                name: metadata.version(name)
                for name in ("dsv41gen", "ruff", "pyyaml", "jsonschema", "jinja2", "clang-format")
            },
        }


CHUNK = 500


def _cpu_seconds() -> float:
    """CPU time of this process and of its waited-for children (the workers, ruff, importer)."""
    import resource

    return sum(
        getattr(resource.getrusage(who), kind)
        for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
        for kind in ("ru_utime", "ru_stime")
    )


def run_campaign(
    cases: int, seed: int = 20261201, workers: int = 1, import_sample: int | None = None
) -> Campaign:
    """Run ``cases`` cases; ruff-check every distinct generated Python file, import-check the
    distinct generated packages (at most ``import_sample`` of them, chosen by digest, when
    given)."""
    start, cpu_start = time.monotonic(), _cpu_seconds()
    with tempfile.TemporaryDirectory(prefix="dsv41gen-campaign-") as tmp:
        (Path(tmp) / "judged").mkdir()
        if workers == 1:
            results = _run_chunk((list(range(cases)), seed, tmp))
        else:
            # chunks of CHUNK cases, so progress shows; each chunk builds its workspace once
            chunks = [
                (list(range(i, min(i + CHUNK, cases))), seed, tmp) for i in range(0, cases, CHUNK)
            ]
            results = []
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                for chunk in pool.imap_unordered(_run_chunk, chunks):
                    results += chunk
                    print(
                        f"fuzz campaign: {len(results)}/{cases} cases", file=sys.stderr, flush=True
                    )
        results.sort(key=lambda r: r.index)
        verdicts = Counter(r.verdict for r in results)
        mutations = Counter(m for r in results for m in r.mutations)
        bugs = [r for r in results if r.verdict not in GOOD]
        files: dict[str, tuple[str, str]] = {}
        packages: dict[str, dict[str, str]] = {}
        owner: dict[str, list[CaseResult]] = {}
        file_owner: dict[str, CaseResult] = {}
        for r in results:
            if r.verdict != "built" or r.repeat_of is not None:
                continue  # a repeat's output is its first case's
            package = {rel: text for rel, text in r.outputs.items() if "/tests/" not in rel}
            digest = _digest(*[f"{rel}\0{text}" for rel, text in sorted(package.items())])
            packages.setdefault(digest, package)
            owner.setdefault(digest, []).append(r)
            for rel, text in r.outputs.items():
                files.setdefault(_digest(rel, text), (rel, text))
                file_owner.setdefault(_digest(rel, text), r)
            r.outputs = {}
        ruff_failed = _ruff_check(files, Path(tmp) / "ruff") if files else {}
        for digest, complaint in ruff_failed.items():
            case = file_owner[digest]
            bugs.append(CaseResult(case.index, "ruff", case.mutations, complaint))
            verdicts["ruff"] += 1
        chosen = sorted(packages)
        if import_sample is not None:
            chosen = chosen[:import_sample]
        import_failed = _import_check({d: packages[d] for d in chosen}, Path(tmp) / "imports")
        for digest, answer in import_failed.items():
            case = owner[digest][0]
            bugs.append(CaseResult(case.index, "import", case.mutations, answer))
            verdicts["import"] += 1
    return Campaign(
        cases,
        verdicts,
        mutations,
        bugs,
        len(packages),
        len(files),
        len(chosen),
        sum(r.repeat_of is not None for r in results),
        time.monotonic() - start,
        _cpu_seconds() - cpu_start,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--import-sample", type=int, default=None)
    parser.add_argument("--record", type=Path, help="write the campaign's figures here (JSON)")
    parser.add_argument("--write-case", type=int, help="only write this case's specs to --into")
    parser.add_argument("--into", type=Path, default=Path("fuzz-case"))
    args = parser.parse_args(argv)
    if args.write_case is not None:
        texts = {name: (SPECS / name).read_text(encoding="utf-8") for name in (V4, V41)}
        mutated, applied = mutate(texts, random.Random(f"{args.seed}:{args.write_case}"))
        (args.into / "specs").mkdir(parents=True, exist_ok=True)
        for name, text in mutated.items():
            (args.into / "specs" / name).write_text(text, encoding="utf-8")
        print(f"case {args.write_case}: {applied} -> {args.into / 'specs'}")
        return 0
    campaign = run_campaign(args.cases, args.seed, args.workers, args.import_sample)
    figures = campaign.as_json(args.seed, args.workers)
    text = json.dumps(figures, indent=2) + "\n"
    if args.record:
        args.record.write_text(text, encoding="utf-8")
    print(text, end="")
    for bug in campaign.bugs[:50]:
        print(f"BUG case {bug.index} {bug.verdict} {bug.mutations}: {bug.detail}", file=sys.stderr)
    return 1 if campaign.bugs else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
