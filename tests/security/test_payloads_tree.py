"""The payload corpus, tree classes: what a pull request can do to the committed output tree
instead of to a spec (issue 23: "tree tampering" and "planted files").

The oracle is a fresh build of the specs and the gate's own decision on the tampered copy:
`check` runs exactly ``build_texts``, then ``write.compare`` on each package and
``write.output_dir_extras`` on the output directory, and exits 3 when any of them reports
anything. Each case here runs those two on a copy of a pristine build with one attack applied;
an attack is *caught* when the gate reports the path it touched (or a symlink above it), and
*missed* otherwise. Every case must be caught, and the counts per class are printed (run with
``-s`` to see them): cases are enumerated from the built tree, so a file the generator starts
writing is attacked without editing this file.

- tree tampering: every generated file, each of: code appended with its header hash and its
  MANIFEST line forged to match; its last line dropped; one byte of its body changed; its
  header alone changed; replaced by a symlink to a byte-identical copy outside the tree;
  replaced by a FIFO; deleted; plus seeded random byte edits (insert, delete, replace) at
  random offsets of random files.
- planted files: in every directory of the package, and beside the packages: a conftest.py,
  a module, an extension module and a sourceless .pyc named after each generated module, a
  .pth, a sitecustomize.py, an unchecked-hash .pyc in __pycache__, a header named like a kernel
  source's include, a symlink out of the tree, a FIFO, a directory (a stray package).

The CLI end to end (messages, exit codes, build's refusal and --force) is tests/core/test_gate.py.
"""

from __future__ import annotations

import collections
import os
import random
import re
import shutil
import sys
from pathlib import Path

import pytest
from securityhelpers import cli, copy_specs

from dsv41gen.commands.pipeline import build_texts
from dsv41gen.emit.fastpath import file_digest
from dsv41gen.emit.write import body_of, compare, output_dir_extras, short_hash

PKG = "deepseek_v4"
RANDOM_EDITS = int(os.environ.get("DSV41GEN_TREE_RANDOM_EDITS", "200"))
PAYLOAD = "\n__import__('os').system('touch CANARY_TREE_PAYLOAD')\n"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """(root with specs/ and generated/ as `dsv41gen build` leaves them, the build's texts)."""
    root = tmp_path_factory.mktemp("tree-corpus")
    copy_specs(root / "specs")
    # The corpus tampers with one package: the other family's specs stay out of this tree, so
    # the output directory holds deepseek_v4 alone and anything else in it is a plant.
    for other in (root / "specs").glob("*.yaml"):
        if not other.name.startswith("deepseek_"):
            other.unlink()
    built = cli("build", cwd=root)
    assert built.rc == 0, built.stdout + built.stderr
    specs = tuple(sorted((root / "specs").glob("*.yaml")))
    files = {}
    for result in build_texts(specs, root / "generated"):
        files.update(result.files)
    return root, files


def _gate(out: Path, files: dict[str, str]) -> set[str]:
    """Every path the gate reports (relative to the output directory)."""
    comparison = compare(out, PKG, files)
    reported = set(comparison.added + comparison.changed + comparison.hand_edited)
    reported |= set(comparison.foreign + comparison.removed)
    reported |= set(comparison.unexpected) | set(comparison.bytecode)
    return reported | set(output_dir_extras(out, {PKG}))


def _caught(reported: set[str], target: str) -> bool:
    parts = target.split("/")
    return any("/".join(parts[:end]) in reported for end in range(1, len(parts) + 1))


class Site:
    def __init__(self, pristine, tmp_path: Path, case: str):
        root, self.files = pristine
        self.out = tmp_path / re.sub(r"[^A-Za-z0-9_.-]", "_", case) / "generated"
        shutil.copytree(root / "generated", self.out, symlinks=True)
        self.outside = self.out.parent / "outside"
        self.outside.mkdir()

    def path(self, rel: str) -> Path:
        return self.out / rel


# --- tree tampering -------------------------------------------------------------------------


