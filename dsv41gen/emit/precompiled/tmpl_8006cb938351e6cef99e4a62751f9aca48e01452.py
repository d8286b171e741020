from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/linear_attention.py.j2'

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
        t_5 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    pass
    yield '"""Linear-attention layer state of the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/linear_attention.py.j2', 1, 'plan.family | ident')))
    yield ' family (a hybrid model).\n\nEach linear-attention layer keeps a fixed-size state per sequence (vLLM\'s MambaSpec): the\nshapes below are the spec\'s expressions of the HF text config, the dtypes follow the engine\'s\ncache settings (kv_cache.linear_attention).\n"""\n\nfrom __future__ import annotations\n\nfrom collections.abc import Mapping\nfrom typing import Any\n\n# spec: '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'source'), 'python/linear_attention.py.j2', 13, 'plan.source')))
    yield '\nBACKEND = '
    yield str(environment.finalize(t_1(t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'backend')), 'python/linear_attention.py.j2', 14, 'plan.backend | py_str')))
    yield "\n\n# vLLM's cache dtype settings and the torch dtype each allocates (STR_DTYPE_TO_TORCH_DTYPE)\nCACHE_DTYPES: dict[str, str] = {\n"
    for (l_1_setting, l_1_dtype) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'dtype_names'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_5(l_1_setting), 'python/linear_attention.py.j2', 19, 'setting | py_str')))
        yield ': '
        yield str(environment.finalize(t_1(t_5(l_1_dtype), 'python/linear_attention.py.j2', 19, 'dtype | py_str')))
        yield ',\n'
    l_1_setting = l_1_dtype = missing
    yield '}\n\n\ndef _divide(numerator: int, denominator: int) -> int:\n    """vLLM\'s divide: the quotient, asserting that ``denominator`` divides ``numerator``."""\n    assert numerator % denominator == 0, f"{numerator} is not divisible by {denominator}"\n    return numerator // denominator\n\n\ndef _cache_dtype(setting: str, auto: str) -> str:\n    """vLLM\'s get_kv_cache_torch_dtype: ``auto`` takes ``auto``\'s dtype, a known setting its\n    own, any other setting is refused."""\n    if setting == "auto":\n        return auto\n    if setting not in CACHE_DTYPES:\n        raise ValueError(f"Invalid kv cache dtype: {setting}")\n    return CACHE_DTYPES[setting]\n\n\ndef linear_attention_state(\n    hf_text_config: object,\n    *,\n    tp_size: int,\n    num_speculative_tokens: int,\n    model_dtype: str,\n    mamba_cache_dtype: str,\n    mamba_ssm_cache_dtype: str,\n    conv_state_layout: str,\n) -> dict[str, Any]:\n    """The state shapes and dtypes of one linear-attention layer under tensor parallel size\n    ``tp_size``, and the layer\'s attention backend. ``conv_state_layout`` is the engine\'s\n    ("DS": a conv state is stored dim-first)."""\n\n    def _field(name: str) -> int:\n        if isinstance(hf_text_config, Mapping):\n            return hf_text_config[name]\n        return getattr(hf_text_config, name)\n\n    shapes: list[tuple[int, ...]] = []\n    if model_dtype not in CACHE_DTYPES:\n        raise ValueError(f"Invalid model dtype: {model_dtype}")\n    dtypes: dict[str, str] = {"model_dtype": CACHE_DTYPES[model_dtype]}\n    settings = {"mamba_cache_dtype": mamba_cache_dtype, "mamba_ssm_cache_dtype": mamba_ssm_cache_dtype}\n'
    for l_1_s in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'states'):
        _loop_vars = {}
        pass
        yield '    # '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_s, 'name')), 'python/linear_attention.py.j2', 65, 's.name | comment')))
        yield '\n'
        if environment.getattr(l_1_s, 'conv_layout'):
            pass
            yield '    dim, length = '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_s, 'dims'), ', '), 'python/linear_attention.py.j2', 67, "s.dims | join(', ' )")))
            yield '\n    shapes.append((dim, length) if conv_state_layout == "DS" else (length, dim))\n'
        else:
            pass
            yield '    shapes.append(('
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_s, 'dims'), ', '), 'python/linear_attention.py.j2', 70, "s.dims | join(', ' )")))
            yield ',))\n'
        yield '    dtypes['
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_s, 'name')), 'python/linear_attention.py.j2', 72, 's.name | py_str')))
        yield '] = _cache_dtype(settings['
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_s, 'setting')), 'python/linear_attention.py.j2', 72, 's.setting | py_str')))
        yield '], dtypes['
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_s, 'auto')), 'python/linear_attention.py.j2', 72, 's.auto | py_str')))
        yield '])\n'
    l_1_s = missing
    yield '    return {\n        "shapes": shapes,\n        "dtypes": ['
    l_1_loop = missing
    for l_1_s, l_1_loop in LoopContext(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'states'), undefined):
        _loop_vars = {}
        pass
        yield 'dtypes['
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_s, 'name')), 'python/linear_attention.py.j2', 76, 's.name | py_str')))
        yield ']'
        if (not environment.getattr(l_1_loop, 'last')):
            pass
            yield ', '
    l_1_loop = l_1_s = missing
    yield '],\n        "backend": BACKEND,\n    }\n'

blocks = {}
debug_info = '1=43&13=45&14=47&18=49&19=53&64=59&65=63&66=65&67=68&70=73&72=76&76=85'