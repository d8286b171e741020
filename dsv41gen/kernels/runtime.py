"""What a generated package checks before it uses a kernel source from this directory.

A generated family package holds only per-variant configuration; the kernel bodies it compiles
or imports are the files beside this module, in the installed dsv41gen. The build records a
digest of each source it configured, and the generated module compares it with the installed
file at import: a dsv41gen upgrade that changed a kernel then fails with what to do, instead of
running a kernel that its configuration was not generated for.

This module imports only the standard library: the generated code imports it in vLLM's
processes, where the compiler's own dependencies have no business being loaded.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

KERNELS_DIR = Path(__file__).resolve().parent


class KernelSourceMismatch(RuntimeError):
    """The installed dsv41gen's kernel sources are not the ones a package was generated for."""


def source_digest(*names: str) -> str:
    """Digest of the named kernel sources (paths relative to this directory), in the given order.

    The build calls this to stamp the generated configuration; the generated module calls it
    again at import through `require_sources`.
    """
    digest = hashlib.sha256()
    for name in names:
        digest.update(name.encode() + b"\0")
        digest.update((KERNELS_DIR / name).read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def require_sources(package: str, expected: str, *names: str) -> None:
    """Raise `KernelSourceMismatch` unless the installed sources have the digest `expected`."""
    from dsv41gen import __version__

    actual = source_digest(*names)
    if actual != expected:
        raise KernelSourceMismatch(
            f"{package} was generated for dsv41gen kernel sources {', '.join(names)} with digest "
            f"{expected}, but the installed dsv41gen {__version__} ({KERNELS_DIR}) has {actual}. "
            "Run `dsv41gen build` on the package's specs with this dsv41gen, or install the "
            "dsv41gen that generated it."
        )
