"""MkDocs hooks: the pages that are generated, never written by hand.

- the performance tables, each from its committed ``benchmarks/results/*.json``
  (``performance_tables.py``), where a page says ``<!-- table: NAME -->``.

The CLI reference is mkdocs-click's, from the click commands (``docs/reference/cli.md``). The
spec-language reference, ``reference/language.md``, is written from the language's declaration
by ``python -m dsv41gen.spec.derive`` and committed (a test fails when it is stale).
The hooks run inside ``mkdocs build``, so a strict build checks the generated pages' links too.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _module(name: str):
    spec = importlib.util.spec_from_file_location(f"dsv41gen_docs_{name}", HERE / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def on_files(files, config):
    """The plots beside the benchmark JSON, served as results/<name>.png (they live outside
    docs/, next to the JSON they are drawn from)."""
    from mkdocs.structure.files import File

    results = HERE.parents[1] / "benchmarks" / "results"
    for png in sorted(results.glob("*.png")):
        files.append(File.generated(config, f"results/{png.name}", content=png.read_bytes()))
    return files


def on_page_markdown(markdown: str, page, config, files) -> str:
    if "<!-- table: " not in markdown:
        return markdown
    return _module("performance_tables").expand(markdown)
