from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/pyproject.toml.j2'

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
        t_3 = environment.filters['toml_str']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'toml_str' found.")
    pass
    yield '# The '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 1, 'plan.family | ident')))
    yield ' family as a pip-installable vLLM plugin:\n#   pip install --no-deps <this directory>\n# vLLM loads it through the vllm.general_plugins entry point in every process it starts.\n# hatchling builds the wheel without writing into this directory.\n\n[build-system]\nrequires = ["hatchling>=1.24"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'distribution')), 'python/pyproject.toml.j2', 11, 'plan.distribution | toml_str')))
    yield '\nversion = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'version')), 'python/pyproject.toml.j2', 12, 'plan.version | toml_str')))
    yield '\ndescription = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'description')), 'python/pyproject.toml.j2', 13, 'plan.description | toml_str')))
    yield '\nrequires-python = ">=3.10"\n# spec: '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_source'), 'python/pyproject.toml.j2', 15, 'plan.engine_source')))
    yield '; dsv41gen: the kernel sources the package compiles and imports\ndependencies = ['
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_requirement')), 'python/pyproject.toml.j2', 16, 'plan.engine_requirement | toml_str')))
    yield ', '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'runtime_requirement')), 'python/pyproject.toml.j2', 16, 'plan.runtime_requirement | toml_str')))
    yield ']\n\n[project.entry-points."vllm.general_plugins"]\n'
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 19, 'plan.family | ident')))
    yield ' = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'entry_point')), 'python/pyproject.toml.j2', 19, 'plan.entry_point | toml_str')))
    yield '\n\n[tool.hatch.build.targets.wheel]\n# This directory is the package itself: every file lands under '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 22, 'plan.family | ident')))
    yield '/ in the wheel.\ninclude = ["/*.py", "/MANIFEST", "/csrc"]\n\n[tool.hatch.build.targets.wheel.sources]\n"" = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 26, 'plan.family | toml_str')))
    yield '\n'

blocks = {}
debug_info = '1=31&11=33&12=35&13=37&15=39&16=41&19=45&22=49&26=51'