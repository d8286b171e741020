from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/plugin.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    l_0_registry = resolve('registry')
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
    yield '"""The vLLM plugin of the '
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin.py.j2', 1, 'plan.family | ident')))
    yield ' family: one hook per vLLM wiring site its specs cover.\n\n``install()`` is the ``vllm.general_plugins`` entry point (through ``'
    yield str(environment.finalize(t_1(t_3(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/plugin.py.j2', 3, 'plan.family | ident')))
    yield '.vllm_plugin``).\nIt checks every site first: the installed vLLM release, then each target function\'s presence,\nbinding and parameters. Only when all of them are what the specs were written for does it patch\nthem, all at once; otherwise it raises PluginLoadError naming each site that differs, and vLLM\nis left as it was. Each hook handles the family\'s own model_types and architectures with the\ngenerated wiring and hands everything else to vLLM\'s original function, unchanged.\nRun ``dsv41gen explain`` for the table of sites, including those no plugin can hook.\n"""\n\nfrom __future__ import annotations\n\nimport ast\nimport importlib\nimport importlib.metadata\nimport importlib.util\nimport inspect\nimport logging\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_buckets'):
        pass
        yield 'import types\n'
    yield 'import warnings\nfrom collections.abc import Callable\nfrom dataclasses import dataclass\nfrom typing import Any\n\nfrom . import registry\nfrom ._binding import ModelRegistry\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'backend_sites')):
        pass
        yield 'from . import backends\n'
    if (context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'speculative.draft_rewrite') or context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'speculative.config')):
        pass
        yield 'from . import dispatch, speculative\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'runner.forbidden_modes'):
        pass
        yield 'from . import runner\n'
    yield '\n# spec: '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_source'), 'python/plugin.py.j2', 40, 'plan.engine_source')))
    yield '\nENGINE_REQUIREMENT = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_requirement')), 'python/plugin.py.j2', 41, 'plan.engine_requirement | py')))
    yield '\nENGINE_VERSION = '
    yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_version')), 'python/plugin.py.j2', 42, 'plan.engine_version | py')))
    yield "\n\n# The HF model_types the hooks handle (variant.model_type); every other model is vLLM's own.\nMODEL_TYPES: frozenset[str] = frozenset(\n    {\n"
    for (l_1_model_type, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'model_types'):
        _loop_vars = {}
        pass
        yield '        '
        yield str(environment.finalize(t_1(t_4(l_1_model_type), 'python/plugin.py.j2', 48, 'model_type | py')))
        yield ',  # spec: '
        yield str(environment.finalize(t_1(l_1_source, 'python/plugin.py.j2', 48, 'source')))
        yield '\n'
    l_1_model_type = l_1_source = missing
    yield '    }\n)\n\n\n_logger = logging.getLogger(__name__)\n\n\nclass PluginLoadError(RuntimeError):\n    """The installed vLLM is not the engine the specs were written for; nothing was patched."""\n\n\n@dataclass(frozen=True)\nclass Site:\n    name: str\n    module: str\n    # the class that defines the function; "": a module-level function (static True) or a\n    # module-level table, a dict (static False)\n    owner: str\n    attribute: str\n    static: bool  # a staticmethod (True) or a method taking self (False)\n    parameters: tuple[str, ...]\n    hook: str  # the function of this module that replaces it or fills the table ("": none)\n    reads: tuple[str, ...]  # the spec fields the hook reads\n\n    @property\n    def qualified(self) -> str:\n        return ".".join(part for part in (self.module, self.owner, self.attribute) if part)\n\n\nSITES: tuple[Site, ...] = (\n'
    for l_1_site in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'hooked'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_site, 'source'), 'python/plugin.py.j2', 81, 'site.source')))
        yield '\n    Site(\n        name='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_site, 'name')), 'python/plugin.py.j2', 83, 'site.name | py')))
        yield ',\n        module='
        yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_site, 'target'), 'module')), 'python/plugin.py.j2', 84, 'site.target.module | py')))
        yield ',\n        owner='
        yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_site, 'target'), 'owner')), 'python/plugin.py.j2', 85, 'site.target.owner | py')))
        yield ',\n        attribute='
        yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_site, 'target'), 'attribute')), 'python/plugin.py.j2', 86, 'site.target.attribute | py')))
        yield ',\n        static='
        yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_site, 'target'), 'static')), 'python/plugin.py.j2', 87, 'site.target.static | py')))
        yield ',\n        parameters='
        yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_site, 'target'), 'parameters')), 'python/plugin.py.j2', 88, 'site.target.parameters | py')))
        yield ',\n        hook='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_site, 'hook')), 'python/plugin.py.j2', 89, 'site.hook | py')))
        yield ',\n        reads='
        yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_site, 'reads')), 'python/plugin.py.j2', 90, 'site.reads | py')))
        yield ',\n    ),\n'
    l_1_site = missing
    yield ')\n\n# The original function of each replaced site, kept by install() for the hooks to delegate to.\n_ORIGINALS: dict[str, Callable[..., Any]] = {}\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'hf_config_class'):
        pass
        yield "\n# Whose HF config class a variant's config takes when the engine knows none for its own\n# model_type: its parent variant's (extends), parents first.\nCONFIG_PARENTS: dict[str, str] = {\n"
        for (l_1_model_type, l_1_parent, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'config_parents'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_4(l_1_model_type), 'python/plugin.py.j2', 103, 'model_type | py')))
            yield ': '
            yield str(environment.finalize(t_1(t_4(l_1_parent), 'python/plugin.py.j2', 103, 'parent | py')))
            yield ',  # spec: '
            yield str(environment.finalize(t_1(l_1_source, 'python/plugin.py.j2', 103, 'source')))
            yield '\n'
        l_1_model_type = l_1_parent = l_1_source = missing
        yield '}\n\n\ndef _config_class(table: dict[str, Any], model_type: str) -> Any:\n    if model_type in table:\n        return table[model_type]\n    # transformers\' own classes, which vLLM falls back to (AutoConfig)\n    mapping = importlib.import_module("transformers").CONFIG_MAPPING\n    try:\n        return mapping[model_type]  # a lazy mapping: its .get skips the lazy part\n    except KeyError:\n        return None\n\n\ndef _missing_config_classes(table: dict[str, Any]) -> list[tuple[str, str]]:\n    """(model_type, parent) for each variant whose model_type neither vLLM nor transformers\n    knows; PluginLoadError when no ancestor\'s is known either."""\n    missing = []\n    known = {m for m in CONFIG_PARENTS.values() if _config_class(table, m) is not None}\n    for model_type, parent in CONFIG_PARENTS.items():\n        if _config_class(table, model_type) is not None:\n            known.add(model_type)\n            continue\n        if parent not in known:\n            raise PluginLoadError(\n                f"site hf_config_class: no HF config class for {model_type!r} or its parent "\n                f"{parent!r} in vLLM {ENGINE_VERSION} or transformers"\n            )\n        missing.append((model_type, parent))\n        known.add(model_type)\n    return missing\n\n\ndef add_config_classes(table: dict[str, Any]) -> None:\n    """Site hf_config_class: a variant whose model_type the engine does not know loads its\n    config.json with its parent\'s config class, under its own model_type (variant.model_type,\n    extends). The model_types vLLM knows keep vLLM\'s classes."""\n    for model_type, parent in _missing_config_classes(table):\n        base = _config_class(table, parent)\n        assert base is not None  # _missing_config_classes keeps only parents with a class\n        name = "".join(part.title() for part in model_type.split("_")) + "Config"\n        table[model_type] = type(name, (base,), {"model_type": model_type})\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'speculative.draft_rewrite'):
        pass
        yield '\n\ndef draft_hf_config_override(hf_config: Any, transformers_mtp_overrides: Any = None) -> Any:\n    """Site speculative.draft_rewrite: an MTP draft built from a family checkpoint gets the\n    model_type, architectures and n_predict its spec says (speculative.methods.mtp)."""\n    model_type = getattr(hf_config, "model_type", None)\n    if (\n        transformers_mtp_overrides is None\n        and model_type in MODEL_TYPES\n        and dispatch.mtp_draft_model_type(model_type) is not None\n    ):\n        rewrite = speculative.draft_config_overrides(model_type, "mtp", hf_config)\n        assert rewrite is not None  # dispatch names an MTP draft model_type for it\n        overrides = dict(rewrite)\n        hf_config.model_type = overrides.pop("model_type")\n        hf_config.update(overrides)\n        return hf_config\n    return _ORIGINALS["speculative.draft_rewrite"](hf_config, transformers_mtp_overrides)\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'speculative.config'):
        pass
        yield '\n\ndef _target_model_type(speculative_config: Any) -> str | None:\n    target = getattr(speculative_config, "target_model_config", None)\n    return getattr(getattr(target, "hf_config", None), "model_type", None)\n\n\n# vLLM\'s methods whose draft defaults to the target\'s own checkpoint when\n# num_speculative_tokens is given without a draft model (SpeculativeConfig.__post_init__).\n_DRAFT_FROM_TARGET_METHODS: frozenset[str] = frozenset({"mtp", "dspark"})\n# The methods vLLM keeps as the user named them: for any other it may detect another method\n# from the draft (a draft path containing "dspark" makes an "mtp" request DSpark), so only\n# these can be judged before the draft is built.\n_KEPT_METHODS: frozenset[str] = frozenset({"eagle", "eagle3", "dflash", "dspark"})\n\n\ndef _builds_a_draft_for_the_named_method(speculative_config: Any) -> bool:\n    """vLLM will build a draft model for this request, with the method the user named."""\n    method = speculative_config.method\n    if method is None or speculative.engine_method(method) not in _KEPT_METHODS:\n        return False  # vLLM settles the method on the draft it builds: judged after it\n    if speculative_config.model is not None:\n        return True\n    return (\n        speculative_config.num_speculative_tokens is not None\n        and speculative.engine_method(method) in _DRAFT_FROM_TARGET_METHODS\n    )\n\n\ndef speculative_config_post_init(self: Any) -> Any:\n    """Site speculative.config: for a family target, the spec\'s method check first, before\n    vLLM builds a draft for a method the spec forbids (vLLM\'s own setup of that draft fails\n    with words that say nothing of why); then vLLM\'s own work (it detects the method, builds\n    the draft, sets its quantization); then the spec\'s method check on the method vLLM settled\n    on, and the spec\'s draft rewrite and num_speculative_tokens, read from the DRAFT\'s config\n    (speculative.forbidden, speculative.methods)."""\n    original = _ORIGINALS["speculative.config"]\n    target_model_type = _target_model_type(self)\n    if target_model_type not in MODEL_TYPES:\n        return original(self)\n    requested = self.num_speculative_tokens\n    if _builds_a_draft_for_the_named_method(self):\n        speculative.validate_method(target_model_type, self.method)\n    try:\n        result = original(self)\n    except NotImplementedError:\n        # vLLM knows no draft for this variant and method: where the spec forbids the method,\n        # its derived message says why and what to use instead.\n        if self.method is not None:\n            speculative.validate_method(target_model_type, self.method)\n        raise\n'
        if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'refuses_unset_num_speculative_tokens'):
            pass
            yield "    except TypeError:\n        # The engine crashes on a draft given without num_speculative_tokens where no default\n        # applies (speculative.methods.<method>.num_speculative_tokens.default: none):\n        # the spec's refusal, which says what to set, in place of the crash.\n        if requested is None and self.method is not None:\n            speculative.refuse_unset_num_speculative_tokens(target_model_type, self.method)\n        raise\n"
        yield '    except ZeroDivisionError:\n        # vLLM\'s divisibility check divides by a draft config\'s n_predict of 0\n        # (num_nextn_predict_layers: 0): the spec\'s rule refuses it with a message instead.\n        if self.method is not None and self.draft_model_config is not None:\n            speculative.resolve_num_speculative_tokens(\n                target_model_type, self.method, self.draft_model_config.hf_config, requested\n            )\n        raise\n    if self.draft_model_config is None or self.method is None:\n        return result  # no draft was built: vLLM judged no method, nor does the spec\n    speculative.validate_method(target_model_type, self.method)\n    if self.method in speculative.FAMILY_METHODS:\n        _rewrite_draft(self, target_model_type, requested)\n    return result\n\n\ndef _rewrite_draft(self: Any, target_model_type: str, requested: int | None) -> None:\n    """The spec\'s draft config, from the draft\'s own HF config (a separate draft directory has\n    its own num_nextn_predict_layers). The draft\'s quantization stays what vLLM set: vLLM has\n    validated the draft\'s ModelConfig with it (speculative.methods.<method>.target_quantization\n    states that rule; it is not re-applied here)."""\n    draft = self.draft_model_config\n    overrides = speculative.draft_config_overrides(target_model_type, self.method, draft.hf_config)\n    if overrides is not None:\n        changed = {k: v for k, v in overrides.items() if getattr(draft.hf_config, k, None) != v}\n        if "model_type" in changed:\n            draft.hf_config.model_type = changed["model_type"]\n        draft.hf_config.update({k: v for k, v in changed.items() if k != "model_type"})\n        if changed:\n            self.update_arch_()  # vLLM\'s own refresh of the draft\'s architecture fields\n    with warnings.catch_warnings():\n        # vLLM has already warned about this num_speculative_tokens in its own words: once\n        warnings.simplefilter("ignore")\n        self.num_speculative_tokens = speculative.resolve_num_speculative_tokens(\n            target_model_type, self.method, draft.hf_config, requested\n        )\n\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'backend_sites')):
        pass
        yield "\n# (model_type, the indexer backend class vLLM's layer returns): the generated class a variant\n# declares in its place (a subclass of it, after deleting the inherited entry).\nBACKEND_REPLACEMENTS: dict[tuple[str, str], type] = {\n"
        for (l_1_model_type, l_1_engine_class, l_1_ours, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'backend_replacements'):
            _loop_vars = {}
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(l_1_source, 'python/plugin.py.j2', 273, 'source')))
            yield '\n    ('
            yield str(environment.finalize(t_1(t_4(l_1_model_type), 'python/plugin.py.j2', 274, 'model_type | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_4(l_1_engine_class), 'python/plugin.py.j2', 274, 'engine_class | py')))
            yield '): backends.'
            yield str(environment.finalize(t_1(t_3(l_1_ours), 'python/plugin.py.j2', 274, 'ours | ident')))
            yield ',\n'
        l_1_model_type = l_1_engine_class = l_1_ours = l_1_source = missing
        yield '}\n\n\ndef _replaced_backend(backend: type) -> type:\n    """The class the served variant\'s spec puts in place of ``backend``, or ``backend``."""\n    config = importlib.import_module("vllm.config").get_current_vllm_config_or_none()\n    model_config = getattr(config, "model_config", None)\n    model_type = str(getattr(getattr(model_config, "hf_config", None), "model_type", ""))\n    return BACKEND_REPLACEMENTS.get((model_type, backend.__name__), backend)\n'
        for l_1_site in context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'backend_sites')):
            _loop_vars = {}
            pass
            yield '\n\ndef '
            yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_site, 'hook')), 'python/plugin.py.j2', 288, 'site.hook | ident')))
            yield '(self: Any) -> Any:\n    """Site '
            yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_site, 'name')), 'python/plugin.py.j2', 289, 'site.name | doc')))
            yield ': the layer\'s own choice (by its flags), then the variant\'s\n    subclass in place of the class it replaces (attention_backends.<class>.parent)."""\n    return _replaced_backend(_ORIGINALS['
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_site, 'name')), 'python/plugin.py.j2', 291, 'site.name | py')))
            yield '](self))\n'
        l_1_site = missing
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'speculative.dspark.kv_layout'):
        pass
        yield "\n# A DSpark draft's model_type -> whether its layers share the target's KV layout\n# (speculative.methods.dspark.reuses_target_kv_layout, keyed by its draft_model_type).\nDSPARK_REUSES_TARGET_KV_LAYOUT: dict[str, bool] = {\n"
        for (l_1_model_type, l_1_reuses, l_1_source) in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'dspark_kv_layouts'):
            _loop_vars = {}
            pass
            yield '    '
            yield str(environment.finalize(t_1(t_4(l_1_model_type), 'python/plugin.py.j2', 300, 'model_type | py')))
            yield ': '
            yield str(environment.finalize(t_1(t_4(l_1_reuses), 'python/plugin.py.j2', 300, 'reuses | py')))
            yield ',  # spec: '
            yield str(environment.finalize(t_1(l_1_source, 'python/plugin.py.j2', 300, 'source')))
            yield '\n'
        l_1_model_type = l_1_reuses = l_1_source = missing
        yield '}\n\n\ndef dspark_attention_backend(draft_model_config: Any, draft_backend: Any, target_backend: Any) -> Any:\n    """Site speculative.dspark.kv_layout: a DSpark draft of the family gets the user\'s backend\n    if one was named, else the target\'s where its layers share the target\'s KV layout, else\n    vLLM\'s own choice (none). Other drafts are vLLM\'s."""\n    model_type = getattr(draft_model_config.hf_config, "model_type", None)\n    if draft_backend is not None or model_type not in DSPARK_REUSES_TARGET_KV_LAYOUT:\n        return _ORIGINALS["speculative.dspark.kv_layout"](\n            draft_model_config, draft_backend, target_backend\n        )\n    return target_backend if DSPARK_REUSES_TARGET_KV_LAYOUT[model_type] else None\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'runner.forbidden_modes'):
        pass
        yield '\n\ndef vllm_config_post_init(self: Any) -> Any:\n    """Site runner.forbidden_modes: after vLLM has resolved the final cudagraph mode and the\n    model runner, refuse the family\'s forbidden combinations (runner.forbidden_modes)."""\n    result = _ORIGINALS["runner.forbidden_modes"](self)\n    model_config = self.model_config\n    if (\n        model_config is not None\n        and not model_config.is_submodel_config\n        and model_config.hf_config.model_type in MODEL_TYPES\n    ):\n        runner.validate_runner_modes(self)\n    return result\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_sets'):
        pass
        yield '\n\n@dataclass(frozen=True)\nclass EngineSet:\n    """An engine-wide set keyed on the architecture name, and the family\'s members of it\n    (architectures.<name>.engine_sets). ``attribute`` is a module frozenset, or with ``reader``\n    a module function returning the set in force on the platform (``platform``: "" for every\n    platform but those another set of the same function answers for), or with ``predicate`` a\n    module function of the VllmConfig that answers whether the model\'s architectures meet the\n    set, on ``platform`` only."""\n\n    name: str\n    module: str\n    attribute: str\n    reader: bool\n    platform: str\n    members: frozenset[str]\n    predicate: bool = False\n\n\nENGINE_SETS: tuple[EngineSet, ...] = (\n'
        for l_1_engine_set in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_sets'):
            _loop_vars = {}
            pass
            yield '    EngineSet(\n        name='
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_engine_set, 'name')), 'python/plugin.py.j2', 356, 'engine_set.name | py')))
            yield ',\n        module='
            yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_engine_set, 'target'), 'module')), 'python/plugin.py.j2', 357, 'engine_set.target.module | py')))
            yield ',\n        attribute='
            yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_engine_set, 'target'), 'attribute')), 'python/plugin.py.j2', 358, 'engine_set.target.attribute | py')))
            yield ',\n        reader='
            yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_engine_set, 'target'), 'reader')), 'python/plugin.py.j2', 359, 'engine_set.target.reader | py')))
            yield ',\n        platform='
            yield str(environment.finalize(t_1(t_4(environment.getattr(environment.getattr(l_1_engine_set, 'target'), 'platform')), 'python/plugin.py.j2', 360, 'engine_set.target.platform | py')))
            yield ',\n'
            if environment.getattr(environment.getattr(l_1_engine_set, 'target'), 'predicate'):
                pass
                yield '        predicate=True,\n'
            yield '        members=frozenset(\n            {\n'
            for (l_2_architecture, l_2_source) in environment.getattr(l_1_engine_set, 'members'):
                _loop_vars = {}
                pass
                yield '                '
                yield str(environment.finalize(t_1(t_4(l_2_architecture), 'python/plugin.py.j2', 367, 'architecture | py')))
                yield ',  # spec: '
                yield str(environment.finalize(t_1(l_2_source, 'python/plugin.py.j2', 367, 'source')))
                yield '\n'
            l_2_architecture = l_2_source = missing
            yield '            }\n        ),\n    ),\n'
        l_1_engine_set = missing
        yield ')\n# The platforms a set answers for on its own; any other platform gets the sets marked "".\nENGINE_SET_PLATFORMS: tuple[str, ...] = '
        yield str(environment.finalize(t_1(t_4(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_set_platforms')), 'python/plugin.py.j2', 375, 'plan.engine_set_platforms | py')))
        yield '\n\n\ndef _platform() -> str:\n    platform = importlib.import_module("vllm.platforms").current_platform\n    return next((p for p in ENGINE_SET_PLATFORMS if getattr(platform, f"is_{p}")()), "")\n\n\ndef _engine_set_problem(engine_set: EngineSet) -> str | None:\n    where = f"{engine_set.module}.{engine_set.attribute}"\n    try:\n        value = getattr(importlib.import_module(engine_set.module), engine_set.attribute)\n    except (ImportError, AttributeError) as error:\n        return f"engine set {engine_set.name}: {where} cannot be imported ({error})"\n    if getattr(value, "__dsv41gen_site__", None) == "engine_sets":\n        return None  # installed by an earlier load in this process\n    if (engine_set.reader or engine_set.predicate) and not callable(value):\n        return f"engine set {engine_set.name}: {where} is no longer a function"\n    if engine_set.predicate and tuple(inspect.signature(value).parameters) != ("vllm_config",):\n        return f"engine set {engine_set.name}: {where} no longer takes (vllm_config)"\n    if not (engine_set.reader or engine_set.predicate) and not isinstance(value, frozenset):\n        return f"engine set {engine_set.name}: {where} is no longer a frozenset"\n    return None\n\n\nclass _WidenedReader:\n    """vLLM\'s function that returns an engine set, answering with the family\'s members of the\n    set in force on the platform added. Marked, so a second load does not wrap it again."""\n\n    __dsv41gen_site__ = "engine_sets"\n\n    def __init__(self, original: Callable[[], frozenset[str]], sets: tuple[EngineSet, ...]):\n        self.__wrapped__ = original\n        self._sets = sets\n\n    def __call__(self) -> frozenset[str]:\n        platform = _platform()\n        members = (s.members for s in self._sets if s.platform == platform)\n        return self.__wrapped__() | frozenset().union(*members)\n\n    def cache_clear(self) -> None:\n        """The cached original\'s (vLLM\'s tests clear it)."""\n        getattr(self.__wrapped__, "cache_clear", lambda: None)()\n\n\nclass _WidenedPredicate:\n    """vLLM\'s function that answers whether the model\'s architectures are in a set it spells\n    inline, answering yes for the family\'s members of the set too, on the set\'s platform.\n    Marked, so a second load does not wrap it again."""\n\n    __dsv41gen_site__ = "engine_sets"\n\n    def __init__(self, original: Callable[[Any], bool], sets: tuple[EngineSet, ...]):\n        self.__wrapped__ = original\n        self._sets = sets\n\n    def __call__(self, vllm_config: Any) -> bool:\n        if self.__wrapped__(vllm_config):\n            return True\n        model_config = getattr(vllm_config, "model_config", None)\n        architectures = getattr(model_config, "architectures", None) or ()\n        platform = _platform()\n        members = frozenset().union(*(s.members for s in self._sets if s.platform == platform))\n        return any(a in members for a in architectures)\n\n\ndef widen_engine_sets() -> None:\n    """Make the family\'s architectures members of the engine\'s sets their specs name, so a\n    variant the engine does not know by name is treated as the model class it runs\n    (architectures.<name>.engine_sets)."""\n    readers: dict[tuple[str, str], tuple[EngineSet, ...]] = {}\n    for engine_set in ENGINE_SETS:\n        module = importlib.import_module(engine_set.module)\n        if engine_set.reader or engine_set.predicate:\n            key = (engine_set.module, engine_set.attribute)\n            readers[key] = (*readers.get(key, ()), engine_set)\n        else:\n            current = getattr(module, engine_set.attribute)\n            setattr(module, engine_set.attribute, current | engine_set.members)\n    for (module_name, attribute), sets in readers.items():\n        module = importlib.import_module(module_name)\n        original = getattr(module, attribute)\n        if getattr(original, "__dsv41gen_site__", None) != "engine_sets":\n            wrapper = _WidenedPredicate if sets[0].predicate else _WidenedReader\n            setattr(module, attribute, wrapper(original, sets))\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_buckets'):
        pass
        yield '\n\n@dataclass(frozen=True)\nclass StateBucket:\n    """A cache a variant allocates: the KV spec type vLLM plans it with, and the state-like type\n    that makes its bucket a state bucket ("": none), always or only while no repeat pattern\n    splits the bucket (kv_cache.cache_spec_types, kv_cache.spec_types.<type>.state_like)."""\n\n    model_type: str\n    cache: str\n    spec_type: str\n    state_type: str\n    always: bool\n\n    def expected(self, repeats_per_group: int | None) -> bool:\n        if not self.state_type:\n            return False\n        return self.always or repeats_per_group is None\n\n\nSTATE_BUCKETS: tuple[StateBucket, ...] = (\n'
        for l_1_row in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_buckets'):
            _loop_vars = {}
            pass
            yield '    # spec: '
            yield str(environment.finalize(t_1(environment.getattr(l_1_row, 'source'), 'python/plugin.py.j2', 484, 'row.source')))
            yield '\n    StateBucket('
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_row, 'model_type')), 'python/plugin.py.j2', 485, 'row.model_type | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_row, 'cache')), 'python/plugin.py.j2', 485, 'row.cache | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_row, 'spec_type')), 'python/plugin.py.j2', 485, 'row.spec_type | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_row, 'state_type')), 'python/plugin.py.j2', 485, 'row.state_type | py')))
            yield ', '
            yield str(environment.finalize(t_1(t_4(environment.getattr(l_1_row, 'always')), 'python/plugin.py.j2', 485, 'row.always | py')))
            yield '),\n'
        l_1_row = missing
        yield ')\nKV_PLANNING = "vllm.v1.core.kv_cache_planning"\nKV_SPEC_TYPES = "vllm.v1.kv_cache_interface"\n# vLLM 0.33.0\'s is_state_bucket is a closure in this function; after the one-time upstream\n# refactor (`dsv41gen emit --vllm-tree PATH --refactor-upstream`) it reads these module tables,\n# which a plugin can extend: always state-like, and state-like while unsplit.\nKV_PLANNING_FUNCTION = "_get_packed_kv_cache_groups"\nSTATE_TABLES = {True: "_STATE_BUCKET_SPEC_TYPES", False: "_UNSPLIT_STATE_BUCKET_SPEC_TYPES"}\n\n\ndef _state_tables(module: Any) -> dict[bool, tuple[type, ...]] | None:\n    """vLLM\'s state-bucket tables, or None where is_state_bucket spells its types inline."""\n    tables = {always: getattr(module, name, None) for always, name in STATE_TABLES.items()}\n    if not all(isinstance(t, tuple) for t in tables.values()):\n        return None\n    return tables  # type: ignore[return-value]\n\n\ndef _widened_state_tables(module: Any) -> dict[str, tuple[type, ...]]:\n    """The tables with the family\'s state-like types added (vLLM\'s own entries stay)."""\n    interface = importlib.import_module(KV_SPEC_TYPES)\n    tables = _state_tables(module) or {}\n    out = {}\n    for always, current in tables.items():\n        wanted = [getattr(interface, b.state_type) for b in STATE_BUCKETS if b.state_type and b.always == always]\n        out[STATE_TABLES[always]] = current + tuple(dict.fromkeys(t for t in wanted if t not in current))\n    return out\n\n\ndef _state_bucket_problems() -> list[str]:\n    """What vLLM\'s own is_state_bucket answers for each cache\'s bucket, asked with the tables as\n    install() leaves them, against the spec; one line per cache it answers otherwise. The\n    closure is rebuilt from its code object (it exists only inside a call of its function),\n    with the module\'s globals and the tables widened; nothing is patched."""\n    where = f"{KV_PLANNING}.{KV_PLANNING_FUNCTION}"\n    try:\n        module = importlib.import_module(KV_PLANNING)\n        interface = importlib.import_module(KV_SPEC_TYPES)\n        spec_types = {b.spec_type: getattr(interface, b.spec_type) for b in STATE_BUCKETS}\n        for b in STATE_BUCKETS:\n            if b.state_type:\n                getattr(interface, b.state_type)\n        code = getattr(module, KV_PLANNING_FUNCTION).__code__\n    except (ImportError, AttributeError) as error:\n        return [f"site kv_cache.state_bucket: {where} or a KV spec type cannot be imported ({error})"]\n    inner = [c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == "is_state_bucket"]\n    if len(inner) != 1 or inner[0].co_freevars != ("repeats_per_group",):\n        shape = f"{where} has no is_state_bucket closure over repeats_per_group"\n        return [f"site kv_cache.state_bucket: {shape}, as in vLLM {ENGINE_VERSION}"]\n    namespace = {**vars(module), **_widened_state_tables(module)}\n    problems = []\n    for b in STATE_BUCKETS:\n        bucket = types.SimpleNamespace(first_spec=object.__new__(spec_types[b.spec_type]))\n        for repeats in (None, 2):\n            cell = types.CellType(repeats)\n            closure = types.FunctionType(inner[0], namespace, "is_state_bucket", None, (cell,))\n            answer = bool(closure(bucket))\n            if answer == b.expected(repeats):\n                continue\n            split = "unsplit" if repeats is None else "split into repeats"\n            if answer:\n                fix = "no plugin removes vLLM\'s own entries; fix the type\'s state_like"\n            else:\n                fix = (\n                    "it is a closure no plugin can extend: apply the one-time upstream "\n                    "refactor to vLLM\'s tree (`dsv41gen emit --vllm-tree PATH "\n                    "--refactor-upstream`)"\n                )\n            problems.append(\n                f"site kv_cache.state_bucket: vLLM\'s is_state_bucket says {answer} for "\n                f"{b.model_type}\'s {b.cache} cache ({b.spec_type}) {split}, the spec says "\n                f"{not answer} (kv_cache.cache_spec_types.{b.cache}); {fix}"\n            )\n            break\n    return problems\n\n\ndef widen_state_buckets() -> None:\n    """Add the state-like types of the family\'s caches to vLLM\'s state-bucket tables, where it\n    has them (check() has found that vLLM then answers as the specs say)."""\n    module = importlib.import_module(KV_PLANNING)\n    if _state_tables(module) is not None:\n        for name, table in _widened_state_tables(module).items():\n            setattr(module, name, table)\n'
    yield '\ndef _installed_version() -> str | None:\n    try:\n        return importlib.metadata.version("vllm")\n    except importlib.metadata.PackageNotFoundError:\n        return None\n\n\ndef _resolve(site: Site) -> tuple[object, object, str | None]:\n    """(owner class or module, raw attribute, problem): what the site\'s target is here."""\n    try:\n        module = importlib.import_module(site.module)\n        owner = getattr(module, site.owner) if site.owner else module\n    except (ImportError, AttributeError) as error:\n        where = ".".join(part for part in (site.module, site.owner) if part)\n        return None, None, f"{where} cannot be imported ({error})"\n    if not site.owner and site.static:\n        function = getattr(owner, site.attribute, None)\n        if getattr(function, "__dsv41gen_site__", None) == site.name:\n            return owner, function, None  # installed by an earlier load in this process\n        if not callable(function):\n            return owner, function, f"{site.qualified} is not a function"\n        parameters = tuple(inspect.signature(function).parameters)\n        if parameters != site.parameters:\n            problem = f"{site.qualified} takes {parameters}, not {site.parameters} as in vLLM {ENGINE_VERSION}"\n            return owner, function, problem\n        return owner, function, None\n    if not site.owner:\n        table = getattr(owner, site.attribute, None)\n        if not isinstance(table, dict):\n            return owner, table, f"{site.qualified} is not a dict"\n        return owner, table, None\n    raw = owner.__dict__.get(site.attribute)\n    if raw is None:\n        return owner, None, f"{site.qualified} does not exist"\n    function = raw.__func__ if isinstance(raw, staticmethod) else raw\n    if getattr(function, "__dsv41gen_site__", None) == site.name:\n        return owner, raw, None  # installed by an earlier load in this process\n    if isinstance(raw, staticmethod) != site.static or not callable(function):\n        kind = "a staticmethod" if site.static else "a method"\n        return owner, raw, f"{site.qualified} is no longer {kind}"\n    parameters = tuple(inspect.signature(function).parameters)\n    if parameters != site.parameters:\n        problem = f"{site.qualified} takes {parameters}, not {site.parameters} as in vLLM {ENGINE_VERSION}"\n        return owner, raw, problem\n    return owner, raw, None\n\n\ndef check() -> list[tuple[Site, object, object]]:\n    """Every site\'s target, or PluginLoadError naming each site that is not as expected."""\n    problems = []\n    installed = _installed_version()\n    if installed != ENGINE_VERSION:\n        problems.append(\n            f"engine: the {__package__} specs describe {ENGINE_REQUIREMENT}, but vllm "\n            f"{installed or \'is not installed\'}{\'\' if installed is None else \' is installed\'}"\n        )\n    resolved = []\n    for site in SITES:\n        owner, raw, problem = _resolve(site)\n        if problem is not None:\n            problems.append(f"site {site.name}: {problem}")\n        else:\n            assert owner is not None  # _resolve names a problem whenever the owner is missing\n            resolved.append((site, owner, raw))\n'
    if context.call(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'has'), 'hf_config_class'):
        pass
        yield '    for site, _owner, raw in resolved:\n        if site.name == "hf_config_class" and isinstance(raw, dict):\n            try:\n                _missing_config_classes(raw)\n            except PluginLoadError as error:\n                problems.append(str(error))\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_sets'):
        pass
        yield '    problems += [p for p in map(_engine_set_problem, ENGINE_SETS) if p is not None]\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_buckets'):
        pass
        yield '    problems += _state_bucket_problems()\n'
    yield '    if problems:\n        raise PluginLoadError(\n            f"{__package__} vLLM plugin not loaded, nothing was patched:\\n  "\n            + "\\n  ".join(problems)\n            + f"\\nInstall {ENGINE_REQUIREMENT}, or update the specs\' `engine` and rebuild."\n        )\n    return resolved\n\n\ndef _names_bound(path: str) -> set[str] | None:\n    """The names a module\'s source binds at its top level (classes, functions, imports,\n    assignments, in every branch of an if/try), read without importing it (a model module may\n    need a GPU to import); None when the module decides at run time (a module __getattr__)."""\n    with open(path, encoding="utf-8") as source:\n        tree = ast.parse(source.read(), path)\n    names: set[str] = set()\n    statements = list(tree.body)\n    while statements:\n        statement = statements.pop()\n        if isinstance(statement, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):\n            names.add(statement.name)\n        elif isinstance(statement, (ast.Import, ast.ImportFrom)):\n            names.update((a.asname or a.name).partition(".")[0] for a in statement.names)\n        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):\n            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]\n            names.update(t.id for t in targets if isinstance(t, ast.Name))\n        elif isinstance(statement, (ast.If, ast.Try, ast.With)):\n            for block in ("body", "orelse", "finalbody"):\n                statements.extend(getattr(statement, block, []))\n            for handler in getattr(statement, "handlers", []):\n                statements.extend(handler.body)\n    return None if "__getattr__" in names else names\n\n\ndef registry_problem(module: str, class_name: str) -> str | None:\n    """Why ``module:class_name`` cannot be a model class here, or None (architectures.<name>)."""\n    try:\n        found = importlib.util.find_spec(module)\n    except (ImportError, ValueError) as error:\n        return f"module {module} cannot be found ({error})"\n    if found is None:\n        return f"module {module} does not exist in the installed vLLM {_installed_version()}"\n    if not found.origin or not found.origin.endswith(".py"):\n        return None  # no source to read (a namespace or compiled module): vLLM\'s import judges\n    names = _names_bound(found.origin)\n    if names is not None and class_name not in names:\n        return f"module {module} defines no {class_name}"\n    return None\n\n\ndef register_models() -> list[str]:\n    """Register each of the family\'s architectures on its own, after checking its target: an\n    entry whose module or class is missing is refused with one loud line naming it, and its\n    siblings are registered all the same (architectures.<name>.module, .class). The refusals."""\n    refused = []\n    for table in registry.REGISTERED_TABLES:\n'
    if environment.getattr((undefined(name='registry') if l_0_registry is missing else l_0_registry), 'relative_modules'):
        pass
        yield "        for architecture, (name, class_name) in table.items():\n            module = registry.engine_module(name)  # the table spells it as vLLM's does\n"
    else:
        pass
        yield '        for architecture, (module, class_name) in table.items():\n'
    yield '            problem = registry_problem(module, class_name)\n            if problem is None:\n                ModelRegistry.register_model(architecture, f"{module}:{class_name}")\n                continue\n            line = (\n                f"{__package__} vLLM plugin: architecture {architecture} not registered: "\n                f"{problem}; fix architectures.{architecture} in its spec and rebuild"\n            )\n            _logger.error(line)\n            refused.append(line)\n    return refused\n\n\ndef install() -> None:\n    """Check every site, then hook every replaced site and register the family\'s models."""\n    for site, owner, raw in check():\n        if not site.hook:\n            continue\n        if not site.owner and not site.static:\n            globals()[site.hook](raw)\n            continue\n        function = raw.__func__ if isinstance(raw, staticmethod) else raw\n        if getattr(function, "__dsv41gen_site__", None) == site.name:\n            continue  # loading twice in one process must not wrap the hook in itself\n        hook = globals()[site.hook]\n        hook.__dsv41gen_site__ = site.name\n        assert callable(function)  # check() found a function there\n        _ORIGINALS[site.name] = function\n        if not site.owner:\n            setattr(owner, site.attribute, hook)  # a module function: its callers look it up there\n        else:\n            setattr(owner, site.attribute, staticmethod(hook) if site.static else hook)\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_sets'):
        pass
        yield '    widen_engine_sets()\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'state_buckets'):
        pass
        yield '    widen_state_buckets()\n'
    yield '    register_models()\n'

blocks = {}
debug_info = '1=38&3=40&20=42&30=46&33=49&36=52&40=56&41=58&42=60&47=62&48=66&80=72&81=76&83=78&84=80&85=82&86=84&87=86&88=88&89=90&90=92&97=96&102=99&103=103&148=111&168=114&220=117&267=121&272=124&273=128&274=130&285=138&288=142&289=144&291=146&294=149&299=152&300=156&316=164&332=167&354=170&356=174&357=176&358=178&359=180&360=182&361=184&366=188&367=192&375=200&461=202&483=205&484=209&485=211&637=224&645=227&648=230&707=234&745=241&748=244'