"""The payload corpus: every string field of the spec language, set to an attacker's text.

The fields are enumerated from the shipped JSON schema (``dsv41gen/schema.json``), so a field
added to the language is covered without editing this file. Each payload goes into real copies
of the specs; every build must be either

- rejected: exit 1, located messages, no traceback, nothing written, nothing on stderr that
  drives a terminal; or
- inert: every generated Python file compiles and is ruff-clean, the package imports in a
  fresh process (forked from one that imported torch only), the generated tests pass, every
  generated function that formats a message runs with the values that trigger each message
  (in that process), the C/C++ sources have exactly the code of
  the unmodified build (the payload only reaches comments and string literals), every TOML
  file parses to the same structure, and the canary file that the code-shaped payloads would
  write never appears.

Free text must be printable (validation refuses control, bidi, NUL and line-separator
characters anywhere in a spec, since messages reach people's terminals at run time): the
payloads holding such characters must be rejected at every free-text field they are put in;
the printable ones must be taken inertly.

Builds carry many payloads at once: one build puts every payload (joined) into every field,
then payload i + k goes to field i in rotation k. The default run takes that build and two
rotations; ``DSV41GEN_PAYLOADS=full`` runs every rotation (every payload alone in every field).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest
import yaml
from securityhelpers import GENERATED_PYTEST, REPO, cli, copy_specs, run_after_torch

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"
FULL = os.environ.get("DSV41GEN_PAYLOADS") == "full"
CANARY_NAME = "CANARY_PAYLOAD_RAN"


def payloads(canary: Path) -> list[str]:
    c = repr(str(canary))
    write = f"__import__('pathlib').Path({c}).write_text('ran')"
    return [
        f"x\n{write}\n#",
        f"classic-MTP{{{write}}}",
        "{}",
        "{0} {layer_id.__class__} {compress_ratio!r:>{9}}",
        "{{ plan }} {% if 1 %}x{% endif %}",
        f"' + {write} + '",
        f'" + {write} + "',
        f"''' + {write} + '''",
        f'""" + {write} + """',
        "*/ int evil = 1; /*",
        "#include <stdlib.h>",
        "#if 0",
        "nul\x00byte",
        "bidi \u202e\u2066 reversed \u2069\u202c",
        "ansi \x1b[31mred\x1b[0m \x07",
        "line\u2028sep\u2029para\x85nel\x0cff\x0bvt\rcr",
        "back\\slash \\n \\x00 \\N{BULLET} \\",
        "%s %d %(x)s",
        "??/ trigraph ??=",
        f"\\\n{write}",
        # a source-encoding declaration (PEP 263), then code that UTF-7 decodes a newline around
        f"coding: utf-7 +AAo-{write}+AAo-#",
    ]


# --- the spec language's string fields, from the schema --------------------------------------


def _schema() -> dict:
    return json.loads((REPO / "dsv41gen" / "schema.json").read_text(encoding="utf-8"))


# Text any printable-text field takes: a pattern that accepts it limits nothing a payload needs.
PRINTABLE_TEXT = "any text: {x} 'q' \"q\" */ #if 0 coding: utf-7 +AAo- \u202e"


def string_fields() -> list[tuple[tuple[str, ...], bool]]:
    """(path, free) for every string-valued field and every key of a mapping the schema names:
    '*' is any key, '[]' any list item, '<key>' the keys themselves; free means no enum and
    no pattern limits printable text (a pattern such as license_header's, which refuses control
    characters only, still lets code-shaped text through: such a field must take any payload it
    accepts inertly)."""
    schema = _schema()
    found: list[tuple[tuple[str, ...], bool]] = []

    def walk(node: object, path: tuple[str, ...]) -> None:
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            walk(schema.get("$defs", {}).get(node["$ref"].split("/")[-1], {}), path)
        types = node.get("type")
        types = types if isinstance(types, list) else [types]
        if "string" in types or ("enum" in node and "type" not in node):
            free = "enum" not in node and re.search(node.get("pattern", ""), PRINTABLE_TEXT)
            found.append((path, bool(free)))
        for key, sub in node.get("properties", {}).items():
            walk(sub, path + (key,))
        if isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], path + ("*",))
        if "propertyNames" in node:
            found.append((path + ("<key>",), False))
        if "items" in node:
            walk(node["items"], path + ("[]",))
        for combinator in ("anyOf", "oneOf", "allOf"):
            for sub in node.get(combinator, []):
                walk(sub, path)

    walk(schema, ())
    return list(dict.fromkeys(found))


# --- YAML in and out, keeping `!delete` -------------------------------------------------------


class Delete:
    pass


class _Loader(yaml.SafeLoader):
    pass


class _Dumper(yaml.SafeDumper):
    pass


_Loader.add_constructor("!delete", lambda loader, node: Delete())
_Dumper.add_representer(Delete, lambda dumper, _: dumper.represent_scalar("!delete", ""))


def load(path: Path) -> dict:
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)  # noqa: S506 (safe + one tag)


def dump(data: dict, path: Path) -> None:
    header = "# yaml-language-server: $schema=../dsv41gen/schema.json\n"
    path.write_text(header + yaml.dump(data, Dumper=_Dumper, sort_keys=False), encoding="utf-8")


def seed(documents: dict[str, dict]) -> None:
    """Optional free-text fields the real specs leave out, so that they are attacked too."""
    v4, v41 = documents[V4], documents[V41]
    v4["hf_config"]["payload_text"] = "seed"
    v4["license_header"] = ["seed", "seed"]  # lines 1 and 2 of every file (PEP 263 reads them)
    v41["speculative"]["forbidden"]["mtp"]["message"] = "seed"
    v41["review"] = {
        "accepted_breaking_changes": [
            {
                "change": "deepseek_v41:hf_config.hidden_size:changed",
                "reason": "a seeded reason, long enough for the schema",
            }
        ]
    }


Slot = tuple[str, tuple[object, ...], str]  # (spec file, concrete path, "value" | "key")


def slots(documents: dict[str, dict], free: bool) -> list[Slot]:
    """Every place in the specs a string field of the given kind is written (or may be added:
    a free field whose mapping exists)."""
    out: list[Slot] = []
    for path, is_free in string_fields():
        if is_free != free:
            continue
        for file, data in documents.items():
            for concrete, kind in _expand(data, path, ()):
                if kind == "value" and path[:1] == ("hf_config",):
                    value = _get(data, concrete)
                    if not isinstance(value, str):
                        continue  # numbers there are counts the code reads, not text
                out.append((file, concrete, kind))
    return out


def _expand(node: object, path: tuple[str, ...], done: tuple[object, ...]):
    if not path:
        yield done, "value"
        return
    head, rest = path[0], path[1:]
    if head == "<key>":
        if isinstance(node, dict) and not rest:
            for key in list(node)[:1]:
                yield done + (key,), "key"
        return
    if head == "*":
        if isinstance(node, dict):
            for key, sub in node.items():
                if not isinstance(sub, Delete):
                    yield from _expand(sub, rest, done + (key,))
        return
    if head == "[]":
        if isinstance(node, list):
            for i, sub in enumerate(node):
                yield from _expand(sub, rest, done + (i,))
        return
    if not isinstance(node, dict) or isinstance(node.get(head), Delete):
        return
    if head in node:
        yield from _expand(node[head], rest, done + (head,))
    elif not rest and node:
        yield done + (head,), "value"  # an optional free field, added


def _get(data: object, path: tuple[object, ...]) -> object:
    for part in path:
        data = data[part]  # type: ignore[index]
    return data


def _put(data: dict, path: tuple[object, ...], kind: str, payload: str) -> None:
    parent = _get(data, path[:-1])
    if kind == "key":
        items = list(parent.items())  # type: ignore[union-attr]
        parent.clear()  # type: ignore[union-attr]
        for key, value in items:
            parent[payload if key == path[-1] else key] = value  # type: ignore[index]
    else:
        parent[path[-1]] = payload  # type: ignore[index]


# --- outcomes ---------------------------------------------------------------------------------


def _assert_clean_rejection(result, where: str) -> None:
    assert result.rc == 1, f"{where}: exit {result.rc}\n{result.stderr[-3000:]}"
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, where
    for line in result.stderr.splitlines():
        assert line.isprintable(), f"{where}: unprintable stderr line {line!r}"


_CPP_NOISE = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)


def cpp_code(out: Path) -> dict[str, str]:
    """The C/C++ sources without comments and string/char literals, whitespace-normalised."""
    return {
        str(p.relative_to(out)): " ".join(_CPP_NOISE.sub(" ", p.read_text()).split())
        for p in sorted(out.rglob("*"))
        if p.suffix in (".cu", ".cuh", ".cpp", ".h")
    }


DRIVER = textwrap.dedent(
    """
    import importlib, inspect, sys, warnings
    sys.path.insert(0, sys.argv[1])
    package = sys.argv[2]
    mod = {name: importlib.import_module(f"{package}.{name}") for name in sys.argv[3:]}
    calls = 0


    class _EveryLayer(int):
        # 8 as a bound, and a list holding every layer id
        def __contains__(self, _layer):
            return True


    class _EveryLayerASource(dict):
        # an HF config whose every field is _EveryLayer: layer 7 is a kv source
        def get(self, _name, _default=None):
            return _EveryLayer(8)

    def attempt(function, *args):
        global calls
        calls += 1
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                result = function(*args)
            str(result), [str(w.message) for w in caught]
        # AssertionError: V4's compress-ratio check raises it, as vLLM 0.33.0's compressor asserts
        except (
            ValueError, KeyError, TypeError, FileNotFoundError, NotImplementedError, AssertionError
        ) as error:
            str(error)

    spec, runner, registry = mod["speculative"], mod["runner"], mod["registry"]
    model_types = list(spec.DISPLAY_NAMES) + ["llama"]
    methods = sorted(spec.FAMILY_METHODS) + ["eagle"]
    for mt in model_types:
        for method in methods:
            attempt(spec.validate_method, mt, method)
            fields = (spec._TOKENS_PER_ROUND_SOURCES.get(method, lambda _m: None)(mt)) or ()
            for per_round in (1, 2, 3, 7):
                hf = {f: per_round for f in fields}
                for num in (None, 1, 2, 3, 4, 5, 6, 8, 9, 16, 64, 1000):
                    attempt(spec.resolve_num_speculative_tokens, mt, method, hf, num)
                attempt(spec.draft_config_overrides, mt, method, hf)
            if hasattr(spec, "check_adaptive_verification"):
                attempt(spec.check_adaptive_verification, mt, method, True)
        for ratio in range(-1, 10):
            if "kv_cache" in mod and hasattr(mod["kv_cache"], "validate_compress_ratio"):
                check = mod["kv_cache"].validate_compress_ratio
                attempt(check, mt, 7, ratio)
                if "hf_config" in inspect.signature(check).parameters:
                    # layer 7 a kv source whatever the fields are called, so the compressor's
                    # message (kv_cache.kv_source_compressor) is formatted too
                    attempt(check, mt, 7, ratio, _EveryLayerASource())
        if "checkpoint" in mod:
            for method in methods:
                attempt(mod["checkpoint"].missing_weights, mt, method, [])
                attempt(mod["checkpoint"].servable_methods, mt, [])
    modes = list(runner.CUDAGraphMode)
    for arch in list(registry.TARGET_MODELS) + ["LlamaForCausalLM"]:
        for v2 in (False, True):
            for mode in modes:
                for method in (None, *methods):
                    for adaptive in (False, True):
                        attempt(runner.check_runner_mode, [arch], v2, mode, method, adaptive)
    registry.register()
    for name, obj in vars(mod["backends"]).items():
        if inspect.isclass(obj) and hasattr(obj, "get_name"):
            for method in ("get_name", "get_supported_kernel_block_sizes"):
                attempt(getattr(obj, method))
    for name, function in vars(mod["dispatch"]).items():
        if inspect.isfunction(function):
            for mt in model_types:
                attempt(function, mt)
    print("calls", calls)
    """
)

GENERATED_TESTS = ("test_speculative.py", "test_runner.py", "test_registry.py", "test_kv_cache.py")


def toml_shape(out: Path) -> dict[str, object]:
    """Each generated TOML file parsed by the standard library: its tables and keys, and the
    type of each value (a payload may change a string, never the document's structure)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10 has no TOML parser: compare the line count
        return {
            str(p.relative_to(out)): len(p.read_text().splitlines()) for p in out.rglob("*.toml")
        }

    def shape(value: object) -> object:
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items()}
        if isinstance(value, list):
            return [shape(v) for v in value]
        return type(value).__name__

    return {
        str(p.relative_to(out)): shape(tomllib.loads(p.read_text(encoding="utf-8")))
        for p in sorted(out.rglob("*.toml"))
    }


