from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/kv_cache.py.j2'

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
        t_3 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_4 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
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
        t_7 = environment.filters['py_tuple']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'py_tuple' found.")
    pass
    yield '"""KV-cache planning predicates of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/kv_cache.py.j2', 1, 'plan.family | ident')))
    yield ' family.\n\nA state bucket\'s space does not grow with sequence length, so it can shrink to one state per\ngroup; every other bucket\'s split is fixed by the repeat pattern. Both use sites below ask the\none predicate, so a new state-like KV spec type is added in the spec, once.\n"""\n\nfrom __future__ import annotations\n\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'reads_hf_config'):
        pass
        yield 'from collections.abc import Callable, Mapping\n'
    else:
        pass
        yield 'from collections.abc import Callable\n'
    yield 'from typing import Any\n\nfrom ._binding import '
    yield str(environment.finalize(t_1(t_3(t_4(context, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'imports'), 'ident'), ', '), 'python/kv_cache.py.j2', 17, "plan.imports | map('ident')| join(', ' )")))
    yield '\n\n# Per target model_type: (always state-like, state-like when unsplit); isinstance covers\n# subclasses.\n_STATE_LIKE: dict[str, tuple[tuple[type, ...], tuple[type, ...]]] = {\n'
    for l_1_t in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_types'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_t, 'source'), 'python/kv_cache.py.j2', 23, 't.source')))
        yield '\n    '
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_t, 'model_type')), 'python/kv_cache.py.j2', 24, 't.model_type | py_str')))
        yield ': ('
        yield str(environment.finalize(t_1(t_7(t_4(context, environment.getattr(l_1_t, 'always'), 'ident')), 'python/kv_cache.py.j2', 24, "t.always | map('ident')| py_tuple")))
        yield ', '
        yield str(environment.finalize(t_1(t_7(t_4(context, environment.getattr(l_1_t, 'when_unsplit'), 'ident')), 'python/kv_cache.py.j2', 24, "t.when_unsplit | map('ident')| py_tuple")))
        yield '),\n'
    l_1_t = missing
    yield '}\n\n\ndef is_state_bucket(target_model_type: str, spec: Any, repeats_per_group: int | None) -> bool:\n    """Whether a bucket of uniform-type KV specs (``spec.first_spec``) is state-like for the\n    target variant (kv_cache.spec_types.<type>.state_like). Another family\'s model_type has no\n    state buckets here."""\n    always, when_unsplit = _STATE_LIKE.get(target_model_type, ((), ()))\n    if isinstance(spec.first_spec, always):\n        return True\n    return repeats_per_group is None and isinstance(spec.first_spec, when_unsplit)\n\n\ndef groups_for_anchor_bytes(\n    target_model_type: str,\n    spec: Any,\n    repeats_per_group: int | None,\n    num_groups_for: Callable[[Any], int],\n) -> int:\n    """Use site 1: bytes a block must hold however the state buckets end up split. A state\n    bucket can go down to one state per group."""\n    if is_state_bucket(target_model_type, spec, repeats_per_group):\n        return len(spec.kv_cache_specs)\n    return num_groups_for(spec)\n\n\ndef caps_state_group(\n    target_model_type: str, spec: Any, repeats_per_group: int | None, anchor_bytes: int\n) -> bool:\n    """Use site 2: cap a state group at the states a block already fits, rather than let it\n    widen the block."""\n    return bool(anchor_bytes) and is_state_bucket(target_model_type, spec, repeats_per_group)\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'reads_hf_config'):
        pass
        yield '\n\ndef _hf_field(hf_config: object, name: str) -> Any:\n    if isinstance(hf_config, Mapping):\n        return hf_config.get(name)\n    return getattr(hf_config, name, None)\n\n\ndef _is_kv_source(hf_config: object, layer_id: int, listed_in: str, below: str) -> bool:\n    """A layer listed in hf_config.<listed_in> and below hf_config.<below> (absent fields: no\n    kv source)."""\n    bound = _hf_field(hf_config, below)\n    listed = _hf_field(hf_config, listed_in) or ()\n    return bound is not None and layer_id < bound and layer_id in listed\n'
    l_1_loop = missing
    for l_1_c, l_1_loop in LoopContext(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'compress_ratio_checks'), undefined):
        _loop_vars = {}
        pass
        if environment.getattr(l_1_loop, 'first'):
            pass
            yield '\n\n'
            if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'reads_hf_config'):
                pass
                yield 'def validate_compress_ratio(\n    model_type: str, layer_id: int, compress_ratio: int, hf_config: object = None\n) -> None:\n    """Reject a layer compress ratio the variant does not support, with the exception vLLM\'s\n    layer constructor raises (kv_cache.unsupported_compress_ratio_error); then, on a kv-source\n    layer of the target\'s HF config (None: a config listing none), the one its compressor\n    raises (kv_cache.kv_source_compressor)."""\n'
            else:
                pass
                yield 'def validate_compress_ratio(model_type: str, layer_id: int, compress_ratio: int) -> None:\n    """Reject a layer compress ratio the variant does not support, with the exception vLLM\'s\n    layer constructor raises (kv_cache.unsupported_compress_ratio_error)."""\n'
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'source'), 'python/kv_cache.py.j2', 92, 'c.source')))
        yield '\n'
        if environment.getattr(l_1_c, 'floor_source'):
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'floor_source'), 'python/kv_cache.py.j2', 94, 'c.floor_source')))
            yield ' (checked as max(floor, ratio))\n'
        yield '    if model_type == '
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_c, 'model_type')), 'python/kv_cache.py.j2', 96, 'c.model_type | py_str')))
        yield ' and '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'checked_ratio'), 'python/kv_cache.py.j2', 96, 'c.checked_ratio')))
        yield ' not in '
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_c, 'ratios')), 'python/kv_cache.py.j2', 96, 'c.ratios | py')))
        yield ':\n        raise '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'error'), 'python/kv_cache.py.j2', 97, 'c.error')))
        if environment.getattr(l_1_c, 'message'):
            pass
            yield '('
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'message'), 'python/kv_cache.py.j2', 97, 'c.message')))
            yield ')'
        yield '\n'
        if environment.getattr(l_1_c, 'kv_source'):
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'source'), 'python/kv_cache.py.j2', 99, 'c.kv_source.source')))
            yield " (the compressor gets the layer's ratio)\n    if (\n        model_type == "
            yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_c, 'model_type')), 'python/kv_cache.py.j2', 101, 'c.model_type | py_str')))
            yield '\n        and _is_kv_source(hf_config, layer_id, '
            yield str(environment.finalize(t_1(t_5(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'listed_in')), 'python/kv_cache.py.j2', 102, 'c.kv_source.listed_in | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_5(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'below')), 'python/kv_cache.py.j2', 102, 'c.kv_source.below | py')))
            yield ')\n        and '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'checked_ratio'), 'python/kv_cache.py.j2', 103, 'c.checked_ratio')))
            yield ' not in '
            yield str(environment.finalize(t_1(t_5(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'ratios')), 'python/kv_cache.py.j2', 103, 'c.kv_source.ratios | py')))
            yield '\n    ):\n        raise '
            yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'error'), 'python/kv_cache.py.j2', 105, 'c.kv_source.error')))
            if environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'message'):
                pass
                yield '('
                yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_c, 'kv_source'), 'message'), 'python/kv_cache.py.j2', 105, 'c.kv_source.message')))
                yield ')'
            yield '\n'
    l_1_loop = l_1_c = missing

blocks = {}
debug_info = '1=55&10=57&17=64&22=66&23=70&24=72&58=80&74=84&75=87&78=90&92=97&93=99&94=102&96=105&97=111&98=118&99=121&101=123&102=125&103=129&105=133'