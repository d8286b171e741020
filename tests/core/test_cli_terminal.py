"""The CLI at a terminal: explain's defaults, filters and layout; colour on a TTY only;
did-you-mean for --method."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

import pytest
from corehelpers import V41, cli, copy_specs

ESC = "\x1b["

# A synthetic child, as benchmarks/bench_scale.py writes them (its own architectures and draft).
SYNTH = """\
spec_version: 1
extends: deepseek_v41.yaml
variant:
  name: synth_{i:04d}
  display_name: Synthetic {i}
  model_type: synth_{i:04d}
architectures:
  DeepseekV41ForCausalLM: !delete
  DSparkV41DraftModel: !delete
  Synth{i:04d}ForCausalLM:
    registry: multimodal
    module: vllm.models.deepseek_v41
    class: DeepseekV41ForCausalLM
  Synth{i:04d}DraftModel:
    registry: speculative_decoding
    module: vllm.models.deepseek_v41
    class: DSparkDeepseekV4ForCausalLM
speculative:
  methods:
    dspark:
      draft_model_type: synth_{i:04d}
      draft_architecture: Synth{i:04d}DraftModel
"""


def _section(output: str, title: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"== {title}"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("== ")), len(lines))
    return [line for line in lines[start + 1 : end] if line]


def test_explain_defaults_to_the_specs_directory(specs_copy, tmp_path):
    default = cli(["explain"], tmp_path)
    named = cli(["explain", "specs/deepseek_v4.yaml", "specs/deepseek_v41.yaml"], tmp_path)
    assert default.rc == 0 and default.stdout == named.stdout and default.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = cli(["explain"], empty)
    assert nothing.rc == 2 and "no SPEC given and no specs/*.yaml here" in nothing.stderr


def test_explain_filters(specs_copy, tmp_path):
    result = cli(["explain", "--variant", "deepseek_v41", "--site", "dspark_draft"], tmp_path)
    assert result.rc == 0, result.output
    assert "== deepseek_v41 " in result.stdout and "== deepseek_v4 " not in result.stdout
    table = _section(result.stdout, "merge / fork table")
    assert table[0].split()[:3] == ["site", "deepseek_v41", "decision"]
    assert [row.split()[0] for row in table[1:]] == [
        "dspark_draft_model_type",
        "dspark_draft_architecture",
    ]
    typo = cli(["explain", "--variant", "deepseek_v411"], tmp_path)
    assert typo.rc == 2 and "did you mean 'deepseek_v41'?" in typo.stderr
    no_site = cli(["explain", "--site", "dspark_draft_architectur_"], tmp_path)
    assert no_site.rc == 2 and "did you mean 'dspark_draft_architecture'?" in no_site.stderr


@pytest.mark.slow
def test_a_large_family_fits_the_terminal(tmp_path):
    copy_specs(tmp_path / "specs")
    for i in range(40):
        (tmp_path / "specs" / f"synth_{i:04d}.yaml").write_text(SYNTH.format(i=i))
    result = cli(["explain", "--site", "dspark"], tmp_path, env={"COLUMNS": "100"}, timeout=300)
    assert result.rc == 0, result.output
    table = _section(result.stdout, "merge / fork table")
    assert max(len(line) for line in table) <= 100
    # Each distinct value once, with the variants that have it (42 variants, 3 values here).
    block = table[table.index("dspark_target_quantization: merged") :][:2]
    assert block[1].startswith("    force: deepseek_v4, deepseek_v41, synth_0000, ")
    # A wide terminal gets the table: one row per site, a column per variant.
    wide = cli(["explain", "--site", "dspark"], tmp_path, env={"COLUMNS": "2000"}, timeout=300)
    assert _section(wide.stdout, "merge / fork table")[0].split()[1:4] == [
        "deepseek_v4",
        "deepseek_v41",
        "synth_0000",
    ]


def _on_a_tty(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    """Run the CLI with stdout and stderr on a pseudo-terminal; everything it wrote."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "dsv41gen", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=follower,
        stderr=follower,
        env={**os.environ, **env},
    )
    os.close(follower)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            data = os.read(leader, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=60)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_only(specs_copy, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    base = {"NO_COLOR": "", "FORCE_COLOR": "", "TERM": "xterm"}
    assert cli(["build", f"specs/{V41}"], tmp_path).rc == 0
    spec = specs_copy / V41
    spec.write_text(spec.read_text().replace("        sm90: [64]\n", "        sm90: [32]\n"))
    diff = _on_a_tty(["diff"], tmp_path, base)
    assert f"{ESC}32m+        return _sizes_for_device({{90: [32]}}, [128])" in diff
    assert f"{ESC}31m-        return _sizes_for_device({{90: [64]}}, [128])" in diff
    piped = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "diff"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert "+        return _sizes_for_device({90: [32]}, [128])" in piped.stdout
    assert ESC not in piped.stdout + piped.stderr
    assert ESC not in _on_a_tty(["diff"], tmp_path, {"NO_COLOR": "1"})

    spec.write_text(
        spec.read_text().replace(
            "  model_type: deepseek_v41\n", "  model_type: deepseek_v41\n  bogus: 1\n"
        )
    )
    error = _on_a_tty(["check"], tmp_path, base)
    assert f"{ESC}31m" in error and "variant.bogus: unknown field 'bogus'" in error
    assert ESC not in _on_a_tty(["check"], tmp_path, {"NO_COLOR": "1"})


def test_force_color_and_a_dumb_terminal(specs_copy, tmp_path):
    """FORCE_COLOR colours a pipe; TERM=dumb and NO_COLOR keep a terminal plain; NO_COLOR wins
    over FORCE_COLOR, and FORCE_COLOR over TERM=dumb (CPython's order)."""
    spec = specs_copy / V41
    spec.write_text(
        spec.read_text().replace(
            "  model_type: deepseek_v41\n", "  model_type: deepseek_v41\n  bogus: 1\n"
        )
    )
    quiet = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}

    def piped(**env: str) -> str:
        run = subprocess.run(
            [sys.executable, "-m", "dsv41gen", "check"],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env={**quiet, "TERM": "xterm", **env},
        )
        assert "variant.bogus: unknown field 'bogus'" in run.stderr, run.stderr
        return run.stderr

    assert f"{ESC}31m" in piped(FORCE_COLOR="1")
    assert f"{ESC}31m" in piped(FORCE_COLOR="1", TERM="dumb")
    assert ESC not in piped(FORCE_COLOR="1", NO_COLOR="1")
    assert ESC not in piped()
    tty = {"NO_COLOR": "", "FORCE_COLOR": ""}
    assert f"{ESC}31m" in _on_a_tty(["check"], tmp_path, {**tty, "TERM": "xterm"})
    assert ESC not in _on_a_tty(["check"], tmp_path, {**tty, "TERM": "dumb"})


def test_check_with_a_mistyped_out_says_so_in_one_line(specs_copy, tmp_path):
    """`check --out <typo>`: one located line naming the directory, not one per file."""
    assert cli(["build", f"specs/{V41}"], tmp_path).rc == 0
    result = subprocess.run(
        [sys.executable, "-m", "dsv41gen", "check", "--out", "generatd"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 3
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        "generatd/deepseek_v4: missing: no generated package here, and generatd does not "
        "exist (check --out; `dsv41gen build --out generatd` writes it)"
    ]


def test_unknown_method_did_you_mean(tmp_path, specs_copy):
    numpy = pytest.importorskip("numpy")
    from safetensors.numpy import save_file

    shard = tmp_path / "model.safetensors"
    save_file({"model.embed_tokens.weight": numpy.zeros((2, 2), dtype=numpy.float32)}, str(shard))
    result = cli(["check-checkpoint", f"specs/{V41}", str(shard), "--method", "dsprak"], tmp_path)
    assert result.rc == 2
    assert "unknown speculative method 'dsprak'; did you mean 'dspark'?" in result.stderr
