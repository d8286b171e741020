"""Prose that fits the consumer's line length: comments, docstrings and long string literals.

`ruff format` splits code to the consumer's line length but never touches prose: a comment, a
docstring or a message literal longer than the line stays as long as it was written. So after
the formatter, every line of a formatted Python file that is longer than the consumer's limit
(E501's ``line-length`` / ``max-line-length``, see ``format.prose_width``) is wrapped here:

- a block of ``#`` comment lines is refilled to the width (textwrap), a trailing comment that
  makes its line too long moves above that line;
- a docstring paragraph is refilled, its indentation and its closing quotes kept;
- a string literal is split at its spaces into adjacent literals, one per line (inside the
  brackets it already stands in, or in parentheses of its own), so its value stays the same
  byte for byte: messages that tests compare with vLLM's text keep their text.

Only a paragraph, block or literal that has a line over the limit is touched: text that fits is
left as its author wrapped it. Pragmas (``# noqa``, ``# type: ignore``, ...), indented blocks in
docstrings and words longer than a line are never split. The module is pure (no formatter, no
I/O); the format stage runs the formatter again on what changed.

Every pass proposes edits (rows and the rows that replace them), and an edit is kept only when
the module still parses to the same syntax tree, docstring whitespace aside: an edit that would
not (a bug here) leaves its rows as the formatter wrote them, valid and merely long. Wrapping is
layout, so it never fails the build.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import textwrap
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

_PRAGMA = re.compile(
    r"#\s*(noqa|type:|pyright:|pragma|fmt:|ruff:|isort:|mypy:|pylint:|-\*-|!)", re.IGNORECASE
)
_LIST_ITEM = re.compile(r"(?:[-*+]|\d+[.)])\s+")
_STRING_PREFIX = re.compile(r"([A-Za-z]*)(['\"])")
_MARK_FILE = re.compile(r"spec: [\w.-]+\.yaml")  # a source-map mark, up to its field
_GLUE = "\x00"  # joins a mark's words while textwrap fills (no generated text holds NUL)
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12+ splits f-strings
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)


_Edit = tuple[int, int, list[str]]  # first row, last row (1-based, inclusive), their new rows


def wrap_python(source: str, width: int) -> str:
    """``source`` (formatted Python) with its prose wrapped to ``width`` columns; a text that
    does not parse is returned as it is (the formatter has already said why)."""
    if width <= 0 or not any(_too_long(line, width) for line in source.splitlines()):
        return source
    meaning = _meaning(source)
    if meaning is None:
        return source
    text = source
    for step in (_wrap_docstrings, _wrap_comments, _split_strings):
        text = _applied(text, _proposed(step, text, width), meaning)
    return text


def _proposed(step, text: str, width: int) -> list[_Edit]:
    """What a pass would change. A pass that fails proposes nothing: wrapping is layout, and a
    bug in it must cost the consumer a long line, not the build (its tests find the bug)."""
    try:
        return step(text, width)
    except Exception:  # noqa: BLE001 - any failure of a pass: keep the formatter's text
        return []


def _applied(text: str, edits: list[_Edit], meaning: str) -> str:
    """``text`` with ``edits`` (on rows no two share) made, but only those that keep its
    syntax tree ``meaning``: all at once when they do together, else one by one."""
    lines = text.splitlines(keepends=True)
    together = _replaced(lines, edits)
    if not edits or _meaning(together) == meaning:
        return together
    kept: list[_Edit] = []
    for edit in edits:
        if _meaning(_replaced(lines, [*kept, edit])) == meaning:
            kept.append(edit)
    return _replaced(lines, kept)


def _replaced(lines: list[str], edits: list[_Edit]) -> str:
    out = list(lines)
    for first, last, replacement in sorted(edits, key=lambda edit: edit[0], reverse=True):
        out[first - 1 : last] = replacement  # bottom up: earlier row numbers hold
    return "".join(out)


def _too_long(line: str, width: int) -> bool:
    return len(line.rstrip("\n")) > width


def _meaning(source: str) -> str | None:
    """The module's syntax tree with docstrings' whitespace runs made single spaces; None
    when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte
        return None
    for node in ast.walk(tree):
        doc = _docstring_node(node)
        if doc is not None:
            doc.value = " ".join(doc.value.split())
    return ast.dump(tree)


def _docstring_node(node: ast.AST) -> ast.Constant | None:
    if not isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        constant = body[0].value
        return constant if isinstance(constant.value, str) else None
    return None


