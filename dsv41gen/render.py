"""Render stage: plans in, text out.

Templates hold layout only. Every value a template prints comes from a plan object the planner
built; StrictUndefined turns a misspelt attribute into an error instead of an empty string.
"""

from __future__ import annotations

import functools

import jinja2

from .inputs import templates_dir


def _comment_text(value: object) -> str:
    """Free text placed in a comment: one line (a newline would end the comment and start code),
    and unable to close a C comment."""
    return " ".join(str(value).split()).replace("*/", "* /")


@functools.lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    # Strings that land in generated code go through repr() (Python) or a C-escaping filter.
    env.filters["py"] = repr
    env.filters["comment"] = _comment_text
    return env


def render(template_name: str, **context: object) -> str:
    """Render one template with the given plan objects."""
    return environment().get_template(template_name).render(**context)


def render_files(files, inputs_hash: str, spec_files: tuple[str, ...]) -> dict[str, str]:
    """Render each planned file, format it, and put the dsv41gen header on top."""
    from .format import format_python
    from .write import make_header

    bodies = format_python(
        {output.path: render(output.template, **dict(output.context)) for output in files}
    )
    return {
        output.path: make_header(
            output.comment_prefix, spec_files, inputs_hash, bodies[output.path]
        )
        + bodies[output.path]
        for output in files
    }