def assert_inert(
    out: Path, baseline_cpp: dict[str, str], baseline_toml: dict, canary: Path, where: str
) -> None:
    package = out / "deepseek_v4"
    for py in sorted(package.rglob("*.py")):
        compile(py.read_text(encoding="utf-8"), str(py), "exec")
        with py.open("rb") as handle:  # Python reads it as the UTF-8 just compiled (PEP 263)
            assert tokenize.detect_encoding(handle.readline)[0] == "utf-8", f"{where}: {py}"
    assert cpp_code(out) == baseline_cpp, f"{where}: a payload changed C/C++ code"
    assert toml_shape(out) == baseline_toml, f"{where}: a payload changed a TOML file's structure"
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(REPO / "pyproject.toml"), str(out)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, f"{where}: not ruff-clean\n{lint.stdout[-3000:]}"
    modules = [
        m
        for m in (
            "speculative",
            "runner",
            "registry",
            "backends",
            "dispatch",
            "kv_cache",
            "checkpoint",
        )
        if (package / f"{m}.py").is_file()
    ]
    driver = out.parent / "payload_driver.py"
    driver.write_text(DRIVER, encoding="utf-8")
    run = run_after_torch(driver, out, "deepseek_v4", *modules, cwd=out, timeout=120)
    assert run.rc == 0, f"{where}: {run.stderr[-3000:]}"
    assert int(run.stdout.split()[-1]) > 100
    tests = [
        str(package / "tests" / t) for t in GENERATED_TESTS if (package / "tests" / t).exists()
    ]
    pytest_run = subprocess.run(
        [
            *GENERATED_PYTEST,
            "-x",
            *tests,
        ],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert pytest_run.returncode == 0, f"{where}: {pytest_run.stdout[-3000:]}"
    assert not canary.exists(), f"{where}: a payload ran"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("payloads")
    canary = root / CANARY_NAME
    base = copy_specs(root / "base" / "specs")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=base.parent)
    assert result.rc == 0, result.stderr
    out = base.parent / "out"
    return root, canary, payloads(canary), (cpp_code(out), toml_shape(out))


