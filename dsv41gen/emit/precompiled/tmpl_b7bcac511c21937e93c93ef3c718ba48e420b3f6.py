from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/registry.py.j2'

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
        t_2 = environment.filters['comment']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'comment' found.")
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
        t_5 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    try:
        t_6 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_7 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    pass
    yield '"""Model registry entries of the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/registry.py.j2', 1, 'plan.family | ident')))
    yield ' family ('
    yield str(environment.finalize(t_1(t_4(t_6(context, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variants'), 'ident'), ', '), 'python/registry.py.j2', 1, "plan.variants | map('ident')| join(', ' )")))
    yield ').\n\nEach table maps an HF ``architectures`` name to ``(module, class)``, like the table of the same\nname in vLLM\'s ``vllm/model_executor/models/registry.py``.\n"""\n\nfrom __future__ import annotations\n\nfrom ._binding import ModelRegistry\n'
    for l_1_table in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'tables'):
        _loop_vars = {}
        pass
        yield '\n# vLLM: '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_table, 'engine_name')), 'python/registry.py.j2', 12, 'table.engine_name | comment')))
        yield '\n'
        if environment.getattr(l_1_table, 'entries'):
            pass
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_table, 'name')), 'python/registry.py.j2', 14, 'table.name | ident')))
            yield ': dict[str, tuple[str, str]] = {\n'
            for l_2_e in environment.getattr(l_1_table, 'entries'):
                _loop_vars = {}
                pass
                yield '    # spec: '
                yield str(environment.finalize(t_1(t_2(environment.getattr(l_2_e, 'source')), 'python/registry.py.j2', 16, 'e.source | comment')))
                yield '\n    '
                yield str(environment.finalize(t_1(t_7(environment.getattr(l_2_e, 'architecture')), 'python/registry.py.j2', 17, 'e.architecture | py_str')))
                yield ': ('
                yield str(environment.finalize(t_1(t_7(environment.getattr(l_2_e, 'module')), 'python/registry.py.j2', 17, 'e.module | py_str')))
                yield ', '
                yield str(environment.finalize(t_1(t_7(environment.getattr(l_2_e, 'class_name')), 'python/registry.py.j2', 17, 'e.class_name | py_str')))
                yield '),\n'
            l_2_e = missing
            yield '}\n'
        else:
            pass
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_table, 'name')), 'python/registry.py.j2', 21, 'table.name | ident')))
            yield ': dict[str, tuple[str, str]] = {}\n'
    l_1_table = missing
    yield '\n# The architectures a user serves; draft models are resolved by the speculative config.\nTARGET_MODELS: dict[str, tuple[str, str]] = {\n'
    for l_1_name in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'target_tables'):
        _loop_vars = {}
        pass
        yield '    **'
        yield str(environment.finalize(t_1(t_3(l_1_name), 'python/registry.py.j2', 28, 'name | ident')))
        yield ',\n'
    l_1_name = missing
    yield '}\n\n\n# Every table register() registers, in order: the targets and the draft models.\nREGISTERED_TABLES: tuple[dict[str, tuple[str, str]], ...] = ('
    yield str(environment.finalize(t_1(t_4(t_6(context, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'registered_tables'), 'ident'), ', '), 'python/registry.py.j2', 34, "plan.registered_tables | map('ident')| join(', ' )")))
    if (t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'registered_tables')) == 1):
        pass
        yield ','
    yield ')\n\n\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'relative_modules'):
        pass
        yield '# A table\'s module not under "vllm." is one of this package, as in vLLM\'s tables.\nENGINE_MODELS_PACKAGE = '
        yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_models_package')), 'python/registry.py.j2', 39, 'plan.engine_models_package | py_str')))
        yield '\n\n\ndef engine_module(module: str) -> str:\n    """The module vLLM imports for a table\'s module name."""\n    return module if module.startswith("vllm.") else f"{ENGINE_MODELS_PACKAGE}.{module}"\n\n\n'
    yield 'def register() -> None:\n    """vLLM plugin hook (entry point group ``vllm.general_plugins``).\n\n    Registers every architecture of the family lazily, as ``"module:Class"``\n    (architectures.<name>): the targets and the draft models, which vLLM 0.33.0 resolves through\n    the same ModelRegistry.\n    """\n    for table in REGISTERED_TABLES:\n        for architecture, (module, class_name) in table.items():\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'relative_modules'):
        pass
        yield '            ModelRegistry.register_model(architecture, f"{engine_module(module)}:{class_name}")\n'
    else:
        pass
        yield '            ModelRegistry.register_model(architecture, f"{module}:{class_name}")\n'

blocks = {}
debug_info = '1=55&10=59&12=63&13=65&14=67&15=69&16=73&17=75&21=85&27=89&28=93&34=97&37=102&39=105&57=108'