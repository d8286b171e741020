"""cstutil.replace_nodes: the replacement, and only the paths to it rebuilt (libcst rebuilds
every node a transformer visits; walking whole vLLM modules was most of an emit's time)."""

from __future__ import annotations

import libcst as cst

from dsv41gen.emit.vllm_tree import cstutil as c

SOURCE = """\
def untouched(x):
    return [x * 2 for _ in range(3)]


def edited(y):
    if y:
        return "old"
    return None
"""


def test_replace_nodes_rebuilds_only_the_paths_to_the_replaced_node():
    module = cst.parse_module(SOURCE)
    untouched, edited = module.body
    old = c.find_all(edited, cst.SimpleString)[0]
    result = c.replace_nodes(module, {old: cst.SimpleString('"new"')})
    assert result.code == SOURCE.replace('"old"', '"new"')
    assert result.body[0] is untouched  # not visited, so not rebuilt
    assert result.body[1] is not edited


def test_replace_nodes_removes_and_flattens_statements():
    source = "x = " + " + ".join(["a"] * 200) + "\nstop = 1\nkeep = 2\n"
    module = cst.parse_module(source)
    stop = module.body[1]
    result = c.replace_nodes(module, {stop: cst.RemovalSentinel.REMOVE})
    assert result.code == source.replace("stop = 1\n", "")
    flattened = c.replace_nodes(module, {stop: list(cst.parse_module("a = 1\nb = 2\n").body)})
    assert flattened.code == source.replace("stop = 1\n", "a = 1\nb = 2\n")
