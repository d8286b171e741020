"""Command line: build, check, diff, explain, schema, emit (into a vLLM tree).

Exit codes: 0 success (errors in another family's specs are printed as warnings: that family
is not built, the requested ones are); 1 the specs being built have errors; 2 usage error (bad options, missing files);
3 generated files are out of date or hand-edited (check), or a build refused to overwrite a
hand-edited file, or a non-directory sits where a package belongs; 4 a checkpoint cannot serve
the requested method (check-checkpoint); 128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP).
Bad input never produces a traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from .. import __version__
from ..errors import SpecError
from ..plan.values import terminal_text

EXIT_SPEC_ERROR = 1
EXIT_USAGE = 2
EXIT_OUT_OF_DATE = 3
EXIT_CHECKPOINT_INCOMPLETE = 4
EXIT_DIFFERENCES = 1  # diff --exit-code, as git

# SPEC... defaults to specs/*.yaml, so `dsv41gen check` works as a pre-commit hook.
_spec_argument = click.argument("specs", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
_out_option = click.option(
    "--out",
    "out_dir",
    default="generated",
    show_default=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory the family packages are written to.",
)


_output_format_option = click.option(
    "--output-format",
    "output_format",
    type=click.Choice(["full", "github"]),
    default="full",
    show_default=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: ctx.meta.__setitem__("dsv41gen.output_format", value),
    help="How spec errors and out-of-date files are reported; github: as GitHub Actions "
    "annotations (::error file=...,line=...,col=...::message), as ruff does.",
)


def _github_annotations() -> bool:
    context = click.get_current_context(silent=True)
    return context is not None and context.meta.get("dsv41gen.output_format") == "github"


def _annotation_property(text: str) -> str:
    return _annotation_data(text).replace(":", "%3A").replace(",", "%2C")


def _annotation_data(text: str) -> str:
    """GitHub's workflow-command escaping: a message cannot end the command or add another."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_error(
    message: str,
    file: str,
    line: int | None = None,
    col: int | None = None,
    title: str | None = None,
) -> str:
    """One GitHub Actions error annotation."""
    props = [f"file={_annotation_property(file)}"]
    props += [f"line={line}"] if line is not None else []
    props += [f"col={col}"] if col is not None else []
    props += [f"title={_annotation_property(title)}"] if title else []
    return f"::error {','.join(props)}::{_annotation_data(message)}"


def _diff_root(out_dir: Path) -> str:
    """The output directory as diffs name it: relative to the working directory (the
    repository root, where `git apply` takes the patch), else as given."""
    relative = (
        os.path.relpath(out_dir.resolve(), Path.cwd().resolve())
        if out_dir.is_absolute()
        else str(out_dir)
    )
    return Path(relative).as_posix().rstrip("/")


def echo(message: object = "", **kwargs) -> None:
    """Everything the CLI prints goes through here: spec text in a diagnostic, a diff or a
    review can neither drive the terminal (escapes) nor reorder what it shows (bidi controls)."""
    click.echo(terminal_text(message), **kwargs)


