"""The render stage prints typed values only, and each typed value is inert in its language.

The oracles are the real tools: Python's own tokenizer and eval for Python text, and (where a
C++ compiler is installed) the compiler for C++ text.
"""

from __future__ import annotations

import ast
import io
import json
import math
import shutil
import subprocess
import tokenize

import jinja2
import pytest

from dsv41gen.emit import render
from dsv41gen.plan.values import (
    CodegenValueError,
    Comment,
    CppFloat,
    CppIdentifier,
    CppInt,
    CppString,
    DocText,
    DottedPath,
    Identifier,
    PyCode,
    PyLiteral,
    PyMessage,
    terminal_text,
)

NASTY = [
    "",
    "plain",
    "x\nimport os\n#",
    "'\"'''\"\"\"",
    "{}",
    "{__import__('pathlib').Path('CANARY').write_text('ran')}",
    "{{ x }}",
    "*/ #include <x>",
    "#if 0",
    "nul\x00",
    "bidi\u202e\u2066\u200f\u061c",
    "ansi\x1b[31m",
    "ls\u2028ps\u2029nel\x85ff\x0cvt\x0bcr\r",
    "back\\slash\\",
    "%s %d",
    "??/",
    "é ü 中",
]


def _env(source: str) -> jinja2.Template:
    env = render.environment().overlay(loader=jinja2.DictLoader({"t.j2": source}))
    return env.get_template("t.j2")


def test_plain_string_fails_naming_template_line_and_expression():
    with pytest.raises(render.TemplateValueError) as error:
        _env("ok\n\nx = {{ plan.name }}\n").render(plan={"name": "evil"})
    message = str(error.value)
    assert "templates/t.j2:3:" in message
    assert "plan.name" in message
    assert "str" in message


@pytest.mark.parametrize("value", [1, 1.5, True, None, ["a"], b"x"])
def test_untyped_values_of_any_kind_fail(value):
    with pytest.raises(render.TemplateValueError):
        _env("{{ v }}").render(v=value)


def test_typed_values_render_as_their_text():
    text = _env("{{ a }}|{{ b }}|{{ c }}").render(
        a=Identifier("x"), b=PyLiteral("q"), c=Comment("z")
    )
    assert text == 'x|"q"|z'


def test_string_through_a_number_filter_fails():
    # py is the Python-literal filter of plain data (a str too, escaped by repr); the C++
    # number filters still refuse text, and py_str refuses what is not text
    cases = (("{{ v | cpp }}", "x"), ("{{ v | cpp_int }}", "8"), ("{{ v | py_str }}", 1))
    for source, value in cases:
        with pytest.raises((render.TemplateValueError, CodegenValueError)):
            _env(source).render(v=value)
    assert _env("{{ v | py }}, {{ w | cpp }}").render(v=(1, 2), w=8) == "(1, 2), 8"


