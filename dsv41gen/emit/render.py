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
import re
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
    CppIdentifier,
    CppInt,
    CppString,
    DocText,
    DottedPath,
    Identifier,
    PyCode,
    PyLiteral,
    PyMessage,
    TomlString,
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


# The language filters: a plan holds plain data (str, int, tuples, nested plans), and the
# template says at the print site which language a value lands in. Each filter escapes or
# checks for its language and returns a typed value (plan.values), the only thing ``_emit``
# prints; a value that cannot be printed there raises CodegenValueError, which ``render``
# reports with the template, line and expression. A typed value the planner already built
# passes a filter of its own kind unchanged.


def _typed_as(value: object, kind: type[Code], make) -> Code:
    return value if isinstance(value, kind) else make(value)


def _py(value: object) -> Code:
    """Any plain value (None, bool, int, finite float, str, and tuples / lists / dicts /
    frozensets of them) as a Python literal, printed by repr (quotes, newlines, NUL and bidi
    controls escaped)."""
    return _typed_as(value, PyLiteral, PyLiteral)


def _py_str(value: object) -> Code:
    """A str as a Python string literal: the filter that says the value must be text."""
    if not isinstance(value, str):
        raise CodegenValueError(f"py_str takes a str, got {type(value).__name__} {value!r:.60}")
    return PyLiteral(value)


def _py_hex(value: object, digits: int = 0) -> Code:
    if type(value) is not int or value < 0:
        raise TemplateValueError(f"py_hex takes a non-negative int, got {value!r:.60}")
    return PyCode(f"0x{value:0{digits}X}")


def _ident(value: object) -> Code:
    """A Python name: ASCII, not a keyword (checked, never escaped: a bad name is an error)."""
    return _typed_as(value, Identifier, Identifier)


def _cpp_ident(value: object) -> Code:
    """A name that stands bare in C++: an ``ident`` that is not a C++ keyword either."""
    return _typed_as(value, CppIdentifier, CppIdentifier)


def _dotted(value: object) -> Code:
    """A dotted module path: identifiers joined by dots."""
    return _typed_as(value, DottedPath, DottedPath)


def _comment(value: object) -> Code:
    """Free text after ``#`` or ``//``: one printable line that cannot end the comment."""
    return _typed_as(value, Comment, Comment)


def _doc(value: object) -> Code:
    """Free text inside a Python docstring (a comment line, backslashes and quotes escaped)."""
    return _typed_as(value, DocText, DocText)


def _cpp_str(value: object) -> Code:
    """A str as a C++ string literal (UTF-8, every byte outside printable ASCII escaped)."""
    return _typed_as(value, CppString, CppString)


def _toml_str(value: object) -> Code:
    """A str as a TOML basic string (pyproject.toml values)."""
    return _typed_as(value, TomlString, TomlString)


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


def _cpp_int(value: object, ctype: str = "int") -> Code:
    """An int as a C++ integer literal, range-checked for ``ctype``."""
    return CppInt(value, ctype)


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


# What a Python container may hold besides plain data: typed values whose text is Python.
_PY_ELEMENTS = (PyLiteral, PyCode, PyMessage, Identifier, DottedPath)


def _py_element(value: object) -> Code:
    """One element of a Python tuple or dict: a typed Python value as it is, plain data as its
    literal (a comment, C++ or TOML text in a Python container is an error, not text)."""
    if isinstance(value, jinja2.Undefined):
        value._fail_with_undefined_error()
    if isinstance(value, Code) and not isinstance(value, _PY_ELEMENTS):
        raise CodegenValueError(f"a {type(value).__name__} is not Python code ({value!r:.60})")
    return value if isinstance(value, Code) else PyLiteral(value)


def _elements(values: object, what: str) -> list[object]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise CodegenValueError(
            f"{what} takes a sequence, got {type(values).__name__} {values!r:.60}"
        )
    return list(values)  # type: ignore[call-overload]


def _py_tuple(values: object, members_of: str = "") -> Code:
    """A Python tuple expression of the elements: ``()``, ``(a,)`` or ``(a, b)``. With
    ``members_of``, each element is a member name of that class: ``(Layout.NHD,)``."""
    items = _elements(values, "py_tuple")
    if members_of:
        owner = Identifier(members_of)
        parts = [PyCode.format("{}.{}", owner, _ident(item)) for item in items]
    else:
        parts = [_py_element(item) for item in items]
    return PyCode.format("({},)" if len(parts) == 1 else "({})", PyCode.join(", ", parts))


def _py_dict(pairs: object) -> Code:
    """A Python dict display of a mapping or of (key, value) pairs, in their order; each key and
    value is a typed Python value or plain data (printed as its literal)."""
    items = list(pairs.items()) if isinstance(pairs, dict) else _elements(pairs, "py_dict")
    entries = []
    for pair in items:
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise CodegenValueError(f"py_dict takes (key, value) pairs, got {pair!r:.60}")
        entries.append(PyCode.format("{}: {}", _py_element(pair[0]), _py_element(pair[1])))
    return PyCode.format("{{{}}}", PyCode.join(", ", entries))


def _refuse(name: str):
    def refuse(*args: object, **kwargs: object):
        raise TemplateValueError(f"the {name} filter makes untyped text; not allowed in templates")

    return refuse


def _defined(language_filter):
    """A misspelt attribute reaches a filter as StrictUndefined, which an isinstance check does
    not trip: raise Jinja's own 'has no attribute' error for it instead of 'not a str'."""

    @functools.wraps(language_filter)
    def checked(value: object, *args: object, **kwargs: object) -> Code:
        if isinstance(value, jinja2.Undefined):
            value._fail_with_undefined_error()
        return language_filter(value, *args, **kwargs)

    return checked


