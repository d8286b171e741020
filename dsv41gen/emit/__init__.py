"""Emit stages: write a family's wiring into an engine's own source tree (not generated/)."""
