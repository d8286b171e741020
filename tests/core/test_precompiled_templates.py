"""The templates ship compiled (dsv41gen/emit/precompiled, python -m dsv41gen.emit.precompile):
a build compiles none of them, and a stale compiled set is never used."""

from __future__ import annotations

import shutil

import jinja2
import pytest

from dsv41gen.emit import precompile, render

TEMPLATE = "python/registry.py.j2"


@pytest.fixture
def fresh_environment():
    render.environment.cache_clear()
    yield
    render.environment.cache_clear()


def test_the_shipped_set_is_current():
    assert precompile.shipped() == precompile.compiled(), (
        "dsv41gen/emit/precompiled is stale: run `python -m dsv41gen.emit.precompile` and commit it"
    )


def test_a_current_set_is_what_renders(fresh_environment):
    assert isinstance(render.environment().loader, jinja2.ModuleLoader)


def test_an_edited_template_is_rendered_from_its_source(tmp_path, monkeypatch, fresh_environment):
    """The shipped set was compiled from the template before the edit: using it would render
    the old text."""
    templates = tmp_path / "templates"
    shutil.copytree(render.templates_dir(), templates)
    path = templates / TEMPLATE
    assert path.is_file()
    path.write_text(path.read_text(encoding="utf-8") + "# an edit after the precompile\n")
    monkeypatch.setattr(render, "templates_dir", lambda: templates)
    env = render.environment()
    assert not isinstance(env.loader, jinja2.ModuleLoader)
    source = env.get_template(TEMPLATE)
    assert source.filename == str(path)


@pytest.mark.parametrize(
    "stamp", ['{"digest": "0000"}', "not json", None], ids=["other digest", "unreadable", "none"]
)
def test_a_set_without_a_matching_stamp_is_not_used(
    tmp_path, monkeypatch, fresh_environment, stamp
):
    shipped = tmp_path / "precompiled"
    shutil.copytree(render.PRECOMPILED_DIR, shipped)
    if stamp is None:
        (shipped / render.STAMP).unlink()
    else:
        (shipped / render.STAMP).write_text(stamp, encoding="utf-8")
    monkeypatch.setattr(render, "PRECOMPILED_DIR", shipped)
    assert not isinstance(render.environment().loader, jinja2.ModuleLoader)


def test_check_says_when_the_set_is_stale(tmp_path, monkeypatch, capsys):
    shipped = tmp_path / "precompiled"
    shutil.copytree(render.PRECOMPILED_DIR, shipped)
    victim = sorted(shipped.glob("tmpl_*.py"))[0]
    victim.write_text(victim.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    monkeypatch.setattr(precompile, "PRECOMPILED_DIR", shipped)
    assert precompile.main(["--check"]) == 1
    assert "python -m dsv41gen.emit.precompile" in capsys.readouterr().err
