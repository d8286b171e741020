from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/binding.py.j2'

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
        t_2 = environment.filters['dotted']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'dotted' found.")
    try:
        t_3 = environment.filters['ident']
    except KeyError:
        @internalcode
        def t_3(*unused):
            raise TemplateRuntimeError("No filter named 'ident' found.")
    pass
    yield '"""The one place that decides what generated code binds to.\n\nWith vLLM installed, the names below are vLLM '
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'vllm_version'), 'python/binding.py.j2', 3, 'plan.vllm_version')))
    yield '\'s own classes and objects, and\na vLLM that lacks one of them fails this import, naming each missing name and the installed\nversion: the package never runs half-bound. Without vLLM they are small stand-ins with the same\nnames and behaviour, so the generated wiring and its tests run standalone. Nothing else in this\npackage imports vLLM.\n"""\n\nfrom __future__ import annotations\n\nimport enum\nimport importlib\nimport importlib.metadata\nimport importlib.util\nfrom typing import TYPE_CHECKING, ClassVar\n\n# What the package\'s other modules import from here (the vLLM names, or their stand-ins):\n# exported explicitly, as a type checker\'s strict mode asks of a re-export.\n__all__ = [\n'
    for l_1_name in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'exported_names'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(l_1_name, 'python/binding.py.j2', 22, 'name')))
        yield ',\n'
    l_1_name = missing
    yield ']\n\n# Every name this package takes from vLLM, as (module, name).\nENGINE_NAMES: tuple[tuple[str, str], ...] = (\n'
    for l_1_name in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_names'):
        _loop_vars = {}
        pass
        yield '    '
        yield str(environment.finalize(t_1(l_1_name, 'python/binding.py.j2', 29, 'name')))
        yield ',\n'
    l_1_name = missing
    yield ')\n\n\nclass EngineMismatchError(ImportError):\n    """vLLM is installed but is not the engine the specs were written for."""\n\n\ndef _missing_engine_names() -> list[str]:\n    missing = []\n    for module, name in ENGINE_NAMES:\n        try:\n            found = hasattr(importlib.import_module(module), name)\n        except ImportError as error:\n            missing.append(f"{module}.{name} ({error})")\n            continue\n        if not found:\n            missing.append(f"{module}.{name}")\n    return missing\n\n\ndef _check_engine() -> None:\n    missing = _missing_engine_names()\n    if missing:\n        try:\n            installed = importlib.metadata.version("vllm")\n        except importlib.metadata.PackageNotFoundError:\n            installed = "(no distribution metadata)"\n        missing_names = ", ".join(missing)\n        raise EngineMismatchError('
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'mismatch_message'), 'python/binding.py.j2', 59, 'plan.mismatch_message')))
    yield ')\n\n\nVLLM_AVAILABLE = importlib.util.find_spec("vllm") is not None\n\n# A type checker reads vLLM\'s own names, the ones a consumer\'s code meets; the stand-ins are\n# the same names for a machine without vLLM, and would only redeclare them.\nif TYPE_CHECKING or VLLM_AVAILABLE:\n    _check_engine()\n'
    for l_1_item in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'imports'):
        _loop_vars = {}
        pass
        yield '    from '
        yield str(environment.finalize(t_1(t_2(environment.getattr(l_1_item, 'module')), 'python/binding.py.j2', 69, 'item.module | dotted')))
        yield ' import '
        yield str(environment.finalize(t_1(t_3(environment.getattr(l_1_item, 'name')), 'python/binding.py.j2', 69, 'item.name | ident')))
        yield '\n'
    l_1_item = missing
    for l_1_parent in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_parents'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'source'), 'python/binding.py.j2', 72, 'parent.source')))
        yield '\n    from '
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'module'), 'python/binding.py.j2', 73, 'parent.module')))
        yield ' import '
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'name'), 'python/binding.py.j2', 73, 'parent.name')))
        yield '\n'
    l_1_parent = missing
    for l_1_builder in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_builders'):
        _loop_vars = {}
        pass
        yield '    # spec: '
        yield str(environment.finalize(t_1(environment.getattr(l_1_builder, 'source'), 'python/binding.py.j2', 76, 'builder.source')))
        yield '\n    from '
        yield str(environment.finalize(t_1(environment.getattr(l_1_builder, 'module'), 'python/binding.py.j2', 77, 'builder.module')))
        yield ' import '
        yield str(environment.finalize(t_1(environment.getattr(l_1_builder, 'name'), 'python/binding.py.j2', 77, 'builder.name')))
        yield '\n'
    l_1_builder = missing
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_types'):
        pass
        yield '    from '
        yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_module'), 'python/binding.py.j2', 80, 'plan.kv_module')))
        yield ' import (\n'
        for l_1_t in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_types'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(environment.finalize(t_1(environment.getattr(l_1_t, 'name'), 'python/binding.py.j2', 82, 't.name')))
            yield ',\n'
        l_1_t = missing
        yield '    )\n'
    yield '    # vLLM validates its config dataclasses with pydantic, a dependency of vLLM\n    from pydantic_core import ValidationError\nelse:\n\n    class ValidationError(ValueError):\n        """Stand-in for pydantic_core.ValidationError (what vLLM\'s config fields raise)."""\n\n    class ModelRegistry:\n        """Records registrations the way vLLM\'s ModelRegistry accepts them."""\n\n        registered: ClassVar[dict[str, str]] = {}\n\n        @classmethod\n        def register_model(cls, architecture: str, target: str) -> None:\n            cls.registered[architecture] = target\n\n    class _StandalonePlatform:\n        """Answers vLLM\'s platform questions from torch, or as a machine without a GPU."""\n\n        @staticmethod\n        def is_rocm() -> bool:\n            try:\n                import torch\n            except ImportError:\n                return False\n            return torch.version.hip is not None\n\n        @staticmethod\n        def is_device_capability_family(family: int) -> bool:\n            try:\n                import torch\n            except ImportError:\n                return False\n            if not torch.cuda.is_available():\n                return False\n            major, _minor = torch.cuda.get_device_capability()\n            return major * 10 == family\n\n    current_platform = _StandalonePlatform()\n\n    class CUDAGraphMode(enum.Enum):\n        """vLLM\'s CUDA graph modes; two-part values are (mixed-batch mode, decode-only mode)."""\n\n        NONE = 0\n        PIECEWISE = 1\n        FULL = 2\n        FULL_DECODE_ONLY = (FULL, NONE)\n        FULL_AND_PIECEWISE = (FULL, PIECEWISE)\n\n        def has_piecewise_cudagraphs(self) -> bool:\n            # True for PIECEWISE and FULL_AND_PIECEWISE only.\n            return self in (CUDAGraphMode.PIECEWISE, CUDAGraphMode.FULL_AND_PIECEWISE)\n'
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_cache_layouts'):
        pass
        yield '\n    class KVCacheLayout(enum.Enum):\n        """Stand-in for vllm.v1.kv_cache_layout.KVCacheLayout (the members the backends name)."""\n\n'
        for l_1_member in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_cache_layouts'):
            _loop_vars = {}
            pass
            yield '        '
            yield str(environment.finalize(t_1(environment.getattr(l_1_member, 'name'), 'python/binding.py.j2', 144, 'member.name')))
            yield ' = '
            yield str(environment.finalize(t_1(environment.getattr(l_1_member, 'value'), 'python/binding.py.j2', 144, 'member.value')))
            yield '\n'
        l_1_member = missing
    for l_1_parent in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_parents'):
        _loop_vars = {}
        pass
        yield '\n    class '
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'name'), 'python/binding.py.j2', 149, 'parent.name')))
        yield ':\n        """Stand-in for '
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'module'), 'python/binding.py.j2', 150, 'parent.module')))
        yield '.'
        yield str(environment.finalize(t_1(environment.getattr(l_1_parent, 'name'), 'python/binding.py.j2', 150, 'parent.name')))
        yield ': only what subclasses override."""\n\n        @staticmethod\n        def get_name() -> str:\n            raise NotImplementedError\n\n        @staticmethod\n        def get_supported_kernel_block_sizes(kv_cache_spec: object = None) -> list[int]:\n            raise NotImplementedError\n\n        @classmethod\n        def supports_device_cpu_query_lens_mismatch(cls) -> bool:\n            return False\n'
    l_1_parent = missing
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_builders'):
        pass
        yield '\n    # Stand-ins for the metadata builders get_builder_cls() returns (ENGINE_NAMES: where from).\n'
        for l_1_builder in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'engine_builders'):
            _loop_vars = {}
            pass
            yield '    class '
            yield str(environment.finalize(t_1(environment.getattr(l_1_builder, 'name'), 'python/binding.py.j2', 168, 'builder.name')))
            yield ': ...\n\n'
        l_1_builder = missing
    if environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_types'):
        pass
        yield '\n    # Stand-ins for '
        yield str(environment.finalize(t_1(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_module'), 'python/binding.py.j2', 174, 'plan.kv_module')))
        yield ': the class hierarchy only.\n'
        for l_1_t in environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'kv_types'):
            _loop_vars = {}
            pass
            yield '    class '
            yield str(environment.finalize(t_1(environment.getattr(l_1_t, 'name'), 'python/binding.py.j2', 176, 't.name')))
            if environment.getattr(l_1_t, 'parent'):
                pass
                yield '('
                yield str(environment.finalize(t_1(environment.getattr(l_1_t, 'parent'), 'python/binding.py.j2', 176, 't.parent')))
                yield ')'
            yield ': ...\n\n'
        l_1_t = missing
    yield '\n\ndef is_device_capability_family(family: int) -> bool:\n    """Whether the current device belongs to a compute-capability family (90: every SM 9.x)."""\n    return current_platform.is_device_capability_family(family)\n\n\ndef is_rocm() -> bool:\n    return current_platform.is_rocm()\n\n\ndef literal_error(title: str, field: str, value: object, expected: str) -> ValueError:\n    """What vLLM raises for a config field value outside its Literal: pydantic\'s own\n    ValidationError (a literal_error) with vLLM installed; standalone, a ValueError with the\n    same text, without pydantic\'s documentation link."""\n    if VLLM_AVAILABLE:\n        from pydantic_core import InitErrorDetails\n        from pydantic_core import ValidationError as PydanticValidationError\n\n        error = InitErrorDetails(\n            type="literal_error", loc=(field,), input=value, ctx={"expected": expected}\n        )\n        return PydanticValidationError.from_exception_data(title, [error])\n    return ValidationError(\n        f"1 validation error for {title}\\n{field}\\n  Input should be {expected} "\n        f"[type=literal_error, input_value={value!r}, input_type={type(value).__name__}]"\n    )\n'

blocks = {}
debug_info = '3=31&21=33&22=37&28=41&29=45&59=49&68=51&69=55&71=60&72=64&73=66&75=71&76=75&77=77&79=82&80=85&81=87&82=91&138=96&143=99&144=103&147=108&149=112&150=114&164=119&167=122&168=126&172=129&174=132&175=134&176=138'