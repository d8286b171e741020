from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/speculative.py.j2'

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
        t_5 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_6 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    try:
        t_7 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    try:
        t_8 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '"""Speculative-decoding validation for the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/speculative.py.j2', 1, 'plan.family | ident')))
    yield ' family.\n\nEvery function takes the TARGET model\'s ``model_type``: what a draft becomes depends on the\nmodel it drafts for. Each method has its own tokens-per-round value with one meaning; no HF\nfield is reinterpreted per variant behind the caller\'s back.\n"""\n\nfrom __future__ import annotations\n\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'warns'):
        pass
        yield 'import warnings\n'
    yield 'from collections.abc import Callable, Mapping\nfrom typing import Any\n\nfrom . import _binding, dispatch\n\nDISPLAY_NAMES: dict[str, str] = {\n'
    for (l_1_model_type, l_1_name) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'display_names'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(l_1_model_type), 'python/speculative.py.j2', 20, 'model_type | py_str')))
        yield ': '
        yield str(environment.finalize(t_1(t_7(l_1_name), 'python/speculative.py.j2', 20, 'name | py_str')))
        yield ',\n'
    l_1_model_type = l_1_name = missing
    yield '}\n\n# Methods whose draft wiring some variant of this family provides.\nFAMILY_METHODS: frozenset[str] = frozenset('
    yield str(environment.finalize(t_1(t_6(t_5(context.eval_ctx, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family_methods'))), 'python/speculative.py.j2', 25, 'plan.family_methods | list | py')))
    yield ')\n\n# Per target, the methods its own spec lineage wires, forbids or dropped: validate_method judges\n# only these (speculative.methods, speculative.forbidden). Others (eagle, ngram, a method only a\n# sibling wires, ...) are not judged here.\nJUDGED_METHODS: dict[str, frozenset[str]] = {\n'
    for (l_1_model_type, l_1_methods) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'judged'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(l_1_model_type), 'python/speculative.py.j2', 32, 'model_type | py_str')))
        yield ': frozenset('
        yield str(environment.finalize(t_1(t_6(t_5(context.eval_ctx, l_1_methods)), 'python/speculative.py.j2', 32, 'methods | list | py')))
        yield '),\n'
    l_1_model_type = l_1_methods = missing
    yield '}\n\nALLOWED_METHODS: dict[str, frozenset[str]] = {\n'
    for (l_1_model_type, l_1_methods) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'allowed'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(l_1_model_type), 'python/speculative.py.j2', 38, 'model_type | py_str')))
        yield ': frozenset('
        yield str(environment.finalize(t_1(t_6(t_5(context.eval_ctx, l_1_methods)), 'python/speculative.py.j2', 38, 'methods | list | py')))
        yield '),\n'
    l_1_model_type = l_1_methods = missing
    yield '}\n\n# vLLM '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'vllm_version')), 'python/speculative.py.j2', 42, 'plan.vllm_version | comment')))
    yield '\'s MTPModelTypes; all but "mtp" become "mtp" (deprecated names).\n_MTP_MODEL_TYPES: tuple[str, ...] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'mtp_model_types')), 'python/speculative.py.j2', 43, 'plan.mtp_model_types | py')))
    yield '\n# Its SpeculativeConfig.method (SpeculativeMethod, in its order): pydantic rejects any other name.\nENGINE_METHODS: tuple[str, ...] = (\n    *'
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods_before_mtp')), 'python/speculative.py.j2', 46, 'plan.methods_before_mtp | py')))
    yield ',\n    *_MTP_MODEL_TYPES,\n    *'
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods_after_mtp')), 'python/speculative.py.j2', 48, 'plan.methods_after_mtp | py')))
    yield ',\n)\n_MTP_ALIASES: frozenset[str] = frozenset(_MTP_MODEL_TYPES) - {"mtp"}\n\n_DRAFT_MODEL_TYPE: dict[str, Callable[[str], str | None]] = {\n'
    for l_1_m in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 54, 'm.method | py_str')))
        yield ': dispatch.'
        yield str(environment.finalize(t_1(context.call(environment.getattr(l_1_m, 'site'), 'draft_model_type', _loop_vars=_loop_vars), 'python/speculative.py.j2', 54, "m.site('draft_model_type' )")))
        yield ',\n'
    l_1_m = missing
    yield '}\n_DRAFT_ARCHITECTURE: dict[str, Callable[[str], str | None]] = {\n'
    def t_9(fiter):
        for l_1_m in fiter:
            if environment.getattr(l_1_m, 'some_variant_names_an_architecture'):
                yield l_1_m
    for l_1_m in t_9(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods')):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 59, 'm.method | py_str')))
        yield ': dispatch.'
        yield str(environment.finalize(t_1(context.call(environment.getattr(l_1_m, 'site'), 'draft_architecture', _loop_vars=_loop_vars), 'python/speculative.py.j2', 59, "m.site('draft_architecture' )")))
        yield ',\n'
    l_1_m = missing
    yield '}\n_TOKENS_PER_ROUND_SOURCES: dict[str, Callable[[str], tuple[str, ...] | None]] = {\n'
    for l_1_m in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 64, 'm.method | py_str')))
        yield ': dispatch.'
        yield str(environment.finalize(t_1(context.call(environment.getattr(l_1_m, 'site'), 'tokens_per_round_sources', _loop_vars=_loop_vars), 'python/speculative.py.j2', 64, "m.site('tokens_per_round_sources' )")))
        yield ',\n'
    l_1_m = missing
    yield '}\n_DEFAULT_NUM_SPECULATIVE_TOKENS_SOURCES: dict[str, Callable[[str], tuple[str, ...] | None]] = {\n'
    def t_10(fiter):
        for l_1_m in fiter:
            if environment.getattr(l_1_m, 'has_default_sources'):
                yield l_1_m
    for l_1_m in t_10(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods')):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 69, 'm.method | py_str')))
        yield ': dispatch.'
        yield str(environment.finalize(t_1(context.call(environment.getattr(l_1_m, 'site'), 'default_sources', _loop_vars=_loop_vars), 'python/speculative.py.j2', 69, "m.site('default_sources' )")))
        yield ',\n'
    l_1_m = missing
    yield '}\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'draft_field_methods'):
        pass
        yield '_DRAFT_FIELDS: dict[str, Callable[[str], tuple[tuple[str, str, str, object], ...] | None]] = {\n'
        for l_1_m in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'draft_field_methods'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_7(l_1_m), 'python/speculative.py.j2', 75, 'm | py_str')))
            yield ': dispatch.'
            yield str(environment.finalize(t_1(t_3(l_1_m), 'python/speculative.py.j2', 75, 'm | ident')))
            yield '_draft_fields,\n'
        l_1_m = missing
        yield '}\n'
    yield '\n\ndef _hf_field(hf_config: object, name: str) -> Any:\n    if isinstance(hf_config, Mapping):\n        return hf_config.get(name)\n    return getattr(hf_config, name, None)\n'
    if (not t_8(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'composite_model_types'))):
        pass
        yield '\n\n# The model types whose HF config class nests its text config (variant.composite_model_types).\nCOMPOSITE_MODEL_TYPES: frozenset[str] = frozenset('
        yield str(environment.finalize(t_1(t_6(t_5(context.eval_ctx, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'composite_model_types'))), 'python/speculative.py.j2', 89, 'plan.composite_model_types | list | py')))
        yield ')\n\n\ndef _text_config(hf_config: object, target_model_type: str) -> Any:\n    """The text config vLLM\'s get_hf_text_config reads: a composite config\'s nested\n    ``text_config`` (absent: the class\'s defaults, none of them set here), else the config\n    itself, which vLLM refuses when it keeps a nested text_config as a plain mapping."""\n    nested = _hf_field(hf_config, "text_config")\n    if target_model_type in COMPOSITE_MODEL_TYPES:\n        return {} if nested is None else nested\n    if nested is not None:\n        raise ValueError('
        yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'text_config_message')), 'python/speculative.py.j2', 100, 'plan.text_config_message | py_str')))
        yield ')\n    return hf_config\n\n\ndef _hf_path(hf_config: object, path: str, target_model_type: str) -> Any:\n    """An HF config field by its dotted path (``text_config.hc_count``); None when unset."""\n    head, *rest = path.split(".")\n    if not rest:\n        return _hf_field(hf_config, head)\n    value = _text_config(hf_config, target_model_type) if head == "text_config" else _hf_field(hf_config, head)\n    for name in rest:\n        value = None if value is None else _hf_field(value, name)\n    return value\n'
    yield '\n\ndef engine_method(method: str) -> str:\n    """``method`` as vLLM\'s SpeculativeConfig takes it: a name it does not know raises its\n    pydantic ValidationError, with its words; an MTP draft model_type becomes "mtp"."""\n    if method not in ENGINE_METHODS:\n        expected = ", ".join(map(repr, ENGINE_METHODS[:-1])) + f" or {ENGINE_METHODS[-1]!r}"\n        raise _binding.literal_error('
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'method_title')), 'python/speculative.py.j2', 121, 'plan.method_title | py_str')))
    yield ', "method", method, expected)\n    return "mtp" if method in _MTP_ALIASES else method\n\n\ndef validate_method(target_model_type: str, method: str) -> None:\n    """Reject a speculative method vLLM does not know (engine_method), or one the target\n    variant forbids or does not wire.\n\n    Spec: speculative.forbidden (the message is derived from checkpoint.weight_sets) and\n    speculative.methods.\n    """\n    method = engine_method(method)\n'
    for l_1_f in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'forbidden_groups'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_f, 'source'), 'python/speculative.py.j2', 134, 'f.source')))
        yield '\n    if target_model_type '
        yield str(environment.finalize(t_1(environment.getattr(l_1_f, 'test'), 'python/speculative.py.j2', 135, 'f.test')))
        yield ' and method == '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_f, 'method')), 'python/speculative.py.j2', 135, 'f.method | py_str')))
        yield ':\n        raise ValueError(\n            '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_f, 'message')), 'python/speculative.py.j2', 137, 'f.message | py_str')))
        yield '\n        )\n'
    l_1_f = missing
    yield '    allowed = ALLOWED_METHODS.get(target_model_type)\n    if allowed is not None and method in JUDGED_METHODS[target_model_type] and method not in allowed:\n        supported = ", ".join(sorted(allowed)) or "none (its spec wires no speculative method)"\n        raise ValueError(\n            f"{DISPLAY_NAMES[target_model_type]} does not support speculative method {method!r}; "\n            f"supported: {supported}."\n        )\n\n\ndef tokens_per_round(target_model_type: str, method: str, hf_config: object) -> int | None:\n    """How many tokens one round of ``method`` drafts for this target.\n\n    Read from the HF config fields the spec names for (variant, method), first set field wins\n    (speculative.methods.<method>.tokens_per_round.sources); None when this family does not\n    handle the method for that model_type.\n    """\n    sources = _TOKENS_PER_ROUND_SOURCES.get(method, lambda _model_type: None)(target_model_type)\n    if sources is None:\n        return None\n    for field in sources:\n'
    if (not t_8(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'composite_model_types'))):
        pass
        yield '        value = _hf_path(hf_config, field, target_model_type)\n'
    else:
        pass
        yield '        value = _hf_field(hf_config, field)\n'
    yield '        if value is not None:  # 0 is a value (a draft without layers), not an unset field\n            return int(value)\n    return None\n'
    for l_1_m in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods'):
        _loop_vars = {}
        pass
        if environment.getattr(l_1_m, 'rules'):
            pass
            yield '\n\ndef '
            yield str(environment.finalize(t_1(environment.getattr(l_1_m, 'check_function'), 'python/speculative.py.j2', 172, 'm.check_function')))
            yield '(\n    target_model_type: str, num: int, n_predict: int | None, default_from: str | None\n) -> None:\n    """``default_from`` names where a default came from (None: the request\'s own value). A\n    default meets the maximum only: vLLM neither warns about nor divides the draft\'s own value."""\n'
            for l_2_r in environment.getattr(l_1_m, 'rules'):
                _loop_vars = {}
                pass
                yield '    if target_model_type '
                yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'test'), 'python/speculative.py.j2', 178, 'r.test')))
                yield ':\n        # spec: '
                yield str(environment.finalize(t_1(t_4(environment.getattr(l_2_r, 'sources'), ', '), 'python/speculative.py.j2', 179, "r.sources | join(', ' )")))
                yield '\n        if default_from is not None:\n'
                if (not t_8(environment.getattr(l_2_r, 'maximum'))):
                    pass
                    yield '            if num > '
                    yield str(environment.finalize(t_1(t_6(environment.getattr(l_2_r, 'maximum')), 'python/speculative.py.j2', 182, 'r.maximum | py')))
                    yield ':\n                raise ValueError('
                    yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'default_maximum_message'), 'python/speculative.py.j2', 183, 'r.default_maximum_message')))
                    yield ')\n'
                yield '            return\n'
                if (not t_8(environment.getattr(l_2_r, 'warn_above'))):
                    pass
                    yield '        # vLLM warns before it checks divisibility\n        if num > '
                    yield str(environment.finalize(t_1(t_6(environment.getattr(l_2_r, 'warn_above')), 'python/speculative.py.j2', 188, 'r.warn_above | py')))
                    yield ':\n            warnings.warn('
                    yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'warn_message'), 'python/speculative.py.j2', 189, 'r.warn_message')))
                    yield ', stacklevel=3)\n'
                if (environment.getattr(l_2_r, 'divisibility') == 'when_above_tokens_per_round'):
                    pass
                    yield '        if n_predict == 0 and num > n_predict:\n            raise ValueError('
                    yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'zero_tokens_per_round_message'), 'python/speculative.py.j2', 193, 'r.zero_tokens_per_round_message')))
                    yield ')\n        if n_predict is not None and num > n_predict and num % n_predict != 0:\n            raise ValueError(f"num_speculative_tokens:{num} must be divisible by {n_predict=}")\n'
                elif (environment.getattr(l_2_r, 'divisibility') == 'always'):
                    pass
                    yield '        if n_predict == 0:\n            raise ValueError('
                    yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'zero_tokens_per_round_message'), 'python/speculative.py.j2', 198, 'r.zero_tokens_per_round_message')))
                    yield ')\n        if n_predict is not None and num % n_predict != 0:\n            raise ValueError(f"num_speculative_tokens:{num} must be divisible by {n_predict=}")\n'
                if (not t_8(environment.getattr(l_2_r, 'maximum'))):
                    pass
                    yield '        if num > '
                    yield str(environment.finalize(t_1(t_6(environment.getattr(l_2_r, 'maximum')), 'python/speculative.py.j2', 203, 'r.maximum | py')))
                    yield ':\n            raise ValueError('
                    yield str(environment.finalize(t_1(environment.getattr(l_2_r, 'maximum_message'), 'python/speculative.py.j2', 204, 'r.maximum_message')))
                    yield ')\n'
            l_2_r = missing
    l_1_m = missing
    yield '\n_NUM_SPECULATIVE_TOKENS_CHECKS: dict[str, Callable[[str, int, int | None, str | None], None]] = {\n'
    def t_11(fiter):
        for l_1_m in fiter:
            if environment.getattr(l_1_m, 'rules'):
                yield l_1_m
    for l_1_m in t_11(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'methods')):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 212, 'm.method | py_str')))
        yield ': '
        yield str(environment.finalize(t_1(environment.getattr(l_1_m, 'check_function'), 'python/speculative.py.j2', 212, 'm.check_function')))
        yield ',\n'
    l_1_m = missing
    yield '}\n\n\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'required'):
        pass
        yield 'def refuse_unset_num_speculative_tokens(target_model_type: str, method: str) -> None:\n    """Refuse a request without num_speculative_tokens where the spec says no default applies\n    (speculative.methods.<method>.num_speculative_tokens.default: none): the engine fails on it,\n    so this says what to set instead."""\n    method = engine_method(method)\n'
        for l_1_r in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'required_groups'):
            _loop_vars = {}
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_r, 'source'), 'python/speculative.py.j2', 224, 'r.source')))
            yield '\n    if target_model_type '
            yield str(environment.finalize(t_1(environment.getattr(l_1_r, 'test'), 'python/speculative.py.j2', 225, 'r.test')))
            yield ' and method == '
            yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_r, 'method')), 'python/speculative.py.j2', 225, 'r.method | py_str')))
            yield ':\n        raise ValueError(\n            '
            yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_r, 'message')), 'python/speculative.py.j2', 227, 'r.message | py_str')))
            yield '\n        )\n'
        l_1_r = missing
        yield '\n\n'
    yield 'def resolve_num_speculative_tokens(\n    target_model_type: str, method: str, hf_config: object, num_speculative_tokens: int | None = None\n) -> int | None:\n    """num_speculative_tokens after the default and the spec\'s checks, read from the DRAFT\'s HF\n    config (speculative.methods.<method>.num_speculative_tokens). The default is the first set\n    default_sources field, else tokens per round (the draft\'s n_predict); with neither, a request\n    that names no num_speculative_tokens is an error, as in vLLM. Where the spec says no default\n    applies (default: none), such a request is refused, after the method checks vLLM makes\n    first."""\n    method = engine_method(method)\n    validate_method(target_model_type, method)\n    if _TOKENS_PER_ROUND_SOURCES.get(method, lambda _model_type: None)(target_model_type) is None:\n        return num_speculative_tokens  # not a method this family wires for that target\n    n_predict = tokens_per_round(target_model_type, method, hf_config)\n    if num_speculative_tokens is None:\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'required'):
        pass
        yield '        refuse_unset_num_speculative_tokens(target_model_type, method)\n'
    yield '        default, default_from = n_predict, "the draft\'s n_predict"\n        default_sources = _DEFAULT_NUM_SPECULATIVE_TOKENS_SOURCES.get(method, lambda _model_type: None)(target_model_type)\n        if default_sources is not None:\n            default = None\n            for field in default_sources:  # the first set field wins\n                value = _hf_field(hf_config, field)\n                if value is not None:\n                    default, default_from = int(value), f"the draft config\'s {field}"\n                    break\n        if default is None:\n            raise ValueError('
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'missing_default_message')), 'python/speculative.py.j2', 261, 'plan.missing_default_message | py_str')))
    yield ')\n        check = _NUM_SPECULATIVE_TOKENS_CHECKS.get(method)\n        if check is not None:\n            check(target_model_type, default, n_predict, default_from)\n        return default\n    check = _NUM_SPECULATIVE_TOKENS_CHECKS.get(method)\n    if check is not None:\n        check(target_model_type, num_speculative_tokens, n_predict, None)\n    return num_speculative_tokens\n\n\ndef draft_config_overrides(target_model_type: str, method: str, hf_config: object) -> dict[str, object] | None:\n    """The fields a draft model\'s HF config is rewritten with, or None when this family does not\n    handle ``method`` for that target. ``n_predict`` is the method\'s tokens per round.\n    Spec: speculative.methods.<method>.draft_model_type and .draft_architecture."""\n    method = engine_method(method)\n    validate_method(target_model_type, method)\n    draft_model_type = _DRAFT_MODEL_TYPE.get(method, lambda _model_type: None)(target_model_type)\n    if draft_model_type is None:\n        return None\n    overrides: dict[str, object] = {\n        "model_type": draft_model_type,\n        "n_predict": tokens_per_round(target_model_type, method, hf_config),\n    }\n    architecture = _DRAFT_ARCHITECTURE.get(method, lambda _model_type: None)(target_model_type)\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'some_drafts_lack_architecture'):
        pass
        yield '    if architecture is not None:\n        overrides["architectures"] = [architecture]\n'
    else:
        pass
        yield '    overrides["architectures"] = [architecture]\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'draft_field_methods'):
        pass
        yield '    overrides.update(_derived_draft_fields(target_model_type, method, hf_config))\n'
    yield '    return overrides\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'draft_field_methods'):
        pass
        yield '\n\ndef _derived_draft_fields(target_model_type: str, method: str, hf_config: object) -> dict[str, object]:\n    """The draft config fields copied from the target\'s (speculative.methods.<method>.draft_fields):\n    each read from its source path, else its default; an unset one with no default is left out."""\n    derived: dict[str, object] = {}\n    for name, source, convert, default in _DRAFT_FIELDS.get(method, lambda _model_type: None)(target_model_type) or ():\n        value = _hf_path(hf_config, source, target_model_type)\n        if value is None:\n            value = default\n        if value is None:\n            continue\n        derived[name] = int(value) if convert == "int" else value\n    return derived\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'adaptive_messages'):
        pass
        yield '\n# Per target: the methods its own spec verifies adaptively.\n_ADAPTIVE_MESSAGES: dict[str, str] = {\n'
        for (l_1_model_type, l_1_message) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'adaptive_messages'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_7(l_1_model_type), 'python/speculative.py.j2', 317, 'model_type | py_str')))
            yield ': '
            yield str(environment.finalize(t_1(t_7(l_1_message), 'python/speculative.py.j2', 317, 'message | py_str')))
            yield ',\n'
        l_1_model_type = l_1_message = missing
        yield '}\n\n\ndef check_adaptive_verification(target_model_type: str, method: str, enabled: bool) -> None:\n    """Adaptive verification needs a method whose spec enables it\n    (speculative.methods.<method>.adaptive_verification). Another family\'s model_type is not\n    judged here."""\n    supported = {\n'
        for (l_1_key, l_1_site) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'adaptive_sites'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(environment.finalize(t_1(l_1_key, 'python/speculative.py.j2', 328, 'key')))
            yield ': dispatch.'
            yield str(environment.finalize(t_1(l_1_site, 'python/speculative.py.j2', 328, 'site')))
            yield ',\n'
        l_1_key = l_1_site = missing
        yield '    }\n    message = _ADAPTIVE_MESSAGES.get(target_model_type)\n    if enabled and message is not None and not supported.get(method, lambda _model_type: False)(target_model_type):\n        raise ValueError(message)\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'quantization_methods'):
        pass
        yield '\n_TARGET_QUANTIZATION: dict[str, Callable[[str], str | None]] = {\n'
        for l_1_m in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'quantization_methods'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_m, 'method')), 'python/speculative.py.j2', 339, 'm.method | py_str')))
            yield ': dispatch.'
            yield str(environment.finalize(t_1(context.call(environment.getattr(l_1_m, 'site'), 'target_quantization', _loop_vars=_loop_vars), 'python/speculative.py.j2', 339, "m.site('target_quantization' )")))
            yield ',\n'
        l_1_m = missing
        yield '}\n\n\ndef draft_quantization(\n    target_model_type: str, method: str, target_quantization: str | None, requested: str | None\n) -> str | None:\n    """The draft model\'s quantization (speculative.methods.<method>.target_quantization): force\n    takes the target\'s even over ``requested``; default_when_unset takes it only when nothing\n    was requested; otherwise the request stands."""\n    mode = _TARGET_QUANTIZATION.get(engine_method(method), lambda _model_type: None)(target_model_type)\n    if mode == "force":\n        return target_quantization\n    if mode == "default_when_unset" and not requested:\n        return target_quantization\n    return requested\n'

blocks = {}
debug_info = '1=61&10=63&19=67&20=71&25=77&31=79&32=83&37=89&38=93&42=99&43=101&46=103&48=105&53=107&54=111&58=117&59=125&63=131&64=135&68=141&69=149&72=155&74=158&75=162&85=169&89=172&100=174&121=177&133=179&134=183&135=185&137=189&160=193&168=200&169=203&172=206&177=208&178=212&179=214&181=216&182=219&183=221&186=224&188=227&189=229&191=231&193=234&196=236&198=239&202=241&203=244&204=246&211=251&212=259&217=265&223=268&224=272&225=274&227=278&248=283&261=287&286=289&292=295&296=299&312=302&316=305&317=309&327=315&328=319&335=325&338=328&339=332'