# Each language filter with hostile spec strings: (filter, input, the exact text it prints),
# the expected text written by hand from the language's escaping rules.
FILTERED = [
    ("py", "x\nimport os\n#", r'"x\nimport os\n#"'),
    ("py", "'\"'''\"\"\"", "'\\'\"\\'\\'\\'\"\"\"'"),
    ("py", "*/ {{ x }}", '"*/ {{ x }}"'),
    ("py", "nul\x00", r'"nul\x00"'),
    ("py", "bidi\u202e\u2066", r'"bidi\u202e\u2066"'),
    ("py", ("a", 1, None), '("a", 1, None)'),
    ("py_str", 'say "hi"\n', r"""'say "hi"\n'"""),
    ("py_str", "back\\", r'"back\\"'),
    ("comment", "x\nimport os\n#", "x import os #"),
    ("comment", "end */ here /* again", "end * / here / * again"),
    ("comment", 'nul\x00 """ {{ x }}', r'nul\x00 """ {{ x }}'),
    ("comment", "bidi\u202e", r"bidi\u202e"),
    ("comment", "??/ splice\\", "? ?/ splice"),
    ("comment", "# -*- coding: latin-1 -*-", "# -*- coding : latin-1 -*-"),
    ("doc", '"""; import os; """', r"\"\"\"; import os; \"\"\""),
    ("doc", "a\\b\nc", r"a\\b c"),
    ("cpp_str", 'a"b', r'"a\"b"'),
    ("cpp_str", "x\n*/y", r'"x\012*/y"'),
    ("cpp_str", "nul\x00??/", r'"nul\000\?\?/"'),
    ("cpp_str", "\u202e", r'"\342\200\256"'),
    ("toml_str", 'a"\n\u202e', r'"a\"\n\u202e"'),
    ("ident", "DeepseekV41", "DeepseekV41"),
    ("cpp_ident", "kv_cache", "kv_cache"),
    ("dotted", "vllm.models.deepseek_v4", "vllm.models.deepseek_v4"),
    ("py_tuple", (), "()"),
    ("py_tuple", ["x\nimport os\n#"], r'("x\nimport os\n#",)'),
    ("py_tuple", ("'\"", "{}", 1, None), """('\\'"', "{}", 1, None)"""),
    ("py_tuple", [Identifier("A"), PyLiteral("b\u202e")], r'(A, "b\u202e")'),
    ("py_dict", {}, "{}"),
    ("py_dict", {"sm90": "nul\x00"}, r'{"sm90": "nul\x00"}'),
    ("py_dict", (("a", 1), ("*/ {{ x }}", None)), '{"a": 1, "*/ {{ x }}": None}'),
    ("py_dict", [("bidi\u202e", (1, 2))], r'{"bidi\u202e": (1, 2)}'),
]


@pytest.mark.parametrize(("name", "value", "expected"), FILTERED)
def test_language_filter_prints_the_escaped_text(name, value, expected):
    assert _env("{{ v | " + name + " }}").render(v=value) == expected


# What a checking filter must refuse: it never escapes a name, it fails.
REFUSED = [
    ("ident", bad)
    for bad in ("a b", "x\nimport os", "class", "nul\x00", "bidi\u202e", "{{x}}", "*/", "", 7)
] + [
    ("cpp_ident", "namespace"),
    ("dotted", "vllm..x"),
    ("dotted", "vllm.x\n"),
    ("dotted", "os;import"),
    ("cpp_int", 2**31),
    ("cpp_int", True),
    ("cpp_int", "8"),
    ("cpp_str", 8),
    ("toml_str", None),
    ("py_str", None),
    ("py", float("nan")),
    ("py", object()),
    ("py_tuple", "abc"),
    ("py_tuple", 7),
    ("py_tuple", [float("nan")]),
    ("py_tuple", [Comment("x")]),
    ("py_tuple", [CppInt(1, "int")]),
    ("py_dict", [("a",)]),
    ("py_dict", "ab"),
    ("py_dict", {"k": object()}),
    ("py_dict", {"k": Comment("*/")}),
    ("py_dict", {"k": DocText('"""')}),
]


@pytest.mark.parametrize(("name", "value"), REFUSED)
def test_checking_filter_refuses_naming_template_line_and_expression(name, value):
    template = _env("ok\n\nx = {{ plan.v | " + name + " }}\n")
    with pytest.raises(render.TemplateValueError) as error:
        render.render_template(template, plan={"v": value})
    assert str(error.value).startswith(f"templates/t.j2:3: {{{{ plan.v | {name} }}}}: ")


@pytest.mark.parametrize("name", sorted(render.LANGUAGE_FILTERS))
def test_a_misspelt_attribute_through_a_filter_says_so(name):
    # StrictUndefined passed an isinstance check: "py_str takes a str, got StrictUndefined"
    with pytest.raises(jinja2.UndefinedError, match="has no attribute 'nmae'"):
        _env("{{ plan.nmae | " + name + " }}").render(plan={"name": "x"})