def _forge_append(site: Site, rel: str) -> None:
    path = site.path(rel)
    text = path.read_text() + PAYLOAD
    stamp = re.search(r"dsv41gen-(?:inputs: [0-9a-f]{16} )?content: ([0-9a-f]{16})", text)
    if stamp:
        text = text.replace(stamp[1], short_hash(body_of(text).encode()), 1)
    path.write_text(text)
    manifest = site.path(f"{PKG}/MANIFEST")
    inside = rel.split("/", 1)[1]
    if inside != "MANIFEST":
        manifest.write_text(
            re.sub(
                rf"^[0-9a-f]{{16}}  {re.escape(inside)}$",
                f"{file_digest(text.encode())}  {inside}",
                manifest.read_text(),
                flags=re.M,
            )
        )


def _drop_last_line(site: Site, rel: str) -> None:
    path = site.path(rel)
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))


def _change_one_body_byte(site: Site, rel: str) -> None:
    path = site.path(rel)
    data = bytearray(path.read_bytes())
    offset = len(data) - 2  # in the body: the header is at the top
    data[offset] = ord("x") if data[offset] != ord("x") else ord("y")
    path.write_bytes(bytes(data))


def _change_header_only(site: Site, rel: str) -> None:
    path = site.path(rel)
    text = path.read_text()
    path.write_text(re.sub(r"dsv41gen \S+ from", "dsv41gen 0.0.0 from", text, count=1))


def _symlink_to_identical_copy(site: Site, rel: str) -> None:
    copy = site.outside / rel.replace("/", "_")
    shutil.copy(site.path(rel), copy)
    site.path(rel).unlink()
    site.path(rel).symlink_to(copy)


def _fifo(site: Site, rel: str) -> None:
    site.path(rel).unlink()
    os.mkfifo(site.path(rel))


def _delete(site: Site, rel: str) -> None:
    site.path(rel).unlink()


TAMPERING = {
    "code appended, header and MANIFEST forged": _forge_append,
    "last line dropped": _drop_last_line,
    "one body byte changed": _change_one_body_byte,
    "header alone changed": _change_header_only,
    "symlink to a byte-identical copy": _symlink_to_identical_copy,
    "replaced by a FIFO": _fifo,
    "deleted": _delete,
}


def _random_edit(site: Site, rel: str, rng: random.Random) -> None:
    path = site.path(rel)
    data = bytearray(path.read_bytes())
    offset = rng.randrange(len(data))
    operation = rng.choice(["insert", "delete", "replace"])
    if operation == "insert":
        data[offset:offset] = bytes([rng.randrange(256)])
    elif operation == "delete":
        del data[offset]
    else:
        data[offset] = (data[offset] + rng.randrange(1, 256)) % 256
    path.write_bytes(bytes(data))


# --- planted files --------------------------------------------------------------------------


def _plant_text(name: str, text: str = "import os\n"):
    def plant(site: Site, directory: str) -> str:
        target = f"{directory}/{name}" if directory else name
        site.path(target).write_text(text)
        return target

    return plant


def _plant_named_after_module(suffix: str):
    def plant(site: Site, directory: str) -> str | None:
        modules = sorted(
            rel.rsplit("/", 1)[1][:-3]
            for rel in site.files
            if rel.endswith(".py") and rel.rsplit("/", 1)[0] == directory
        )
        if not modules:
            return None
        target = f"{directory}/{modules[0]}{suffix}"
        site.path(target).write_bytes(b"\x7fELF not really")
        return target

    return plant