def _documents(specs: Path) -> dict[str, dict]:
    documents = {V4: load(specs / V4), V41: load(specs / V41)}
    seed(documents)
    return documents


def test_the_schema_walk_finds_the_fields_that_reach_generated_code():
    paths = {".".join(p) for p, _ in string_fields()}
    for field in (
        "variant.display_name",
        "speculative.methods.mtp.label",
        "speculative.forbidden.mtp.message",
        "runner.forbidden_modes.*.message",
        "kv_cache.unsupported_compress_ratio_message",
        "attention_backends.*.kernel_block_sizes.note",
        "architectures.*.module",
        "attention_backends.<key>",
    ):
        assert field in paths
    documents = _documents(REPO / "specs")
    free = slots(documents, free=True)
    assert len(free) >= 10 and len(slots(documents, free=False)) >= 40


def printable(all_payloads: list[str]) -> list[str]:
    return [p for p in all_payloads if p.isprintable()]


def unprintable(all_payloads: list[str]) -> list[str]:
    return [p for p in all_payloads if not p.isprintable()]


# "all": every printable payload at once in every field (one string); then single payloads in
# rotation
ROTATIONS = ["all", *(range(len(printable(payloads(Path("x"))))) if FULL else range(2))]


@pytest.mark.parametrize("rotation", ROTATIONS)
def test_free_text_fields_are_inert(corpus, rotation):
    """Every free-text field gets a payload (a different one per field); a field whose own
    rule rejects the payload (a message template with an unknown field) is reported cleanly
    and the build is retried without it, so every other field is still proven inert."""
    root, canary, corpus_payloads, (baseline_cpp, baseline_toml) = corpus
    corpus_payloads = printable(corpus_payloads)
    work = root / f"free{rotation}"
    specs = copy_specs(work / "specs")
    documents = _documents(specs)
    assigned = {
        slot: " | ".join(corpus_payloads)
        if rotation == "all"
        else corpus_payloads[(i + rotation) % len(corpus_payloads)]
        for i, slot in enumerate(slots(documents, free=True))
    }
    for _ in range(4):
        data = {V4: load(REPO / "specs" / V4), V41: load(REPO / "specs" / V41)}
        seed(data)
        for (file, path, kind), payload in assigned.items():
            _put(data[file], path, kind, payload)
        for file, document in data.items():
            dump(document, specs / file)
        result = cli("build", f"specs/{V41}", "--out", "out", cwd=work)
        if result.rc == 0:
            break
        _assert_clean_rejection(result, f"rotation {rotation}")
        rejected = {
            (Path(m[1]).name, m[2])
            for m in re.finditer(r"^([^:\n]+):\d+:\d+: ([^:]+):", result.stderr, re.MULTILINE)
        }
        before = len(assigned)
        assigned = {
            slot: p
            for slot, p in assigned.items()
            if (slot[0], ".".join(map(str, slot[1]))) not in rejected
        }
        assert len(assigned) < before, f"rejected, but not at an attacked field:\n{result.stderr}"
    assert result.rc == 0, result.stderr
    kept = {".".join(map(str, path)) for _, path, _ in assigned}
    kept_slots = {f"{file}:{'.'.join(map(str, path))}" for file, path, _ in assigned}
    print(
        f"rotation {rotation}: {len(assigned)} free-text slots carry payloads: {sorted(kept_slots)}"
    )
    for field in (
        "variant.display_name",
        "speculative.methods.mtp.label",
        "speculative.methods.dspark.label",
        "speculative.forbidden.mtp.message",
        "runner.forbidden_modes.adaptive_verification_without_full_cudagraphs.message",
        "attention_backends.DeepseekV4IndexerBackend.kernel_block_sizes.note",
    ):
        assert field in kept, f"{field} rejected a payload; free text must be taken inertly"
    assert_inert(work / "out", baseline_cpp, baseline_toml, canary, f"rotation {rotation}")


