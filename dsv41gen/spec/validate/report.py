"""How rules report: a path and a message, located by the driver."""

from __future__ import annotations

from collections.abc import Callable

from ...errors import Diagnostic, Diagnostics, Location
from ..load import Path_
from ..resolve import ResolvedSpec

# ---------------------------------------------------------------------------------------------
# Semantic rules. Each takes (spec, report) and reports through report(path, message).

Report = Callable[[Path_, str], None]


class _Inherited:
    """Adds diagnostics for one spec; marks those located in an ancestor's file."""

    def __init__(self, spec: ResolvedSpec, diagnostics: Diagnostics):
        self.spec = spec
        self.diagnostics = diagnostics

    def add(self, location: Location, path: str, message: str) -> None:
        if location.file != self.spec.file:
            if Diagnostic(location, path, message) in self.diagnostics:
                return  # the ancestor itself has this error; the child only inherits it
            message += f" (in {self.spec.file}, which inherits this value)"
        self.diagnostics.add(location, path, message)


FieldReport = Callable[[Path_, str], None]
