"""Render stage: plans in, text out.

Templates hold layout only. Every value a template prints comes from a plan object the planner
built; StrictUndefined turns a misspelt attribute into an error instead of an empty string.

Safe rendering by construction: every ``{{ expression }}`` of every template is rewritten, as
the template is compiled, into ``{{ (expression) | _emit(template, line, expression text) }}``.
``_emit`` prints only a typed value from ``plan.values`` (a Python literal, an identifier, a
comment, ...) or a macro's output; a plain ``str``, ``int`` or any other value fails the render
with ``TemplateValueError`` naming the template, line and expression. ``finalize`` then refuses
anything ``_emit`` did not pass, so no output path skips the check.
"""

from __future__ import annotations

import functools
import hashlib
import math
from pathlib import Path

import jinja2
import jinja2.ext
from jinja2.lexer import Token, TokenStream, reverse_operators

from ..plan.values import (
    Code,
    CodegenValueError,
    Comment,
    CppBool,
    CppCode,
    CppFloat,
    CppInt,
    PyCode,
    PyLiteral,
)
from .inputs import templates_dir


class TemplateValueError(RuntimeError):
    """A template printed a value that does not know its target language (a generator bug)."""


class _Emitted(str):
    """Text ``_emit`` let through; ``finalize`` prints nothing else."""


def _expression_text(tokens: list[Token]) -> str:
    out = []
    for token in tokens:
        if token.type == "string":
            out.append(repr(token.value))
        elif token.type in reverse_operators:
            out.append(reverse_operators[token.type])
        else:
            out.append(str(token.value))
    text = " ".join(out)
    for tight in (" ( ", " ) ", " . ", " [ ", " ] ", " , "):
        text = text.replace(tight, tight.strip() + (" " if tight == " , " else ""))
    return text.replace(" (", "(").replace("( ", "(")


def _is_macro_call(tokens: list[Token], macros: set[str]) -> bool:
    """``name(...)``, optionally ``| indent(N, true)``, where name is a macro this template
    defines: its text is made of its own checked ``{{ }}`` outputs and template text."""
    if len(tokens) < 3 or tokens[0].type != "name" or tokens[0].value not in macros:
        return False
    if tokens[1].type != "lparen":
        return False
    depth = 0
    for i, token in enumerate(tokens[1:], start=1):
        depth += token.type == "lparen"
        depth -= token.type == "rparen"
        if depth == 0:
            rest = tokens[i + 1 :]
            break
    else:
        return False
    if not rest:
        return True
    kinds = [(t.type, t.value) for t in rest]
    return (
        kinds[:3] == [("pipe", "|"), ("name", "indent"), ("lparen", "(")]
        and kinds[-1][0] == "rparen"
        and all(k in ("integer", "comma") or v in ("true", "false") for k, v in kinds[3:-1])
    )


class TypedOutput(jinja2.ext.Extension):
    """Wraps every ``{{ }}`` expression in the ``_emit`` check (see the module docstring)."""

    def filter_stream(self, stream: TokenStream):
        name = stream.name or "<template>"
        macros: set[str] = set()
        previous: list[Token] = []
        tokens = iter(stream)
        for token in tokens:
            if token.type == "name" and len(previous) >= 1 and previous[-1].value == "macro":
                macros.add(token.value)
            if token.type == "tilde":
                raise jinja2.TemplateSyntaxError(
                    "'~' concatenates untyped text; print typed values instead", token.lineno, name
                )
            if token.type != "variable_begin":
                previous = [token]
                yield token
                continue
            yield token
            inner: list[Token] = []
            for inside in tokens:
                if inside.type == "variable_end":
                    end = inside
                    break
                if inside.type == "tilde":
                    raise jinja2.TemplateSyntaxError(
                        "'~' concatenates untyped text; print typed values instead",
                        inside.lineno,
                        name,
                    )
                inner.append(inside)
            lineno = inner[0].lineno if inner else token.lineno
            check = "_emit_macro" if _is_macro_call(inner, macros) else "_emit"
            yield Token(lineno, "lparen", "(")
            yield from inner
            yield Token(lineno, "rparen", ")")
            yield Token(lineno, "pipe", "|")
            yield Token(lineno, "name", check)
            yield Token(lineno, "lparen", "(")
            yield Token(lineno, "string", name)
            yield Token(lineno, "comma", ",")
            yield Token(lineno, "integer", lineno)
            yield Token(lineno, "comma", ",")
            yield Token(lineno, "string", _expression_text(inner))
            yield Token(lineno, "rparen", ")")
            yield end
            previous = [end]


def _where(template: str, line: int, expression: str) -> str:
    return f"templates/{template}:{line}: {{{{ {expression} }}}}"


def _emit(value: object, template: str, line: int, expression: str) -> _Emitted:
    if isinstance(value, Code):
        return _Emitted(value.text)
    raise TemplateValueError(
        f"{_where(template, line, expression)} printed a {type(value).__name__} "
        f"({value!r:.60}); templates print only typed values (dsv41gen/plan/values.py)"
    )


