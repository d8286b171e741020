from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/runner.py.j2'

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
        t_4 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_5 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    try:
        t_6 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    try:
        t_7 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '"""Model-runner rules of the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/runner.py.j2', 1, 'plan.family | ident')))
    yield ' family: the features only one model runner\nimplements, and forbidden (runner, CUDA-graph mode) combinations.\n\nA forbidden combination silently corrupts output (seed 004: GSM8K 0.95 -> 0.03), so it is\nrejected at start-up. Check the FINAL cudagraph mode, after every adjustment that may change it.\n"""\n\nfrom __future__ import annotations\n\nfrom collections.abc import Iterable\nfrom typing import Any\n\nfrom ._binding import CUDAGraphMode\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has_defaults'):
        pass
        yield '\n# Architectures that default to Model Runner V2.\nDEFAULT_V2_MODEL_RUNNER_ARCHITECTURES: frozenset[str] = frozenset(\n    {\n'
        for (l_1_arch, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'v2_default_architectures'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(environment.finalize(t_1(t_6(l_1_arch), 'python/runner.py.j2', 20, 'arch | py_str')))
            yield ',  # spec: '
            yield str(environment.finalize(t_1(t_2(l_1_source), 'python/runner.py.j2', 20, 'source | comment')))
            yield '\n'
        l_1_arch = l_1_source = missing
        yield '    }\n)\n'
        if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'v1_default_architectures'):
            pass
            yield '# Architectures that default to Model Runner V1.\nDEFAULT_V1_MODEL_RUNNER_ARCHITECTURES: frozenset[str] = frozenset(\n    {\n'
            for (l_1_arch, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'v1_default_architectures'):
                _loop_vars = {}
                pass
                yield '        '
                yield str(environment.finalize(t_1(t_6(l_1_arch), 'python/runner.py.j2', 29, 'arch | py_str')))
                yield ',  # spec: '
                yield str(environment.finalize(t_1(t_2(l_1_source), 'python/runner.py.j2', 29, 'source | comment')))
                yield '\n'
            l_1_arch = l_1_source = missing
            yield '    }\n)\n'
        yield '\n\ndef default_uses_v2_model_runner(architecture: str) -> bool | None:\n    """True/False when the spec sets this architecture\'s default runner\n    (runner.default_model_runner), None otherwise."""\n    if architecture in DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES:\n        return True\n'
        if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'v1_default_architectures'):
            pass
            yield '    if architecture in DEFAULT_V1_MODEL_RUNNER_ARCHITECTURES:\n        return False\n'
        yield '    return None\n'
    yield '\n\ndef check_runner_mode(\n    architectures: Iterable[str],\n    use_v2_model_runner: bool,\n    cudagraph_mode: CUDAGraphMode,\n    method: str | None = None,\n    adaptive_verification: bool = False,\n) -> None:\n    """Raise ValueError for what the chosen runner does not implement\n    (runner.requires_model_runner), then for a forbidden (architecture, runner, final cudagraph\n    mode) combination (runner.forbidden_modes). ``method``: the speculative method, if any."""\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'checks_architectures'):
        pass
        yield '    architectures = set(architectures)\n'
    for l_1_lacks in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'lacks'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_lacks, 'list_name')), 'python/runner.py.j2', 63, 'lacks.list_name | ident')))
        yield ' = []\n    if '
        if (not environment.getattr(l_1_lacks, 'use_v2_model_runner')):
            pass
            yield 'not '
        yield 'use_v2_model_runner:\n'
        for l_2_r in environment.getattr(l_1_lacks, 'requirements'):
            _loop_vars = {}
            pass
            yield '        # spec: '
            yield str(environment.finalize(t_1(t_2(environment.getattr(l_2_r, 'source')), 'python/runner.py.j2', 66, 'r.source | comment')))
            yield '\n'
            if environment.getattr(l_2_r, 'speculative_method'):
                pass
                yield '        if method == '
                yield str(environment.finalize(t_1(t_5(environment.getattr(l_2_r, 'speculative_method')), 'python/runner.py.j2', 68, 'r.speculative_method | py')))
                yield ':\n'
            else:
                pass
                yield '        if adaptive_verification:\n'
            yield '            '
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_lacks, 'list_name')), 'python/runner.py.j2', 72, 'lacks.list_name | ident')))
            yield '.append('
            yield str(environment.finalize(t_1(t_6(environment.getattr(l_2_r, 'feature')), 'python/runner.py.j2', 72, 'r.feature | py_str')))
            yield ')\n'
        l_2_r = missing
        yield '    if '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_lacks, 'list_name')), 'python/runner.py.j2', 74, 'lacks.list_name | ident')))
        yield ':\n        raise ValueError('
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_lacks, 'prefix')), 'python/runner.py.j2', 75, 'lacks.prefix | py_str')))
        yield ' + ", ".join('
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_lacks, 'list_name')), 'python/runner.py.j2', 75, 'lacks.list_name | ident')))
        yield '))\n'
    l_1_lacks = missing
    for l_1_f in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'forbidden'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_f, 'source')), 'python/runner.py.j2', 78, 'f.source | comment')))
        yield '\n    if (\n'
        if (not t_7(environment.getattr(l_1_f, 'use_v2_model_runner'))):
            pass
            yield '        '
            if (not environment.getattr(l_1_f, 'use_v2_model_runner')):
                pass
                yield 'not '
            yield 'use_v2_model_runner\n'
        if environment.getattr(l_1_f, 'adaptive_verification'):
            pass
            if (not t_7(environment.getattr(l_1_f, 'use_v2_model_runner'))):
                pass
                yield 'and '
            yield 'adaptive_verification\n'
        if environment.getattr(l_1_f, 'piecewise_predicate'):
            pass
            if ((not t_7(environment.getattr(l_1_f, 'use_v2_model_runner'))) or environment.getattr(l_1_f, 'adaptive_verification')):
                pass
                yield 'and '
            yield 'cudagraph_mode.has_piecewise_cudagraphs()\n'
        else:
            pass
            if ((not t_7(environment.getattr(l_1_f, 'use_v2_model_runner'))) or environment.getattr(l_1_f, 'adaptive_verification')):
                pass
                yield 'and '
            yield 'cudagraph_mode.name in '
            yield str(environment.finalize(t_1(t_5(t_4(context.eval_ctx, environment.getattr(l_1_f, 'mode_names'))), 'python/runner.py.j2', 89, 'f.mode_names | list | py')))
            yield '\n'
        if environment.getattr(l_1_f, 'architectures'):
            pass
            yield '        and not architectures.isdisjoint('
            yield str(environment.finalize(t_1(t_5(t_4(context.eval_ctx, (environment.getattr(l_1_f, 'architectures') or ()))), 'python/runner.py.j2', 92, '(f.architectures or())| list | py')))
            yield ')\n'
        yield '    ):\n        raise ValueError('
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_f, 'message')), 'python/runner.py.j2', 95, 'f.message | py_str')))
        yield ')\n'
    l_1_f = missing
    yield '\n\ndef validate_runner_modes(vllm_config: Any) -> None:\n    """check_runner_mode on a VllmConfig-like object (use_v2_model_runner, model_config,\n    compilation_config.cudagraph_mode, speculative_config); a config without a model is not\n    checked."""\n    model_config = getattr(vllm_config, "model_config", None)\n    if model_config is None:\n        return\n    speculative = getattr(vllm_config, "speculative_config", None)\n    check_runner_mode(\n        model_config.architectures,\n        vllm_config.use_v2_model_runner,\n        vllm_config.compilation_config.cudagraph_mode,\n        method=getattr(speculative, "method", None),\n        adaptive_verification=bool(getattr(speculative, "enable_adaptive_verification", False)),\n    )\n'

blocks = {}
debug_info = '1=55&14=57&19=60&20=64&24=70&28=73&29=77&41=84&59=89&62=92&63=96&64=98&65=102&66=106&67=108&68=111&72=117&74=123&75=125&77=130&78=134&80=136&81=139&83=143&84=145&86=149&87=151&89=157&91=163&92=166&95=169'