from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'cuda/rope_kv_inst.cu.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_unit = resolve('unit')
    l_0_plan = resolve('plan')
    try:
        t_1 = environment.filters['_emit']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named '_emit' found.")
    try:
        t_2 = environment.filters['cpp']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'cpp' found.")
    try:
        t_3 = environment.filters['cpp_ident']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'cpp_ident' found.")
    pass
    yield '// Explicit instantiations for kNumHeadsQPadded = '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='unit') if l_0_unit is missing else l_0_unit), 'num_heads_q_padded')), 'cuda/rope_kv_inst.cu.j2', 1, 'unit.num_heads_q_padded | cpp')))
    yield ' (kernels.rope_kv_insert.num_heads_q_padded)'
    if (environment.getattr((undefined(name='unit') if l_0_unit is missing else l_0_unit), 'num_heads_q_padded') == 0):
        pass
        yield ', the KV-only insert'
    yield ':\n// input_dtypes x apply_q_norm ['
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='unit') if l_0_unit is missing else l_0_unit), 'norms_comment'), 'cuda/rope_kv_inst.cu.j2', 2, 'unit.norms_comment')))
    yield '] x cache_formats. One unit per value, so\n// that the extension build compiles them side by side.\n#include <rope_kv_kernel.cuh>\n\nnamespace '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'cuda/rope_kv_inst.cu.j2', 6, 'plan.namespace | cpp_ident')))
    yield '::rope_kv {\n\n'
    for l_1_inst in environment.getattr((undefined(name='unit') if l_0_unit is missing else l_0_unit), 'instantiations'):
        _loop_vars = {}
        pass
        yield 'ROPE_KV_INSTANTIATE('
        yield str(environment.finalize(t_1(environment.getattr(l_1_inst, 'macro_args_cpp'), 'cuda/rope_kv_inst.cu.j2', 9, 'inst.macro_args_cpp')))
        yield ');\n'
    l_1_inst = missing
    yield '\n}  // namespace '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'namespace')), 'cuda/rope_kv_inst.cu.j2', 12, 'plan.namespace | cpp_ident')))
    yield '::rope_kv\n'

blocks = {}
debug_info = '1=32&2=38&6=40&8=42&9=46&12=50'