def _emit_macro(value: object, template: str, line: int, expression: str) -> _Emitted:
    if isinstance(value, str):
        return _Emitted(value)  # a macro's text: each of its own {{ }} went through _emit
    return _emit(value, template, line, expression)


def _finalize(value: object) -> object:
    if isinstance(value, _Emitted):
        return value
    raise TemplateValueError(f"unchecked template output {value!r:.60}")


def _number(value: object, what: str) -> None:
    if isinstance(value, str) or not (value is None or isinstance(value, (bool, int, float))):
        raise TemplateValueError(
            f"the {what} filter takes numbers and booleans only, got {type(value).__name__} "
            f"{value!r:.60}; strings come from the planner as typed values"
        )


def _py(value: object) -> Code:
    """A number, boolean or None (or a tuple / list of them) as a Python literal."""
    if isinstance(value, PyLiteral):
        return value
    for item in value if isinstance(value, (tuple, list)) else (value,):
        _number(item, "py")
    return PyLiteral(value)


def _py_hex(value: object, digits: int = 0) -> Code:
    if type(value) is not int or value < 0:
        raise TemplateValueError(f"py_hex takes a non-negative int, got {value!r:.60}")
    return PyCode(f"0x{value:0{digits}X}")


def _cpp(value: object, ctype: str = "") -> Code:
    """A number or boolean as a C++ literal (int: range-checked for ``ctype``, default int)."""
    _number(value, "cpp")
    if isinstance(value, bool):
        return CppBool(value)
    if isinstance(value, int):
        return CppInt(value, ctype or "int")
    if isinstance(value, float) and math.isfinite(value):
        return CppFloat(value)
    raise TemplateValueError(f"no C++ literal for {value!r:.60}")


def _cpp_hex(value: object, ctype: str = "uint32_t") -> Code:
    return CppInt(value, ctype, hex=True)


def _join(values: object, separator: str = "") -> Code:
    """Typed values joined: comments into a comment, code into code of the same language."""
    items = list(values)  # type: ignore[call-overload]
    if not all(isinstance(v, Code) for v in items):
        bad = next(v for v in items if not isinstance(v, Code))
        raise TemplateValueError(f"join of an untyped {type(bad).__name__} ({bad!r:.60})")
    if items and all(isinstance(v, Comment) for v in items):
        return Comment.join(separator, items)
    if any(isinstance(v, (CppCode, CppInt, CppFloat, CppBool)) for v in items):
        return CppCode.join(separator, items)
    return PyCode.join(separator, items)


def _refuse(name: str):
    def refuse(*args: object, **kwargs: object):
        raise TemplateValueError(f"the {name} filter makes untyped text; not allowed in templates")

    return refuse


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates, kept between builds: compiling all of them was about a fifth of a
    fresh build. Jinja checks each entry against its template's source (and its own release
    and Python's); the directory is also named after this module's and plan/values.py's text,
    so a change to the TypedOutput rewrite or the typed values never reuses old code."""
    from .format import cache_root

    root = cache_root("templates")
    if root is None:
        return None
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for source in (package / "emit" / "render.py", package / "plan" / "values.py"):
        digest.update(source.read_bytes())
    directory = root / f"{jinja2.__version__}-{digest.hexdigest()[:16]}"
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(directory))


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        bytecode_cache=_bytecode_cache(),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        finalize=_finalize,
        extensions=[TypedOutput],
    )
    for name in ("safe", "string", "format", "tojson", "pprint", "urlize", "xmlattr", "escape"):
        env.filters[name] = _refuse(name)
    env.filters.update(
        _emit=_emit,
        _emit_macro=_emit_macro,
        py=_py,
        py_hex=_py_hex,
        cpp=_cpp,
        cpp_hex=_cpp_hex,
        join=_join,
    )
    return env


def render(template_name: str, **context: object) -> str:
    """Render one template with the given plan objects. (Kernel sources are never rendered nor
    copied: generated code compiles and imports them from the installed dsv41gen.)"""
    try:
        return environment().get_template(template_name).render(**context)
    except CodegenValueError as error:
        raise TemplateValueError(f"templates/{template_name}: {error}") from error


def render_files(files, spec_files_of, settings, license_header: tuple[str, ...]) -> dict[str, str]:
    """Render each planned file, format it (format.FormatSettings: the consumer's formatter
    configuration), and put the license lines and the dsv41gen header on top (naming
    ``spec_files_of(output)``, the specs the file comes from)."""
    from .format import clang_format_column_limit, format_sources, is_cpp
    from .write import make_header

    bodies = format_sources(
        {output.path: render(output.template, **dict(output.context)) for output in files},
        settings,
    )
    width = clang_format_column_limit(settings) if any(is_cpp(o.path) for o in files) else 0
    return {
        output.path: make_header(
            output.comment_prefix,
            spec_files_of(output),
            bodies[output.path],
            license_header=license_header,
            width=width if is_cpp(output.path) else 0,
        )
        + bodies[output.path]
        for output in files
    }
