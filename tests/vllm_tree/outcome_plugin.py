"""A pytest plugin for the vLLM test run: writes the outcome counts to $DSV41GEN_OUTCOME."""

import json
import os

_counts: dict[str, dict[str, int]] = {}  # test file -> outcome -> count


def _count(nodeid: str, key: str) -> None:
    per_file = _counts.setdefault(nodeid.split("::")[0], {})
    per_file[key] = per_file.get(key, 0) + 1


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        if report.when != "call" and report.outcome == "failed":
            key = "error"
        else:
            key = report.outcome
        _count(report.nodeid, key)


def pytest_collectreport(report):
    if report.outcome == "failed":
        _count(report.nodeid, "error")


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("DSV41GEN_OUTCOME")
    if path:
        with open(path, "w") as handle:
            json.dump(_counts, handle)


# --- stubs for test-only imports the conformance venv lacks ------------------------------------
# vLLM's tests/utils.py imports client libraries at module level (anthropic, httpx, ...) that
# the tests run here never call. The conformance venv installs only what vLLM's own modules
# import, so these few names get a stub module: importing it works, touching anything in it
# raises, so a test that really needs one fails instead of passing.
import importlib.abc  # noqa: E402
import importlib.machinery  # noqa: E402
import sys  # noqa: E402
import types  # noqa: E402

STUBBED = tuple(filter(None, os.environ.get("DSV41GEN_STUB_MODULES", "").split(",")))


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Missing(f"{self.__name__}.{name}")


class _Missing:
    def __init__(self, name):
        self._name = name

    def __getattr__(self, name):
        return _Missing(f"{self._name}.{name}")

    def __call__(self, *args, **kwargs):
        raise RuntimeError(f"{self._name}: a stub (not installed in the conformance venv)")

    def __mro_entries__(self, bases):
        return (object,)


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Stub(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


if STUBBED:
    sys.meta_path.append(_StubFinder())  # last: a module that is installed wins
