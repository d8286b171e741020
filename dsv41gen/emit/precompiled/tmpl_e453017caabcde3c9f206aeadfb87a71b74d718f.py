from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_kv_cache.py.j2'

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
    yield '"""Generated tests: the KV state-bucket predicate and its two use sites ('
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_kv_cache.py.j2', 1, 'plan.family | ident')))
    yield ')."""\n\nfrom __future__ import annotations\n\nfrom types import SimpleNamespace\n\nimport pytest\n\nfrom .. import _binding, kv_cache\n\n\ndef _bucket(type_name, count=3):\n    cls = getattr(_binding, type_name)\n    spec = object.__new__(cls)  # the class is what matters; vLLM\'s need constructor arguments\n    return SimpleNamespace(first_spec=spec, kv_cache_specs=[spec] * count)\n\n\n@pytest.mark.parametrize(\n    ("model_type", "type_name", "state_when_unsplit", "state_when_split"),\n    [\n'
    for (l_1_mt, l_1_name, l_1_unsplit, l_1_split) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'cases'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 22, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_kv_cache.py.j2', 22, 'name')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_unsplit, 'python/tests/test_kv_cache.py.j2', 22, 'unsplit')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_split, 'python/tests/test_kv_cache.py.j2', 22, 'split')))
        yield '),\n'
    l_1_mt = l_1_name = l_1_unsplit = l_1_split = missing
    yield '    ],\n)\ndef test_is_state_bucket(model_type, type_name, state_when_unsplit, state_when_split):\n    bucket = _bucket(type_name)\n    assert kv_cache.is_state_bucket(model_type, bucket, repeats_per_group=None) is state_when_unsplit\n    assert kv_cache.is_state_bucket(model_type, bucket, repeats_per_group=2) is state_when_split\n\n\n@pytest.mark.parametrize(\n    ("model_type", "type_name", "state"),\n    [\n'
    for (l_1_mt, l_1_name, l_1_unsplit, l_1_split) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'cases'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 36, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_kv_cache.py.j2', 36, 'name')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_unsplit, 'python/tests/test_kv_cache.py.j2', 36, 'unsplit')))
        yield '),\n'
    l_1_mt = l_1_name = l_1_unsplit = l_1_split = missing
    yield '    ],\n)\ndef test_both_use_sites_ask_the_predicate(model_type, type_name, state):\n    bucket = _bucket(type_name, count=3)\n    groups = kv_cache.groups_for_anchor_bytes(model_type, bucket, None, num_groups_for=lambda spec: 5)\n    assert groups == (3 if state else 5)\n    assert kv_cache.caps_state_group(model_type, bucket, None, anchor_bytes=4096) is state\n    assert kv_cache.caps_state_group(model_type, bucket, None, anchor_bytes=0) is False\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'ratio_allow'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "ratio"),\n    [\n'
        for (l_1_mt, l_1_ratio) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'ratio_allow'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 53, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_ratio, 'python/tests/test_kv_cache.py.j2', 53, 'ratio')))
            yield '),\n'
        l_1_mt = l_1_ratio = missing
        yield '    ],\n)\ndef test_supported_compress_ratio(model_type, ratio):\n    kv_cache.validate_compress_ratio(model_type, layer_id=7, compress_ratio=ratio)\n\n\n@pytest.mark.parametrize(\n    ("model_type", "ratio", "error", "message"),\n    [\n'
        for (l_1_mt, l_1_ratio, l_1_error, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'ratio_reject'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 65, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_ratio, 'python/tests/test_kv_cache.py.j2', 65, 'ratio')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_error, 'python/tests/test_kv_cache.py.j2', 65, 'error')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_kv_cache.py.j2', 65, 'message')))
            yield '),\n'
        l_1_mt = l_1_ratio = l_1_error = l_1_message = missing
        yield '    ],\n)\ndef test_unsupported_compress_ratio(model_type, ratio, error, message):\n    with pytest.raises((AssertionError, ValueError)) as raised:\n        kv_cache.validate_compress_ratio(model_type, layer_id=7, compress_ratio=ratio)\n    assert type(raised.value).__name__ == error\n    assert str(raised.value) == message\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'kv_source_allow'):
        pass
        yield '\n\n# kv_cache.kv_source_compressor: only a kv-source layer builds the compressor\n@pytest.mark.parametrize(\n    ("model_type", "layer_id", "ratio", "hf_config"),\n    [\n'
        for (l_1_mt, l_1_layer_id, l_1_ratio, l_1_config) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'kv_source_allow'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 83, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_layer_id, 'python/tests/test_kv_cache.py.j2', 83, 'layer_id')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_ratio, 'python/tests/test_kv_cache.py.j2', 83, 'ratio')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_kv_cache.py.j2', 83, 'config')))
            yield '),\n'
        l_1_mt = l_1_layer_id = l_1_ratio = l_1_config = missing
        yield '    ],\n)\ndef test_compress_ratio_off_kv_source_or_accepted_by_its_compressor(model_type, layer_id, ratio, hf_config):\n    kv_cache.validate_compress_ratio(model_type, layer_id, ratio, hf_config)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'kv_source_reject'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "layer_id", "ratio", "hf_config", "error", "message"),\n    [\n'
        for (l_1_mt, l_1_layer_id, l_1_ratio, l_1_config, l_1_error, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'kv_source_reject'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_kv_cache.py.j2', 97, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_layer_id, 'python/tests/test_kv_cache.py.j2', 97, 'layer_id')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_ratio, 'python/tests/test_kv_cache.py.j2', 97, 'ratio')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_kv_cache.py.j2', 97, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_error, 'python/tests/test_kv_cache.py.j2', 97, 'error')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_kv_cache.py.j2', 97, 'message')))
            yield '),\n'
        l_1_mt = l_1_layer_id = l_1_ratio = l_1_config = l_1_error = l_1_message = missing
        yield '    ],\n)\ndef test_kv_source_compressor_refuses_its_unsupported_ratios(model_type, layer_id, ratio, hf_config, error, message):\n    with pytest.raises((AssertionError, ValueError, NotImplementedError)) as raised:\n        kv_cache.validate_compress_ratio(model_type, layer_id, ratio, hf_config)\n    assert type(raised.value).__name__ == error\n    assert str(raised.value) == message\n'

blocks = {}
debug_info = '1=26&21=28&22=32&35=42&36=46&46=54&52=57&53=61&64=67&65=71&75=81&82=84&83=88&90=98&96=101&97=105'