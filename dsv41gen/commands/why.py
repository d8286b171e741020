"""`dsv41gen why GENERATED_FILE:LINE`: which spec field, at which file:line, and which planner
rule produced a generated line.

Generated files carry source-map comments (``# spec: deepseek_v41.yaml
attention_backends.X.kernel_block_sizes``); this follows the nearest one at or above the line
back to the spec, and names the rule from the plan that emitted the file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..emit.write import MAX_GENERATED_BYTES, read_header  # `why` reads nothing larger, no FIFO
from ..errors import Diagnostics, Location, UsageError
from ..spec.load import load_document

_SPEC_COMMENT = re.compile(r"spec: (?P<file>[\w.-]+\.yaml)\s+(?P<field>[\w.\-]*\w)")
_FIELD_MENTION = re.compile(
    r"\b(?P<field>(?:variant|architectures|checkpoint|hf_config|speculative|attention_backends|kv_cache|runner|"
    r"quantization|kernels)\.[\w.]*\w)"
)


@dataclass(frozen=True)
class Why:
    path: str
    line: int
    text: str
    field: str | None
    location: Location | None
    comment_line: int | None
    rule: str
    template: str


def _parse_target(target: str) -> tuple[Path, int]:
    path, _, line = target.rpartition(":")
    # ASCII digits only ('²' is a digit to str.isdigit), and few of them: int() refuses more
    # than 4,300, and no generated file has a billion lines
    if not path or not (line.isascii() and line.isdigit()) or len(line) > 9 or int(line) < 1:
        raise UsageError(
            f"expected GENERATED_FILE:LINE, got {target!r} (e.g. generated/deepseek_v4/backends.py:64)"
        )
    return Path(path), int(line)


def _spec_paths(generated: Path, text: str) -> list[Path]:
    """The specs named in the header (or, where they did not fit the formatter's line limit, in
    the package's MANIFEST), relative to the output directory's parent."""
    from ..emit.fastpath import MANIFEST

    header = read_header(text)
    specs = header.specs if header is not None else None
    if header is not None and specs is None:
        manifest = read_header(_read(_package_dir(generated) / MANIFEST))
        specs = manifest.specs if manifest is not None else None
    if specs is None:
        raise UsageError(f"{generated}: no dsv41gen header naming its specs")
    # generated/<package>/... : specs are named relative to the output directory's parent
    base = _package_dir(generated).parent.parent
    return [_spec_inside(base, name, generated) for name in specs]


def _spec_inside(base: Path, name: str, generated: Path) -> Path:
    """A spec the header names, inside the repository (the output directory's parent) once
    symlinks are followed. The header is text a pull request controls: `why` must not read,
    and echo values of, YAML files elsewhere on the machine."""
    pure = PurePosixPath(name)
    path = base.joinpath(*pure.parts)
    inside = (
        name.endswith(".yaml")
        and not pure.is_absolute()
        and ".." not in pure.parts
        and "\\" not in name
        and path.resolve().is_relative_to(base.resolve())
    )
    if not inside:
        raise UsageError(
            f"{generated}: its header names the spec {name!r}, which is not a spec file inside "
            f"the repository ({base}); `why` reads only those. The header is not what dsv41gen "
            "writes: regenerate the file with `dsv41gen build`"
        )
    return path.resolve()


def _read(path: Path) -> str:
    from ..spec.load import SpecReadError, read_regular_bytes

    try:
        data = read_regular_bytes(path, MAX_GENERATED_BYTES)
    except OSError as error:
        raise UsageError(f"cannot read {path}: {error.strerror or error}") from error
    except SpecReadError as error:
        raise UsageError(f"cannot read {path}: {error}") from error
    if data is None:
        raise UsageError(f"{path} is larger than {MAX_GENERATED_BYTES} bytes: not a generated file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{path} is not UTF-8 text: not a generated file") from error


def _package_dir(generated: Path) -> Path:
    """The family package holding a generated file: the nearest directory with a MANIFEST."""
    from ..emit.fastpath import MANIFEST

    directory = generated.resolve().parent
    while directory.parent != directory:
        if (directory / MANIFEST).is_file():
            return directory
        directory = directory.parent
    raise UsageError(f"{generated}: not inside a generated package (no {MANIFEST} above it)")


def _package_relative(generated: Path) -> str:
    package_dir = _package_dir(generated)
    return f"{package_dir.name}/{generated.resolve().relative_to(package_dir).as_posix()}"


def explain_line(target: str) -> Why:
    generated, number = _parse_target(target)
    text = _read(generated)
    if read_header(text) is None:
        raise UsageError(f"{generated} is not a dsv41gen-generated file (no header)")
    lines = text.splitlines()
    if number > len(lines):
        raise UsageError(f"{generated} has {len(lines)} lines, not {number}")
    specs = _spec_paths(generated, text)
    header = read_header(text)
    assert header is not None
    field, location, comment_line = _trace(lines, number, specs, generated, header.lines)
    rule, template = _rule_of(specs, generated)
    return Why(
        str(generated), number, lines[number - 1], field, location, comment_line, rule, template
    )


def _comment_run(lines: list[str], index: int) -> str:
    """The line at index joined with the comment lines that continue it: a formatter that
    reflows long comments (clang-format), or dsv41gen's own wrap to the consumer's line length,
    may have broken a source-map comment in two. The wrap breaks a field longer than a line
    after one of its dots, so a line ending in a dotted name's dot joins the next unspaced."""
    text = lines[index]
    if "#" not in text and "//" not in text:
        return text  # a code line: the comment below it belongs to the next statement
    for following in lines[index + 1 : index + 4]:
        stripped = following.strip()
        if not stripped.startswith(("//", "#")):
            break
        continued = stripped.lstrip("/#").strip()
        text += ("" if _BROKEN_FIELD.search(text) else " ") + continued
    return text


_BROKEN_FIELD = re.compile(r"spec: [\w.-]+\.yaml\s+[\w.\-]*\w\.$")


def _mark_start(lines: list[str], index: int, header_lines: int) -> int:
    """The line a source-map comment starts on when the comment line at index continues it
    (a mark broken across up to four comment lines); else index itself."""
    for start in range(index, max(index - 4, header_lines - 1), -1):
        if not lines[start].lstrip().startswith(("#", "//")):
            break
        if "spec:" in lines[start]:
            return start
    return index


def _trace(lines: list[str], number: int, specs: list[Path], generated: Path, header_lines: int):
    if number <= header_lines:
        return None, None, None
    # A block opener (def, class, if ...:) is explained by the comment that opens its body;
    # any other line by the nearest comment at or above it.
    order = list(range(number - 1, header_lines - 1, -1))
    opener = lines[number - 1].rstrip()
    if opener.endswith(":") or opener.endswith("{") or opener.lstrip().startswith("@"):
        order = [i for i in range(number, min(number + 3, len(lines)))] + order
    for index in order:
        start = _mark_start(lines, index, header_lines)
        match = _SPEC_COMMENT.search(_comment_run(lines, start))
        if match:
            spec = next((p for p in specs if p.name == match["file"]), None)
            return match["field"], _locate(spec, match["field"]) if spec else None, start + 1
        mention = _FIELD_MENTION.search(lines[index])
        if mention and ("#" in lines[index] or "//" in lines[index] or '"""' in lines[index]):
            return mention["field"], _locate_resolved(specs, generated, mention["field"]), index + 1
    return None, None, None


def _field_path(field: str) -> tuple[str, ...]:
    return tuple(field.split("."))


def _locate(spec: Path, field: str) -> Location | None:
    diagnostics = Diagnostics()
    document = load_document(spec, diagnostics)
    if document is None:
        return None
    path = _field_path(field)
    if path in document.key_positions:
        return document.key_positions[path]
    return document.where(path)


def _locate_resolved(specs: list[Path], generated: Path, field: str) -> Location | None:
    """A bare field mention: resolve it in the variant the file was generated for (csrc/<variant>/,
    *_<variant>_*.py), else in the family's newest spec, following extends to the writer."""
    from ..spec.resolve import Resolver

    diagnostics = Diagnostics()
    resolver = Resolver(diagnostics)
    resolved = [s for s in (resolver.resolve(p) for p in specs) if s is not None]
    owner = None
    for spec in resolved:
        name = spec.data.get("variant", {}).get("name", "")
        if name and (f"/{name}/" in generated.as_posix() or f"_{name}_" in generated.name):
            owner = spec
    if owner is None and resolved:
        owner = min(
            resolved, key=lambda s: len(s.lineage)
        )  # the root: where a shared section starts
    return owner.where(_field_path(field)) if owner else None


def _rule_of(specs: list[Path], generated: Path) -> tuple[str, str]:
    from ..plan import plan_family
    from ..plan.sources import SourceMap
    from .pipeline import load_families

    wanted = _package_relative(generated)
    for inputs in load_families(specs):
        sources = SourceMap(inputs.family)
        for output in plan_family(inputs.family, sources).files:
            if output.path == wanted:
                return output.rule, output.template
    return "(this file is no longer produced by the specs: run `dsv41gen build`)", "-"


def render_why(why: Why) -> str:
    out = [f"{why.path}:{why.line}: {why.text.strip()}"]
    if why.field is None:
        out.append("  spec:     (none: fixed layout of the template, decided by the rule below)")
    else:
        where = f"{why.location}" if why.location else "(field not found in the current specs)"
        out.append(f"  spec:     {where}  {why.field}")
        out.append(f"  via:      the source-map comment on line {why.comment_line}")
    out.append(f"  rule:     {why.rule}")
    out.append(f"  template: templates/{why.template}")
    return "\n".join(out) + "\n"
