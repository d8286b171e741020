"""vLLM 0.33.0's own CPU tests, from the sdist, for every site the emitter touches: they pass
on the pristine tree and on the emitted one (shipped specs, with the state-bucket refactor).

One vLLM pytest run per tree (each start imports vLLM: about a minute on a busy 2-core
machine), shared by the per-site assertions. Needs the conformance venv
(scripts/conformance_venv.sh); skipped without it unless DSV41GEN_REQUIRE_CONFORMANCE=1.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from vllm_tests import SITE_TESTS, run_vllm_tests
from vtreehelpers import REPO, SPECS, copy_tree

from dsv41gen.commands.pipeline import load_families
from dsv41gen.emit.vllm_tree import plan_tree, write_plan

STAMP = ".dsv41gen-conformance-stamp"


@pytest.fixture(scope="module")
def venv() -> Path:
    venv = Path(os.environ.get("DSV41GEN_VLLM_VENV") or REPO / ".cache" / "vllm-0.33.0-venv")
    if (venv / STAMP).is_file() and (venv / "bin" / "python").exists():
        return venv
    reason = f"the vLLM 0.33.0 conformance venv is absent ({venv}): scripts/conformance_venv.sh"
    if os.environ.get("DSV41GEN_REQUIRE_CONFORMANCE") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


ALL_TESTS = tuple(t for tests in SITE_TESTS.values() for t in tests)


@pytest.fixture(scope="module")
def outcomes(pristine_tree, venv, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vllm-tests")
    emitted = copy_tree(pristine_tree, tmp / "emitted")
    families = [i.family for i in load_families(sorted(SPECS.glob("*.yaml")))]
    write_plan(plan_tree(emitted, families, refactor_upstream=True))
    return {
        "pristine": run_vllm_tests(pristine_tree, venv, tmp / "overlay-pristine", ALL_TESTS),
        "emitted": run_vllm_tests(emitted, venv, tmp / "overlay-emitted", ALL_TESTS),
    }


@pytest.mark.slow
@pytest.mark.parametrize("tree", ["pristine", "emitted"])
@pytest.mark.parametrize("site", sorted(SITE_TESTS))
def test_vllm_tests_pass(outcomes, tree, site):
    outcome = outcomes[tree]
    for test in SITE_TESTS[site]:
        counts = outcome.counts(test.split("::")[0])
        assert counts["failed"] == 0 and counts["error"] == 0, (test, counts, outcome.output)
        assert counts["passed"] > 0, (test, counts, outcome.output)


@pytest.mark.slow
def test_pristine_and_emitted_trees_give_the_same_outcomes(outcomes):
    assert outcomes["pristine"].per_file == outcomes["emitted"].per_file
