"""`check` is the gate: a full regeneration compared with every byte and every entry of the
tree, trusting nothing the tree holds (issue 23, findings 1 and 2; issue 26, item 12).

Each attack here passed `check` (exit 0) before: the tree is what a pull request controls, and
the MANIFEST, the headers, a symlink or a planted file were taken at their word."""

from __future__ import annotations

import hashlib
import importlib.util
import py_compile
import re
import shutil
import sys

import pytest
from click.testing import CliRunner
from corehelpers import V4, V41, cli, copy_specs, tree_bytes
from familyhelpers import other_family_spec

from dsv41gen.emit import fastpath

PKG = "deepseek_v4"
CACHE_DIR = "DSV41GEN_CACHE_DIR"  # where this machine keeps its build records
PAYLOAD = "\nimport os\nos.system('touch /tmp/dsv41gen-gate-pwned')\n"


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A fresh build of the shipped specs under tmp_path/generated, with this test's own build
    record directory (so no other run's record is involved)."""
    copy_specs(tmp_path / "specs")
    env = {CACHE_DIR: str(tmp_path / "cache"), "CI": ""}
    monkeypatch.setenv(CACHE_DIR, env[CACHE_DIR])
    monkeypatch.setenv("CI", "")
    built = cli(["build"], tmp_path, env)
    assert built.rc == 0, built.output
    site.env = env
    return tmp_path


def run(root, *args, env=None):
    return cli(args, root, {**site.env, **(env or {})})


def _short(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _forge(root, rel: str, payload: str) -> None:
    """The attack of finding 1, done as well as a PR can: append code to a generated file, fix
    its header's content hash, and rewrite its line in the MANIFEST (and the MANIFEST's own
    header hash) to match."""
    from dsv41gen.emit.write import body_of, short_hash

    package = root / "generated" / PKG
    path = package / rel
    text = path.read_text() + payload
    stamp = re.search(r"dsv41gen-content: ([0-9a-f]{16})", text)[1]
    text = text.replace(stamp, short_hash(body_of(text).encode()), 1)  # the body is below it
    path.write_text(text)
    manifest_path = package / "MANIFEST"
    manifest = manifest_path.read_text()
    manifest = re.sub(
        rf"^[0-9a-f]{{16}}  {re.escape(rel)}$",
        f"{_short(text.encode())}  {rel}",
        manifest,
        flags=re.M,
    )
    head = re.search(r"content: ([0-9a-f]{16})", manifest)[1]
    manifest = manifest.replace(head, short_hash(body_of(manifest).encode()), 1)
    manifest_path.write_text(manifest)


def test_a_forged_manifest_and_header_do_not_make_check_pass(site):
    _forge(site, "registry.py", PAYLOAD)
    checked = run(site, "check")
    assert checked.rc == 3, checked.output
    assert f"generated/{PKG}/registry.py: differs from what the specs generate" in checked.stderr
    assert "+++ b/generated/deepseek_v4/registry.py" in checked.stdout
    assert any(line.startswith("-") and "os.system" in line for line in checked.stdout.splitlines())
    # github annotations too
    annotated = run(site, "check", "--output-format", "github")
    assert annotated.rc == 3
    assert f"::error file=generated/{PKG}/registry.py::differs" in annotated.stdout
    # the interactive build's fast path does not vouch for it either: it rebuilds, and the
    # forged header (consistent with its body) lets it overwrite the file
    built = run(site, "build")
    assert built.rc == 0, built.output
    assert "up to date" not in built.stdout
    assert "os.system" not in (site / "generated" / PKG / "registry.py").read_text()
    assert run(site, "check").rc == 0


def test_a_forged_manifest_on_a_machine_without_a_build_record(site, tmp_path):
    """A fresh clone of the attacker's branch: no record of a build here, so build is full."""
    _forge(site, "plugin.py", PAYLOAD)
    fresh = {CACHE_DIR: str(tmp_path / "empty-cache")}
    built = run(site, "build", env=fresh)
    assert built.rc == 0 and "up to date" not in built.stdout, built.output
    assert "os.system" not in (site / "generated" / PKG / "plugin.py").read_text()


def test_check_never_takes_the_fast_path_and_ci_builds_do_not_either(site, monkeypatch):
    from dsv41gen.commands.cli import main

    def refuse(*_args, **_kwargs):
        raise AssertionError("the fast path decided")

    monkeypatch.chdir(site)
    monkeypatch.setattr(fastpath, "up_to_date", refuse)
    runner = CliRunner()
    for args, env in (
        (["check"], {}),
        (["check", "--output-format", "github"], {}),
        (["build"], {"CI": "true"}),
        (["build", "--output-format", "github"], {}),
    ):
        result = runner.invoke(main, args, env=env, catch_exceptions=True)
        assert result.exit_code == 0, (args, result.output, result.exception)
    # an interactive build still takes it (the record here is the fixture's own build)
    result = runner.invoke(main, ["build"], env={"CI": ""})
    assert isinstance(result.exception, AssertionError)


@pytest.mark.parametrize(
    "planted",
    [
        "tests/conftest.py",
        "conftest.py",
        "csrc/evil.cu",
        "registry.cpython-312-x86_64-linux-gnu.so",
    ],
)
def test_a_planted_file_fails_check_and_build_refuses_then_removes_it(site, planted):
    """Finding 2: `tests/conftest.py` in the package ran under the repository's pytest; an
    extension module named after a generated one is imported instead of it."""
    target = site / "generated" / PKG / planted
    target.write_text("import os\nos.system('touch /tmp/dsv41gen-gate-pwned')\n")
    checked = run(site, "check")
    assert checked.rc == 3, checked.output
    assert checked.stderr.splitlines()[0] == (
        f"generated/{PKG}/{planted}: a file the build does not write; a generated package holds "
        "only what the build writes (delete it; `dsv41gen build --force` removes it)"
    )
    before = tree_bytes(site / "generated")
    refused = run(site, "build")
    assert refused.rc == 3
    assert f"error: generated/{PKG}/{planted} is a file the build does not write" in refused.stderr
    assert tree_bytes(site / "generated") == before
    forced = run(site, "build", "--force")
    assert forced.rc == 0 and "1 removed" in forced.stdout, forced.output
    assert not target.exists()
    assert run(site, "check").rc == 0


@pytest.mark.parametrize("where", ["etc", "tests/helpers.py", "csrc"])
def test_a_symlink_in_the_package_fails_check_and_does_not_survive_a_build(site, tmp_path, where):
    """A symlink out of the package survived every build; one in place of a generated
    directory made check compare the files it points to (a copy with a payload beside them)."""
    package = site / "generated" / PKG
    link = package / where
    if where == "csrc":
        elsewhere = tmp_path / "elsewhere"
        shutil.copytree(link, elsewhere)  # byte-identical: the old check read through it
        shutil.rmtree(link)
        target = elsewhere
    else:
        target = tmp_path / "outside"
        target.write_text("secret\n")
    link.symlink_to(target)
    checked = run(site, "check")
    assert checked.rc == 3, checked.output
    assert f"generated/{PKG}/{where}: a symlink (to {target})" in checked.stderr
    assert run(site, "build").rc == 3
    forced = run(site, "build", "--force")
    assert forced.rc == 0, forced.output
    assert not link.is_symlink()
    assert run(site, "check").rc == 0
    assert target.exists()  # removing the link never touched what it pointed to


def test_bytecode_that_python_would_run_instead_of_the_source_fails_check(site):
    """An unchecked-hash .pyc (PEP 552) in __pycache__ is imported without a look at the
    source: a payload in it replaces the generated module while the .py stays pristine."""
    package = site / "generated" / PKG
    source = package / "registry.py"
    tag = sys.implementation.cache_tag
    planted = package / "__pycache__" / f"registry.{tag}.pyc"
    evil = site / "evil.py"
    evil.write_text(source.read_text() + PAYLOAD)
    py_compile.compile(
        str(evil),
        cfile=str(planted),
        dfile=str(source),
        invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
    )
    evil.unlink()
    checked = run(site, "check")
    assert checked.rc == 3, checked.output
    assert f"generated/{PKG}/__pycache__/registry.{tag}.pyc: an unchecked-hash .pyc" in (
        checked.stderr
    )
    # the bytecode an import writes (validated against the source by its mtime and size, or
    # by its hash) is what importing the package leaves: check passes with it
    planted.unlink()
    for mode in (
        py_compile.PycInvalidationMode.TIMESTAMP,
        py_compile.PycInvalidationMode.CHECKED_HASH,
    ):
        py_compile.compile(str(source), invalidation_mode=mode)
        assert importlib.util.cache_from_source(str(source)) == str(planted)
        assert run(site, "check").rc == 0, mode
    # and a build (which drops __pycache__ with every rewrite) is not blocked by bytecode
    assert run(site, "build").rc == 0


def test_a_stray_entry_in_the_output_directory_fails_check(site):
    """generated/conftest.py runs when pytest collects generated/<package>/tests; a stray
    package is importable. Formatter settings beside the packages are the build's input."""
    out = site / "generated"
    (out / ".clang-format").write_text("BasedOnStyle: Google\nColumnLimit: 80\n")
    (out / "conftest.py").write_text("import os\n")
    (out / "evil").mkdir()
    (out / "evil" / "__init__.py").write_text("import os\n")
    checked = run(site, "check")
    assert checked.rc == 3, checked.output
    lines = checked.stderr.splitlines()
    assert (
        "generated/conftest.py: a file that no spec generates; an output directory holds the "
        "packages and their formatter settings only (delete it)" in lines
    )
    assert any(line.startswith("generated/evil: a directory no spec") for line in lines)
    assert not any(".clang-format" in line for line in lines)


def test_the_manifest_does_not_depend_on_the_formatter_releases(site, monkeypatch):
    """Issue 26 item 12: only the MANIFEST's `formatters` line differed on a machine with
    another ruff minor, and check exited 3 on byte-identical output."""
    from dsv41gen.commands.cli import main
    from dsv41gen.emit import format as formatting

    real = formatting._version
    monkeypatch.setattr(
        formatting,
        "_version",
        lambda name: {"ruff": "0.99.1", "clang-format": "99.0.0"}.get(name) or real(name),
    )
    monkeypatch.chdir(site)
    result = CliRunner().invoke(main, ["check"], env={"CI": ""})
    assert result.exit_code == 0, result.output
    manifest = (site / "generated" / PKG / "MANIFEST").read_text()
    assert "ruff" not in manifest and "clang-format" not in manifest


def test_check_on_both_specs_and_with_none_compares_the_same_tree(site):
    for args in ((), (f"specs/{V4}", f"specs/{V41}")):
        result = run(site, "check", *args)
        assert result.rc == 0, result.output
        assert re.fullmatch(rf"generated/{PKG}: up to date \(\d+ files\)\n", result.stdout)
        assert result.stderr == ""


def test_checking_one_family_of_several_says_what_it_did_not_check(site):
    """With another family beside it, `check` of one family cannot tell that family's package
    from a stray: it says which entries it left unchecked (checking every spec, the default,
    reports them)."""
    other = other_family_spec((site / "specs" / V4).read_text())
    (site / "specs" / "otherfam.yaml").write_text(other)
    assert run(site, "build", "specs/otherfam.yaml").rc == 0
    (site / "generated" / "conftest.py").write_text("import os\n")
    one = run(site, "check", f"specs/{V41}")
    assert one.rc == 0, one.output
    assert one.stderr.splitlines() == [
        "note: generated also holds conftest.py, otherfam, which the specs named do not "
        "generate: not checked (name every spec, or none, to check the whole directory)"
    ]
    every = run(site, "check")
    assert every.rc == 3
    assert every.stderr.startswith("generated/conftest.py: a file that no spec generates")
