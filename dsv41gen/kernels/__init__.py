"""Kernel sources that are ordinary files: importable, linted and formatted as they are.

A build copies each one verbatim into the family package (the planner names it as the file's
source instead of a template); what a spec decides reaches it as a small generated per-variant
module that configures it, FlashInfer-JIT style. Nothing here is rendered.
"""
