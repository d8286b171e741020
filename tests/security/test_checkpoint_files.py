"""`check-checkpoint` refuses every file the safetensors library refuses, and so vLLM's loader,
which opens each shard with it, and opens every shard an index names, inside the checkpoint
directory (issue 23, finding 10). It said "loads" for overlapping or gapped offsets, a shape that
does not match its bytes, an unknown dtype, a duplicate name, an index shard that is empty or a
symlink to a file elsewhere.

The oracle is the library itself: each malformed file is first shown to be refused by
``safetensors.safe_open``, and each well-formed one to be opened by it.
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
from securityhelpers import SPECS, cli

numpy = pytest.importorskip("numpy")
safetensors = pytest.importorskip("safetensors")
from safetensors import SafetensorError, safe_open  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

from dsv41gen.commands.checkpoints import run_check_checkpoint  # noqa: E402
from dsv41gen.errors import UsageError  # noqa: E402

V41 = SPECS / "deepseek_v41.yaml"
F32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}


def _raw(path: Path, header: bytes | dict, data: bytes) -> Path:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + data)
    return path


# name -> (header, data bytes): files the safetensors library refuses
MALFORMED = {
    "gap": (
        {"a": {**F32, "shape": [1], "data_offsets": [0, 4]}, "b": {**F32, "shape": [1], "data_offsets": [8, 12]}},
        bytes(12),
    ),
    "overlap": ({"a": F32, "b": {**F32, "shape": [1], "data_offsets": [4, 8]}}, bytes(8)),
    "shape_not_bytes": ({"a": {**F32, "shape": [3]}}, bytes(8)),
    "unknown_dtype": ({"a": {**F32, "dtype": "Q7"}}, bytes(8)),
    "past_the_end": ({"a": {**F32, "shape": [4], "data_offsets": [0, 16]}}, bytes(8)),
    "trailing_bytes": ({"a": F32}, bytes(12)),
    "duplicate_name": (
        b'{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, '
        b'"a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}',
        bytes(8),
    ),
}  # fmt: skip


def _check(checkpoint: Path) -> list[str]:
    """check-checkpoint's run, in this process: what it prints; UsageError is its exit 2."""
    lines: list[str] = []
    run_check_checkpoint(V41, checkpoint, None, lines.append)
    return lines


def _refused(checkpoint: Path) -> str:
    with pytest.raises(UsageError) as raised:
        _check(checkpoint)
    return str(raised.value)


def _refused_by_safetensors(path: Path) -> str:
    with pytest.raises(SafetensorError) as raised:
        with safe_open(str(path), framework="numpy"):
            pass
    return str(raised.value)


def _index(directory: Path, weight_map: dict[str, str]) -> Path:
    path = directory / "model.safetensors.index.json"
    path.write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    return path


@pytest.mark.parametrize("case", sorted(MALFORMED))
@pytest.mark.parametrize("how", ["file", "index_shard"])
def test_a_file_safetensors_refuses_is_refused(tmp_path, case, how):
    header, data = MALFORMED[case]
    bad = _raw(tmp_path / "model-00002.safetensors", header, data)
    _refused_by_safetensors(bad)
    target = bad
    if how == "index_shard":
        save_file(
            {"good": numpy.zeros(2, numpy.float32)}, str(tmp_path / "model-00001.safetensors")
        )
        _index(tmp_path, {"good": "model-00001.safetensors", "a": bad.name})
        target = tmp_path
    message = _refused(target)
    assert str(bad) in message
    if how == "index_shard":  # the names alone come from the index: only opening it tells
        assert f"{bad}: safetensors refuses the file" in message


def test_an_empty_shard_an_index_names_is_refused(tmp_path):
    (tmp_path / "model-00001.safetensors").write_bytes(b"")
    _refused_by_safetensors(tmp_path / "model-00001.safetensors")
    _index(tmp_path, {"a": "model-00001.safetensors"})
    assert "model-00001.safetensors: safetensors refuses" in _refused(tmp_path)


@pytest.mark.parametrize("target", ["elsewhere", "passwd"])
def test_a_shard_linked_out_of_the_checkpoint_is_refused(tmp_path, target):
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    outside = tmp_path / "other.safetensors"
    if target == "elsewhere":  # a valid file of another checkpoint
        save_file({"a": numpy.zeros(2, numpy.float32)}, str(outside))
    else:
        outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
    os.symlink(outside, checkpoint / "model-00001.safetensors")
    _index(checkpoint, {"a": "model-00001.safetensors"})
    assert "outside the checkpoint directory" in _refused(checkpoint)


def test_a_hugging_face_cache_snapshot_links_its_blobs(tmp_path):
    """snapshots/<rev>/<file> -> ../../blobs/<hash>: how every downloaded checkpoint looks."""
    repo = tmp_path / "models--org--name"
    (repo / "blobs").mkdir(parents=True)
    snapshot = repo / "snapshots" / "0123abc"
    snapshot.mkdir(parents=True)
    save_file({"a": numpy.zeros(2, numpy.float32)}, str(repo / "blobs" / "9f86d08"))
    os.symlink("../../blobs/9f86d08", snapshot / "model.safetensors")
    assert _check(snapshot)[1] == "servable speculative methods: none"


def test_an_index_entry_its_shard_does_not_hold_is_refused(tmp_path):
    save_file({"a": numpy.zeros(2, numpy.float32)}, str(tmp_path / "model-00001.safetensors"))
    _index(tmp_path, {"a": "model-00001.safetensors", "b": "model-00001.safetensors"})
    assert "maps 'b' to model-00001.safetensors, which does not hold it" in _refused(tmp_path)


def test_a_tensor_in_two_shards_is_refused(tmp_path):
    for name in ("model-00001.safetensors", "model-00002.safetensors"):
        save_file({"a": numpy.zeros(2, numpy.float32)}, str(tmp_path / name))
    assert "tensor 'a' is in both model-00001" in _refused(tmp_path)


def test_files_safetensors_opens_are_accepted(tmp_path):
    """Metadata, and a dtype newer than the reimplementation knew (F8_E8M0, MXFP8's scales)."""
    with_metadata = _raw(
        tmp_path / "model-00001.safetensors", {"__metadata__": {"format": "pt"}, "a": F32}, bytes(8)
    )
    scales = _raw(
        tmp_path / "model-00002.safetensors",
        {"s": {"dtype": "F8_E8M0", "shape": [2], "data_offsets": [0, 2]}},
        bytes(2),
    )
    for path in (with_metadata, scales):
        with safe_open(str(path), framework="numpy") as handle:
            assert list(handle.keys())
    _index(tmp_path, {"a": with_metadata.name, "s": scales.name})
    assert _check(tmp_path)[0].endswith(": 2 tensors; DeepSeek V4.1 (deepseek_v41)")
    _check(scales)


def test_the_cli_refuses_an_unloadable_shard_with_a_usage_error(tmp_path):
    header, data = MALFORMED["overlap"]
    _raw(tmp_path / "model-00001.safetensors", header, data)
    result = cli("check-checkpoint", V41, tmp_path, cwd=tmp_path)
    assert result.rc == 2, result.stdout + result.stderr
    assert "model-00001.safetensors: safetensors refuses the file" in result.stderr
    assert "Traceback" not in result.stderr
    assert "servable" not in result.stdout
