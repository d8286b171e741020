"""A spec named on the command line that is a symlink out of its spec directory is refused at
the file, by every command that reads specs (issue 23, finding 12): it was an internal error
(KeyError, exit 70) in build, check and explain, because the named spec was looked up by its
resolved path while the discovered ones keep the link."""

from __future__ import annotations

import os

import pytest
from securityhelpers import assert_clean_rejection, cli, copy_specs

V41 = "deepseek_v41.yaml"


@pytest.fixture
def specs(tmp_path):
    copy_specs(tmp_path / "elsewhere")
    specs = copy_specs(tmp_path / "specs")
    os.symlink(tmp_path / "elsewhere" / V41, specs / "evil.yaml")
    return specs


@pytest.mark.parametrize(
    "command",
    [("build", "--out", "out"), ("check", "--out", "out"), ("explain",), ("diff", "--out", "out")],
)
def test_a_named_spec_linked_out_of_its_directory_is_a_located_error(specs, command):
    result = cli(*command, "specs/evil.yaml", cwd=specs.parent)
    assert_clean_rejection(
        result,
        "specs/evil.yaml:1:1: cannot read the spec: resolves (through a symlink) to ",
        "outside the spec directory",
        "put the spec itself in the spec directory",
    )
    assert not (specs.parent / "out").exists()


def test_a_link_that_stays_in_the_spec_directory_is_read(specs):
    (specs / "evil.yaml").unlink()
    os.symlink(V41, specs / "alias.yaml")
    result = cli("build", "specs/alias.yaml", "--out", "out", cwd=specs.parent)
    assert result.rc == 0, result.stderr
    assert (specs.parent / "out" / "deepseek_v4" / "registry.py").is_file()
