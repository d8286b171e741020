"""The schema stage's fast path: jsonschema-rs vouches for a valid spec, so a build of valid
specs never imports jsonschema; every spec it does not vouch for is worded by jsonschema as
before, including the values the two validators read differently."""

from __future__ import annotations

import subprocess
import sys

import pytest
from corehelpers import V4, V41, cli_in_process, copy_specs, edit


def test_a_build_of_valid_specs_never_imports_jsonschema(tmp_path):
    specs = copy_specs(tmp_path)
    probe = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from dsv41gen.commands.cli import main\n"
        f"r = CliRunner().invoke(main, ['build', {str(specs / V41)!r}, '--out', 'out'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'jsonschema'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


# Values jsonschema-rs reads otherwise than the schema stage does: each must still be refused,
# with jsonschema's wording.
DISAGREEMENTS = {
    # JSON Schema (and jsonschema-rs) count 8.0 as an integer; the generated code would print it
    # as a float.
    "integral float": (
        "  compress_ratio_floor: 1\n",
        "  compress_ratio_floor: 1.0\n",
        "kv_cache.compress_ratio_floor: expected an integer, got a number (1.0); write it "
        "without the fraction (1)",
    ),
    # One past int64's maximum: as a float it rounds onto the bound itself.
    "integer beyond a float's exact range": (
        "  num_hidden_layers: 43\n",
        "  num_hidden_layers: 9223372036854775808\n",
        "hf_config.num_hidden_layers: 9223372036854775808 is out of range: must be at most "
        "9223372036854775807",
    ),
}


@pytest.mark.parametrize("case", sorted(DISAGREEMENTS))
def test_values_the_fast_validator_reads_otherwise_are_still_refused(tmp_path, case):
    old, new, message = DISAGREEMENTS[case]
    specs = copy_specs(tmp_path)
    edit(specs / V4, old, new)
    result = cli_in_process(["build", specs / V41, "--out", tmp_path / "out"], cwd=tmp_path)
    assert result.rc == 1, result.output
    assert message in result.stderr, result.stderr


def test_the_guard_keeps_from_jsonschema_rs_what_it_reads_otherwise():
    """jsonschema-rs alone takes 8.0 as an integer (so the first case above tests the guard,
    not jsonschema-rs); the guard sends it, and integers a float cannot hold, to jsonschema."""
    import importlib

    import jsonschema_rs

    schema_stage = importlib.import_module("dsv41gen.spec.validate.schema")
    assert jsonschema_rs.validator_for({"type": "integer"}).is_valid(8.0)
    assert not schema_stage._surely_valid({"kv_cache": {"compress_ratio_floor": 8.0}})
    assert not schema_stage._plain({"n": [2**53 + 1]}) and schema_stage._plain({"n": [2**53]})
    assert not schema_stage._plain({1: "a non-string key"})