def test_py_tuple_of_names_and_of_class_members():
    assert _env('{{ v | map("ident") | py_tuple }}').render(v=["A", "B"]) == "(A, B)"
    members = _env('{{ v | py_tuple(members_of="KVCacheLayout") }}')
    assert members.render(v=["NHD"]) == "(KVCacheLayout.NHD,)"
    assert members.render(v=["NHD", "HND"]) == "(KVCacheLayout.NHD, KVCacheLayout.HND)"
    for bad in ("a b", "class", "x\nimport os", "bidi\u202e", 7):
        with pytest.raises(render.TemplateValueError):
            render.render_template(members, v=[bad])
    with pytest.raises(render.TemplateValueError):
        render.render_template(_env('{{ v | map("ident") | py_tuple }}'), v=["a.b"])


def test_python_containers_of_hostile_strings_evaluate_back_to_them():
    assert ast.literal_eval(_env("{{ v | py_tuple }}").render(v=NASTY)) == tuple(NASTY)
    pairs = [(text, text[::-1]) for text in NASTY]
    assert ast.literal_eval(_env("{{ v | py_dict }}").render(v=pairs)) == dict(pairs)


def test_a_filter_passes_its_own_typed_value_unchanged():
    assert _env("{{ v | comment }}").render(v=Comment("a\nb")) == "a b"
    assert _env("{{ v | ident }}").render(v=Identifier("x")) == "x"


def test_a_filtered_value_still_prints_only_through_the_guard():
    # a plain str with no filter is refused even beside filtered values on the same line
    with pytest.raises(render.TemplateValueError):
        _env("{{ a | ident }} {{ b }}").render(a="x", b="y")


@pytest.mark.parametrize("text", NASTY)
def test_every_text_filter_output_is_inert_in_its_language(text):
    assert ast.literal_eval(_env("{{ v | py_str }}").render(v=text)) == text
    comment = _env("{{ v | comment }}").render(v=text)
    source = f"x = 1  # {comment}\ny = 2\n"
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse("x = 1\ny = 2\n"))
    doc = _env("{{ v | doc }}").render(v=text)
    assert len(ast.parse(f'"""Doc {doc}."""\nx = 1\n').body) == 2
    assert json.loads(_env("{{ v | toml_str }}").render(v=text)) == text
    cpp = _env("{{ v | cpp_str }}").render(v=text)
    assert cpp.isascii() and cpp.isprintable() and "\\" + "\n" not in cpp


def test_macro_output_is_allowed_and_its_inner_values_are_checked():
    source = "{% macro m(x) %}<{{ x }}>{% endmacro %}{{ m(v) }}"
    assert _env(source).render(v=Identifier("a")) == "<a>"
    with pytest.raises(render.TemplateValueError):
        _env(source).render(v="a")


@pytest.mark.parametrize("source", ["{{ a ~ b }}", "{% set x = a ~ b %}"])
def test_concatenation_is_refused_at_compile_time(source):
    with pytest.raises(jinja2.TemplateSyntaxError):
        _env(source)


@pytest.mark.parametrize("name", ["safe", "string", "format"])
def test_filters_that_make_untyped_text_are_refused(name):
    with pytest.raises(render.TemplateValueError):
        _env("{{ v | " + name + " }}").render(v=Identifier("a"))


def test_every_real_template_compiles_under_the_policy():
    # from source: the policy is applied as a template is compiled (the shipped precompiled
    # set, which renders, was compiled by this same environment)
    env = render.source_environment()
    names = env.list_templates(extensions=["j2"])
    for name in names:
        env.get_template(name)
    for name in names:  # and the render environment has each of them
        render.environment().get_template(name)


@pytest.mark.parametrize("text", NASTY)
def test_py_literal_evaluates_back_to_the_value(text):
    literal = PyLiteral(text).text
    assert ast.literal_eval(literal) == text
    tokens = list(tokenize.generate_tokens(io.StringIO(literal).readline))
    assert tokens[0].type == tokenize.STRING and tokens[0].string == literal


def test_py_literal_containers_and_floats():
    value = {"a": (1, [2.5, None]), 3: frozenset({"b", "a"})}
    assert eval(PyLiteral(value).text) == value  # noqa: S307 (a literal we just built)
    assert PyLiteral(frozenset({"b", "a"})).text == 'frozenset({"a", "b"})'
    for bad in (math.inf, math.nan, object(), {1, 2}):
        with pytest.raises(CodegenValueError):
            PyLiteral(bad)