# --- textwrap, the way every pass fills its lines ------------------------------------------


def _fill(words: str, width: int, first: str, rest: str) -> list[str]:
    """words filled to width, the first line starting with ``first``, the others with
    ``rest``. A word longer than a line stands alone on its line, unbroken, except the field
    of a source-map mark (``spec: <file> <field>``): that breaks after a dot, and ``dsv41gen
    why`` joins it again."""
    glued = _MARK_FILE.sub(lambda mark: mark[0].replace(" ", _GLUE), words)
    lines = textwrap.wrap(
        glued,
        width=width,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=False,
        break_on_hyphens=False,
    )
    lines = [line.replace(_GLUE, " ") for line in lines] or [first.rstrip()]
    if _MARK_FILE.search(words):
        lines = [part for line in lines for part in _broken_at_dots(line, width, rest)]
    return lines


def _broken_at_dots(line: str, width: int, rest: str) -> list[str]:
    """A line over the width whose last word is a dotted field, broken after its dots."""
    head, _, word = line.rpartition(" ")
    if len(line) <= width or "." not in word or len(head) >= width:
        return [line]
    cut = word.rfind(".", 0, max(width - len(head) - 1, 1)) + 1
    if cut <= 0:
        return [line]
    start = head + " " if head else ""
    return [start + word[:cut], *_broken_at_dots(rest + word[cut:], width, rest)]


# --- docstrings -----------------------------------------------------------------------------


_OPENING = re.compile(r"(\s*)([rRuU]?)(\"\"\"|''')")


def _wrap_docstrings(source: str, width: int) -> list[_Edit]:
    lines = source.splitlines(keepends=True)
    edits = []
    for node in ast.walk(ast.parse(source)):
        doc = _docstring_node(node)
        if doc is None or doc.end_lineno is None:
            continue
        block = lines[doc.lineno - 1 : doc.end_lineno]
        if any(_too_long(line, width) for line in block):
            edits.append((doc.lineno, doc.end_lineno, _rewrapped_docstring(block, width)))
    return edits


def _rewrapped_docstring(block: list[str], width: int) -> list[str]:
    opening = _OPENING.match(block[0])
    if opening is None or not block[-1].rstrip().endswith(opening[3]):
        return block  # not a triple-quoted docstring alone on its lines
    indent, quotes = opening[1], opening[3]
    head = opening[0][len(indent) :]
    body = "".join(block).rstrip()
    if "\\\n" in body:
        return block  # a backslash-newline joins lines: refilling would change the text
    rows = body[opening.end() : -len(quotes)].split("\n")
    closing_own_line = len(rows) > 1 and not rows[-1].strip()
    if closing_own_line:
        rows.pop()
    texts = [rows[0]] + [row[len(indent) :] if row.startswith(indent) else row for row in rows[1:]]
    out: list[str] = []
    paragraphs = list(_paragraphs(texts))
    for index, (start, stop, hang) in enumerate(paragraphs):
        prefix = indent + head if start == 0 else indent
        closes = index == len(paragraphs) - 1 and not closing_own_line
        shown = [prefix + texts[start]] + [indent + text for text in texts[start + 1 : stop]]
        if closes:
            shown[-1] += quotes
        if hang is None or not any(len(line) > width for line in shown):
            out.extend(shown)
            continue
        words = " ".join(text.strip() for text in texts[start:stop]) + (quotes if closes else "")
        lead = " " * _indentation(texts[start])
        out.extend(_fill(words, width, prefix + lead, indent + " " * hang))
    if closing_own_line:
        out.append(indent + quotes)
    return [line.rstrip() + "\n" for line in out]


