from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/dispatch.py.j2'

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
        t_4 = environment.filters['py']
    except KeyError:
        @internalcode
        def t_4(*unused):
            raise TemplateRuntimeError("No filter named 'py' found.")
    pass
    yield '"""Per-model_type answers of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/dispatch.py.j2', 1, 'plan.family | ident')))
    yield ' family, one function per behaviour site.\n\ndsv41gen groups the variants by their resolved answer: variants that answer alike share one\nset-membership test (merged), variants that differ get branches of their own (forked). Run\n`dsv41gen explain` for the table behind each function.\n"""\n\nfrom __future__ import annotations\n'
    for l_1_site in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'sites'):
        l_1_b = resolve('b')
        _loop_vars = {}
        pass
        yield '\n\ndef '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_site, 'name')), 'python/dispatch.py.j2', 12, 'site.name | ident')))
        yield '(model_type: str) -> '
        yield str(environment.finalize(t_1(environment.getattr(l_1_site, 'return_annotation'), 'python/dispatch.py.j2', 12, 'site.return_annotation')))
        yield ':\n    """'
        yield str(environment.finalize(t_1(environment.getattr(l_1_site, 'docstring'), 'python/dispatch.py.j2', 13, 'site.docstring')))
        yield '"""\n'
        if environment.getattr(l_1_site, 'boolean'):
            pass
            l_1_b = environment.getattr(l_1_site, 'true_branch')
            _loop_vars['b'] = l_1_b
            yield '    # spec: '
            yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='b') if l_1_b is missing else l_1_b), 'sources'), ', '), 'python/dispatch.py.j2', 16, "b.sources | join(', ' )")))
            yield '\n    return model_type '
            yield str(environment.finalize(t_1(environment.getattr((undefined(name='b') if l_1_b is missing else l_1_b), 'test'), 'python/dispatch.py.j2', 17, 'b.test')))
            yield '\n'
        else:
            pass
            for l_2_b in environment.getattr(l_1_site, 'branches'):
                _loop_vars = {}
                pass
                yield '    if model_type '
                yield str(environment.finalize(t_1(environment.getattr(l_2_b, 'test'), 'python/dispatch.py.j2', 20, 'b.test')))
                yield ':\n        # spec: '
                yield str(environment.finalize(t_1(t_3(environment.getattr(l_2_b, 'sources'), ', '), 'python/dispatch.py.j2', 21, "b.sources | join(', ' )")))
                yield '\n        return '
                yield str(environment.finalize(t_1(t_4(environment.getattr(l_2_b, 'value')), 'python/dispatch.py.j2', 22, 'b.value | py')))
                yield '\n'
            l_2_b = missing
            yield '    return None\n'
    l_1_site = l_1_b = missing

blocks = {}
debug_info = '1=37&9=39&12=44&13=48&14=50&15=52&16=55&17=57&19=61&20=65&21=67&22=69'