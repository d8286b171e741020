from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/init.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_family = resolve('family')
    try:
        t_1 = environment.filters['_emit']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named '_emit' found.")
    pass
    yield '"""Generated tests of the '
    yield str(environment.finalize(t_1((undefined(name='family') if l_0_family is missing else l_0_family), 'python/tests/init.py.j2', 1, 'family')))
    yield ' family; they run in the normal test suite."""\n'

blocks = {}
debug_info = '1=19'