LANGUAGE_FILTERS = {
    name: _defined(language_filter)
    for name, language_filter in {
        "py": _py,
        "py_str": _py_str,
        "py_hex": _py_hex,
        "py_tuple": _py_tuple,
        "py_dict": _py_dict,
        "ident": _ident,
        "cpp_ident": _cpp_ident,
        "dotted": _dotted,
        "comment": _comment,
        "doc": _doc,
        "cpp": _cpp,
        "cpp_int": _cpp_int,
        "cpp_hex": _cpp_hex,
        "cpp_str": _cpp_str,
        "toml_str": _toml_str,
    }.items()
}


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


# The templates compiled to Python modules, shipped in the package (python -m
# dsv41gen.emit.precompile writes them): a build with no cache at all then compiles no template,
# which was a third of its time. STAMP.json holds the digest of what they were compiled from.
PRECOMPILED_DIR = Path(__file__).resolve().parent / "precompiled"
STAMP = "STAMP.json"


def templates_digest() -> str:
    """What compiled templates depend on: every template's name and text, this module (the
    environment's settings, the TypedOutput rewrite), the typed values, and Jinja's release
    (its compiled code calls its own runtime)."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256(jinja2.__version__.encode() + b"\0")
    for source in (package / "emit" / "render.py", package / "plan" / "values.py"):
        digest.update(source.read_bytes() + b"\0")
    root = templates_dir()
    for template in sorted(root.rglob("*.j2")):
        digest.update(template.relative_to(root).as_posix().encode() + b"\0")
        digest.update(template.read_bytes() + b"\0")
    return digest.hexdigest()


def _precompiled_loader() -> jinja2.BaseLoader | None:
    """The shipped compiled templates, only if they were compiled from exactly the templates
    and code here; a stale set (a template edited, added or removed since, another Jinja) is
    never used: the templates are then compiled from source."""
    import json

    try:
        stamp = json.loads((PRECOMPILED_DIR / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(stamp, dict) or stamp.get("digest") != templates_digest():
        return None
    return jinja2.ModuleLoader(str(PRECOMPILED_DIR))


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The render environment: the shipped compiled templates when they are current, else the
    templates compiled from source (through the bytecode cache)."""
    loader = _precompiled_loader()
    if loader is not None:
        return _configured(loader, bytecode_cache=None)
    return source_environment()


def source_environment() -> jinja2.Environment:
    """The environment that compiles the templates from source (what precompile compiles)."""
    return _configured(
        jinja2.FileSystemLoader(str(templates_dir())), bytecode_cache=_bytecode_cache()
    )


def _configured(
    loader: jinja2.BaseLoader, bytecode_cache: jinja2.BytecodeCache | None
) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=loader,
        bytecode_cache=bytecode_cache,
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
        join=_join,
        **LANGUAGE_FILTERS,
    )
    return env


def render(template_name: str, **context: object) -> str:
    """Render one template with the given plan objects. (Kernel sources are never rendered nor
    copied: generated code compiles and imports them from the installed dsv41gen.)"""
    return render_template(environment().get_template(template_name), **context)


def render_template(template: jinja2.Template, **context: object) -> str:
    """Render a compiled template; a value a language filter refuses is an internal error
    naming the template, line and expression."""
    try:
        return template.render(**context)
    except CodegenValueError as error:
        raise TemplateValueError(f"{_failed_at(template, error)}: {error}") from error


def _failed_at(template: jinja2.Template, error: Exception) -> str:
    """Where in the template a filter refused a value: Jinja maps the traceback's template
    frames to template lines, and the line's ``{{ }}`` names the expression."""
    filename = template.filename or "<template>"
    line = 0
    traceback = error.__traceback__
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename == filename:
            line = traceback.tb_lineno
        traceback = traceback.tb_next
    where = f"templates/{template.name}"
    if not line:
        return where
    loader = template.environment.loader
    if not getattr(loader, "has_source_access", True):  # a precompiled template: read its source
        loader = jinja2.FileSystemLoader(str(templates_dir()))
    source = loader.get_source(template.environment, template.name)[0]
    lines = source.splitlines()
    expressions = _PRINTED.findall(lines[line - 1]) if line <= len(lines) else []
    shown = ", ".join(f"{{{{ {e} }}}}" for e in expressions)
    return f"{where}:{line}" + (f": {shown}" if shown else "")


_PRINTED = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}")


def render_files(files, spec_files_of, settings, license_header: tuple[str, ...]) -> dict[str, str]:
    """Render each planned file, format it (format.FormatSettings: the consumer's formatter
    configuration), and put the license lines and the dsv41gen header on top (naming
    ``spec_files_of(output)``, the specs the file comes from)."""
    from .format import clang_format_column_limit, format_sources, is_cpp, prose_width
    from .write import make_header

    bodies = format_sources(
        {output.path: render(output.template, **dict(output.context)) for output in files},
        settings,
    )
    cpp_width = clang_format_column_limit(settings) if any(is_cpp(o.path) for o in files) else 0
    py_width = prose_width(settings) if any(o.path.endswith(".py") for o in files) else 0
    return {
        output.path: make_header(
            output.comment_prefix,
            spec_files_of(output),
            bodies[output.path],
            license_header=license_header,
            width=_header_width(output.path, cpp_width, py_width),
        )
        + bodies[output.path]
        for output in files
    }


def _header_width(path: str, cpp_width: int, py_width: int) -> int:
    """The line limit the header must fit (0: none): clang-format's ColumnLimit for C++ (it
    would reflow a longer comment), the consumer's ruff line length for Python (E501)."""
    from .format import is_cpp

    if is_cpp(path):
        return cpp_width
    return py_width if path.endswith(".py") else 0
