from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'cuda/rope_kv_config.h.j2'

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
        t_3 = environment.filters['cpp']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'cpp' found.")
    try:
        t_4 = environment.filters['cpp_hex']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'cpp_hex' found.")
    try:
        t_5 = environment.filters['cpp_ident']
    except KeyError:
        @internalcode
        def t_5(*unused):
            raise TemplateRuntimeError("No filter named 'cpp_ident' found.")
    try:
        t_6 = environment.filters['cpp_str']
    except KeyError:
        @internalcode
        def t_6(*unused):
            raise TemplateRuntimeError("No filter named 'cpp_str' found.")
    try:
        t_7 = environment.filters['ident']
    except KeyError:
        @internalcode
        def t_7(*unused):
            raise TemplateRuntimeError("No filter named 'ident' found.")
    pass
    yield '// What the spec of variant '
    yield str(environment.finalize(t_1(t_7(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variant_name')), 'cuda/rope_kv_config.h.j2', 1, 'plan.variant_name | ident')))
    yield " decides for the fused RoPE + KV insert\n// (kernels.rope_kv_insert): its namespace, geometry, compiled sets, CacheTraits per cache format\n// and grid rule. The kernels, launcher, dispatch and bindings are dsv41gen's kernel sources\n// (dsv41gen/kernels), compiled against this header. Torch-free.\n#pragma once\n\n// C++ namespace and torch.ops library of the variant (variant.name).\n#define DSV41GEN_ROPE_KV_NAMESPACE "
    yield str(environment.finalize(t_1(t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'cuda/rope_kv_config.h.j2', 8, 'plan.namespace | cpp_ident')))
    yield '\n#include <rope_kv_common.h>\n\nnamespace '
    yield str(environment.finalize(t_1(t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'cuda/rope_kv_config.h.j2', 11, 'plan.namespace | cpp_ident')))
    yield '::rope_kv {\n\ninline constexpr char kVariant[] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'variant_name')), 'cuda/rope_kv_config.h.j2', 13, 'plan.variant_name | cpp_str')))
    yield ';  // variant.name\nconstexpr int kHeadDim = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'head_dim')), 'cuda/rope_kv_config.h.j2', 14, 'plan.head_dim | cpp')))
    yield ';  // kernels.rope_kv_insert.head_dim\nconstexpr int kNopeDim = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'nope_dim')), 'cuda/rope_kv_config.h.j2', 15, 'plan.nope_dim | cpp')))
    yield ';  // kernels.rope_kv_insert.nope_dim\nconstexpr int kRopeDim = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'rope_dim')), 'cuda/rope_kv_config.h.j2', 16, 'plan.rope_dim | cpp')))
    yield ';  // kernels.rope_kv_insert.rope_dim ('
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'rope_style')), 'cuda/rope_kv_config.h.j2', 16, 'plan.rope_style | comment')))
    yield ' pairs)\nconstexpr int kThreadsPerBlock = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'threads_per_block')), 'cuda/rope_kv_config.h.j2', 17, 'plan.threads_per_block | cpp')))
    yield ';  // kernels.rope_kv_insert.threads_per_block\nconstexpr int kNumTokenCutoff = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'num_token_cutoff')), 'cuda/rope_kv_config.h.j2', 18, 'plan.num_token_cutoff | cpp')))
    yield ';  // kernels.rope_kv_insert.num_token_cutoff\n\n// kernels.rope_kv_insert.num_heads_q_padded: the compiled kNumHeadsQPadded values.\ninline constexpr int kNumHeadsQPadded[] = {'
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'heads_cpp'), 'cuda/rope_kv_config.h.j2', 21, 'plan.heads_cpp')))
    yield '};\ninline constexpr char kNumHeadsQPaddedText[] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'heads_text')), 'cuda/rope_kv_config.h.j2', 22, 'plan.heads_text | cpp_str')))
    yield ';\n// kernels.rope_kv_insert.apply_q_norm: the values compiled for kNumHeadsQPadded > 0 (the KV-only\n// insert compiles false only).\nconstexpr bool kApplyQNormFalse = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'apply_q_norm_false')), 'cuda/rope_kv_config.h.j2', 25, 'plan.apply_q_norm_false | cpp')))
    yield ';\nconstexpr bool kApplyQNormTrue = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'apply_q_norm_true')), 'cuda/rope_kv_config.h.j2', 26, 'plan.apply_q_norm_true | cpp')))
    yield ';\ninline constexpr char kApplyQNormText[] = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'apply_q_norm_text_cpp'), 'cuda/rope_kv_config.h.j2', 27, 'plan.apply_q_norm_text_cpp')))
    yield ';\n// kernels.rope_kv_insert.input_dtypes\ninline constexpr ScalarKind kInputDtypes[] = {'
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'scalar_enums_cpp'), 'cuda/rope_kv_config.h.j2', 29, 'plan.scalar_enums_cpp')))
    yield '};\ninline constexpr char kInputDtypesText[] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'input_dtypes_text')), 'cuda/rope_kv_config.h.j2', 30, 'plan.input_dtypes_text | cpp_str')))
    yield ";\n// kernels.rope_kv_insert.cache_formats, in the spec's order\ninline constexpr CacheKind kCacheFormats[] = {"
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'cache_enums_cpp'), 'cuda/rope_kv_config.h.j2', 32, 'plan.cache_enums_cpp')))
    yield '};\ninline constexpr char kCacheFormatsText[] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'cache_formats_text')), 'cuda/rope_kv_config.h.j2', 33, 'plan.cache_formats_text | cpp_str')))
    yield ';\ninline constexpr char kCacheDtypesText[] = '
    yield str(environment.finalize(t_1(t_6(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'cache_dtypes_text')), 'cuda/rope_kv_config.h.j2', 34, 'plan.cache_dtypes_text | cpp_str')))
    yield ';\n\n// kernels.rope_kv_insert.fp8_max = (1 + kFp8MaxMantissa / 2^23) * 2^kFp8MaxExponent, the e4m3\n// saturation bound.\nconstexpr float kFp8Max = '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max_float'), 'cuda/rope_kv_config.h.j2', 38, 'plan.fp8_max_float')))
    yield ';\nconstexpr int kFp8MaxExponent = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max_exponent')), 'cuda/rope_kv_config.h.j2', 39, 'plan.fp8_max_exponent | cpp')))
    yield ';\nconstexpr uint32_t kFp8MaxMantissa = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'fp8_max_mantissa_field')), 'cuda/rope_kv_config.h.j2', 40, 'plan.fp8_max_mantissa_field | cpp_hex')))
    yield ';\n// UE8M0 scale byte: 2^(byte - '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_bias')), 'cuda/rope_kv_config.h.j2', 41, 'plan.e8m0_bias | cpp')))
    yield '), bytes ['
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_min')), 'cuda/rope_kv_config.h.j2', 41, 'plan.e8m0_min | cpp')))
    yield ', '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_max')), 'cuda/rope_kv_config.h.j2', 41, 'plan.e8m0_max | cpp')))
    yield '] (255 is NaN).\nconstexpr int kE8M0Bias = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_bias')), 'cuda/rope_kv_config.h.j2', 42, 'plan.e8m0_bias | cpp')))
    yield ';\nconstexpr int kE8M0Min = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_min')), 'cuda/rope_kv_config.h.j2', 43, 'plan.e8m0_min | cpp')))
    yield ';\nconstexpr int kE8M0Max = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'e8m0_max')), 'cuda/rope_kv_config.h.j2', 44, 'plan.e8m0_max | cpp')))
    yield ";\n\n// One CacheTraits per format of kernels.rope_kv_insert.cache_formats (the fields name theirs).\n// A record's e4m3 values come first, stored by lanes [0, kFp8Lanes); its bf16 values follow,\n// stored by the other lanes.\n"
    for l_1_c in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'caches'):
        _loop_vars = {}
        pass
        yield '\n// '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_c, 'spec_name')), 'cuda/rope_kv_config.h.j2', 51, 'c.spec_name | comment')))
        yield ': '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_c, 'description')), 'cuda/rope_kv_config.h.j2', 51, 'c.description | comment')))
        yield '; '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'bytes_per_token')), 'cuda/rope_kv_config.h.j2', 51, 'c.bytes_per_token | cpp')))
        yield ' bytes per token.\ntemplate <>\nstruct CacheTraits<CacheKind::'
        yield str(environment.finalize(t_1(t_5(environment.getattr(l_1_c, 'enumerator')), 'cuda/rope_kv_config.h.j2', 53, 'c.enumerator | cpp_ident')))
        yield '> {\n  static constexpr char kName[] = '
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_c, 'spec_name')), 'cuda/rope_kv_config.h.j2', 54, 'c.spec_name | cpp_str')))
        yield ';\n  static constexpr char kDescription[] = '
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_c, 'description')), 'cuda/rope_kv_config.h.j2', 55, 'c.description | cpp_str')))
        yield ';\n  static constexpr CacheDtype kCacheDtype = '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'cache_dtype_cpp'), 'cuda/rope_kv_config.h.j2', 56, 'c.cache_dtype_cpp')))
        yield ';  // cache_dtype\n  static constexpr char kCacheDtypeName[] = '
        yield str(environment.finalize(t_1(t_6(environment.getattr(l_1_c, 'cache_dtype')), 'cuda/rope_kv_config.h.j2', 57, 'c.cache_dtype | cpp_str')))
        yield ';\n  static constexpr int kRecordWidth = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'record_width')), 'cuda/rope_kv_config.h.j2', 58, 'c.record_width | cpp')))
        yield ';  // record_width: k_cache.size(2)\n  static constexpr int kFp8Values = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'fp8_values')), 'cuda/rope_kv_config.h.j2', 59, 'c.fp8_values | cpp')))
        yield ';\n  static constexpr int kBf16Values = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'bf16_values')), 'cuda/rope_kv_config.h.j2', 60, 'c.bf16_values | cpp')))
        yield ';\n  static constexpr int kFp8Lanes = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'fp8_lanes')), 'cuda/rope_kv_config.h.j2', 61, 'c.fp8_lanes | cpp')))
        yield ';\n  static constexpr int kLanesPerScale = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'lanes_per_scale')), 'cuda/rope_kv_config.h.j2', 62, 'c.lanes_per_scale | cpp')))
        yield ';  // UE8M0 per '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'scale_group')), 'cuda/rope_kv_config.h.j2', 62, 'c.scale_group | cpp')))
        yield ' values (scale_group); 0: none\n  static constexpr int kScaleBytes = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'scale_bytes')), 'cuda/rope_kv_config.h.j2', 63, 'c.scale_bytes | cpp')))
        yield ';  // scale_bytes per token, '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'pad_bytes')), 'cuda/rope_kv_config.h.j2', 63, 'c.pad_bytes | cpp')))
        yield ' zero pad bytes included\n  static constexpr bool kPerTensorScale = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'per_tensor_scale')), 'cuda/rope_kv_config.h.j2', 64, 'c.per_tensor_scale | cpp')))
        yield ';  // per_tensor_scale\n  static constexpr RecordLayout kLayout = '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'layout_cpp'), 'cuda/rope_kv_config.h.j2', 65, 'c.layout_cpp')))
        yield ';  // layout\n  static constexpr int kDataBytes = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'data_bytes')), 'cuda/rope_kv_config.h.j2', 66, 'c.data_bytes | cpp')))
        yield ";  // one token's record (scales excluded)\n  static constexpr bool kRopeFma = "
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'rope_fma')), 'cuda/rope_kv_config.h.j2', 67, 'c.rope_fma | cpp')))
        yield ';  // rope_contraction\n  static constexpr bool kRoundToInput = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'round_to_input')), 'cuda/rope_kv_config.h.j2', 68, 'c.round_to_input | cpp')))
        yield ';  // round_before_quantize\n  static constexpr float kAmaxFloor = '
        yield str(environment.finalize(t_1(environment.getattr(l_1_c, 'amax_floor_float'), 'cuda/rope_kv_config.h.j2', 69, 'c.amax_floor_float')))
        yield ';  // amax_floor (0: no block scales)\n  // per_tensor_scaling: true multiplies by RN(1 / scale), false divides\n  static constexpr bool kReciprocalScale = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'reciprocal_scale')), 'cuda/rope_kv_config.h.j2', 71, 'c.reciprocal_scale | cpp')))
        yield ';\n  // infinite_amax: true is nan_scale (an infinite block amax stores byte 255 and multiplies by 0)\n  static constexpr bool kNanScaleForInf = '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'nan_scale_for_inf')), 'cuda/rope_kv_config.h.j2', 73, 'c.nan_scale_for_inf | cpp')))
        yield ";\n  // fp8_nan: true is negative_max (NaN stores -fp8_max), false keeps the conversion's NaN\n  static constexpr bool kNanToNegativeMax = "
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_c, 'nan_to_negative_max')), 'cuda/rope_kv_config.h.j2', 75, 'c.nan_to_negative_max | cpp')))
        yield ';\n};\n'
    l_1_c = missing
    yield "\n// kernels.rope_kv_insert.q_rope_contraction: true contracts the Q rows' RoPE into FMAs.\nconstexpr bool kQRopeFma = "
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'q_rope_fma')), 'cuda/rope_kv_config.h.j2', 80, 'plan.q_rope_fma | cpp')))
    yield ';\n// kernels.rope_kv_insert.q_rms_norm: true is fma_rsqrt (FMA sum of squares, rsqrtf), false exact.\nconstexpr bool kQNormFmaRsqrt = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'q_norm_rsqrt')), 'cuda/rope_kv_config.h.j2', 82, 'plan.q_norm_rsqrt | cpp')))
    yield ';\n// Streaming cache hints on the kv rows and cache records (see store_record in the core).\nconstexpr bool kStreamingAccesses = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'streaming_accesses')), 'cuda/rope_kv_config.h.j2', 84, 'plan.streaming_accesses | cpp')))
    yield ';\n// Devices of this compute capability major and up launch with programmatic stream serialization.\nconstexpr int kPdlMinMajor = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'pdl_min_major')), 'cuda/rope_kv_config.h.j2', 86, 'plan.pdl_min_major | cpp')))
    yield ";\n// Resident blocks per multiprocessor the KV-only kernel's registers are capped for\n// (__launch_bounds__): "
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_only_threads_per_sm')), 'cuda/rope_kv_config.h.j2', 88, 'plan.kv_only_threads_per_sm | cpp')))
    yield ' threads per multiprocessor / kernels.rope_kv_insert.threads_per_block.\nconstexpr int kKvOnlyBlocksPerSm = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_only_blocks_per_sm')), 'cuda/rope_kv_config.h.j2', 89, 'plan.kv_only_blocks_per_sm | cpp')))
    yield ';\n\n// kernels.rope_kv_insert.grid_rule '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'grid_rule')), 'cuda/rope_kv_config.h.j2', 91, 'plan.grid_rule | comment')))
    yield " (seed 002); true selects the\n// warp-per-slot grid. The reduced grid pays off only by iterating a token's Q heads inside one\n// CTA; with no Q heads it would idle "
    yield str(environment.finalize(t_1(t_3((environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'warps_per_block') - 1)), 'cuda/rope_kv_config.h.j2', 93, '(plan.warps_per_block - 1)| cpp')))
    yield ' of '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'warps_per_block')), 'cuda/rope_kv_config.h.j2', 93, 'plan.warps_per_block | cpp')))
    yield ' warps.\ntemplate <int kNumHeadsQPadded>\ninline bool use_warp_per_slot(int64_t num_tokens) {\n  return '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'grid_rule_code'), 'cuda/rope_kv_config.h.j2', 96, 'plan.grid_rule_code')))
    yield ';\n}\n\n}  // namespace '
    yield str(environment.finalize(t_1(t_5(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'cuda/rope_kv_config.h.j2', 99, 'plan.namespace | cpp_ident')))
    yield '::rope_kv\n'

blocks = {}
debug_info = '1=55&8=57&11=59&13=61&14=63&15=65&16=67&17=71&18=73&21=75&22=77&25=79&26=81&27=83&29=85&30=87&32=89&33=91&34=93&38=95&39=97&40=99&41=101&42=107&43=109&44=111&49=113&51=117&53=123&54=125&55=127&56=129&57=131&58=133&59=135&60=137&61=139&62=141&63=145&64=149&65=151&66=153&67=155&68=157&69=159&71=161&73=163&75=165&80=169&82=171&84=173&86=175&88=177&89=179&91=181&93=183&96=187&99=189'