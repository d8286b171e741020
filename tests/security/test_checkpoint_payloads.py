"""The payload corpus's class "unloadable checkpoints": mutations of a valid checkpoint, each
checked by `check-checkpoint`, and judged against the safetensors library (which vLLM's loader
opens every shard with).

A case is a checkpoint directory, its shards named by an index or found by the glob, one file
mutated: a header field changed (offsets moved, a shape or dtype replaced, a duplicate entry,
the header length wrong), the file truncated, extended, emptied, replaced by text, or a shard
made a symlink out of the checkpoint. Every case must be one of

- ``loads``: check-checkpoint reads the checkpoint, and safetensors opens every file of it;
- ``refused``: check-checkpoint refuses it (exit 2, naming a file), and safetensors refuses
  one of its files, or a shard leaves the checkpoint directory, or the index and the shards
  disagree;

anything else (a refusal safetensors would not make, a load it would refuse, a traceback) is a
bug. The outcome counts are printed (pytest -s) for the record.
"""

from __future__ import annotations

import copy
import json
import os
import random
import struct
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from securityhelpers import SPECS

numpy = pytest.importorskip("numpy")
pytest.importorskip("safetensors")
from safetensors import SafetensorError, safe_open  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

from dsv41gen.commands import checkpoints  # noqa: E402
from dsv41gen.errors import UsageError  # noqa: E402

V41 = SPECS / "deepseek_v41.yaml"
CASES = int(os.environ.get("DSV41GEN_CHECKPOINT_CASES", "120"))
DTYPES = ["F32", "F16", "BF16", "I64", "U8", "BOOL", "F8_E4M3", "F8_E8M0", "Q7", "f32", ""]


def _header(path: Path) -> tuple[dict, bytes]:
    data = path.read_bytes()
    (length,) = struct.unpack("<Q", data[:8])
    return json.loads(data[8 : 8 + length]), data[8 + length :]


def _write(path: Path, header: dict | bytes, body: bytes, length: int | None = None) -> None:
    text = header if isinstance(header, bytes) else json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text) if length is None else length) + text + body)


def _mutate_file(path: Path, rng: random.Random) -> str:
    header, body = _header(path)
    tensors = sorted(k for k in header if k != "__metadata__")
    name = rng.choice(tensors)
    entry = header[name]
    kind = rng.choice(
        ["offsets", "shape", "dtype", "duplicate", "length", "truncate", "extend", "empty"]
        + ["text", "metadata"]
    )
    if kind == "offsets":
        i = rng.randrange(2)
        entry["data_offsets"][i] += rng.choice([-8, -4, -1, 1, 4, 8, 10**6])
    elif kind == "shape":
        entry["shape"] = rng.choice([[], [0], [3], [1, 2], [2, 2], [-1], [2**40]])
    elif kind == "dtype":
        entry["dtype"] = rng.choice(DTYPES)
    elif kind == "duplicate":  # a second entry under the same name, JSON allows it
        text = json.dumps(header)
        extra = json.dumps({name: copy.deepcopy(entry)})[1:-1]
        _write(path, (text[:-1] + ", " + extra + "}").encode(), body)
        return kind
    elif kind == "length":
        text = json.dumps(header).encode()
        _write(path, text, body, len(text) + rng.choice([-1, 1, 7, 2**40]))
        return kind
    elif kind == "truncate":
        data = path.read_bytes()
        path.write_bytes(data[: rng.randrange(len(data))])
        return kind
    elif kind == "extend":
        body += bytes(rng.choice([1, 4, 8]))
    elif kind == "empty":
        path.write_bytes(b"")
        return kind
    elif kind == "text":
        path.write_text("root:x:0:0:root:/root:/bin/bash\n")
        return kind
    else:  # metadata: valid when all strings
        header["__metadata__"] = rng.choice([{"format": "pt"}, {"n": 1}, {"a": None}])
    _write(path, header, body)
    return kind


def _checkpoint(root: Path, rng: random.Random) -> tuple[Path, str]:
    """A small valid checkpoint (two shards, maybe an index), then one mutation."""
    directory = root / "ckpt"
    directory.mkdir(parents=True)
    shards = {
        "model-00001.safetensors": {"a": numpy.zeros(2, numpy.float32), "b": numpy.ones(3, numpy.float16)},
        "model-00002.safetensors": {"c": numpy.zeros((2, 2), numpy.int64)},
    }  # fmt: skip
    for shard, tensors in shards.items():
        save_file(tensors, str(directory / shard))
    if rng.random() < 0.5:
        weight_map = {t: s for s, tensors in shards.items() for t in tensors}
        (directory / "model.safetensors.index.json").write_text(
            json.dumps({"weight_map": weight_map})
        )
    victim = directory / rng.choice(sorted(shards))
    what = rng.random()
    if what < 0.1:  # a shard that is a link out of the checkpoint (valid, or not safetensors)
        outside = root / "outside.safetensors"
        victim.rename(outside)
        if rng.random() < 0.5:
            outside.write_text("root:x:0:0:root:/root:/bin/bash\n")
        victim.symlink_to(outside)
        return directory, "symlink_out"
    if what < 0.2:
        return directory, "unmutated"
    return directory, _mutate_file(victim, rng)


def _safetensors_verdict(directory: Path) -> bool:
    """Whether every file the loader would open is inside the directory and opens."""
    index = directory / "model.safetensors.index.json"
    names = (
        sorted(set(json.loads(index.read_text())["weight_map"].values()))
        if index.exists()
        else sorted(p.name for p in directory.glob("*.safetensors"))
    )
    for name in names:
        path = directory / name
        if not path.resolve().is_relative_to(directory.resolve()):
            return False
        try:
            with safe_open(str(path), framework="numpy"):
                pass
        except SafetensorError:
            return False
    return True


@pytest.fixture
def fast_checkpoints(monkeypatch):
    """The generated module and the variant, built once for all cases (each is a whole
    build_texts run); everything else is the real check."""
    monkeypatch.setattr(checkpoints, "_generated_module", cache(checkpoints._generated_module))
    import dsv41gen.commands.checkpoints as module

    variant = cache(module._variant)
    monkeypatch.setattr(module, "_variant", variant)


def test_unloadable_checkpoints_are_refused_and_loadable_ones_load(tmp_path, fast_checkpoints):
    rng = random.Random(20261202)
    outcomes: Counter = Counter()
    kinds: Counter = Counter()
    bugs = []
    for case in range(CASES):
        directory, kind = _checkpoint(tmp_path / f"case{case}", rng)
        kinds[kind] += 1
        loads_by_oracle = _safetensors_verdict(directory)
        try:
            checkpoints.run_check_checkpoint(V41, directory, None, lambda *a, **k: None)
            verdict = "loads"
        except UsageError as error:
            verdict = "refused"
            if "checkpoint" not in str(error) and ".safetensors" not in str(error):
                bugs.append((case, kind, "unnamed refusal", str(error)))
        outcomes[verdict] += 1
        if (verdict == "loads") != loads_by_oracle:
            bugs.append((case, kind, verdict, "safetensors says the opposite"))
    print(
        f"\nunloadable checkpoints: {CASES} cases, outcomes {dict(outcomes)}, kinds {dict(kinds)}"
    )
    assert not bugs, bugs[:10]
    assert outcomes["loads"] > 0 and outcomes["refused"] > 0
