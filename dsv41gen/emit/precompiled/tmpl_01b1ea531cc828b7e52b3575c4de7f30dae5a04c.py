from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_backends.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    l_0_tests = resolve('tests')
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
    pass
    yield '"""Generated tests: attention backend subclasses of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_backends.py.j2', 1, 'plan.family | ident')))
    yield ' family."""\n\nfrom __future__ import annotations\n\nimport pytest\n\nfrom .. import _binding, backends\n\n# The methods a backend class of the spec may define itself, in the order the tests list them.\nOVERRIDABLE = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'overridable'), 'python/tests/test_backends.py.j2', 10, 'tests.overridable')))
    yield '\n\n\ndef _pretend_device(monkeypatch, family):\n    """Run as if on a device of compute-capability family ``family`` (None: no known family)."""\n    monkeypatch.setattr(backends, "device_is_capability_family", lambda requested: requested == family)\n\n\n# Every compute-capability family the spec knows, and a device of none.\nFAMILIES = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'families'), 'python/tests/test_backends.py.j2', 19, 'tests.families')))
    yield '\n\n\n@pytest.mark.parametrize("family", FAMILIES)\n@pytest.mark.parametrize(\n    ("class_name", "default", "by_family"),\n    [\n'
    for (l_1_name, l_1_default, l_1_by_family) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'block_size_cases'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_backends.py.j2', 27, 'name')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_default, 'python/tests/test_backends.py.j2', 27, 'default')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_by_family, 'python/tests/test_backends.py.j2', 27, 'by_family')))
        yield '),\n'
    l_1_name = l_1_default = l_1_by_family = missing
    yield '    ],\n)\ndef test_kernel_block_sizes_per_capability_family(monkeypatch, class_name, default, by_family, family):\n    _pretend_device(monkeypatch, family)\n    expected = by_family.get(family, default)\n    assert getattr(backends, class_name).get_supported_kernel_block_sizes() == expected\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'sparse_cases'):
        pass
        yield '\n\n@pytest.mark.parametrize("family", FAMILIES)\n@pytest.mark.parametrize(\n    ("name", "default", "by_family"),\n    [\n'
        for (l_1_name, l_1_default, l_1_by_family) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'sparse_cases'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_backends.py.j2', 43, 'name')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_default, 'python/tests/test_backends.py.j2', 43, 'default')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_by_family, 'python/tests/test_backends.py.j2', 43, 'by_family')))
            yield '),\n'
        l_1_name = l_1_default = l_1_by_family = missing
        yield '    ],\n)\ndef test_sparse_mla_block_sizes_per_capability_family(monkeypatch, name, default, by_family, family):\n    _pretend_device(monkeypatch, family)\n    assert backends.SPARSE_MLA_KERNEL_BLOCK_SIZES[name]() == by_family.get(family, default)\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("class_name", "name"),\n    [\n'
    for (l_1_cls, l_1_name) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'names'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_cls, 'python/tests/test_backends.py.j2', 57, 'cls')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_backends.py.j2', 57, 'name')))
        yield '),\n'
    l_1_cls = l_1_name = missing
    yield '    ],\n)\ndef test_get_name(class_name, name):\n    assert getattr(backends, class_name).get_name() == name\n\n\n@pytest.mark.parametrize(\n    ("class_name", "parent"),\n    [\n'
    for (l_1_cls, l_1_parent) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'parents'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_cls, 'python/tests/test_backends.py.j2', 69, 'cls')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_parent, 'python/tests/test_backends.py.j2', 69, 'parent')))
        yield '),\n'
    l_1_cls = l_1_parent = missing
    yield '    ],\n)\ndef test_subclasses_its_parent(class_name, parent):\n    cls = getattr(backends, class_name)\n    parent_cls = getattr(backends, parent, None) or getattr(_binding, parent)\n    assert cls.__bases__ == (parent_cls,)\n\n\n@pytest.mark.parametrize(\n    ("class_name", "overridden"),\n    [\n'
    for (l_1_cls, l_1_own) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'overrides'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_cls, 'python/tests/test_backends.py.j2', 83, 'cls')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_own, 'python/tests/test_backends.py.j2', 83, 'own')))
        yield '),\n'
    l_1_cls = l_1_own = missing
    yield '    ],\n)\ndef test_overrides_only_what_the_spec_changes(class_name, overridden):\n    cls = getattr(backends, class_name)\n    assert tuple(name for name in OVERRIDABLE if name in vars(cls)) == overridden\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rocm_classes'):
        pass
        yield '\n\n@pytest.mark.parametrize("class_name", '
        yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rocm_classes'), 'python/tests/test_backends.py.j2', 93, 'tests.rocm_classes')))
        yield ')\ndef test_query_lens_mismatch_supported_on_rocm(monkeypatch, class_name):\n    monkeypatch.setattr(_binding, "is_rocm", lambda: True)\n    assert getattr(backends, class_name).supports_device_cpu_query_lens_mismatch() is True\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'layouts'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("class_name", "layouts"),\n    [\n'
        for (l_1_cls, l_1_names) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'layouts'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_cls, 'python/tests/test_backends.py.j2', 105, 'cls')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_names, 'python/tests/test_backends.py.j2', 105, 'names')))
            yield '),\n'
        l_1_cls = l_1_names = missing
        yield '    ],\n)\ndef test_supported_kv_cache_layouts(class_name, layouts):\n    # a classmethod, as the engine calls it: backend.supported_kv_cache_layouts()\n    supported = getattr(backends, class_name).supported_kv_cache_layouts()\n    assert tuple(m.name for m in supported) == layouts\n'

blocks = {}
debug_info = '1=26&10=28&19=30&26=32&27=36&35=44&42=47&43=51&56=60&57=64&68=70&69=74&82=80&83=84&90=90&93=93&98=95&104=98&105=102'