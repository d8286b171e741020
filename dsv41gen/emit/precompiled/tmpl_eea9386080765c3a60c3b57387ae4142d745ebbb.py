from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_runner.py.j2'

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
    yield '"""Generated tests: the model-runner rules of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_runner.py.j2', 1, 'plan.family | ident')))
    yield ' family, checked on the\nfinal cudagraph mode: every runner x architecture x mode x speculation the spec names, with the\nexact message of what is refused (seed 004\'s reject and allow matrices, widened)."""\n\nfrom __future__ import annotations\n\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rejects'):
        pass
        yield 'import re\n'
    yield 'from types import SimpleNamespace\n\nimport pytest\n\nfrom .. import runner\nfrom .._binding import CUDAGraphMode\n\n\ndef _config(use_v2_model_runner, architecture, mode, method, adaptive_verification):\n    return SimpleNamespace(\n        use_v2_model_runner=use_v2_model_runner,\n        model_config=SimpleNamespace(architectures=[architecture]),\n        compilation_config=SimpleNamespace(cudagraph_mode=getattr(CUDAGraphMode, mode)),\n        speculative_config=None\n        if method is None and not adaptive_verification\n        else SimpleNamespace(method=method, enable_adaptive_verification=adaptive_verification),\n    )\n\n\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refusals'):
        pass
        yield '# What each refusal says, exactly, named by the spec field that makes it.\n'
        for (l_1_name, l_1_source, l_1_message) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refusals'):
            _loop_vars = {}
            pass
            yield '# spec: '
            yield str(environment.finalize(t_1(l_1_source, 'python/tests/test_runner.py.j2', 32, 'source')))
            yield '\n'
            yield str(environment.finalize(t_1(l_1_name, 'python/tests/test_runner.py.j2', 33, 'name')))
            yield ' = '
            yield str(environment.finalize(t_1(l_1_message, 'python/tests/test_runner.py.j2', 33, 'message')))
            yield '\n'
        l_1_name = l_1_source = l_1_message = missing
        yield '\n'
    yield '# Every architecture the spec names and one of no variant, every final cudagraph mode, and no\n# speculative decoding, each method a runner requirement names, adaptive verification.\nARCHITECTURES = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'architectures'), 'python/tests/test_runner.py.j2', 39, 'tests.architectures')))
    yield '\nMODES = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'modes'), 'python/tests/test_runner.py.j2', 40, 'tests.modes')))
    yield '\nSPECULATION = (  # (method, adaptive verification)\n'
    for (l_1_method, l_1_adaptive) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'speculation'):
        _loop_vars = {}
        pass
        yield '    ('
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_runner.py.j2', 43, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_adaptive, 'python/tests/test_runner.py.j2', 43, 'adaptive')))
        yield '),\n'
    l_1_method = l_1_adaptive = missing
    yield ')\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refusals'):
        pass
        yield '\n# spec: '
        yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'source'), 'python/tests/test_runner.py.j2', 48, 'tests.source')))
        yield ' (the rules every case follows)\n'
        if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'architectures_alike'):
            pass
            yield '# The refused cases, keyed (model runner V2, final mode, method, adaptive verification): the\n# rules answer every architecture alike. Every case not listed passes.\nREFUSED = {\n'
            for (l_1_v2, l_1_mode, l_1_method, l_1_adaptive, l_1_refusal) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refused'):
                _loop_vars = {}
                pass
                yield '    ('
                yield str(environment.finalize(t_1(l_1_v2, 'python/tests/test_runner.py.j2', 54, 'v2')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_mode, 'python/tests/test_runner.py.j2', 54, 'mode')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_runner.py.j2', 54, 'method')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_adaptive, 'python/tests/test_runner.py.j2', 54, 'adaptive')))
                yield '): '
                yield str(environment.finalize(t_1(l_1_refusal, 'python/tests/test_runner.py.j2', 54, 'refusal')))
                yield ',\n'
            l_1_v2 = l_1_mode = l_1_method = l_1_adaptive = l_1_refusal = missing
            yield '}\n'
        else:
            pass
            yield '# The refused cases, keyed (model runner V2, architecture, final mode, method, adaptive\n# verification): some rule names architectures. Every case not listed passes.\nREFUSED = {\n'
            for (l_1_v2, l_1_arch, l_1_mode, l_1_method, l_1_adaptive, l_1_refusal) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refused'):
                _loop_vars = {}
                pass
                yield '    ('
                yield str(environment.finalize(t_1(l_1_v2, 'python/tests/test_runner.py.j2', 62, 'v2')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_arch, 'python/tests/test_runner.py.j2', 62, 'arch')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_mode, 'python/tests/test_runner.py.j2', 62, 'mode')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_runner.py.j2', 62, 'method')))
                yield ', '
                yield str(environment.finalize(t_1(l_1_adaptive, 'python/tests/test_runner.py.j2', 62, 'adaptive')))
                yield '): '
                yield str(environment.finalize(t_1(l_1_refusal, 'python/tests/test_runner.py.j2', 62, 'refusal')))
                yield ',\n'
            l_1_v2 = l_1_arch = l_1_mode = l_1_method = l_1_adaptive = l_1_refusal = missing
            yield '}\n'
    yield '\n\n@pytest.mark.parametrize("architecture", ARCHITECTURES)\n@pytest.mark.parametrize("use_v2_model_runner", (False, True))\n@pytest.mark.parametrize("mode", MODES)\n@pytest.mark.parametrize(("method", "adaptive_verification"), SPECULATION)\ndef test_runner_rule(architecture, use_v2_model_runner, mode, method, adaptive_verification):\n    config = _config(use_v2_model_runner, architecture, mode, method, adaptive_verification)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'refusals'):
        pass
        if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'architectures_alike'):
            pass
            yield '    message = REFUSED.get((use_v2_model_runner, mode, method, adaptive_verification))\n'
        else:
            pass
            yield '    message = REFUSED.get((use_v2_model_runner, architecture, mode, method, adaptive_verification))\n'
        yield '    if message is None:\n        runner.validate_runner_modes(config)\n    else:\n        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):\n            runner.validate_runner_modes(config)\n'
    else:
        pass
        yield '    runner.validate_runner_modes(config)  # the spec refuses nothing\n'
    yield "\n\ndef test_config_without_a_model_is_not_checked():\n    runner.validate_runner_modes(SimpleNamespace(model_config=None))\n\n\n# The modes that run piecewise CUDA graphs (vLLM's CUDAGraphMode.has_piecewise_cudagraphs).\nPIECEWISE_MODES = "
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'piecewise_modes'), 'python/tests/test_runner.py.j2', 96, 'tests.piecewise_modes')))
    yield '\n\n\n@pytest.mark.parametrize("mode", MODES)\ndef test_has_piecewise_cudagraphs(mode):\n    assert getattr(CUDAGraphMode, mode).has_piecewise_cudagraphs() is (mode in PIECEWISE_MODES)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'defaults'):
        pass
        yield '\n\n@pytest.mark.parametrize(\n    ("architecture", "uses_v2"),\n    [\n'
        for (l_1_arch, l_1_v2) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'defaults'):
            _loop_vars = {}
            pass
            yield '        ('
            yield str(environment.finalize(t_1(l_1_arch, 'python/tests/test_runner.py.j2', 109, 'arch')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_v2, 'python/tests/test_runner.py.j2', 109, 'v2')))
            yield '),\n'
        l_1_arch = l_1_v2 = missing
        yield '    ],\n)\ndef test_default_model_runner(architecture, uses_v2):\n    assert runner.default_uses_v2_model_runner(architecture) is uses_v2\n'

blocks = {}
debug_info = '1=26&7=28&29=32&31=35&32=39&33=41&39=48&40=50&42=52&43=56&46=62&48=65&49=67&53=70&54=74&61=89&62=93&75=108&76=110&96=121&102=123&108=126&109=130'