@pytest.mark.parametrize("text", NASTY)
def test_py_message_literal_parts_are_never_fields(text):
    message = PyMessage((text, PyCode("num"), text))
    value = eval(message.text, {}, {"num": 7})  # noqa: S307
    assert value == f"{text}7{text}"
    assert eval(PyMessage((text,)).text) == text  # noqa: S307
    assert not PyMessage((text,)).text.startswith("f")  # no placeholder: no f-string (F541)


@pytest.mark.parametrize("text", NASTY)
def test_comment_is_one_inert_printable_line(text):
    comment = Comment(text).text
    assert comment.isprintable()
    assert comment == " ".join(comment.split()) or comment == ""
    assert "*/" not in comment and "??" not in comment and not comment.endswith("\\")
    source = f"x = 1  # {comment}\ny = 2\n"
    assert [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)][:3] == [
        "x",
        "=",
        "1",
    ]
    assert ast.dump(ast.parse(source)) == ast.dump(ast.parse("x = 1\ny = 2\n"))


@pytest.mark.parametrize("text", NASTY)
def test_doc_text_stays_inside_its_docstring(text):
    doc = DocText(text).text
    module = ast.parse(f'"""Doc {doc}."""\nx = 1\n')
    assert isinstance(module.body[0].value, ast.Constant) and len(module.body) == 2


@pytest.mark.parametrize("text", NASTY)
def test_terminal_text_has_no_control_characters(text):
    for line in terminal_text(text).split("\n"):
        assert line.isprintable()


@pytest.mark.parametrize("bad", ["", "1x", "a-b", "class", "for", "None", "ñ", "a\n"])
def test_identifier_rejects_what_is_not_a_plain_name(bad):
    with pytest.raises(CodegenValueError):
        Identifier(bad)
    with pytest.raises(CodegenValueError):
        DottedPath(f"ok.{bad}")


@pytest.mark.parametrize("name", ["namespace", "int", "delete", "template"])
def test_cpp_identifier_also_rejects_cpp_keywords(name):
    assert Identifier(name).text == name
    with pytest.raises(CodegenValueError):
        CppIdentifier(name)


def test_cpp_numbers_are_range_checked_and_exact():
    assert CppInt(2**31 - 1).text == "2147483647"
    with pytest.raises(CodegenValueError):
        CppInt(2**31)
    with pytest.raises(CodegenValueError):
        CppInt(True)
    assert CppFloat(448.0).text == "448.0f"
    for bad in (0.1, math.inf, 2.0**200):
        with pytest.raises(CodegenValueError):
            CppFloat(bad)