def _color() -> bool | None:
    """Colour only on a terminal (click strips styles from a pipe or file: None lets it
    decide). The environment overrides it in CPython's order (Lib/_colorize.py): NO_COLOR
    (https://no-color.org) never, then FORCE_COLOR always (a CI log that renders escapes),
    then TERM=dumb never (a terminal that shows escapes as text)."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    return None


_DIFF_STYLES = (("+++", "bold"), ("---", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def _styled_diff_line(line: str) -> str:
    for prefix, style in _DIFF_STYLES:
        if line.startswith(prefix):
            return click.style(line, bold=True) if style == "bold" else click.style(line, fg=style)
    return line


def _manifest_last(diffs: list[str]) -> list[str]:
    """The MANIFEST lists every file's hash, so it changes whenever anything does: its diff goes
    after the files a reader came to see (a patch applies in any order)."""
    from ..emit.fastpath import MANIFEST

    def is_manifest(diff: str) -> bool:
        return any(line.endswith(f"/{MANIFEST}") for line in diff.split("\n", 2)[:2])

    return sorted(diffs, key=is_manifest)


def echo_diff(text: str) -> None:
    """A unified diff, cleaned like everything else, then coloured line by line (on a TTY)."""
    cleaned = terminal_text(text)
    click.echo(
        "".join(_styled_diff_line(line) for line in cleaned.splitlines(keepends=True)),
        nl=False,
        color=_color(),
    )


def echo_error(text: str) -> None:
    """An error line on stderr: its `file:line:col:` (or `error:`) prefix in red on a TTY."""
    cleaned = terminal_text(text)
    head, sep, rest = cleaned.partition(": ")
    styled = click.style(head + sep, fg="red", bold=True) + rest if sep else cleaned
    click.echo(styled, err=True, color=_color())


def _warn(line: str) -> None:
    echo(line, err=True)


def _fail(message: str, code: int) -> None:
    if message.startswith("error: "):
        echo_error(message)
    else:
        echo(message, err=True)
    sys.exit(code)


def _up_to_date(specs: tuple[Path, ...], out_dir: Path) -> bool:
    """The no-op fast path: True (and said so) when the MANIFESTs vouch for every family."""
    from ..emit.fastpath import up_to_date

    try:
        fresh = up_to_date(list(specs), out_dir)
    except OSError:  # e.g. a package name too long for the filesystem: the full build says why
        fresh = None
    for package, count in fresh or ():
        echo(f"{out_dir / package}: up to date ({count} files)")
    return fresh is not None


def _locked(out_dir: Path, *, write: bool):
    """The output directory's lock for the whole command (exclusive to build), taken after any
    swap a killed build left halfway is finished; what that recovery did is said on stderr."""
    from ..emit.write import locked_output

    return locked_output(out_dir, write=write, notify=lambda line: echo(line, err=True))


def _report_spec_errors(error: SpecError) -> None:
    from ..errors import printable

    github = _github_annotations()
    for diagnostic in error.diagnostics:
        if github:
            where = diagnostic.location
            echo(
                github_error(
                    printable(diagnostic.message),
                    where.file,
                    where.line,
                    where.column,
                    printable(diagnostic.path) or None,
                ),
                err=False,
            )
        echo_error(str(diagnostic))
    count = len(error.diagnostics)
    echo(f"{count} error{'s' if count != 1 else ''}; nothing was written.", err=True)
    sys.exit(EXIT_SPEC_ERROR)


def _guarded(function):
    """Turn expected failures into messages and exit codes; never a traceback for bad input."""
    from functools import wraps

    from ..emit.write import NotGeneratedDirectory
    from ..errors import UsageError

    @wraps(function)
    def wrapper(*args, **kwargs):
        try:
            return function(*args, **kwargs)
        except SpecError as error:
            _report_spec_errors(error)
        except UsageError as error:
            _fail(f"error: {error}", EXIT_USAGE)
        except NotGeneratedDirectory as error:
            _fail(f"error: {error}", EXIT_OUT_OF_DATE)
        except OSError as error:
            _fail(
                f"error: {error.strerror or error}: {getattr(error, 'filename', '') or ''}".rstrip(
                    ": "
                ),
                EXIT_USAGE,
            )

    return wrapper


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="dsv41gen")
def main() -> None:
    """dsv41gen: compile model-variant specs (YAML) into inference-engine wiring."""


@main.command()
@_spec_argument
@_out_option
@click.option("--force", is_flag=True, help="Overwrite generated files that were edited by hand.")
@_output_format_option
@_guarded
def build(specs: tuple[Path, ...], out_dir: Path, force: bool) -> None:
    """Generate the wiring for SPECS (default: specs/*.yaml) and the rest of their families."""
    specs = specs or _default_specs()
    with _locked(out_dir, write=True):
        _build(specs, out_dir, force)


def _build(specs: tuple[Path, ...], out_dir: Path, force: bool) -> None:
    from ..emit.fastpath import in_ci, record_build

    # The fast path trusts this machine's own record of its last build, never the tree; and it
    # serves only an interactive build: in CI, or when the output goes to GitHub, a build is a
    # gate's step (`build` then `git diff --exit-code`) and regenerates in full.
    interactive = not in_ci() and not _github_annotations()
    if not force and interactive and _up_to_date(specs, out_dir):
        return
    from ..emit.write import compare, write_package
    from .pipeline import build_texts  # not at the top: the no-op fast path must stay light

    for result in build_texts(specs, out_dir, _warn):
        pending = compare(out_dir, result.package, result.files)
        blocked = pending.blocking
        if blocked and not force:
            for rel in blocked:
                echo(f"error: {out_dir / rel} {_refusal(pending, rel, result.files)}", err=True)
            _fail(
                (
                    "Delete what the build does not write (a generated package holds only the "
                    "build's files), or rerun with --force to remove it. Nothing was written."
                )
                if pending.unexpected
                else "Move the edit into the spec, or rerun with --force to discard it. "
                "Nothing was written.",
                EXIT_OUT_OF_DATE,
            )
        done = write_package(out_dir, result.package, result.files)
        record_build(out_dir, result.package, list(result.members), result.files)
        if done.clean:
            echo(f"{out_dir / result.package}: up to date ({len(result.files)} files)")
        else:
            updated = len(done.changed) + len(done.hand_edited) + len(done.foreign)
            gone = len(done.removed) + len(done.unexpected)
            parts = [
                f"{len(done.added)} added" if done.added else "",
                f"{updated} updated" if updated else "",
                f"{gone} removed" if gone else "",
            ]
            echo(f"{out_dir / result.package}: {', '.join(p for p in parts if p) or 'rewritten'}")


def _refusal(pending, rel: str, files: dict[str, str]) -> str:
    """Why build does not touch ``rel`` without --force."""
    if rel in pending.unexpected:
        return (
            f"is {pending.unexpected[rel]} the build does not write; refusing to build beside it."
        )
    kind = "was edited by hand" if rel in pending.hand_edited else "is not a generated file"
    action = "remove" if rel not in files else "overwrite"
    return f"{kind}; refusing to {action} it."


_vllm_tree_option = click.option(
    "--vllm-tree",
    "vllm_tree",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="A vLLM source tree: check its generated sites instead of --out (docs/vllm-source-tree.md).",
)


@main.command()
@_spec_argument
@click.option(
    "--vllm-tree",
    "vllm_tree",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="The vLLM 0.33.0 source tree to write into (scripts/fetch_vllm_sdist.py --extract).",
)
@click.option(
    "--refactor-upstream",
    is_flag=True,
    help="First apply the one-time refactor that makes is_state_bucket a table "
    "(docs/vllm-source-tree.md).",
)
@click.option("--dry-run", is_flag=True, help="Print the diff; write nothing.")
@click.option("--force", is_flag=True, help="Overwrite generated regions edited by hand.")
@_output_format_option
@_guarded
def emit(
    specs: tuple[Path, ...], vllm_tree: Path, refactor_upstream: bool, dry_run: bool, force: bool
) -> None:
    """Write every family's wiring into vLLM's own source tree, at its real sites."""
    from .vllm_tree import run_emit

    specs = specs or _default_specs()
    sys.exit(run_emit(specs, vllm_tree, refactor_upstream, dry_run, force, echo, _warn))


@main.command()
@_spec_argument
@_out_option
@_vllm_tree_option
@_output_format_option
@_guarded
def check(specs: tuple[Path, ...], out_dir: Path, vllm_tree: Path | None) -> None:
    """Fail (exit 3) when --out does not match what SPECS (default: specs/*.yaml) generate."""
    specs = specs or _default_specs()
    if vllm_tree is not None:
        from .vllm_tree import run_check

        sys.exit(run_check(specs, vllm_tree, echo, _warn))
    with _locked(out_dir, write=False):
        _check(specs, out_dir)


_CHECK_LABELS = (
    ("added", "missing"),
    (
        "changed",
        "differs from what the specs generate (run `dsv41gen build`; the diff below shows "
        "what it writes)",
    ),
    (
        "hand_edited",
        "edited by hand (differs from what the specs generate and from its own header hash; "
        "move the edit into the spec)",
    ),
    (
        "foreign",
        "not generated (a hand-written file where a generated one belongs)",
    ),
    (
        "removed",
        "no longer produced by the specs (run `dsv41gen build` to remove it)",
    ),
)


def _check(specs: tuple[Path, ...], out_dir: Path) -> None:
    """The gate: a full regeneration in memory, compared with the tree byte for byte, and every
    entry of the tree accounted for. No fast path, and nothing in the tree is believed (not the
    MANIFEST, not a header): the tree is what a pull request controls."""
    from ..emit.write import compare, output_dir_extras
    from .pipeline import build_texts

    github = _github_annotations()
    problems: list[str] = []

    def report(rel: str, label: str) -> None:
        if github:
            echo(github_error(label, (Path(_diff_root(out_dir)) / rel).as_posix()))
        echo(f"{out_dir / rel}: {label}", err=True)
        problems.append(rel)

    results = build_texts(specs, out_dir, _warn)
    differing: list[str] = []
    for result in results:
        if not os.path.lexists(out_dir / result.package):
            # one line, not one per file the build would write: most likely a mistyped --out
            report(result.package, _missing_package(out_dir, result.package))
            continue
        comparison = compare(out_dir, result.package, result.files, _diff_root(out_dir))
        for attribute, label in _CHECK_LABELS:
            for rel in getattr(comparison, attribute):
                report(rel, label)
        for rel, what in comparison.unexpected.items():
            report(
                rel,
                f"{what} the build does not write; a generated package holds only what the "
                "build writes (delete it; `dsv41gen build --force` removes it)",
            )
        for rel, why in comparison.bytecode.items():
            report(rel, f"{why} (delete the __pycache__ directory)")
        for diff in _manifest_last(comparison.diffs):
            echo_diff(diff)
        differing += comparison.changed + comparison.hand_edited
        if comparison.clean:
            echo(f"{out_dir / result.package}: up to date ({len(result.files)} files)")
    extras = output_dir_extras(out_dir, {r.package for r in results})
    if _covers_every_spec(specs, results):
        for name, what in extras.items():
            report(
                name,
                f"{what} that no spec generates; an output directory holds the packages and "
                "their formatter settings only (delete it)",
            )
    elif extras:
        echo(
            f"note: {out_dir} also holds {', '.join(sorted(extras))}, which the specs named do "
            "not generate: not checked (name every spec, or none, to check the whole directory)",
            err=True,
        )
    if problems:
        _formatter_note(differing, out_dir)
        sys.exit(EXIT_OUT_OF_DATE)


def _missing_package(out_dir: Path, package: str) -> str:
    where = "" if out_dir.is_dir() else f", and {out_dir} does not exist"
    return (
        f"missing: no generated package here{where} (check --out; "
        f"`dsv41gen build --out {out_dir}` writes it)"
    )


def _covers_every_spec(specs: tuple[Path, ...], results) -> bool:
    """Whether the families built include every spec beside the ones named: then the output
    directory holds nothing but their packages."""
    from ..emit.inputs import discover_specs

    built = {Path(p).resolve() for r in results for p in r.members}
    return all(p.resolve() in built for p in discover_specs(list(specs)))


def _formatter_note(differing: list[str], out_dir: Path) -> None:
    """Which formatters formatted the comparison: a file that differs only in layout was most
    likely formatted by another ruff minor or clang-format major release."""
    from ..emit.format import DEFAULT_CLANG_FORMAT, FormatSettings, _version, is_cpp

    if not any(rel.endswith(".py") or is_cpp(rel) for rel in differing):
        return
    settings = FormatSettings.discover(out_dir)
    ruff_config = settings.ruff_config or "ruff defaults"
    clang = settings.clang_format_config
    clang_config = "the shipped default style" if clang == DEFAULT_CLANG_FORMAT else clang
    echo(
        f"note: compared with the specs' output formatted here by ruff {_version('ruff')} "
        f"({ruff_config}) and clang-format {_version('clang-format')} ({clang_config}); a "
        "tree formatted by another ruff minor or clang-format major release differs in "
        "layout: pin both",
        err=True,
    )


@main.command()
@click.argument("specs", nargs=-1, type=click.Path(path_type=Path, dir_okay=False))
@_out_option
@click.option(
    "--against",
    "ref",
    metavar="GIT_REF",
    help="Compare the specs at this git ref with the working tree.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Report format for --against (markdown: a PR comment; json: for tools).",
)
@click.option(
    "--exit-code",
    is_flag=True,
    help="Exit 1 when there are changes (as `git diff --exit-code`); an unaccepted breaking "
    "change still exits 5.",
)
@_output_format_option
@_guarded
def diff(
    specs: tuple[Path, ...], out_dir: Path, ref: str | None, fmt: str, exit_code: bool
) -> None:
    """Preview what `build` would change; with --against, a semantic review of spec changes.

    Without --against: the unified diff of --out against a fresh build. With --against REF:
    every changed spec field classified BREAKING / BEHAVIOUR / COSMETIC, then the generated-code
    diff between REF's specs and the working tree's. Exit 5 when a breaking change is not
    accepted under `review.accepted_breaking_changes` in the spec. The patch without --against
    names files under --out as seen from here: `git apply` takes it at the repository root.
    """
    specs = specs or _default_specs()
    if ref is not None:
        from .review import run_review

        sys.exit(run_review(specs, ref, fmt, echo, exit_code, out_dir))
    with _locked(out_dir, write=False):
        changed = _diff(specs, out_dir)
    if exit_code and changed:
        sys.exit(EXIT_DIFFERENCES)


def _diff(specs: tuple[Path, ...], out_dir: Path) -> bool:
    """Print the patch; True when there is one."""
    from ..emit.write import compare
    from .pipeline import build_texts  # not at the top: the no-op fast path must stay light

    changed = False
    for result in build_texts(specs, out_dir, _warn):
        comparison = compare(out_dir, result.package, result.files, _diff_root(out_dir))
        for text in _manifest_last(comparison.diffs):
            echo_diff(text)
        if comparison.clean:
            echo(f"{out_dir / result.package}: no changes")
        changed = changed or not comparison.clean
    return changed


def _default_specs() -> tuple[Path, ...]:
    found = tuple(sorted(Path("specs").glob("*.yaml")))
    if not found:
        from ..errors import UsageError

        raise UsageError("no SPEC given and no specs/*.yaml here")
    return found


@main.command()
@click.option(
    "--child",
    is_flag=True,
    help="The child-spec schema (for specs with `extends`): nothing required, any key may be "
    "`!delete`.",
)
@click.option(
    "--write",
    "write_to",
    metavar="FILE",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write the schema to FILE (parent directories are made) instead of printing it, so a "
    "spec's `# yaml-language-server: $schema=...` line can point at it from any repository.",
)
@_guarded
def schema(child: bool, write_to: Path | None) -> None:
    """Print the JSON Schema (draft 2020-12) of the spec language."""
    from ..spec.schemas import schema_text

    text = schema_text(child)
    if write_to is None:
        echo(text, nl=False)
        return
    write_to.parent.mkdir(parents=True, exist_ok=True)
    write_to.write_text(text, encoding="utf-8")
    echo(f"{write_to}: written ({'child' if child else 'full'} spec schema)")


@main.command()
@_spec_argument
@click.option(
    "--variant",
    "variants",
    multiple=True,
    metavar="NAME",
    help="Only this variant's resolved fields and table column (repeatable).",
)
@click.option(
    "--site",
    "sites",
    multiple=True,
    metavar="NAME",
    help="Only this merge/fork site (repeatable; a prefix selects every site it starts).",
)
@_output_format_option
@_guarded
def explain(specs: tuple[Path, ...], variants: tuple[str, ...], sites: tuple[str, ...]) -> None:
    """Print each resolved spec (default: specs/*.yaml) with the file:line every value comes
    from, then the merge/fork table and the plugin's vLLM sites.

    The table is laid out for the terminal's width: one row per site while the columns fit,
    else one block per site with the variants grouped by their value.
    """
    import shutil

    from .explain import ExplainFilter, explain_text
    from .pipeline import load_families

    specs = specs or _default_specs()
    width = shutil.get_terminal_size((100, 24)).columns
    for inputs in load_families(list(specs), _warn):
        chosen = ExplainFilter.parse(inputs, variants, sites)
        echo(explain_text(inputs, chosen, width), nl=False)


@main.command()
@click.argument("target", metavar="GENERATED_FILE:LINE")
@_guarded
def why(target: str) -> None:
    """Name the spec file:line and the planner rule that produced a generated line."""
    from .why import explain_line, render_why

    echo(render_why(explain_line(target)), nl=False)


@main.command("check-checkpoint")
@click.argument("spec", type=click.Path(path_type=Path, dir_okay=False))
@click.argument("checkpoint", type=click.Path(path_type=Path, exists=True))
@click.option("--method", help="Report exactly which required weights this method lacks.")
@click.option(
    "--strict",
    is_flag=True,
    help="Also fail (exit 4) on missing weights the engine would load uninitialized.",
)
@_guarded
def check_checkpoint(spec: Path, checkpoint: Path, method: str | None, strict: bool) -> None:
    """Say which speculative methods CHECKPOINT can serve for the variant SPEC describes.

    CHECKPOINT is a directory, a model.safetensors.index.json or a .safetensors file. Exit 4
    when --method is given and the engine's loader fails on the checkpoint; a missing weight it
    would load uninitialized (a quantized draft is not checked) is a warning, exit 0, unless
    --strict.
    """
    from .checkpoints import run_check_checkpoint

    code = run_check_checkpoint(spec, checkpoint, method, echo, strict=strict)
    if code:
        sys.exit(code)


class Interrupted(BaseException):
    """SIGINT, SIGTERM or SIGHUP, raised where the process is, so that every `finally` runs:
    temporary directories are removed and child processes (ruff) are killed and reaped."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _raise_interrupted(signum: int, frame: object) -> None:
    raise Interrupted(signum)


def run() -> None:
    """Console-script entry: unexpected internal errors get one line unless DSV41GEN_DEBUG=1."""
    import signal

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _raise_interrupted)
    try:
        main(standalone_mode=True)
    except SystemExit:
        raise
    except Interrupted as interrupted:
        name = signal.Signals(interrupted.signum).name
        echo(f"dsv41gen: stopped by {name}", err=True)
        sys.exit(128 + interrupted.signum)
    except Exception as error:  # a bug in dsv41gen, not bad input
        if os.environ.get("DSV41GEN_DEBUG"):
            raise
        echo(
            f"dsv41gen: internal error: {type(error).__name__}: {error}\n"
            "This is a bug in dsv41gen; rerun with DSV41GEN_DEBUG=1 for the traceback and report it.",
            err=True,
        )
        sys.exit(70)
