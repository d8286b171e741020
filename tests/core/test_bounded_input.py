"""Bounded work for every input: what a spec file is (a FIFO, a device, a symlink out of the spec
directory, 50 MB of text) is checked before anything is parsed, on the full build and on the
no-op fast path alike, and merging costs time linear in the number of keys."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from corehelpers import SPECS, V4, V41, edit

from dsv41gen.emit import fastpath
from dsv41gen.spec import load

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symlinks are POSIX")

_SUMMARY_1 = "1 error; nothing was written."


def _outside_dir(tmp_path: Path) -> Path:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    return outside


def test_fifo_beside_the_specs_is_a_located_error(specs_copy, run_cli, tmp_path):
    # Opening a FIFO for reading blocks until a writer comes: the run would hang (the helper's
    # timeout turns that into a failure) instead of reporting it.
    os.mkfifo(specs_copy / "zz.yaml")
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.stderr.splitlines() == [
        "specs/zz.yaml:1:1: cannot read the spec: is not a regular file (a FIFO, a device or a "
        "directory?)",
        _SUMMARY_1,
    ]
    assert result.rc == 1
    assert not (tmp_path / "out").exists()


def test_fifo_named_on_the_command_line_is_a_usage_error(tmp_path, run_cli):
    os.mkfifo(tmp_path / "f.yaml")
    result = run_cli("build", "f.yaml", "--out", "out")
    assert result.rc == 2
    assert result.stderr == "error: f.yaml is not a regular file; name a spec's YAML file\n"


@pytest.mark.parametrize("target", ["/dev/zero", "outside"])
def test_symlink_leaving_the_spec_directory_is_refused(specs_copy, run_cli, tmp_path, target):
    if target == "outside":
        target = str(_outside_dir(tmp_path) / "x.yaml")
        shutil.copy(SPECS / V4, target)
    (specs_copy / "zz.yaml").symlink_to(target)
    for command in ("build", "check"):
        result = run_cli(command, f"specs/{V41}", "--out", "out")
        assert result.stderr.splitlines() == [
            f"specs/zz.yaml:1:1: cannot read the spec: resolves (through a symlink) to {target}, "
            f"outside the spec directory {specs_copy.resolve()}; put the spec itself in the spec "
            "directory",
            _SUMMARY_1,
        ], command
        assert result.rc == 1
    assert not (tmp_path / "out").exists()


def test_symlink_inside_the_spec_directory_still_works(specs_copy, run_cli, tmp_path):
    (specs_copy / "sub").mkdir()
    shutil.move(specs_copy / V4, specs_copy / "sub" / V4)
    (specs_copy / V4).symlink_to(Path("sub") / V4)
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 0, result.output


def test_extends_cannot_escape_through_a_symlinked_directory(specs_copy, run_cli, tmp_path):
    """`extends: sub/x.yaml` has no '..', but `sub` may be a link to anywhere."""
    outside = _outside_dir(tmp_path)
    shutil.copy(SPECS / V4, outside / "p.yaml")
    (specs_copy / "sub").symlink_to(outside)
    edit(specs_copy / V41, "extends: deepseek_v4.yaml", "extends: sub/p.yaml")
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    line = next(
        i
        for i, text in enumerate((specs_copy / V41).read_text().splitlines(), 1)
        if text.startswith("extends:")
    )
    assert result.stderr.splitlines() == [
        f"specs/{V41}:{line}:1: extends: 'sub/p.yaml' resolves through a symlink to "
        f"'{outside.resolve() / 'p.yaml'}', outside the spec directory; name a spec beside this "
        "one or below it",
        _SUMMARY_1,
    ]
    assert result.rc == 1


def test_extends_naming_a_fifo_is_a_located_error(specs_copy, run_cli):
    os.mkfifo(specs_copy / "fifo.yaml")
    edit(specs_copy / V41, "extends: deepseek_v4.yaml", "extends: fifo.yaml")
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 1
    assert "extends: 'fifo.yaml' is not a regular file; name the parent spec's YAML file" in (
        result.stderr
    )


def test_fast_path_reads_a_huge_spec_only_up_to_the_limit(specs_copy, tmp_path):
    """A 50 MB sibling once cost the fast path 151 s and 5.9 GB: it parsed the whole file before
    any limit applied. Now it reads at most the limit plus one byte of it, and parses nothing:
    the peak of memory allocated meanwhile stays far below the file's size."""
    import tracemalloc

    huge = specs_copy / "huge.yaml"
    with huge.open("w") as handle:
        handle.write("a: '")
        handle.write("x" * (50 << 20))
        handle.write("'\n")
    fastpath._raw.cache_clear()
    tracemalloc.start()
    try:
        assert fastpath.up_to_date([specs_copy / V41], tmp_path / "out") is None
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        fastpath._raw.cache_clear()
    assert peak < 8 * load.MAX_FILE_BYTES, peak


