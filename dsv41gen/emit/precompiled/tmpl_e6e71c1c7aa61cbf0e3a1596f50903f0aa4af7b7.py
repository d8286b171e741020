from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/plugin_status.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    try:
        t_1 = environment.filters['_emit']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named '_emit' found.")
    try:
        t_2 = environment.filters['doc']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'doc' found.")
    try:
        t_3 = environment.filters['ident']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'ident' found.")
    try:
        t_4 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    pass
    yield '"""Whether vLLM would load the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin_status.py.j2', 1, 'plan.family | ident')))
    yield ' plugin in this environment.\n\nRun ``python -m '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin_status.py.j2', 3, 'plan.family | ident')))
    yield ".plugin_status`` with vLLM's Python and the environment\nvLLM starts with. vLLM "
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_version')), 'python/plugin_status.py.j2', 4, 'plan.engine_version | doc')))
    yield ' loads the ``'
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugin_group')), 'python/plugin_status.py.j2', 4, 'plan.plugin_group | doc')))
    yield '`` entry points whose\nnames ``'
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugins_variable')), 'python/plugin_status.py.j2', 5, 'plan.plugins_variable | doc')))
    yield '`` lists (split on ``'
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugins_separator')), 'python/plugin_status.py.j2', 5, 'plan.plugins_separator | doc')))
    yield '``; unset: every one) and imports no\ncode of a plugin it skips, so an unselected plugin cannot say so itself. This module decides\nthe same way without importing vLLM: one line per installed general plugin, then the setting\nto fix. Exit status 0 when vLLM would load the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin_status.py.j2', 8, 'plan.family | ident')))
    yield ' plugin, 1 when it would not.\n"""\n\nfrom __future__ import annotations\n\nimport difflib\nimport importlib.metadata\nimport os\nimport sys\nfrom collections.abc import Mapping\n\nPLUGIN = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin_status.py.j2', 19, 'plan.family | py')))
    yield '\nGROUP = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugin_group')), 'python/plugin_status.py.j2', 20, 'plan.plugin_group | py')))
    yield '\n# VLLM_PLUGINS filters every one of these groups: a name it holds may belong to any of them\nGROUPS = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugin_groups')), 'python/plugin_status.py.j2', 22, 'plan.plugin_groups | py')))
    yield '\nVARIABLE = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugins_variable')), 'python/plugin_status.py.j2', 23, 'plan.plugins_variable | py')))
    yield '\nSEPARATOR = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'plugins_separator')), 'python/plugin_status.py.j2', 24, 'plan.plugins_separator | py')))
    yield '\n\n\ndef selected(environ: Mapping[str, str]) -> list[str] | None:\n    """The names the variable selects, split as vLLM splits them; None: unset (all load)."""\n    value = environ.get(VARIABLE)\n    return None if value is None else value.split(SEPARATOR)\n\n\ndef installed_names(group: str) -> list[str]:\n    return sorted({entry.name for entry in importlib.metadata.entry_points(group=group)})\n\n\ndef report(environ: Mapping[str, str]) -> tuple[list[str], bool]:\n    """(the lines to print, whether vLLM would load this family\'s plugin)."""\n    names = selected(environ)\n    setting = "unset: all load" if names is None else f"{VARIABLE}={environ[VARIABLE]!r}"\n    lines = [f"{GROUP} ({setting}):"]\n    for entry in sorted(importlib.metadata.entry_points(group=GROUP), key=lambda e: e.name):\n        chosen = names is None or entry.name in names\n        state = "loaded" if chosen else f"NOT selected: add it to {VARIABLE}"\n        lines.append(f"  {entry.name} -> {entry.value}: {state}")\n    if PLUGIN not in installed_names(GROUP):\n        lines.append(\n            f"the {PLUGIN} plugin is not installed for {sys.executable}: "\n            f"pip install --no-deps the generated {PLUGIN} package with this Python"\n        )\n        return lines, False\n    if names is None or PLUGIN in names:\n        return lines, True\n    lines.extend(_fix(names))\n    return lines, False\n\n\ndef _fix(names: list[str]) -> list[str]:\n    """What to set instead: the names some vLLM plugin has, kept, and this plugin added."""\n    known = {name for group in GROUPS for name in installed_names(group)}\n    lines = []\n    for name in names:\n        if name and name not in known:\n            guess = difflib.get_close_matches(name, sorted(known), n=1)\n            hint = f"; did you mean {guess[0]!r}?" if guess else ""\n            lines.append(f"{VARIABLE} names {name!r}, which no installed vLLM plugin has{hint}")\n    kept = [name for name in names if name in known]\n    lines.append(\n        f"the {PLUGIN} plugin is installed but NOT selected by {VARIABLE}: "\n        f"set {VARIABLE}={SEPARATOR.join([*kept, PLUGIN])}"\n    )\n    return lines\n\n\ndef main() -> int:\n    lines, loads = report(os.environ)\n    print("\\n".join(lines))\n    return 0 if loads else 1\n\n\nif __name__ == "__main__":\n    sys.exit(main())\n'

blocks = {}
debug_info = '1=37&3=39&4=41&5=45&8=49&19=51&20=53&22=55&23=57&24=59'