def _indentation(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _paragraphs(texts: list[str]) -> Iterator[tuple[int, int, int | None]]:
    """(start, stop, hanging indent) of each run of docstring lines filled as one; the hanging
    indent is None for a line kept as it is (blank, in an indented block, a doctest, a
    directive). A list item's run takes the lines indented under its text."""
    i = 0
    while i < len(texts):
        if _verbatim(texts[i], i):
            yield i, i + 1, None
            i += 1
            continue
        item = _LIST_ITEM.match(texts[i].lstrip(" "))
        hang = _indentation(texts[i]) + (item.end() if item else 0)
        j = i + 1
        while j < len(texts) and _continues(texts[j], hang):
            j += 1
        yield i, j, hang
        i = j


def _special(stripped: str) -> bool:
    return stripped.startswith((">>>", "..", "|")) or stripped.endswith("::")


def _continues(text: str, hang: int) -> bool:
    stripped = text.strip()
    return (
        bool(stripped)
        and _indentation(text) == hang
        and not _LIST_ITEM.match(stripped)
        and not _special(stripped)
    )


def _verbatim(text: str, index: int) -> bool:
    stripped = text.strip()
    indented = index > 0 and _indentation(text) > 0 and not _LIST_ITEM.match(stripped)
    return not stripped or _special(stripped) or indented


# --- comments -------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Comment:
    row: int  # 1-based
    col: int
    text: str
    own_line: bool


def _tokens(source: str) -> list[tokenize.TokenInfo]:
    return list(tokenize.generate_tokens(io.StringIO(source).readline))


def _continued_rows(tokens: list[tokenize.TokenInfo]) -> set[int]:
    """Rows that begin inside a token started on an earlier row (a multi-line string)."""
    rows: set[int] = set()
    for token in tokens:
        if token.end[0] > token.start[0]:
            rows.update(range(token.start[0] + 1, token.end[0] + 1))
    return rows


def _wrap_comments(source: str, width: int) -> list[_Edit]:
    lines = source.splitlines(keepends=True)
    tokens = _tokens(source)
    continued = _continued_rows(tokens)
    comments = [
        _Comment(t.start[0], t.start[1], t.string, not lines[t.start[0] - 1][: t.start[1]].strip())
        for t in tokens
        if t.type == tokenize.COMMENT
    ]
    edits: list[tuple[int, int, list[str]]] = []  # (first row, last row, replacement lines)
    for block in _comment_blocks([c for c in comments if c.own_line]):
        if any(_too_long(lines[c.row - 1], width) for c in block):
            edits.append((block[0].row, block[-1].row, _refilled(block, width)))
    for comment in comments:
        line = lines[comment.row - 1]
        if comment.own_line or not _too_long(line, width) or _PRAGMA.match(comment.text):
            continue
        previous = lines[comment.row - 2] if comment.row > 1 else ""
        if comment.row in continued or previous.rstrip().endswith("\\"):
            continue  # no line can go above this one
        indent = line[: len(line) - len(line.lstrip())]
        words = comment.text[1:].strip()
        above = [ln + "\n" for ln in _fill(words, width, indent + "# ", indent + "# ")]
        edits.append((comment.row, comment.row, [*above, line[: comment.col].rstrip() + "\n"]))
    return edits


def _comment_blocks(comments: list[_Comment]) -> Iterator[list[_Comment]]:
    """Runs of own-line comments on consecutive rows at one column, split at an empty ``#``
    line, before a list item and around a source-map mark; pragmas are never refilled."""
    block: list[_Comment] = []
    for comment in comments:
        body = comment.text[1:].strip()
        breaks = (
            not block
            or comment.row != block[-1].row + 1
            or comment.col != block[0].col
            or _LIST_ITEM.match(body)
            or _PRAGMA.match(block[-1].text)
            or _is_mark(body)
            or _is_mark(block[-1].text[1:].strip())
        )
        if breaks and block:
            yield block
            block = []
        if not body or _PRAGMA.match(comment.text) or not comment.text.startswith("# "):
            continue  # kept as it is
        block.append(comment)
    if block:
        yield block


def _is_mark(body: str) -> bool:
    """A source-map comment (``spec: <file> <field>``): a paragraph of its own."""
    return _MARK_FILE.match(body) is not None


def _refilled(block: list[_Comment], width: int) -> list[str]:
    indent = " " * block[0].col
    first = block[0].text[1:].strip()
    item = _LIST_ITEM.match(first)
    hang = " " * (item.end() if item else 0)
    words = " ".join(c.text[1:].strip() for c in block)
    return [line + "\n" for line in _fill(words, width, indent + "# ", indent + "# " + hang)]


# --- string literals ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Literal:
    row: int
    start: int  # the columns of its first character and one past its last
    end: int
    depth: int  # how many brackets it stands in
    first_on_row: bool
    joined_before: bool  # a literal just before it, on any row: an implicit concatenation
    joined_after: bool  # a literal just after it
    beside_string: bool  # joined to a literal on its own row
    in_collection: bool  # an item of a tuple, list, set or dict display

    @property
    def joined(self) -> bool:
        """Part of a longer implicit concatenation: parentheses around this literal alone
        would cut it off from its neighbours (``("a" "b") "c"`` does not parse, and
        ``"a" ("b" "c")`` is a call)."""
        return self.joined_before or self.joined_after


_NOT_CODE = frozenset(
    {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
)


@dataclass
class _Bracket:
    """An open bracket: whether it makes a collection (a tuple once it holds a comma)."""

    kind: str  # "call" (call or subscript brackets), "group" (parentheses), "display"
    commas: int = 0

    @property
    def collection(self) -> bool:
        return self.kind == "display" or (self.kind == "group" and self.commas > 0)


def _bracket(opening: str, previous: tokenize.TokenInfo | None) -> _Bracket:
    """What an opening bracket makes, from the token before it: after a name (not a keyword)
    or a closing bracket it calls or subscripts, otherwise it groups or displays."""
    follows_value = previous is not None and (
        (previous.type == tokenize.NAME and not keyword.iskeyword(previous.string))
        or previous.string in (")", "]")
        or previous.type == tokenize.STRING
    )
    if follows_value and opening in "([":
        return _Bracket("call")
    return _Bracket("group" if opening == "(" else "display")


@dataclass
class _Found:
    """A literal while the tokens are read: what comes after it is not known yet."""

    row: int
    start: int
    end: int
    brackets: list[_Bracket]
    first_on_row: bool
    joined_before: bool
    same_row_before: bool
    joined_after: bool = False
    same_row_after: bool = False


def _literals(tokens: list[tokenize.TokenInfo]) -> list[_Literal]:
    """Every string literal on one row (an f-string is one literal on every Python, though
    3.12 tokenizes its parts)."""
    found: list[_Found] = []
    open_brackets: list[_Bracket] = []
    previous: tokenize.TokenInfo | None = None
    previous_found: _Found | None = None  # the literal that is the previous code token
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == tokenize.OP and token.string in ("(", "[", "{"):
            open_brackets.append(_bracket(token.string, previous))
        elif token.type == tokenize.OP and token.string in (")", "]", "}") and open_brackets:
            open_brackets.pop()
        elif token.type == tokenize.OP and token.string == "," and open_brackets:
            open_brackets[-1].commas += 1
        start, end = token.start, token.end
        if token.type == _FSTRING_START:
            nested = 1
            while nested:
                i += 1
                nested += (tokens[i].type == _FSTRING_START) - (tokens[i].type == _FSTRING_END)
            end = tokens[i].end
        is_string = token.type in (tokenize.STRING, _FSTRING_START)
        joined = is_string and previous is not None and previous.type == tokenize.STRING
        same_row = joined and previous is not None and previous.end[0] == start[0]
        if joined and previous_found is not None:
            previous_found.joined_after = True
            previous_found.same_row_after = same_row
        if token.type not in _NOT_CODE:
            previous_found = None
        if is_string and start[0] == end[0]:
            first = previous is None or start[0] != previous.end[0]
            previous_found = _Found(
                start[0], start[1], end[1], list(open_brackets), first, joined, same_row
            )
            found.append(previous_found)
        if token.type not in _NOT_CODE:
            previous = (
                token if token.type != _FSTRING_START else tokens[i]._replace(type=tokenize.STRING)
            )
        i += 1
    return [  # a bracket's commas are all counted now: a tuple is known by its first item
        _Literal(
            f.row,
            f.start,
            f.end,
            len(f.brackets),
            f.first_on_row,
            f.joined_before,
            f.joined_after,
            f.same_row_before or f.same_row_after,
            bool(f.brackets) and f.brackets[-1].collection,
        )
        for f in found
    ]


def _split_strings(source: str, width: int) -> list[_Edit]:
    lines = source.splitlines(keepends=True)
    literals = _literals(_tokens(source))
    edits: dict[int, tuple[int, list[str]]] = {}  # first row: (last row, its new rows)
    in_runs: set[int] = set()
    for run in _concatenations(literals, lines):
        rows = [literal.row for literal in run]
        in_runs.update(rows)
        if any(_too_long(lines[row - 1], width) for row in rows):
            refilled = _refilled_run(run, lines, width)
            if refilled is not None:
                edits[rows[0]] = (rows[-1], refilled)
    longest: dict[int, _Literal] = {}  # per other row over the limit, its longest literal
    for literal in literals:
        if literal.row in in_runs or not _too_long(lines[literal.row - 1], width):
            continue
        best = longest.get(literal.row)
        if best is None or literal.end - literal.start > best.end - best.start:
            longest[literal.row] = literal
    for row, literal in longest.items():
        replacement = _split_literal(lines[row - 1], literal, width)
        if replacement is not None:
            edits[row] = (row, replacement)
    return [(first, last, replacement) for first, (last, replacement) in edits.items()]


def _concatenations(literals: list[_Literal], lines: list[str]) -> Iterator[list[_Literal]]:
    """Runs of literals concatenated one per row at one column, inside brackets: each row but
    the last holds the literal alone."""
    run: list[_Literal] = []
    for literal in literals:
        alone = literal.first_on_row and literal.depth > 0 and not literal.beside_string
        bare = alone and not lines[literal.row - 1][literal.end :].strip()
        follows = (
            run
            and literal.row == run[-1].row + 1
            and literal.start == run[0].start
            and not lines[run[-1].row - 1][run[-1].end :].strip()
        )
        if alone and follows:
            run.append(literal)
            continue
        if len(run) > 1:
            yield run
        run = [literal] if bare else []
    if len(run) > 1:
        yield run


def _refilled_run(run: list[_Literal], lines: list[str], width: int) -> list[str] | None:
    """A run of concatenated literals as one, split again to the width; None when its parts
    differ in kind (raw or bytes, or their quotes)."""
    parts = []
    for literal in run:
        text = lines[literal.row - 1][literal.start : literal.end]
        prefix = _STRING_PREFIX.match(text)
        if prefix is None or text[len(prefix[1]) :].startswith(prefix[2] * 3):
            return None
        parts.append((prefix[1], prefix[2], text[len(prefix[0]) : -1]))
    kinds = {(frozenset(letters.lower()) - {"f"}, quote) for letters, quote, _ in parts}
    if len(kinds) > 1:
        return None
    formatted = [letters for letters, _, _ in parts if "f" in letters.lower()]
    letters = formatted[0] if formatted else parts[0][0]
    body = "".join(
        text if "f" in own.lower() or not formatted else text.replace("{", "{{").replace("}", "}}")
        for own, _, text in parts
    )
    opening = letters + parts[0][1]
    last = lines[run[-1].row - 1]
    head = last[: run[-1].start]
    tail = last[run[-1].end :].rstrip("\n")
    grouped = run[-1].in_collection and not (run[0].joined_before or run[-1].joined_after)
    pieces = _pieces(
        opening + body + parts[0][1], opening, width - len(head) - 4 * grouped, len(tail)
    )
    return _stacked(head, pieces, tail, grouped)


def _stacked(head: str, pieces: list[str], tail: str, grouped: bool) -> list[str]:
    """Concatenated pieces one per row at the column ``head`` ends at, ``tail`` after the
    last; in parentheses of their own where they are an item of a collection (ruff's ISC004:
    there a forgotten comma looks the same)."""
    if grouped:
        inner = head + "    "
        return [head + "(\n", *(inner + piece + "\n" for piece in pieces), head + ")" + tail + "\n"]
    return [head + piece + "\n" for piece in pieces[:-1]] + [head + pieces[-1] + tail + "\n"]


def _split_literal(line: str, literal: _Literal, width: int) -> list[str] | None:
    """The row ``line`` with ``literal`` split into adjacent literals, one per row; None when
    it cannot be split (no space to split at, triple quotes, part of a concatenation)."""
    text = line[literal.start : literal.end]
    prefix = _STRING_PREFIX.match(text)
    if prefix is None or text[len(prefix[1]) :].startswith(prefix[2] * 3):
        return None
    head = line[: literal.start]
    tail = line[literal.end :].rstrip("\n")
    grouped = literal.in_collection and not literal.joined
    if literal.first_on_row and literal.depth > 0:  # a row of its own in brackets: stay there
        pieces = _pieces(text, prefix[0], width - len(head) - 4 * grouped, len(tail))
        if len(pieces) < 2:
            return None
        return _stacked(head, pieces, tail, grouped)
    if literal.joined and literal.depth == 0:
        return None  # a concatenation continued by a backslash: no row may be added to it
    indent = " " * _indentation(line)
    inner = indent + "    "
    pieces = _pieces(text, prefix[0], width - len(inner), 0)
    in_brackets = head.rstrip().endswith(("(", "[", "{", ","))
    # a literal after other code on its row in brackets (`else 'text'`) fits once it has a row of
    # its own, even when it is one piece
    moves_down = literal.depth > 0 and not in_brackets and head.strip()
    if len(pieces) < 2 and not (moves_down and len(inner + pieces[0]) <= width):
        return None
    rows = [inner + piece + "\n" for piece in pieces]
    if literal.depth > 0 and (literal.joined or (in_brackets and not grouped)):
        # in brackets already: the pieces go on rows of their own, bare (a joined literal's
        # pieces join its neighbours), and the formatter lays them out
        closing = [indent + tail.lstrip() + "\n"] if tail.strip() else []
        return [head.rstrip() + "\n", *rows, *closing]
    return [head + "(\n", *rows, indent + ")" + tail + "\n"]


def _pieces(text: str, opening: str, room: int, last_extra: int) -> list[str]:
    """``text`` (one literal; ``opening``, its prefix and quote) as literals of at most
    ``room`` characters (the last one ``last_extra`` fewer), split after spaces outside any
    f-string field and escape (each piece but the last ends with its space); where no space
    is left to split at, between two fields, and last after a punctuation mark inside a word
    longer than the line."""
    quote = opening[-1]
    body = text[len(opening) : -1]
    choices = _cut_points(body, "f" in opening.lower())
    overhead = len(opening) + 1
    pieces: list[str] = []
    start = 0
    while True:
        later = [cut for cuts in choices for cut in cuts if cut > start]
        if len(body) - start + overhead + last_extra <= room or not later:
            pieces.append(body[start:])
            break
        fitting = next(
            (
                fit
                for cuts in choices
                if (fit := [c for c in cuts if start < c <= start + room - overhead])
            ),
            [],
        )
        cut = max(fitting) if fitting else min(later)
        pieces.append(body[start:cut])
        start = cut
    if "f" in opening.lower() and _has_field(body):
        return [_literal_of(opening, piece) for piece in pieces]
    return [opening + piece + quote for piece in pieces]


def _literal_of(opening: str, body: str) -> str:
    """A piece of an f-string as a literal: a plain one when it holds no field (as a careful
    author writes it, and what ruff's F541 asks for)."""
    if _has_field(body):
        return opening + body + opening[-1]
    plain = opening.replace("f", "").replace("F", "")
    return plain + body.replace("{{", "{").replace("}}", "}") + opening[-1]


# A long literal (a 900 kB message) was walked one character at a time by these two, in
# Python: most of a build's minutes. They jump over what cannot matter instead. \w is exactly
# str.isalnum() or "_" (the characters _cut_points passes over outside a field).
_ESCAPE_OR_BRACE = re.compile(r"[\\{}]")
_WORD_RUN = re.compile(r"\w+")


def _has_field(body: str) -> bool:
    """Whether an f-string's body holds a replacement field (``{{`` is a brace, not one)."""
    i = 0
    # from one backslash or brace to the next: every other character only moves on by one
    while (special := _ESCAPE_OR_BRACE.search(body, i)) is not None:
        i = special.start()
        if body.startswith("\\N{", i):
            i = body.find("}", i) + 1 or len(body)
        elif body.startswith(("{{", "}}"), i) or body[i] == "\\":
            i += 2
        elif body[i] == "{":
            return True
        else:
            i += 1
    return False


def _cut_points(body: str, formatted: bool) -> tuple[list[int], list[int], list[int]]:
    r"""Where in a literal's body a piece may end, best first: just after a space; just after
    a field that another field follows; just after another punctuation mark. Never in an
    escape (``\N{...}`` included) nor in a field."""
    spaces: list[int] = []
    fields: list[int] = []
    marks: list[int] = []
    depth = 0
    i = 0
    while i < len(body):
        if depth == 0 and (word := _WORD_RUN.match(body, i)) is not None:
            i = word.end()  # letters, digits and "_" outside a field are never a cut point
            continue
        char = body[i]
        if char == "\\":
            named = body.startswith("N{", i + 1) and body.find("}", i) > 0
            i = body.find("}", i) + 1 if named else i + 2
            continue
        if formatted and depth == 0 and body.startswith(("{{", "}}"), i):
            i += 2
            continue
        if formatted and char in "{}":
            depth += 1 if char == "{" else -1
            if depth == 0 and body.startswith("{", i + 1) and not body.startswith("{{", i + 1):
                fields.append(i + 1)
        elif formatted and depth > 0 and char in "'\"":
            close = body.find(char, i + 1)
            i = close + 1 if close > 0 else len(body)
            continue
        elif char == " " and depth == 0 and i + 1 < len(body):
            spaces.append(i + 1)
        elif depth == 0 and not char.isalnum() and char not in "_{}" and i + 1 < len(body):
            marks.append(i + 1)
        i += 1
    return spaces, fields, marks
