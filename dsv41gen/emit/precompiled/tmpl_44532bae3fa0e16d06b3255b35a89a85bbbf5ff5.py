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
    yield ' family as a pip-installable vLLM plugin:\n#   pip install --no-deps <this directory>\n# vLLM loads it through the vllm.general_plugins entry point in every process it starts.\n# hatchling builds the wheel without writing into this directory.\n\n[build-system]\n# 1.27: the first to write PEP 639 metadata (License-Expression, License-File)\nrequires = ["hatchling>=1.27"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'distribution')), 'python/pyproject.toml.j2', 12, 'plan.distribution | toml_str')))
    yield '\nversion = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'version')), 'python/pyproject.toml.j2', 13, 'plan.version | toml_str')))
    yield '\ndescription = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'description')), 'python/pyproject.toml.j2', 14, 'plan.description | toml_str')))
    yield '\nrequires-python = ">=3.10"\n# dsv41gen\'s templates are Apache-2.0, as is vLLM, which the package plugs into\nlicense = "Apache-2.0"\nlicense-files = ["LICENSE"]\n# spec: '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_source'), 'python/pyproject.toml.j2', 19, 'plan.engine_source')))
    yield '; dsv41gen: the kernel sources the package compiles and imports\ndependencies = ['
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_requirement')), 'python/pyproject.toml.j2', 20, 'plan.engine_requirement | toml_str')))
    yield ', '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'runtime_requirement')), 'python/pyproject.toml.j2', 20, 'plan.runtime_requirement | toml_str')))
    yield ']\n\n[project.urls]\n"vLLM plugin system" = "https://docs.vllm.ai/en/stable/design/plugin_system/"\n\n[project.entry-points."vllm.general_plugins"]\n'
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 26, 'plan.family | ident')))
    yield ' = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'entry_point')), 'python/pyproject.toml.j2', 26, 'plan.entry_point | toml_str')))
    yield '\n\n[tool.hatch.build.targets.wheel]\n# This directory is the package itself: every file lands under '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 29, 'plan.family | ident')))
    yield '/ in the wheel.\n# py.typed: the package is typed (PEP 561) for whoever installs it, not only in this tree.\ninclude = ["/*.py", "/py.typed", "/MANIFEST", "/csrc"]\n\n[tool.hatch.build.targets.wheel.sources]\n"" = '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/pyproject.toml.j2', 34, 'plan.family | toml_str')))
    yield '\n'

blocks = {}
debug_info = '1=31&12=33&13=35&14=37&19=39&20=41&26=45&29=49&34=51'