@pytest.mark.parametrize(
    "rotation", range(len(unprintable(payloads(Path("x"))))) if FULL else range(1)
)
def test_unprintable_free_text_is_rejected_at_each_field(corpus, rotation):
    """A control, bidi, NUL or line-separator character in any free-text field is a clean
    exit 1 located at that field: every attacked field is named, nothing is written."""
    root, canary, corpus_payloads, _ = corpus
    bad = unprintable(corpus_payloads)
    work = root / f"unprintable{rotation}"
    specs = copy_specs(work / "specs")
    data = {V4: load(REPO / "specs" / V4), V41: load(REPO / "specs" / V41)}
    seed(data)
    # `extends` names a file: a bad one stops resolution before validation (the spec file name
    # tests cover it); every other free-text field is judged by validation, all in one pass.
    targets = [s for s in slots(_documents(specs), free=True) if s[1] != ("extends",)]
    for i, (file, path, kind) in enumerate(targets):
        _put(data[file], path, kind, bad[(i + rotation) % len(bad)])
    for file, document in data.items():
        dump(document, specs / file)
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=work)
    _assert_clean_rejection(result, f"unprintable rotation {rotation}")
    reported = {
        (Path(m[1]).name, m[2])
        for m in re.finditer(r"^([^:\n]+):\d+:\d+: ([^:]+):", result.stderr, re.MULTILINE)
    }
    for file, path, _ in targets:
        assert (file, ".".join(map(str, path))) in reported, (file, path, result.stderr)
    assert "must be printable text" in result.stderr
    assert not (work / "out").exists() and not canary.exists()


