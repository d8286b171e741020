from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_speculative.py.j2'

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
    yield '"""Generated tests: speculative-decoding validation of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_speculative.py.j2', 1, 'plan.family | ident')))
    yield ' family (seed 004\nstyle: the reject side and the allow side of every boundary)."""\n\nfrom __future__ import annotations\n\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'matches_messages'):
        pass
        yield 'import re\n'
    yield 'import warnings\n\nimport pytest\n\nfrom .. import dispatch, speculative\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'forbidden'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "message"),\n    [\n'
        for (l_1_mt, l_1_method, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'forbidden'):
            _loop_vars = {}
            pass
            yield '        (\n            '
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 22, 'mt')))
            yield ',\n            '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 23, 'method')))
            yield ',\n            '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_speculative.py.j2', 24, 'message')))
            yield ',\n        ),\n'
        l_1_mt = l_1_method = l_1_message = missing
        yield '    ],\n)\ndef test_forbidden_method_is_rejected_with_the_fix(model_type, method, message):\n    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):\n        speculative.validate_method(model_type, method)\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method"),\n    [\n'
    for (l_1_mt, l_1_method) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'allowed'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 39, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 39, 'method')))
        yield '),\n'
    l_1_mt = l_1_method = missing
    yield '        ('
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'foreign_model_type'), 'python/tests/test_speculative.py.j2', 41, 'tests.foreign_model_type')))
    yield ', "eagle"),\n    ],\n)\ndef test_allowed_method_passes(model_type, method):\n    speculative.validate_method(model_type, method)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'not_wired'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method"),\n    [\n'
        for (l_1_mt, l_1_method) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'not_wired'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 53, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 53, 'method')))
            yield '),\n'
        l_1_mt = l_1_method = missing
        yield '    ],\n)\ndef test_family_method_the_variant_drops_is_rejected(model_type, method):\n    with pytest.raises(ValueError, match="does not support speculative method"):\n        speculative.validate_method(model_type, method)\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "expected"),\n    [\n'
    for (l_1_mt, l_1_method, l_1_config, l_1_expected) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'tokens_per_round'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 67, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 67, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 67, 'config')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_expected, 'python/tests/test_speculative.py.j2', 67, 'expected')))
        yield '),\n'
    l_1_mt = l_1_method = l_1_config = l_1_expected = missing
    yield '    ],\n)\ndef test_tokens_per_round_reads_the_methods_own_fields(model_type, method, hf_config, expected):\n    assert speculative.tokens_per_round(model_type, method, hf_config) == expected\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'default_num_tokens'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "expected"),\n    [\n'
        for (l_1_mt, l_1_method, l_1_config, l_1_expected) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'default_num_tokens'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 80, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 80, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 80, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_expected, 'python/tests/test_speculative.py.j2', 80, 'expected')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_config = l_1_expected = missing
        yield '    ],\n)\ndef test_num_speculative_tokens_default(model_type, method, hf_config, expected):\n    assert speculative.resolve_num_speculative_tokens(model_type, method, hf_config) == expected\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "message"),\n    [\n'
    for (l_1_mt, l_1_method, l_1_config, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'missing_default'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 93, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 93, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 93, 'config')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_speculative.py.j2', 93, 'message')))
        yield '),\n'
    l_1_mt = l_1_method = l_1_config = l_1_message = missing
    yield '    ],\n)\ndef test_no_default_num_speculative_tokens_is_an_error(model_type, method, hf_config, message):\n    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):\n        speculative.resolve_num_speculative_tokens(model_type, method, hf_config)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'reject_num_tokens'):
        pass
        yield '\n\n# A warning the method logs above a token count comes first, as in vLLM; here only the error counts.\n@pytest.mark.filterwarnings("ignore::UserWarning")\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "num", "message"),\n    [\n'
        for (l_1_mt, l_1_method, l_1_config, l_1_n, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'reject_num_tokens'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 109, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 109, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 109, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_n, 'python/tests/test_speculative.py.j2', 109, 'n')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_speculative.py.j2', 109, 'message')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_config = l_1_n = l_1_message = missing
        yield '    ],\n)\ndef test_num_speculative_tokens_rejected(model_type, method, hf_config, num, message):\n    with pytest.raises(ValueError, match=re.escape(message)):\n        speculative.resolve_num_speculative_tokens(model_type, method, hf_config, num)\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "num"),\n    [\n'
    for (l_1_mt, l_1_method, l_1_config, l_1_n) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'allow_num_tokens'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 123, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 123, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 123, 'config')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_n, 'python/tests/test_speculative.py.j2', 123, 'n')))
        yield '),\n'
    l_1_mt = l_1_method = l_1_config = l_1_n = missing
    yield '    ],\n)\ndef test_num_speculative_tokens_allowed(model_type, method, hf_config, num):\n    with warnings.catch_warnings():\n        warnings.simplefilter("ignore")\n        assert speculative.resolve_num_speculative_tokens(model_type, method, hf_config, num) == num\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'warn_num_tokens'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "num", "warns"),\n    [\n'
        for (l_1_mt, l_1_method, l_1_config, l_1_n, l_1_warns) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'warn_num_tokens'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 138, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 138, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 138, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_n, 'python/tests/test_speculative.py.j2', 138, 'n')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_warns, 'python/tests/test_speculative.py.j2', 138, 'warns')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_config = l_1_n = l_1_warns = missing
        yield '    ],\n)\ndef test_num_speculative_tokens_warning(model_type, method, hf_config, num, warns):\n    with warnings.catch_warnings(record=True) as caught:\n        warnings.simplefilter("always")\n        speculative.resolve_num_speculative_tokens(model_type, method, hf_config, num)\n    assert (len(caught) == 1) is warns\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "hf_config", "expected"),\n    [\n'
    for (l_1_mt, l_1_method, l_1_config, l_1_expected) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'draft_overrides'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 154, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 154, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_speculative.py.j2', 154, 'config')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_expected, 'python/tests/test_speculative.py.j2', 154, 'expected')))
        yield '),\n'
    l_1_mt = l_1_method = l_1_config = l_1_expected = missing
    yield '    ],\n)\ndef test_draft_config_rewrite(model_type, method, hf_config, expected):\n    assert speculative.draft_config_overrides(model_type, method, hf_config) == expected\n\n\ndef test_other_families_are_not_rewritten():\n    assert speculative.draft_config_overrides('
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'foreign_model_type'), 'python/tests/test_speculative.py.j2', 163, 'tests.foreign_model_type')))
    yield ', "eagle", {}) is None\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'adaptive'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("model_type", "method", "supported", "message"),\n    [\n'
        for (l_1_mt, l_1_method, l_1_supported, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'adaptive'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 171, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_speculative.py.j2', 171, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_supported, 'python/tests/test_speculative.py.j2', 171, 'supported')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_speculative.py.j2', 171, 'message')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_supported = l_1_message = missing
        yield '    ],\n)\ndef test_adaptive_verification(model_type, method, supported, message):\n    speculative.check_adaptive_verification(model_type, method, enabled=False)\n    if supported:\n        speculative.check_adaptive_verification(model_type, method, enabled=True)\n    else:\n        with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):\n            speculative.check_adaptive_verification(model_type, method, enabled=True)\n'
    yield '\n\n@pytest.mark.parametrize(\n    ("site", "model_type", "expected"),\n    [\n'
    for (l_1_site, l_1_mt, l_1_expected) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'site_cases'):
        _loop_vars = {}
        pass
        yield '        ('
        yield str(environment.finalize(t_1(l_1_site, 'python/tests/test_speculative.py.j2', 189, 'site')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_speculative.py.j2', 189, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_expected, 'python/tests/test_speculative.py.j2', 189, 'expected')))
        yield '),\n'
    l_1_site = l_1_mt = l_1_expected = missing
    yield '    ],\n)\ndef test_dispatch_site_answers_per_model_type(site, model_type, expected):\n    assert getattr(dispatch, site)(model_type) == expected\n'

blocks = {}
debug_info = '1=26&6=28&14=32&20=35&22=39&23=41&24=43&38=48&39=52&41=58&46=60&52=63&53=67&66=74&67=78&73=88&79=91&80=95&92=106&93=110&100=120&108=123&109=127&122=140&123=144&131=154&137=157&138=161&153=174&154=178&163=188&164=190&170=193&171=197&188=208&189=212'