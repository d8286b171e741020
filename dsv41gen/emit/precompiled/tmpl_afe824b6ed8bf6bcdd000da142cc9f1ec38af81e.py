from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/package_init.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    l_0_plugin = resolve('plugin')
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
        t_4 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_5 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    pass
    yield '"""Generated wiring for the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/package_init.py.j2', 1, 'plan.family | ident')))
    yield ' model family: '
    yield str(environment.finalize(t_1(t_4(t_5(context, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variants'), 'ident'), ', '), 'python/package_init.py.j2', 1, "plan.variants | map('ident')| join(', ' )")))
    yield '."""\n'
    if (undefined(name='plugin') if l_0_plugin is missing else l_0_plugin):
        pass
        yield '\n\ndef vllm_plugin() -> None:\n    """The ``vllm.general_plugins`` entry point (pyproject.toml): installs the plugin.\n\n    vLLM only logs an entry point whose module fails to import, so this module imports nothing:\n    the plugin is imported here, inside the call, where a missing module or a vLLM that is not\n    '
        yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plugin') if l_0_plugin is missing else l_0_plugin), 'engine_requirement')), 'python/package_init.py.j2', 10, 'plugin.engine_requirement | doc')))
        yield ' stops vLLM\'s start with the error.\n    """\n    from . import plugin\n\n    plugin.install()\n'

blocks = {}
debug_info = '1=44&2=48&10=51'