from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/backends.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    l_0_sizes_body = missing
    try:
        t_1 = environment.filters['_emit']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named '_emit' found.")
    try:
        t_2 = environment.filters['_emit_macro']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named '_emit_macro' found.")
    try:
        t_3 = environment.filters['comment']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'comment' found.")
    try:
        t_4 = environment.filters['ident']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'ident' found.")
    try:
        t_5 = environment.filters['indent']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'indent' found.")
    try:
        t_6 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_7 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_8 = environment.filters['map']
    except KeyError:
        @internalcode
        def t_8(*unused):
            raise TemplateRuntimeError("No filter named 'map' found.")
    try:
        t_9 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_9(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    try:
        t_10 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_10(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    try:
        t_11 = environment.filters['py_tuple']
    except KeyError:
        @internalcode
        def t_11(*unused):
            raise TemplateRuntimeError("No filter named 'py_tuple' found.")
    try:
        t_12 = environment.tests['none']
    except KeyError:
        @internalcode
        def t_12(*unused):
            raise TemplateRuntimeError("No test named 'none' found.")
    pass
    yield '"""Indexer attention backends of the '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/backends.py.j2', 1, 'plan.family | ident')))
    yield ' family.\n\nEach class subclasses its parent and overrides only what its spec changes, the way vLLM\'s\n``vllm/v1/attention/backends/mla/indexer.py`` does by hand.\n"""\n\nfrom __future__ import annotations\n\nfrom . import _binding\nfrom ._binding import '
    yield str(environment.finalize(t_1(t_6(t_8(context, environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'binding_imports'), 'ident'), ', '), 'python/backends.py.j2', 10, "plan.binding_imports | map('ident')| join(', ' )")))
    yield '\n\n\ndef device_is_capability_family(family: int) -> bool:\n    """The capability probe: every block-size decision below asks this one function.\n\n    ``family`` is a compute-capability family (90 = every SM 9.x device: H100, H200, H20, H800),\n    as keyed in attention_backends.<class>.kernel_block_sizes.by_capability_family. Tests\n    replace this function to pretend to run on another device.\n    """\n    return _binding.is_device_capability_family(family)\n\n\ndef _sizes_for_device(by_family: dict[int, list[int]], default: list[int]) -> list[int]:\n    for family, sizes in by_family.items():\n        if device_is_capability_family(family):\n            return list(sizes)\n    return list(default)\n'
    def macro(l_1_b):
        t_13 = []
        if l_1_b is missing:
            l_1_b = undefined("parameter 'b' was not provided", name='b')
        pass
        if environment.getattr(l_1_b, 'note'):
            pass
            t_13.extend((
                '# ',
                str(environment.finalize(t_1(t_3(environment.getattr(l_1_b, 'note')), 'python/backends.py.j2', 30, 'b.note | comment'))),
                '\n',
            ))
        if environment.getattr(l_1_b, 'by_family'):
            pass
            t_13.extend((
                'return _sizes_for_device(',
                str(environment.finalize(t_1(environment.getattr(l_1_b, 'by_family_py'), 'python/backends.py.j2', 33, 'b.by_family_py'))),
                ', ',
                str(environment.finalize(t_1(t_9(t_7(context.eval_ctx, environment.getattr(l_1_b, 'default'))), 'python/backends.py.j2', 33, 'b.default | list | py'))),
                ')\n',
            ))
        else:
            pass
            t_13.extend((
                'return ',
                str(environment.finalize(t_1(t_9(t_7(context.eval_ctx, environment.getattr(l_1_b, 'default'))), 'python/backends.py.j2', 35, 'b.default | list | py'))),
                '\n',
            ))
        return concat(t_13)
    context.exported_vars.add('sizes_body')
    context.vars['sizes_body'] = l_0_sizes_body = Macro(environment, macro, 'sizes_body', ('b',), False, False, False, context.eval_ctx.autoescape)
    for l_1_c in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'classes'):
        _loop_vars = {}
        pass
        yield '\n\n# spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'source'), 'python/backends.py.j2', 41, 'c.source')))
        yield '\nclass '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'class_name')), 'python/backends.py.j2', 42, 'c.class_name | ident')))
        yield '('
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'parent')), 'python/backends.py.j2', 42, 'c.parent | ident')))
        yield '):\n'
        if environment.getattr(l_1_c, 'inherited'):
            pass
            yield '    """'
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'variant')), 'python/backends.py.j2', 44, 'c.variant | ident')))
            yield ': inherits '
            yield str(environment.finalize(t_1(t_6(t_8(context, environment.getattr(l_1_c, 'inherited'), 'ident'), ', '), 'python/backends.py.j2', 44, "c.inherited | map('ident')| join(', ' )")))
            yield ' from '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'parent')), 'python/backends.py.j2', 44, 'c.parent | ident')))
            yield '."""\n'
        else:
            pass
            yield '    """'
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'variant')), 'python/backends.py.j2', 46, 'c.variant | ident')))
            yield '."""\n'
        yield '\n    @staticmethod\n    def get_name() -> str:\n        return '
        yield str(environment.finalize(t_1(t_10(environment.getattr(l_1_c, 'name')), 'python/backends.py.j2', 51, 'c.name | py_str')))
        yield '\n'
        if environment.getattr(l_1_c, 'block_sizes'):
            pass
            yield '\n    @staticmethod\n    def get_supported_kernel_block_sizes(kv_cache_spec: object = None) -> list[int]:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_c, 'block_sizes'), 'source'), 'python/backends.py.j2', 56, 'c.block_sizes.source')))
            yield '\n'
            yield str(environment.finalize(t_2(t_5(context.call((undefined(name='sizes_body') if l_0_sizes_body is missing else l_0_sizes_body), environment.getattr(l_1_c, 'block_sizes'), _loop_vars=_loop_vars), 8, True), 'python/backends.py.j2', 57, 'sizes_body(c.block_sizes)| indent(8, true )')))
        if (not t_12(environment.getattr(l_1_c, 'head_sizes'))):
            pass
            yield '\n    @classmethod\n    def get_supported_head_sizes(cls) -> list[int]:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'head_sizes_source'), 'python/backends.py.j2', 63, 'c.head_sizes_source')))
            yield '\n        return '
            yield str(environment.finalize(t_1(t_9(t_7(context.eval_ctx, (environment.getattr(l_1_c, 'head_sizes') or ()))), 'python/backends.py.j2', 64, '(c.head_sizes or())| list | py')))
            yield '\n'
        if (not t_12(environment.getattr(l_1_c, 'supports_pcp'))):
            pass
            yield '\n    @classmethod\n    def supports_pcp(cls) -> bool:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'supports_pcp_source'), 'python/backends.py.j2', 70, 'c.supports_pcp_source')))
            yield '\n        return '
            yield str(environment.finalize(t_1(t_9(environment.getattr(l_1_c, 'supports_pcp')), 'python/backends.py.j2', 71, 'c.supports_pcp | py')))
            yield '\n'
        if environment.getattr(l_1_c, 'builder'):
            pass
            yield '\n    @staticmethod\n    def get_builder_cls() -> type:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'builder_source'), 'python/backends.py.j2', 77, 'c.builder_source')))
            yield '\n        return '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'builder')), 'python/backends.py.j2', 78, 'c.builder | ident')))
            yield '\n'
        if environment.getattr(l_1_c, 'rocm_query_lens_mismatch'):
            pass
            yield '\n    @classmethod\n    def supports_device_cpu_query_lens_mismatch(cls) -> bool:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'rocm_query_lens_mismatch'), 'python/backends.py.j2', 84, 'c.rocm_query_lens_mismatch')))
            yield '\n        return _binding.is_rocm() or super().supports_device_cpu_query_lens_mismatch()\n'
        if environment.getattr(l_1_c, 'kv_cache_layouts'):
            pass
            yield '\n    @classmethod\n    def supported_kv_cache_layouts(cls) -> tuple[KVCacheLayout, ...]:\n        # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'kv_cache_layouts_source'), 'python/backends.py.j2', 91, 'c.kv_cache_layouts_source')))
            yield '\n        return '
            yield str(environment.finalize(t_1(t_11(environment.getattr(l_1_c, 'kv_cache_layouts'), members_of='KVCacheLayout'), 'python/backends.py.j2', 92, "c.kv_cache_layouts | py_tuple(members_of = 'KVCacheLayout' )")))
            yield '\n'
    l_1_c = missing
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'sparse_mla'):
        pass
        yield '\n\n# Sparse MLA backends, by registered name (no class names recorded): their kernel block sizes.\nSPARSE_MLA_KERNEL_BLOCK_SIZES = {\n'
        for l_1_s in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'sparse_mla'):
            _loop_vars = {}
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'source'), 'python/backends.py.j2', 101, 's.block_sizes.source')))
            yield '\n'
            if environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'note'):
                pass
                yield '    # '
                yield str(environment.finalize(t_1(t_3(environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'note')), 'python/backends.py.j2', 103, 's.block_sizes.note | comment')))
                yield '\n'
            if environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'by_family'):
                pass
                yield '    '
                yield str(environment.finalize(t_1(t_10(environment.getattr(l_1_s, 'name')), 'python/backends.py.j2', 106, 's.name | py_str')))
                yield ': lambda: _sizes_for_device('
                yield str(environment.finalize(t_1(environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'by_family_py'), 'python/backends.py.j2', 106, 's.block_sizes.by_family_py')))
                yield ', '
                yield str(environment.finalize(t_1(t_9(t_7(context.eval_ctx, environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'default'))), 'python/backends.py.j2', 106, 's.block_sizes.default | list | py')))
                yield '),\n'
            else:
                pass
                yield '    '
                yield str(environment.finalize(t_1(t_10(environment.getattr(l_1_s, 'name')), 'python/backends.py.j2', 108, 's.name | py_str')))
                yield ': lambda: '
                yield str(environment.finalize(t_1(t_9(t_7(context.eval_ctx, environment.getattr(environment.getattr(l_1_s, 'block_sizes'), 'default'))), 'python/backends.py.j2', 108, 's.block_sizes.default | list | py')))
                yield ',\n'
        l_1_s = missing
        yield '}\n\n# The platform vLLM runs each sparse MLA backend on (a ROCm backend only on ROCm).\nSPARSE_MLA_PLATFORMS = {\n'
        for l_1_s in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'sparse_mla'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_10(environment.getattr(l_1_s, 'name')), 'python/backends.py.j2', 116, 's.name | py_str')))
            yield ': '
            yield str(environment.finalize(t_1(t_10(environment.getattr(l_1_s, 'platform')), 'python/backends.py.j2', 116, 's.platform | py_str')))
            yield ',  # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_s, 'platform_source'), 'python/backends.py.j2', 116, 's.platform_source')))
            yield '\n'
        l_1_s = missing
        yield '}\n'

blocks = {}
debug_info = '1=86&10=88&28=90&29=95&30=99&32=102&33=106&35=115&38=121&41=125&42=127&43=131&44=134&46=143&51=146&52=148&56=151&57=153&59=154&63=157&64=159&66=161&70=164&71=166&73=168&77=171&78=173&80=175&84=178&87=180&91=183&92=185&95=188&100=191&101=195&102=197&103=200&105=202&106=205&108=214&115=220&116=224'