def test_planner_code_is_one_printable_ascii_line():
    for bad in ("a\nb", "x\x00", "\u202e"):
        with pytest.raises(CodegenValueError):
            PyCode(bad)


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler on this machine")
def test_cpp_string_and_comment_are_inert_for_a_real_compiler(tmp_path):
    lines = ["#include <cstring>", "#include <cstdio>", "int main() {", "  int n = 0;"]
    for text in NASTY:
        lines.append(f"  // {Comment(text).text}")
        literal = CppString(text).text
        lines.append(f"  n += sizeof({literal}) == {len(text.encode()) + 1} ? 1 : 0;")
        lines.append(f"  n += std::memcmp({literal}, {literal}, sizeof({literal})) == 0 ? 0 : 100;")
    lines += [f'  std::printf("%d", n); return n == {len(NASTY)} ? 0 : 1;', "}"]
    # the bytes themselves: a UTF-8 dump of every literal, compared with Python's encoding
    dump = ["#include <cstdio>", "int main() {"]
    for text in NASTY:
        literal = CppString(text).text
        dump.append(
            f"  for (unsigned i = 0; i + 1 < sizeof({literal}); ++i) "
            f'std::printf("%02x", (unsigned char){literal}[i]);'
        )
        dump.append('  std::printf("\\n");')
    dump += ["  return 0;", "}"]
    (tmp_path / "dump.cpp").write_text("\n".join(dump) + "\n")
    subprocess.run(["c++", "-o", str(tmp_path / "dump"), str(tmp_path / "dump.cpp")], check=True)
    out = subprocess.run([str(tmp_path / "dump")], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [t.encode().hex() for t in NASTY]
    src = tmp_path / "t.cpp"
    src.write_text("\n".join(lines) + "\n")
    subprocess.run(["c++", "-std=c++14", "-o", str(tmp_path / "t"), str(src)], check=True)
    assert subprocess.run([str(tmp_path / "t")]).returncode == 0


def test_py_literal_does_not_trust_a_subclass_repr():
    import enum

    class Level(enum.IntEnum):
        HIGH = 3

    class Sneaky(str):
        def __repr__(self) -> str:
            return "__import__('os').system('true')"

    assert PyLiteral(Level.HIGH).text == "3"
    assert PyLiteral(Sneaky("x")).text == '"x"'
    assert PyLiteral((Sneaky("a"),)).text == '("a",)'


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc on this machine")
def test_cpp_string_and_comment_are_inert_for_nvcc(tmp_path):
    """nvcc lexes host and device code itself (cudafe): every text in a comment and in a string
    literal, in a kernel and in host code; the host part then compares the bytes (no GPU needed:
    the kernel is compiled, never launched)."""
    kernel = ["__global__ void lengths(int* out) {", "  int n = 0;"]
    host = ["#include <cstdio>", "#include <cstring>", "int main() {", "  int bad = 0;"]
    for i, text in enumerate(NASTY):
        comment, literal, raw = Comment(text).text, CppString(text).text, text.encode()
        kernel += [f"  // {comment}", f"  n += sizeof({literal}) == {len(raw) + 1};  // {comment}"]
        expected = ", ".join(str(b) for b in raw) or "0"
        host.append(
            f"  {{ const char got[] = {literal}; const unsigned char want[] = {{{expected}}};"
            f" if (sizeof(got) != {len(raw) + 1} || std::memcmp(got, want, {len(raw)}) != 0)"
            f' {{ std::printf("%d\\n", {i}); ++bad; }} }}  // {comment}'
        )
    kernel += ["  *out = n;", "}"]
    host += ["  return bad;", "}"]
    src = tmp_path / "probe.cu"
    src.write_text("\n".join(kernel + host) + "\n")
    for std in ("c++14", "c++17"):
        binary = tmp_path / f"probe_{std}"
        subprocess.run(["nvcc", f"-std={std}", "-o", str(binary), str(src)], check=True)
        assert subprocess.run([str(binary)]).returncode == 0


def test_planner_code_may_hold_a_message_with_printable_non_ascii():
    # A display_name such as "DeepSeek V4.1 …" reaches a raise through {display_name}: the
    # message literal keeps it as written, and composing it into planner code must not refuse it
    # (it did: internal error, exit 70), while planner text itself stays ASCII.
    from dsv41gen.plan.values import CodegenValueError, Identifier, PyCode, PyMessage

    raised = PyCode.format("{}({})", Identifier("ValueError"), PyMessage(("V4.1 … layer",)))
    assert raised.text == 'ValueError("V4.1 … layer")'
    assert ast.parse(raised.text)
    with pytest.raises(CodegenValueError):
        PyCode("raise ValueError('…')")
    with pytest.raises(CodegenValueError):
        PyCode.format("{}\n", Identifier("x"))


def test_a_long_printable_message_is_quoted_in_one_pass():
    """A 900 kB message (tests/core/test_bounded_input.py's, inherited by 26 variants) was
    escaped one character at a time: about 11 of that build's 14 CPU-s. A printable text is
    escaped by two replaces now; CPU time, so a busy machine does not fail it (the
    per-character loop took 1.3 CPU-s for these 18 MB, the replaces some milliseconds).
    The value is still the text, read back by Python itself."""
    import time

    text = 'a \\ "quoted" word ' * 1_000_000
    start = time.process_time()
    printed = PyMessage((text,)).text
    spent = time.process_time() - start
    assert spent < 0.5, f"{spent:.2f} CPU-s"
    assert ast.literal_eval(printed) == text
