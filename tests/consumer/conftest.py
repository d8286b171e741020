"""Tests of dsv41gen as a consumer's repository uses it: CI workflow, editors."""
