from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/config_hooks.py.j2'

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
        t_2 = environment.filters['doc']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'doc' found.")
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
    pass
    yield '"""The engine config hooks of the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/config_hooks.py.j2', 1, 'plan.family | ident')))
    yield ' family: what vLLM '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'vllm_version')), 'python/config_hooks.py.j2', 1, 'plan.vllm_version | doc')))
    yield '\'s\n``MODELS_CONFIG_MAP[architecture].verify_and_update_config(vllm_config)`` does, as rules.\n\nSpec: config_hooks. Each rule tests the engine config (every test of ``when`` must hold) and\nthen refuses it, pops keys from its config mappings, or fills an unchosen setting from the\nmodel\'s config. A path through an unset value reads as unset.\n"""\n\nfrom __future__ import annotations\n\nimport logging\nfrom typing import Any\n\n# a vLLM logger name: the engine\'s own handlers and filters apply to these warnings\nlogger = logging.getLogger("vllm.model_executor.models.config")\n\n# rule name -> (tests that must all hold, action, its arguments)\nRULES: dict[str, tuple[tuple[dict[str, Any], ...], str, dict[str, Any]]] = {\n'
    for l_1_r in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'rules'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_r, 'source'), 'python/config_hooks.py.j2', 20, 'r.source')))
        yield '\n    '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_r, 'name')), 'python/config_hooks.py.j2', 21, 'r.name | py')))
        yield ': (\n        '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_r, 'when')), 'python/config_hooks.py.j2', 22, 'r.when | py')))
        yield ',\n        '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_r, 'action')), 'python/config_hooks.py.j2', 23, 'r.action | py')))
        yield ',\n        '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_r, 'arguments')), 'python/config_hooks.py.j2', 24, 'r.arguments | py')))
        yield ',\n    ),\n'
    l_1_r = missing
    yield '}\n\n# architecture -> the rules its hook runs, in order\nHOOKS: dict[str, tuple[str, ...]] = {\n'
    for l_1_h in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'hooks'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_h, 'source'), 'python/config_hooks.py.j2', 32, 'h.source')))
        yield '\n    '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_h, 'architecture')), 'python/config_hooks.py.j2', 33, 'h.architecture | py')))
        yield ': '
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_h, 'rules')), 'python/config_hooks.py.j2', 33, 'h.rules | py')))
        yield ',\n'
    l_1_h = missing
    yield '}\n\n\ndef _read(vllm_config: object, path: str) -> Any:\n    value = vllm_config\n    for name in path.split("."):\n        value = None if value is None else getattr(value, name, None)\n    return value\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'tests_platform'):
        pass
        yield '\n\ndef _platform_is(kind: str) -> bool:\n    from vllm.platforms import current_platform  # the engine\'s own answer, read when asked\n\n    return {\n        "cuda_alike": current_platform.is_cuda_alike,\n        "cuda": current_platform.is_cuda,\n        "rocm": current_platform.is_rocm,\n    }[kind]()\n'
    yield '\n\ndef _holds(vllm_config: object, test: dict[str, Any]) -> bool:\n    if "any" in test:\n        return any(_holds(vllm_config, t) for t in test["any"])\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'tests_platform'):
        pass
        yield '    if "platform" in test:\n        return _platform_is(test["platform"])\n'
    yield '    value = _read(vllm_config, test["path"])\n    comparisons = {\n        "eq": lambda v, x: v == x,\n        "ne": lambda v, x: v != x,\n        "lt": lambda v, x: v < x,\n        "le": lambda v, x: v <= x,\n        "gt": lambda v, x: v > x,\n        "ge": lambda v, x: v >= x,\n        "in": lambda v, x: v in x,\n        "not_in": lambda v, x: v not in x,\n        "set": lambda v, x: (v is not None) == x,\n        "truthy": lambda v, x: bool(v) == x,\n    }\n    return all(check(value, test[op]) for op, check in comparisons.items() if op in test)\n\n\ndef _act(vllm_config: object, action: str, arguments: dict[str, Any]) -> None:\n    if action == "refuse":\n        error = {"ValueError": ValueError, "NotImplementedError": NotImplementedError}\n        raise error[arguments["error"]](arguments["message"])\n    if action == "pop_keys":\n        for path in arguments["from"]:\n            mapping = _read(vllm_config, path)\n            if mapping is not None:\n                for key in arguments["keys"]:\n                    mapping.pop(key, None)\n        return\n    # default_setting: an unchosen setting takes the config\'s value; a chosen one wins\n    owner_path, _, name = arguments["setting"].rpartition(".")\n    owner = _read(vllm_config, owner_path)\n    chosen = getattr(owner, name)\n    source = _read(vllm_config, arguments["source"])\n    if chosen == arguments["unset"]:\n        if source is not None:\n            setattr(owner, name, source)\n    elif source is not None and chosen != source and "warning" in arguments:\n        logger.warning(arguments["warning"].format(source=source, setting=chosen))\n\n\ndef verify_and_update_config(architecture: str, vllm_config: object) -> None:\n    """Run ``architecture``\'s config hook on ``vllm_config``; an architecture without one\n    passes unchanged."""\n    for name in HOOKS.get(architecture, ()):\n        when, action, arguments = RULES[name]\n        if all(_holds(vllm_config, test) for test in when):\n            _act(vllm_config, action, arguments)\n'

blocks = {}
debug_info = '1=37&19=41&20=45&21=47&22=49&23=51&24=53&31=57&32=61&33=63&43=69&60=73'