@pytest.mark.parametrize("rotation", range(len(payloads(Path("x")))) if FULL else range(1))
def test_restricted_fields_and_keys_reject_payloads_cleanly(corpus, rotation):
    """Identifiers, dotted paths, enums and mapping keys: a payload in any of them (many at
    once) is a clean exit 1 that names each attacked field."""
    root, canary, corpus_payloads, _ = corpus
    work = root / f"restricted{rotation}"
    specs = copy_specs(work / "specs")
    data = _documents(specs)
    targets = slots(data, free=False)
    for i, (file, path, kind) in enumerate(targets):
        try:
            _put(data[file], path, kind, corpus_payloads[(i + rotation) % len(corpus_payloads)])
        except (KeyError, IndexError, TypeError):
            continue  # an earlier key payload renamed this field's parent
    for file, document in data.items():
        dump(document, specs / file)
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=work)
    _assert_clean_rejection(result, f"restricted rotation {rotation}")
    assert not (work / "out").exists()
    assert len(result.stderr.splitlines()) >= 10
    assert not canary.exists()


NAME_CASES = range(len(payloads(Path("x")))) if FULL else (0, 1, 9, 11, 14)


@pytest.mark.parametrize("index", NAME_CASES)
def test_spec_file_name_payloads_are_rejected(corpus, index):
    root, canary, corpus_payloads, _ = corpus
    name = corpus_payloads[index].replace("/", "_") + ".yaml"
    work = root / f"name{index}"
    specs = copy_specs(work / "specs")
    try:
        (specs / V41).rename(specs / name)
    except (OSError, ValueError):
        pytest.skip("the file system cannot hold this name")  # NUL: no file can carry it
    result = cli("build", f"specs/{name}", "--out", "out", cwd=work)
    _assert_clean_rejection(result, f"file name {name!r}")
    assert "spec file name" in result.stderr
    assert not (work / "out").exists() and not canary.exists()
