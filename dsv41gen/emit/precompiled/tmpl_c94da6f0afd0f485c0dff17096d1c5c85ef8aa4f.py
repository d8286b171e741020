from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'python/tests/test_checkpoint.py.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_plan = resolve('plan')
    l_0_tests = resolve('tests')
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
    pass
    yield '"""Generated tests: checkpoint weight-name validation of the '
    yield str(environment.finalize(t_1(t_2(environment.getattr((undefined(name='plan') if l_0_plan is missing else l_0_plan), 'family')), 'python/tests/test_checkpoint.py.j2', 1, 'plan.family | ident')))
    yield ' family, on small\nsafetensors and index files the tests write themselves."""\n\nfrom __future__ import annotations\n\nimport json\n\nimport pytest\n\nfrom .. import checkpoint\n\n# (model_type, method, config.json, a complete checkpoint, "dropped weight>the name reported\n# missing>what the engine\'s loader does unquantized>quantized ...": fails, or loads it\n# uninitialized)\nCASES = [\n'
    for (l_1_mt, l_1_method, l_1_config, l_1_names, l_1_drops) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'cases'):
        _loop_vars = {}
        pass
        yield '    ('
        yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_checkpoint.py.j2', 17, 'mt')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_checkpoint.py.j2', 17, 'method')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_checkpoint.py.j2', 17, 'config')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_names, 'python/tests/test_checkpoint.py.j2', 17, 'names')))
        yield ', '
        yield str(environment.finalize(t_1(l_1_drops, 'python/tests/test_checkpoint.py.j2', 17, 'drops')))
        yield '),\n'
    l_1_mt = l_1_method = l_1_config = l_1_names = l_1_drops = missing
    yield ']\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rejected'):
        pass
        yield "\n# (model_type, method, config.json, the checkpoint plus one tensor the engine's loader fails on,\n# that tensor)\nREJECTED = [\n"
        for (l_1_mt, l_1_method, l_1_config, l_1_names, l_1_bad) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rejected'):
            _loop_vars = {}
            pass
            yield '    ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_checkpoint.py.j2', 26, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_checkpoint.py.j2', 26, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_checkpoint.py.j2', 26, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_names, 'python/tests/test_checkpoint.py.j2', 26, 'names')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_bad, 'python/tests/test_checkpoint.py.j2', 26, 'bad')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_config = l_1_names = l_1_bad = missing
        yield ']\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'empty_stage'):
        pass
        yield "\n# (model_type, method, config.json, a complete checkpoint, the stage-count field set one stage\n# past it, the stage the engine's loader fails on, quantized or not)\nEMPTY_STAGE = [\n"
        for (l_1_mt, l_1_method, l_1_config, l_1_names, l_1_field, l_1_stage) in environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'empty_stage'):
            _loop_vars = {}
            pass
            yield '    ('
            yield str(environment.finalize(t_1(l_1_mt, 'python/tests/test_checkpoint.py.j2', 36, 'mt')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_method, 'python/tests/test_checkpoint.py.j2', 36, 'method')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_config, 'python/tests/test_checkpoint.py.j2', 36, 'config')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_names, 'python/tests/test_checkpoint.py.j2', 36, 'names')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_field, 'python/tests/test_checkpoint.py.j2', 36, 'field')))
            yield ', '
            yield str(environment.finalize(t_1(l_1_stage, 'python/tests/test_checkpoint.py.j2', 36, 'stage')))
            yield '),\n'
        l_1_mt = l_1_method = l_1_config = l_1_names = l_1_field = l_1_stage = missing
        yield ']\n'
    yield '\n\n# The weights that are one parameter each (weight_sets.<set>.parameters): their tensor is the\n# name itself; any other weight\'s is "<name>.weight".\nPARAMETERS: frozenset[str] = frozenset('
    yield str(environment.finalize(t_1(environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'parameters'), 'python/tests/test_checkpoint.py.j2', 44, 'tests.parameters')))
    yield ')\n\n\ndef _tensor(name):\n    return name if name in PARAMETERS else f"{name}.weight"\n\n\ndef _write_safetensors(path, names):\n    numpy = pytest.importorskip("numpy")\n    safetensors_numpy = pytest.importorskip("safetensors.numpy")\n    safetensors_numpy.save_file({_tensor(name): numpy.zeros(1, dtype=numpy.float32) for name in names}, path)\n\n\n@pytest.mark.parametrize(("model_type", "method", "config", "names", "drops"), CASES)\ndef test_complete_checkpoint_serves_the_method(tmp_path, model_type, method, config, names, drops):\n    names = names.split()\n    _write_safetensors(tmp_path / "model.safetensors", names)\n    (tmp_path / "config.json").write_text(json.dumps(config))\n    names = checkpoint.read_weight_names(tmp_path)\n    config = checkpoint.read_hf_config(tmp_path)\n    assert checkpoint.missing_weights(model_type, method, names, config) == []\n    assert checkpoint.rejected_weights(model_type, method, names, config) == []\n    assert method in checkpoint.servable_methods(model_type, names, config)\n\n\n@pytest.mark.parametrize(("model_type", "method", "config", "names", "drops"), CASES)\ndef test_each_missing_required_weight_is_named(tmp_path, model_type, method, config, names, drops):\n    for dropped, reported, _, _ in (pair.split(">") for pair in drops.split()):\n        kept = [n for n in names.split() if n != dropped]\n        _write_safetensors(tmp_path / "model-00001.safetensors", kept)  # the shard the index names\n        index = {"weight_map": {_tensor(n): "model-00001.safetensors" for n in kept}}\n        (tmp_path / "model.safetensors.index.json").write_text(json.dumps(index))\n        found = checkpoint.read_weight_names(tmp_path)\n        assert checkpoint.missing_weights(model_type, method, found, config) == [reported]\n        assert method not in checkpoint.servable_methods(model_type, found, config)\n\n\n@pytest.mark.parametrize(("model_type", "method", "config", "names", "drops"), CASES)\ndef test_a_missing_weight_fails_or_loads_uninitialized(model_type, method, config, names, drops):\n    quantized = {"quantization_config": {"quant_method": "fp8"}}\n    for dropped, reported, unquantized, when_quantized in (pair.split(">") for pair in drops.split()):\n        kept = [_tensor(n) for n in names.split() if n != dropped]  # tensors of the weights\n        for mode, expected in ((config, unquantized), ({**config, **quantized}, when_quantized)):\n            found = checkpoint.unloaded_weights(model_type, method, kept, mode)\n            assert [(name, fatal) for name, fatal, _ in found] == [(reported, expected == "fails")]\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'rejected'):
        pass
        yield '\n\n@pytest.mark.parametrize(("model_type", "method", "config", "names", "bad"), REJECTED)\ndef test_a_name_the_loader_fails_on_is_rejected(model_type, method, config, names, bad):\n    found = frozenset(_tensor(n) for n in names.split())\n    assert [name for name, _ in checkpoint.rejected_weights(model_type, method, found, config)] == [_tensor(bad)]\n    assert method not in checkpoint.servable_methods(model_type, found, config)\n'
    if environment.getattr((undefined(name='tests') if l_0_tests is missing else l_0_tests), 'empty_stage'):
        pass
        yield '\n\n@pytest.mark.parametrize(("model_type", "method", "config", "names", "field", "stage"), EMPTY_STAGE)\ndef test_a_stage_without_tensors_fails_quantized_or_not(model_type, method, config, names, field, stage):\n    count = int(stage.rsplit(".", 2)[-2]) + 1\n    quantized = {"quantization_config": {"quant_method": "fp8"}}\n    for mode in ({**config, field: count}, {**config, field: count, **quantized}):\n        found = checkpoint.unloaded_weights(model_type, method, [_tensor(n) for n in names.split()], mode)\n        assert found[0][:2] == (stage, True)\n'

blocks = {}
debug_info = '1=26&16=28&17=32&20=44&25=47&26=51&30=63&35=66&36=70&44=85&89=87&98=90'