"""Kernel sources that are ordinary files: importable, linted, compiled and formatted as they are.

They are the runtime half of every generated family package, FlashInfer-JIT style: a build
writes only a small per-variant configuration (constants, cache-trait tables, instantiation
lists, launch defaults) that names the sources here, and the generated code compiles or imports
them from the installed dsv41gen. `runtime.require_sources` checks at import that they are the
sources the configuration was generated for. Nothing here is rendered.
"""
