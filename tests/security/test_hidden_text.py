"""What a reviewer sees is what YAML reads: a spec's comments and the space between its values
hold no character a screen hides or draws differently.

YAML breaks lines at NEL (U+0085), U+2028, U+2029 and a lone CR, which editors, terminals and
review tools draw inside one line. A comment holding one hid a whole mapping entry: the line
below reads as a comment on a screen, and built a registry entry for `os.system`. Bidi and other
format characters in a comment reorder or hide what is shown (Trojan Source). Each case is a
real build through the CLI, beside a control in which the same text with a plain newline
builds, so the hidden entry is shown to be real YAML.
"""

from __future__ import annotations

import re

import pytest
from securityhelpers import assert_clean_rejection, cli, copy_specs

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"
COMMENT = "architectures: # [ref §4] V4.1 owns none of V4's entries and has no MTP entry\n"
HIDDEN = "  EvilForCausalLM: {registry: text_generation, module: os, class: system}"


def _hide(specs, separator: str) -> int:
    """V4.1's architectures comment with HIDDEN after `separator`; the 1-based line of it."""
    path = specs / V41
    text = path.read_text(encoding="utf-8")
    assert text.count(COMMENT) == 1
    path.write_text(
        text.replace(COMMENT, COMMENT[:-1] + separator + HIDDEN + separator + "  # end\n"),
        encoding="utf-8",
        newline="",
    )
    return text[: text.index(COMMENT)].count("\n") + 1


def test_the_hidden_entry_is_real_yaml_when_written_on_its_own_line(tmp_path):
    """On a line of its own the entry is YAML, not a comment: it reaches validation, where its
    registry target is checked against vLLM 0.33.0's modules and refused at its own line."""
    specs = copy_specs(tmp_path / "specs")
    line = _hide(specs, "\n") + 1
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert result.rc == 1, result.stdout + result.stderr
    assert (
        f"specs/{V41}:{line}:" in result.stderr
        and "architectures.EvilForCausalLM.module: vLLM 0.33.0 has no model module 'os'"
        in result.stderr
    ), result.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "separator, what",
    [
        ("\x85", "U+0085 (NEXT LINE) is a line break to YAML but not to editors"),
        ("\u2028", "U+2028 (LINE SEPARATOR) is a line break to YAML but not to editors"),
        ("\u2029", "U+2029 (PARAGRAPH SEPARATOR) is a line break to YAML but not to editors"),
        ("\r", "a carriage return without a line feed: YAML starts a new line there"),
    ],
    ids=["nel", "line_separator", "paragraph_separator", "lone_cr"],
)
def test_a_line_break_only_yaml_sees_is_a_located_error(tmp_path, separator, what):
    specs = copy_specs(tmp_path / "specs")
    line = _hide(specs, separator)
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert_clean_rejection(result, what)
    column = len(COMMENT)  # the separator stands where the comment's newline was
    located = re.findall(rf"^specs/{V41}:(\d+):(\d+): ", result.stderr, re.MULTILINE)
    assert located == [(str(line), str(column)), (str(line), str(column + len(HIDDEN) + 1))]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "character", ["\u202e", "\u2066", "\u200b", "\x1b"], ids=["rlo", "lri", "zwsp", "escape"]
)
def test_a_bidi_or_control_character_in_a_comment_is_a_located_error(tmp_path, character):
    specs = copy_specs(tmp_path / "specs")
    path = specs / V41
    text = path.read_text(encoding="utf-8")
    line = text[: text.index(COMMENT)].count("\n") + 1
    path.write_text(text.replace("# [ref §4]", f"# {character}[ref §4]"), encoding="utf-8")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert_clean_rejection(result, f"specs/{V41}:{line}:18: U+{ord(character):04X}", "delete it")
    assert not (tmp_path / "out").exists()


def test_crlf_line_endings_and_a_byte_order_mark_still_build(tmp_path):
    specs = copy_specs(tmp_path / "specs")
    for name in (V4, V41):
        text = (specs / name).read_text(encoding="utf-8")
        (specs / name).write_text("\ufeff" + text, encoding="utf-8", newline="\r\n")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert result.rc == 0, result.stderr


def test_cr_line_endings_are_one_located_error(tmp_path):
    specs = copy_specs(tmp_path / "specs")
    text = (specs / V41).read_text(encoding="utf-8")
    (specs / V41).write_text(text, encoding="utf-8", newline="\r")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=tmp_path)
    assert_clean_rejection(result, f"specs/{V41}:1:1: the file has CR line endings")
    assert result.stderr.count("\n") == 2