def _plant_unchecked_pyc(site: Site, directory: str) -> str | None:
    import py_compile

    modules = sorted(
        rel for rel in site.files if rel.endswith(".py") and rel.rsplit("/", 1)[0] == directory
    )
    if not modules:
        return None
    source = site.path(modules[0])
    evil = site.outside / "evil.py"
    evil.write_text(source.read_text() + PAYLOAD)
    name = Path(modules[0]).stem
    target = f"{directory}/__pycache__/{name}.{sys.implementation.cache_tag}.pyc"
    site.path(target).parent.mkdir(exist_ok=True)
    py_compile.compile(
        str(evil),
        cfile=str(site.path(target)),
        dfile=str(source),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    return target


def _plant_symlink(site: Site, directory: str) -> str:
    target = f"{directory}/escape" if directory else "escape"
    site.path(target).symlink_to("/etc")
    return target


def _plant_fifo(site: Site, directory: str) -> str:
    target = f"{directory}/pipe" if directory else "pipe"
    os.mkfifo(site.path(target))
    return target


def _plant_directory(site: Site, directory: str) -> str:
    target = f"{directory}/stray" if directory else "stray"
    site.path(target).mkdir()
    (site.path(target) / "__init__.py").write_text("import os\n")
    return f"{target}/__init__.py" if directory else target


PLANTS = {
    "conftest.py": _plant_text("conftest.py"),
    "a module": _plant_text("evil.py"),
    "sitecustomize.py": _plant_text("sitecustomize.py"),
    ".pth": _plant_text("evil.pth", "import os\n"),
    "pyproject.toml / pytest.ini": _plant_text("pytest.ini", "[pytest]\naddopts = -p evil\n"),
    "kernel include": _plant_text("rope_kv_common.h", "static int evil = 1;\n"),
    "extension module named after a module": _plant_named_after_module(
        ".cpython-312-x86_64-linux-gnu.so"
    ),
    "sourceless .pyc named after a module": _plant_named_after_module(".pyc"),
    "unchecked-hash .pyc in __pycache__": _plant_unchecked_pyc,
    "symlink out of the tree": _plant_symlink,
    "FIFO": _plant_fifo,
    "stray directory": _plant_directory,
}


def _directories(files: dict[str, str]) -> list[str]:
    """Every directory of the package, and the output directory itself ('')."""
    found = {""}
    for rel in files:
        parts = rel.split("/")[:-1]
        found |= {"/".join(parts[:end]) for end in range(1, len(parts) + 1)}
    return sorted(found)


def test_every_tampering_and_every_planted_file_is_caught(pristine, tmp_path):
    root, files = pristine
    assert _gate(root / "generated", files) == set(), "the pristine tree must pass"
    outcomes: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    missed = []

    def judge(klass: str, case: str, site: Site, target: str) -> None:
        try:
            caught = _caught(_gate(site.out, files), target)
        except Exception as error:  # noqa: BLE001 - a crash is an outcome, and a failure
            outcomes[klass]["crashed"] += 1
            missed.append(f"{klass}: {case}: {type(error).__name__}: {error}")
            return
        outcomes[klass]["caught" if caught else "missed"] += 1
        if not caught:
            missed.append(f"{klass}: {case}")

    for rel in sorted(files):
        for name, tamper in TAMPERING.items():
            site = Site(pristine, tmp_path, f"t-{rel}-{name}")
            tamper(site, rel)
            judge("tree tampering", f"{name}: {rel}", site, rel)
    rng = random.Random(23)
    for index in range(RANDOM_EDITS):
        rel = rng.choice(sorted(files))
        site = Site(pristine, tmp_path, f"r-{index}")
        _random_edit(site, rel, rng)
        judge("tree tampering (random byte edits)", f"#{index}: {rel}", site, rel)
    for directory in _directories(files):
        for name, plant in PLANTS.items():
            site = Site(pristine, tmp_path, f"p-{directory}-{name}")
            target = plant(site, directory)
            if target is None:
                continue  # nothing to name it after in this directory
            where = "the output directory" if not directory else directory
            judge("planted files", f"{name} in {where}", site, target)
    print()
    for klass, counter in sorted(outcomes.items()):
        total = sum(counter.values())
        print(
            f"{klass}: {total} cases, " + ", ".join(f"{n} {k}" for k, n in sorted(counter.items()))
        )
    assert not missed, "\n".join(missed)
    assert outcomes["tree tampering"]["caught"] == len(files) * len(TAMPERING)