def test_oversized_spec_is_a_located_error(specs_copy, run_cli, tmp_path):
    (specs_copy / "huge.yaml").write_text("a: '" + "x" * (2 << 20) + "'\n")
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.stderr.splitlines() == [
        "specs/huge.yaml:1:1: cannot read the spec: spec is larger than 1048576 bytes",
        _SUMMARY_1,
    ]


def _line_events(function) -> int:
    """How many lines of dsv41gen/spec/resolve.py run while ``function`` runs: a deterministic count of
    the merge's work (no clock)."""
    import dsv41gen.spec.resolve as resolve

    target = resolve.__file__
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename != target:
            return None
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        function()
    finally:
        sys.settrace(None)
    return count


def _merge_work(tmp_path: Path, keys: int) -> int:
    from dsv41gen.errors import Diagnostics
    from dsv41gen.spec.resolve import Resolver

    directory = tmp_path / f"n{keys}"
    directory.mkdir()
    (directory / "root.yaml").write_text(
        "spec_version: 1\nhf_config:\n" + "".join(f"  k{i}: {i}\n" for i in range(keys))
    )
    (directory / "child.yaml").write_text(
        "spec_version: 1\nextends: root.yaml\nhf_config:\n"
        + "".join(f"  k{i}: {i + 1}\n" for i in range(0, keys, 2))
        + "".join(f"  n{i}: {i}\n" for i in range(keys // 2))
    )
    diagnostics = Diagnostics()
    resolver = Resolver(diagnostics)
    resolver.document(directory / "root.yaml")
    resolver.document(directory / "child.yaml")  # parsing is not what is measured
    spec = None

    def run():
        nonlocal spec
        spec = resolver.resolve(directory / "child.yaml")

    work = _line_events(run)
    assert not diagnostics, diagnostics.items
    assert spec is not None and len(spec.data["hf_config"]) == keys + keys // 2
    assert spec.where(("hf_config", "n0")).file.endswith("child.yaml")
    assert spec.where(("hf_config", "k1")).file.endswith("root.yaml")
    return work


def test_merging_is_linear_in_the_number_of_keys(tmp_path):
    """Merging 19,500 hf_config keys took 36 s: every key scanned every recorded path. Doubling
    the keys must about double the work (a quadratic merge quadruples it)."""
    small, large = _merge_work(tmp_path, 2000), _merge_work(tmp_path, 4000)
    assert large < 2.5 * small, (small, large)
    assert large < 40 * 4000  # a few dozen lines per key, not thousands


def _numeric_nodes(node: object, path: str = ""):
    if isinstance(node, dict):
        kind = node.get("type")
        kinds = kind if isinstance(kind, list) else [kind]
        if {"integer", "number"} & set(kinds):
            yield path, node
        for key, value in node.items():
            yield from _numeric_nodes(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _numeric_nodes(value, f"{path}/{i}")


def test_every_number_of_the_spec_language_has_a_range():
    """Every integer or number field is bounded on both sides, with the reason for its bound
    (x-range, shown in the error): the generated code holds each in a type that must fit it."""
    from dsv41gen.spec.validate import schema

    nodes = list(_numeric_nodes(schema()))
    assert len(nodes) >= 30
    for path, node in nodes:
        assert "maximum" in node, f"{path} has no maximum"
        assert "minimum" in node or "exclusiveMinimum" in node, f"{path} has no minimum"
        assert node.get("x-range"), f"{path} does not say where its bound comes from"
    cutoff = schema()["properties"]["kernels"]["properties"]["rope_kv_insert"]["properties"]
    assert cutoff["num_token_cutoff"]["maximum"] == 2**31 - 1  # a C++ int on the host


def test_an_mxfp8_cache_without_fp8_ds_mla_builds(specs_copy, run_cli, tmp_path):
    """V4.1's mxfp8 cache once needed a second uint8 format beside it (StopIteration, exit 70)."""
    text = (specs_copy / V4).read_text()
    start = text.index("      fp8_ds_mla:\n")
    end = text.index("      bf16:\n", start)
    text = text[:start] + text[end:]
    # V4 keeps no packed format, so it names none; V4.1's mxfp8 becomes its default
    start = text.index("    packed_cache_format:")
    end = text.index("    cache_formats:", start)
    (specs_copy / V4).write_text(text[:start] + text[end:])
    v41 = (specs_copy / V41).read_text()
    v41 = v41.replace(
        "by_capability_family: {sm100: mxfp8}",
        "by_capability_family: {sm100: mxfp8}\n      default: mxfp8",
    )
    (specs_copy / V41).write_text(v41)
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 0, result.output
    config = (tmp_path / "out/deepseek_v4/csrc/deepseek_v41/rope_kv_config.h").read_text()
    assert "fp8_ds_mla" not in config and "kFp8DsMla" not in config
    assert "CacheKind::kMxfp8};" in config


# --- the output tree is input too: a repository's generated/ directory can hold anything -----


def _reference_copy(reference_build: Path, tmp_path: Path) -> Path:
    work = tmp_path / "work"
    shutil.copytree(reference_build, work, symlinks=True)
    return work


def test_a_fifo_where_a_generated_file_belongs_is_reported_without_blocking(
    reference_build, tmp_path
):
    """Reading it waited for a writer forever: check and build hung."""
    from corehelpers import cli

    work = _reference_copy(reference_build, tmp_path)
    registry = work / "out" / "deepseek_v4" / "registry.py"
    registry.unlink()
    os.mkfifo(registry)
    for command in ("check", "build"):
        result = cli([command, f"specs/{V41}", "--out", "out"], work, timeout=120)
        assert result.rc == 3, (command, result.output)
        assert "deepseek_v4/registry.py" in result.stderr, (command, result.stderr)


@pytest.mark.parametrize("name", ["MANIFEST", "registry.py"])
def test_a_huge_file_in_the_output_tree_is_read_only_up_to_the_limit(
    reference_build, tmp_path, name
):
    """A 4 GB sparse MANIFEST or module (4 MB once git compresses it) cost `check` 12.6 GB and
    more than 100 s: the fast path and the full comparison read every file whole."""
    import tracemalloc

    from dsv41gen.commands.pipeline import build_texts
    from dsv41gen.emit import write

    work = _reference_copy(reference_build, tmp_path)
    out = work / "out"
    results = build_texts((work / "specs" / V41,), out)
    os.truncate(out / "deepseek_v4" / name, 256 << 20)  # the header stays, zeros follow
    fastpath._raw.cache_clear()
    tracemalloc.start()
    try:
        assert fastpath.up_to_date([work / "specs" / V41], out) is None
        comparison = write.compare(out, results[0].package, results[0].files)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        fastpath._raw.cache_clear()
    assert f"deepseek_v4/{name}" in comparison.foreign + comparison.changed
    assert peak < 4 * write.MAX_GENERATED_BYTES, peak


def test_display_name_placeholders_cannot_amplify_a_message(specs_copy, run_cli, tmp_path):
    """`{display_name}` is substituted into the compress-ratio message as literal text: 400 of
    them and a 50 kB name made two 20 MB modules from a 70 kB spec (a 1 MiB spec: 17 GB)."""
    edit(specs_copy / V41, "display_name: DeepSeek V4.1", "display_name: " + "D" * 50_000)
    edit(
        specs_copy / V41,
        "{display_name} layer {layer_id}",
        "{display_name}" * 400 + " layer {layer_id}",
    )
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    assert result.rc == 1, result.output
    assert (
        "kv_cache.unsupported_compress_ratio_message: is 20000102 characters once its 400 "
        "{display_name} fields are filled in, more than 16384" in result.stderr
    )
    assert not (tmp_path / "out").exists()


def test_inherited_texts_cannot_grow_a_generated_file_past_the_reader_limit(specs_copy, tmp_path):
    """Every child that inherits a long message carries its own copy: 24 one-line children of a
    root with a 900 kB message made one 21 MB kv_cache.py (from 1 MB of specs), which the next
    run could no longer read as a generated file. The build refuses it instead."""
    from dsv41gen.emit.write import MAX_GENERATED_BYTES

    edit(
        specs_copy / V41,
        "{display_name} layer {layer_id}",
        "x" * 900_000 + " layer {layer_id}",
    )
    for i in range(24):
        (specs_copy / f"child{i}.yaml").write_text(
            f"spec_version: 1\nextends: {V41}\nvariant:\n  name: child{i}\n"
            f"  display_name: C{i}\n  model_type: child{i}\n"
        )
    from corehelpers import cli

    result = cli(["build", f"specs/{V41}", "--out", "out"], tmp_path, timeout=600)
    assert result.rc == 1, result.output
    assert f"more than the {MAX_GENERATED_BYTES}-byte limit" in result.stderr
    assert "deepseek_v4/kv_cache.py" in result.stderr
    assert not (tmp_path / "out").exists()


# --- an integer field takes integers only ---------------------------------------------------
# JSON Schema calls 8.0 an integer, and the values went through as floats: `default: 1.0` was
# exit 70 (range() of a float), `num_heads_q_padded: [0, 8.0, ...]` generated the C++
# `kNumHeadsQPadded[] = {0, 8.0, ...}` (a narrowing error), `block_size: 32.0` gave Triton
# BLOCK_SIZE=32.0, and `threads_per_block: 256.0` printed `256.0f` into a constexpr int.


@pytest.mark.parametrize(
    "old, new, field, shown",
    [
        (
            "default: 1}",
            "default: 1.0}",
            "checkpoint.weight_sets.classic_mtp.stage_count.default",
            "1.0",
        ),
        (
            "num_heads_q_padded: [0, 8,",
            "num_heads_q_padded: [0, 8.0,",
            "kernels.rope_kv_insert.num_heads_q_padded.1",
            "8.0",
        ),
        (
            "threads_per_block: 256",
            "threads_per_block: 256.0",
            "kernels.rope_kv_insert.threads_per_block",
            "256.0",
        ),
        ("    block_size: 32\n", "    block_size: 32.0\n", "quantization.mxfp8.block_size", "32.0"),
        (
            "warn_above: 1 #",
            "warn_above: 1.0 #",
            "speculative.methods.mtp.num_speculative_tokens.warn_above",
            "1.0",
        ),
        (
            "compress_ratios: [0, 1, 4, 128]",
            "compress_ratios: [0, 1.0, 4, 128]",
            "kv_cache.compress_ratios.1",
            "1.0",
        ),
    ],
    ids=[
        "stage_count_default",
        "num_heads_q_padded",
        "threads_per_block",
        "mx_block_size",
        "warn_above",
        "compress_ratio",
    ],
)
def test_a_whole_float_in_an_integer_field_is_a_located_error(
    specs_copy, run_cli, tmp_path, old, new, field, shown
):
    edit(specs_copy / V4, old, new)
    needle = new.strip().split("\n")[0]
    line = next(
        i for i, text in enumerate((specs_copy / V4).read_text().splitlines(), 1) if needle in text
    )
    result = run_cli("build", f"specs/{V4}", "--out", "out")
    assert result.rc == 1, result.output
    errors = result.stderr.splitlines()
    assert errors[-1] == _SUMMARY_1, result.stderr
    assert errors[0].startswith(f"specs/{V4}:{line}:"), errors[0]
    assert errors[0].endswith(
        f": {field}: expected an integer, got a number ({shown}); write it without the "
        f"fraction ({shown[:-2]})"
    ), errors[0]
    assert not (tmp_path / "out").exists()


# --- `extends` chains: how deep a family may be, whichever spec a build starts from ----------


def _chain(specs: Path, count: int) -> list[str]:
    """c0000 extends V4.1, c0001 extends c0000, ...: V4 is generation 1, c<k> generation k + 3."""
    names, parent = [], V41
    for i in range(count):
        name = f"c{i:04d}.yaml"
        (specs / name).write_text(
            f"spec_version: 1\nextends: {parent}\nvariant:\n  name: c{i:04d}\n"
            f"  display_name: C{i}\n  model_type: c{i:04d}\n",
            encoding="utf-8",
        )
        names.append(name)
        parent = name
    return names


_TOO_DEEP = (
    "specs/c0014.yaml:2:1: extends: this spec would be generation 17 of the family of "
    "deepseek_v4.yaml; a family is at most 16 specs deep: extend a spec nearer the root"
)


@pytest.mark.parametrize("start", ["c0019.yaml", "c0000.yaml"])
def test_a_chain_deeper_than_a_family_may_be_is_one_error_at_the_spec_too_deep(
    specs_copy, run_cli, start
):
    """Named at its deepest spec the chain was an "`extends` cycle" (there was none) at c0001;
    named at its shallowest, every spec was resolved one level at a time and no depth limit
    applied at all."""
    _chain(specs_copy, 20)
    result = run_cli("build", f"specs/{start}", "--out", "out")
    assert result.rc == 1, result.output
    assert result.stderr.splitlines() == [_TOO_DEEP, _SUMMARY_1]


def test_a_chain_of_hundreds_of_specs_is_rejected_in_bounded_time(specs_copy, run_cli):
    """The no-op fast path walked every spec's whole chain, with a list for the specs seen:
    1,500 chained specs took six minutes; deeper chains were a RecursionError away."""
    import time

    _chain(specs_copy, 300)
    started = time.monotonic()
    result = run_cli("build", "specs/c0299.yaml", "--out", "out")
    assert time.monotonic() - started < 45
    assert result.rc == 1, result.output
    lines = result.stderr.splitlines()
    assert lines[0] == _TOO_DEEP
    assert lines[1].startswith("specs/c0235.yaml:2:1: extends: more than 64 specs below this one")
    assert lines[2] == "2 errors; nothing was written."
