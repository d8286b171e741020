"""Where each planned value comes from, for the source-map comments in generated files.

A comment names the spec file and the dotted field (``spec: deepseek_v41.yaml
attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes``) rather than a line number,
so an unrelated edit that shifts lines in a spec does not touch every generated file;
``dsv41gen why`` turns it back into file:line.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ..spec.model import Family
from .values import Comment


class SourceMap:
    """The family's provenance (each variant carries its own, from the typed model)."""

    def __init__(self, family: Family):
        self._provenance = {v.name: v.provenance for v in family.variants}

    def location(self, variant: str, *path: object):
        """file:line:column of a field as resolved for ``variant``."""
        return self._provenance[variant].where(tuple(path))

    def ref(self, variant: str, *path: object) -> Comment:
        """'deepseek_v41.yaml attention_backends.X.kernel_block_sizes': the file that wrote it,
        as comment text (a spec file name or key reaches generated files only this way)."""
        return Comment(self.ref_text(variant, *path))

    def ref_text(self, variant: str, *path: object) -> str:
        """The same reference as plain text, for a plan of plain data: the template prints it
        through ``| comment``."""
        location = self._provenance[variant].where(tuple(path))
        return f"{PurePosixPath(location.file).name} {'.'.join(str(p) for p in path)}"
