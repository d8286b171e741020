from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_registry.py.j2'

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
        t_2 = environment.filters['ident']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'ident' found.")
    try:
        t_3 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    pass
    yield '"""Generated tests: the registry tables and the plugin hook of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_registry.py.j2', 1, 'plan.family | ident')))
    yield ' family."""\n\nfrom __future__ import annotations\n\nimport pytest\n\nfrom .. import registry\n\nEXPECTED_TABLES = {\n'
    for l_1_table in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'tables'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_table, 'name')), 'python/tests/test_registry.py.j2', 11, 'table.name | py_str')))
        yield ': {\n'
        for l_2_e in environment.getattr(l_1_table, 'entries'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_e, 'architecture')), 'python/tests/test_registry.py.j2', 13, 'e.architecture | py_str')))
            yield ': ('
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_e, 'module')), 'python/tests/test_registry.py.j2', 13, 'e.module | py_str')))
            yield ', '
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_e, 'class_name')), 'python/tests/test_registry.py.j2', 13, 'e.class_name | py_str')))
            yield '),\n'
        l_2_e = missing
        yield '    },\n'
    l_1_table = missing
    yield '}\n\n\n# "whole_family" tests assert what the family as a whole holds, so they change when a variant\n# is added; every other test is about one variant\'s entries and must survive new siblings.\n@pytest.mark.parametrize("table", sorted(EXPECTED_TABLES))\ndef test_whole_family_table_has_exactly_the_spec_entries(table):\n    assert getattr(registry, table) == EXPECTED_TABLES[table]\n\n\n@pytest.mark.parametrize(\n    ("table", "architecture"),\n    [(table, arch) for table, entries in sorted(EXPECTED_TABLES.items()) for arch in entries],\n)\ndef test_table_entry(table, architecture):\n    assert getattr(registry, table)[architecture] == EXPECTED_TABLES[table][architecture]\n\n\ndef test_whole_family_register_registers_every_architecture_drafts_included(monkeypatch):\n    calls = []\n    monkeypatch.setattr(registry.ModelRegistry, "register_model", lambda arch, target: calls.append((arch, target)))\n    registry.register()\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'relative_modules'):
        pass
        yield '    # every entry of every table, lazily as "module:Class" with the module\'s full path (the\n    # spec\'s), in table order\n    assert calls == [\n'
        for l_1_t in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'tables'):
            _loop_vars = {}
            pass
            for l_2_e in environment.getattr(l_1_t, 'entries'):
                _loop_vars = {}
                pass
                yield '        ('
                yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_e, 'architecture')), 'python/tests/test_registry.py.j2', 45, 'e.architecture | py_str')))
                yield ', '
                yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_e, 'target')), 'python/tests/test_registry.py.j2', 45, 'e.target | py_str')))
                yield '),\n'
            l_2_e = missing
        l_1_t = missing
        yield '    ]\n'
    else:
        pass
        yield '    # every entry of every table, lazily as "module:Class", in table order\n    assert calls == [\n        (architecture, f"{module}:{class_name}")\n        for entries in EXPECTED_TABLES.values()\n        for architecture, (module, class_name) in entries.items()\n    ]\n'

blocks = {}
debug_info = '1=31&10=33&11=37&12=39&13=43&39=53&43=56&44=59&45=63'