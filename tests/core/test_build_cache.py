"""The build's caches (issue 31): formatted text and compiled templates are reused between
builds, and a cached build is byte for byte an uncached one."""

from __future__ import annotations

from pathlib import Path

import pytest
from corehelpers import NO_FORMAT_CACHE, V41, cli, cli_in_process, copy_specs, tree_bytes

from dsv41gen.emit import format as fmt


@pytest.fixture
def settings(tmp_path) -> fmt.FormatSettings:
    return fmt.FormatSettings.discover(tmp_path)


class Counting:
    """A formatter that records what it was asked to format (upper-cases it)."""

    def __init__(self):
        self.calls: list[list[str]] = []

    def __call__(self, sources, settings):
        self.calls.append(sorted(sources))
        return {path: text.upper() for path, text in sources.items()}


def test_a_one_file_change_formats_only_that_file(tmp_path, settings, monkeypatch):
    monkeypatch.setenv("DSV41GEN_CACHE_DIR", str(tmp_path / "cache"))
    formatter = Counting()
    first = {"a.py": "a = 1\n", "b.py": "b = 2\n"}
    assert fmt._cached(formatter, "python", first, settings) == {
        "a.py": "A = 1\n",
        "b.py": "B = 2\n",
    }
    second = {"a.py": "a = 1\n", "b.py": "b = 3\n"}
    assert fmt._cached(formatter, "python", second, settings) == {
        "a.py": "A = 1\n",
        "b.py": "B = 3\n",
    }
    assert formatter.calls == [["a.py", "b.py"], ["b.py"]]
    # all hits: the formatter does not run at all
    fmt._cached(formatter, "python", second, settings)
    assert len(formatter.calls) == 2


def test_the_cache_key_holds_the_settings_the_suffix_and_the_language(tmp_path, monkeypatch):
    monkeypatch.setenv("DSV41GEN_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "ruff.toml").write_text("line-length = 72\n")
    one, two = (fmt.FormatSettings.discover(tmp_path / d) for d in ("one", "two"))
    assert one.cache_fingerprint() != two.cache_fingerprint()
    formatter = Counting()
    fmt._cached(formatter, "python", {"a.py": "x\n"}, one)
    fmt._cached(formatter, "python", {"a.py": "x\n"}, two)  # other settings
    fmt._cached(formatter, "python", {"a.pyi": "x\n"}, one)  # other suffix
    fmt._cached(formatter, "cpp", {"a.py": "x\n"}, one)  # other language
    assert len(formatter.calls) == 4


def test_an_unusable_cache_is_a_miss_never_an_error(tmp_path, settings, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("")
    monkeypatch.setenv("DSV41GEN_CACHE_DIR", str(blocker))
    formatter = Counting()
    for _ in range(2):
        assert fmt._cached(formatter, "python", {"a.py": "x\n"}, settings) == {"a.py": "X\n"}
    assert len(formatter.calls) == 2
    monkeypatch.setenv("DSV41GEN_CACHE_DIR", "off")
    assert fmt.cache_root("format") is None


def test_the_formatter_is_injectable(settings):
    formatter = Counting()
    with fmt.use_formatter(formatter):
        out = fmt.format_sources({"a.py": "x\n", "b.txt": "y\n"}, settings)
    assert out == {"a.py": "X\n", "b.txt": "Y\n"} and formatter.calls == [["a.py", "b.txt"]]
    assert fmt._formatter is fmt.subprocess_formatter


def test_a_cached_build_is_byte_for_byte_an_uncached_one(tmp_path):
    """Cold cache, warm cache (every text formatted and every template compiled from the
    cache) and no cache at all write the same tree."""
    copy_specs(tmp_path / "specs")
    cache = tmp_path / "cache"
    trees = {}
    for name, env in (
        ("off", NO_FORMAT_CACHE),
        ("cold", {"DSV41GEN_CACHE_DIR": str(cache)}),
        ("warm", {"DSV41GEN_CACHE_DIR": str(cache)}),
    ):
        result = cli(["build", f"specs/{V41}", "--out", f"out-{name}"], tmp_path, env)
        assert result.rc == 0, result.output
        trees[name] = tree_bytes(tmp_path / f"out-{name}")
    assert trees["cold"] == trees["off"] and trees["warm"] == trees["off"]
    # the templates came from the shipped precompiled set, so none was compiled or cached
    assert not any((cache / "templates").rglob("*.cache"))
    assert sum(1 for p in (cache / "format").rglob("*") if p.is_file()) >= len(
        [k for k in trees["off"] if k.endswith((".py", ".h", ".cu", ".cuh", ".cpp"))]
    )


def test_templates_compiled_from_source_write_what_the_precompiled_set_writes(
    tmp_path, monkeypatch
):
    """Without a current precompiled set the templates are compiled from source, through the
    bytecode cache: cold and warm, the tree is byte for byte the precompiled set's."""
    from dsv41gen.emit import render

    copy_specs(tmp_path / "specs")
    cache = tmp_path / "cache"
    trees = {}
    for name, shipped in (
        ("precompiled", render.PRECOMPILED_DIR),
        ("cold", tmp_path / "no-precompiled-set"),
        ("warm", tmp_path / "no-precompiled-set"),
    ):
        monkeypatch.setattr(render, "PRECOMPILED_DIR", shipped)
        render.environment.cache_clear()
        env = {"DSV41GEN_CACHE_DIR": str(cache)}
        result = cli_in_process(["build", f"specs/{V41}", "--out", f"out-{name}"], tmp_path, env)
        assert result.rc == 0, result.output
        trees[name] = tree_bytes(tmp_path / f"out-{name}")
    render.environment.cache_clear()
    assert trees["cold"] == trees["precompiled"] and trees["warm"] == trees["precompiled"]
    assert any((cache / "templates").rglob("*.cache")), "no compiled template was cached"


def test_a_warm_build_starts_no_formatter(tmp_path):
    """Every text in the cache: ruff and clang-format are never started (a formatter that
    fails if started proves it)."""
    copy_specs(tmp_path / "specs")
    cache = tmp_path / "cache"
    env = {"DSV41GEN_CACHE_DIR": str(cache)}
    assert cli(["build", f"specs/{V41}", "--out", "a"], tmp_path, env).rc == 0
    probe = (
        "import dsv41gen.emit.format as f, sys, runpy\n"
        "f._ruff = f._clang_format = lambda: sys.exit('a formatter was started')\n"
        "sys.argv = ['dsv41gen', 'build', 'specs/deepseek_v41.yaml', '--out', 'b']\n"
        "runpy.run_module('dsv41gen', run_name='__main__')\n"
    )
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=tmp_path,
        env={**__import__("os").environ, **env},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert tree_bytes(tmp_path / "a" / "deepseek_v4") == tree_bytes(tmp_path / "b" / "deepseek_v4")


def test_template_bytecode_cache_is_keyed_by_the_renderer(tmp_path, monkeypatch):
    from dsv41gen.emit import render

    monkeypatch.setenv("DSV41GEN_CACHE_DIR", str(tmp_path / "cache"))
    cache = render._bytecode_cache()
    assert cache is not None
    directory = Path(cache.directory)
    assert directory.parent == tmp_path / "cache" / "templates"
    import jinja2

    assert directory.name.startswith(jinja2.__version__ + "-")
