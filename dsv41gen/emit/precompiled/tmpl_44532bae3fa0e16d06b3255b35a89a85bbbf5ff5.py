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
    pass
    yield '# The '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family_ident'), 'python/pyproject.toml.j2', 1, 'plan.family_ident')))
    yield ' family as a pip-installable vLLM plugin:\n#   pip install --no-deps <this directory>\n# vLLM loads it through the vllm.general_plugins entry point in every process it starts.\n# hatchling builds the wheel without writing into this directory.\n\n[build-system]\nrequires = ["hatchling>=1.24"]\nbuild-backend = "hatchling.build"\n\n[project]\nname = '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'distribution'), 'python/pyproject.toml.j2', 11, 'plan.toml.distribution')))
    yield '\nversion = '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'version'), 'python/pyproject.toml.j2', 12, 'plan.toml.version')))
    yield '\ndescription = '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'description'), 'python/pyproject.toml.j2', 13, 'plan.toml.description')))
    yield '\nrequires-python = ">=3.10"\n# spec: '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_source'), 'python/pyproject.toml.j2', 15, 'plan.engine_source')))
    yield '; dsv41gen: the kernel sources the package compiles and imports\ndependencies = ['
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'engine_requirement'), 'python/pyproject.toml.j2', 16, 'plan.toml.engine_requirement')))
    yield ', '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'runtime_requirement'), 'python/pyproject.toml.j2', 16, 'plan.toml.runtime_requirement')))
    yield ']\n\n[project.entry-points."vllm.general_plugins"]\n'
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family_ident'), 'python/pyproject.toml.j2', 19, 'plan.family_ident')))
    yield ' = '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'entry_point'), 'python/pyproject.toml.j2', 19, 'plan.toml.entry_point')))
    yield '\n\n[tool.hatch.build.targets.wheel]\n# This directory is the package itself: every file lands under '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family_ident'), 'python/pyproject.toml.j2', 22, 'plan.family_ident')))
    yield '/ in the wheel.\ninclude = ["/*.py", "/MANIFEST", "/csrc"]\n\n[tool.hatch.build.targets.wheel.sources]\n"" = '
    yield str(environment.finalize(t_1(environment.getattr(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'toml'), 'family'), 'python/pyproject.toml.j2', 26, 'plan.toml.family')))
    yield '\n'

blocks = {}
debug_info = '1=19&11=21&12=23&13=25&15=27&16=29&19=33&22=37&26=39'