from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/rope_kv_variant.py.j2'

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
        t_4 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    try:
        t_5 = environment.filters['py_dict']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'py_dict' found.")
    try:
        t_6 = environment.filters['py_hex']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'py_hex' found.")
    try:
        t_7 = environment.filters['py_str']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'py_str' found.")
    pass
    yield '"""The fused RoPE + KV insert of variant '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variant_name')), 'python/rope_kv_variant.py.j2', 1, 'plan.variant_name | ident')))
    yield ': what its spec decides, for dsv41gen\'s kernel sources.\n\nValues only, each from the spec section ``kernels.rope_kv_insert``; ``load()``,\n``packed_cache_format()``, ``use_warp_per_slot()`` and the torch reference\'s ops are dsv41gen\'s\nruntime, ``dsv41gen.kernels.rope_kv_loader.RopeKvVariant``, configured with them. Importing this\nmodule checks that the installed dsv41gen\'s kernel sources are those it was generated for.\n"""\n\nfrom __future__ import annotations\n\nfrom pathlib import Path\n\nfrom dsv41gen.kernels import rope_kv_loader, rope_kv_reference\nfrom dsv41gen.kernels.runtime import require_sources\n\n# The digest of the installed dsv41gen\'s kernel sources this module was generated for (checked\n# before anything below uses them).\nrequire_sources(__name__, '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kernel_digest')), 'python/rope_kv_variant.py.j2', 18, 'plan.kernel_digest | py_str')))
    yield ', *rope_kv_loader.KERNEL_SOURCES)\n\n# variant.name: the variant, its op namespace, csrc directory and extension\nVARIANT = '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variant_name')), 'python/rope_kv_variant.py.j2', 21, 'plan.variant_name | py_str')))
    yield '\nNAMESPACE = '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'python/rope_kv_variant.py.j2', 22, 'plan.namespace | py_str')))
    yield '\nCSRC_DIR = Path(__file__).resolve().parent / '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'csrc_dir')), 'python/rope_kv_variant.py.j2', 23, 'plan.csrc_dir | py_str')))
    yield '\nEXTENSION_NAME = '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'extension_name')), 'python/rope_kv_variant.py.j2', 24, 'plan.extension_name | py_str')))
    yield '\n# kernels.rope_kv_insert.num_heads_q_padded: one instantiation unit per value\nUNITS = (\n'
    for l_1_unit in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'units'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_unit, 'file_name')), 'python/rope_kv_variant.py.j2', 28, 'unit.file_name | py_str')))
        yield ',\n'
    l_1_unit = missing
    yield ')\nHEAD_DIM = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'head_dim')), 'python/rope_kv_variant.py.j2', 31, 'plan.head_dim | py')))
    yield '  # head_dim\nNOPE_DIM = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'nope_dim')), 'python/rope_kv_variant.py.j2', 32, 'plan.nope_dim | py')))
    yield '  # nope_dim\nROPE_DIM = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'rope_dim')), 'python/rope_kv_variant.py.j2', 33, 'plan.rope_dim | py')))
    yield '  # rope_dim\nNUM_HEADS_Q_PADDED = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'heads')), 'python/rope_kv_variant.py.j2', 34, 'plan.heads | py')))
    yield '  # num_heads_q_padded\nAPPLY_Q_NORM = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'apply_q_norm')), 'python/rope_kv_variant.py.j2', 35, 'plan.apply_q_norm | py')))
    yield '  # apply_q_norm\nNUM_TOKEN_CUTOFF = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'num_token_cutoff')), 'python/rope_kv_variant.py.j2', 36, 'plan.num_token_cutoff | py')))
    yield '  # num_token_cutoff\nGRID_RULE = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'grid_rule_py'), 'python/rope_kv_variant.py.j2', 37, 'plan.grid_rule_py')))
    yield '  # grid_rule\nFP8_MAX = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max')), 'python/rope_kv_variant.py.j2', 38, 'plan.fp8_max | py')))
    yield '  # fp8_max\n# FP8_MAX = (1 + FP8_MAX_MANTISSA / 2^23) * 2^FP8_MAX_EXPONENT\nFP8_MAX_EXPONENT = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max_exponent')), 'python/rope_kv_variant.py.j2', 40, 'plan.fp8_max_exponent | py')))
    yield '\nFP8_MAX_MANTISSA = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max_mantissa_field')), 'python/rope_kv_variant.py.j2', 41, 'plan.fp8_max_mantissa_field | py_hex')))
    yield '\nE8M0_BIAS = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_bias')), 'python/rope_kv_variant.py.j2', 42, 'plan.e8m0_bias | py')))
    yield '\nE8M0_MIN = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_min')), 'python/rope_kv_variant.py.j2', 43, 'plan.e8m0_min | py')))
    yield '\nE8M0_MAX = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_max')), 'python/rope_kv_variant.py.j2', 44, 'plan.e8m0_max | py')))
    yield '\nQ_ROPE_FMA = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'q_rope_fma')), 'python/rope_kv_variant.py.j2', 45, 'plan.q_rope_fma | py')))
    yield '  # q_rope_contraction fma\nQ_NORM_FMA_RSQRT = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'q_norm_rsqrt')), 'python/rope_kv_variant.py.j2', 46, 'plan.q_norm_rsqrt | py')))
    yield '  # q_rms_norm fma_rsqrt\n# packed_cache_format: the packed format each capability family uses, and the default\nPACKED_FORMAT_BY_CAPABILITY_FAMILY: dict[str, str] = '
    yield str(environment.finalize(t_1(t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'packed_format_by_family')), 'python/rope_kv_variant.py.j2', 48, 'plan.packed_format_by_family | py_dict')))
    yield '\nPACKED_FORMAT_DEFAULT = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'packed_format_default')), 'python/rope_kv_variant.py.j2', 49, 'plan.packed_format_default | py')))
    yield '\n\n\nCACHE_FORMATS = (\n'
    for l_1_c in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'caches'):
        _loop_vars = {}
        pass
        yield '    # cache_formats.'
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_c, 'spec_name')), 'python/rope_kv_variant.py.j2', 54, 'c.spec_name | comment')))
        yield ': '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_c, 'description')), 'python/rope_kv_variant.py.j2', 54, 'c.description | comment')))
        yield '\n    rope_kv_reference.CacheFormat(\n        name='
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_c, 'spec_name')), 'python/rope_kv_variant.py.j2', 56, 'c.spec_name | py_str')))
        yield ',\n        cache_dtype=rope_kv_reference.CACHE_DTYPES['
        yield str(environment.finalize(t_1(t_7(environment.getattr(l_1_c, 'cache_dtype')), 'python/rope_kv_variant.py.j2', 57, 'c.cache_dtype | py_str')))
        yield '],\n        kv_mxfp8='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'selected_by_kv_mxfp8')), 'python/rope_kv_variant.py.j2', 58, 'c.selected_by_kv_mxfp8 | py')))
        yield ',\n        record_width='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'record_width')), 'python/rope_kv_variant.py.j2', 59, 'c.record_width | py')))
        yield ',\n        fp8_values='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'fp8_values')), 'python/rope_kv_variant.py.j2', 60, 'c.fp8_values | py')))
        yield ',\n        bf16_values='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'bf16_values')), 'python/rope_kv_variant.py.j2', 61, 'c.bf16_values | py')))
        yield ',\n        scale_group='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'scale_group')), 'python/rope_kv_variant.py.j2', 62, 'c.scale_group | py')))
        yield ',\n        scale_bytes='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'scale_bytes')), 'python/rope_kv_variant.py.j2', 63, 'c.scale_bytes | py')))
        yield ',\n        per_tensor_scale='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'per_tensor_scale')), 'python/rope_kv_variant.py.j2', 64, 'c.per_tensor_scale | py')))
        yield ',\n        token_data_then_scales='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'token_data_then_scales')), 'python/rope_kv_variant.py.j2', 65, 'c.token_data_then_scales | py')))
        yield ',\n        interleaved='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'interleaved')), 'python/rope_kv_variant.py.j2', 66, 'c.interleaved | py')))
        yield ',\n        data_bytes='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'data_bytes')), 'python/rope_kv_variant.py.j2', 67, 'c.data_bytes | py')))
        yield ',\n        rope_fma='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'rope_fma')), 'python/rope_kv_variant.py.j2', 68, 'c.rope_fma | py')))
        yield ',\n        round_to_input='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'round_to_input')), 'python/rope_kv_variant.py.j2', 69, 'c.round_to_input | py')))
        yield ',\n        amax_floor='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'amax_floor')), 'python/rope_kv_variant.py.j2', 70, 'c.amax_floor | py')))
        yield ',\n        reciprocal_scale='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'reciprocal_scale')), 'python/rope_kv_variant.py.j2', 71, 'c.reciprocal_scale | py')))
        yield ',\n        nan_scale_for_inf='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'nan_scale_for_inf')), 'python/rope_kv_variant.py.j2', 72, 'c.nan_scale_for_inf | py')))
        yield ',\n        nan_to_negative_max='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_c, 'nan_to_negative_max')), 'python/rope_kv_variant.py.j2', 73, 'c.nan_to_negative_max | py')))
        yield ',\n    ),\n'
    l_1_c = missing
    yield ')\n\n\n# The runtime of these values (dsv41gen.kernels.rope_kv_loader): load, packed_cache_format,\n# use_warp_per_slot and the reference ops are its, looked up through __getattr__.\n_VARIANT = rope_kv_loader.RopeKvVariant.from_module(globals())\n__getattr__ = _VARIANT.module_attribute\n'

blocks = {}
debug_info = '1=55&18=57&21=59&22=61&23=63&24=65&27=67&28=71&31=75&32=77&33=79&34=81&35=83&36=85&37=87&38=89&40=91&41=93&42=95&43=97&44=99&45=101&46=103&48=105&49=107&53=109&54=113&56=117&57=119&58=121&59=123&60=125&61=127&62=129&63=131&64=133&65=135&66=137&67=139&68=141&69=143&70=145&71=147&72=149&73=151'