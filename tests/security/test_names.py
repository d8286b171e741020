"""Names a spec gives become files, packages, classes and C++ names: none may be one the
language, the standard library or the generated modules already use, and spec file names are
plain. Each case is a real build through the CLI."""

from __future__ import annotations

import subprocess
import sys

import pytest
from securityhelpers import GENERATED_PYTEST, REPO, assert_clean_rejection, cli, copy_specs, edit

V4, V41 = "deepseek_v4.yaml", "deepseek_v41.yaml"


@pytest.fixture
def specs(tmp_path):
    return copy_specs(tmp_path / "specs")


@pytest.mark.parametrize(
    "name",
    ["x\nopen('P','w')\n#.yaml", "#if 0.yaml", "a b.yaml", "d\u202e4.yaml", "q'\".yaml"],
)
def test_spec_file_name_outside_the_plain_set_is_a_clean_error(specs, name):
    (specs / V41).rename(specs / name)
    result = cli("build", f"specs/{name}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(result, "spec file name", "rename the file")
    assert not (specs.parent / "out").exists()
    assert not (specs.parent / "P").exists()


def test_extends_target_name_outside_the_plain_set_is_a_clean_error(specs):
    bad = "d\u202e4.yaml"
    (specs / V4).rename(specs / bad)
    edit(specs / V41, "extends: deepseek_v4.yaml", f'extends: "{bad}"')
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(result, "extends: the spec file name", "rename the parent spec")


CLASHES = [
    (
        V4,
        "  name: deepseek_v4\n",
        "  name: json\n",
        "variant.name: 'json' is a Python standard-library module",
    ),
    (V4, "  name: deepseek_v4\n", "  name: class\n", "variant.name: 'class' is a Python keyword"),
    (V4, "  name: deepseek_v4\n", "  name: print\n", "variant.name: 'print' is a Python builtin"),
    (
        V4,
        "  name: deepseek_v4\n",
        "  name: registry\n",
        "'registry' is the name of a module of the generated package",
    ),
    (V4, "  name: deepseek_v4\n", "  name: _binding\n", None),  # the schema says snake_case
    (
        V4,
        "parent: DeepseekV32IndexerBackend",
        "parent: KVCacheLayout",
        "'KVCacheLayout' is already a name of the generated module",
    ),
    (V4, "parent: DeepseekV32IndexerBackend", "parent: object", "'object' is a Python builtin"),
    (
        V4,
        "    KVCacheSpec: {}\n",
        "    KVCacheSpec: {}\n    Callable: {}\n",
        "kv_cache.spec_types.Callable: 'Callable' is already a name",
    ),
    (
        V4,
        "    KVCacheSpec: {}\n",
        "    KVCacheSpec: {}\n    None: {}\n",
        "kv_cache.spec_types.None: 'None' is a Python keyword",
    ),
    (
        V4,
        "    KVCacheSpec: {}\n",
        "    KVCacheSpec: {}\n    list: {}\n",
        "kv_cache.spec_types.list: 'list' is a Python builtin",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "message"), CLASHES)
def test_generated_name_clash_is_a_located_error(specs, file, old, new, message):
    edit(specs / file, old, new)
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(result, *([message] if message else []))
    assert f"{file}:" in result.stderr


def test_backend_class_named_like_the_capability_probe_is_rejected(specs):
    edit(specs / V4, "  DeepseekV4IndexerBackend:\n", "  device_is_capability_family:\n")
    result = cli("build", f"specs/{V4}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(
        result,
        "attention_backends.device_is_capability_family: 'device_is_capability_family' is "
        "already a name of the generated module",
    )


def test_child_inheriting_architectures_builds_ruff_clean_code_that_passes_its_tests(specs):
    (specs / "deepseek_v42.yaml").write_text(
        "spec_version: 1\nextends: deepseek_v41.yaml\n"
        "variant:\n  name: deepseek_v42\n  display_name: DeepSeek V4.2\n  model_type: deepseek_v42\n"
    )
    result = cli("build", "specs/deepseek_v42.yaml", "--out", "out", cwd=specs.parent)
    assert result.rc == 0, result.stderr
    out = specs.parent / "out"
    lint = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--config", str(REPO / "pyproject.toml"), str(out)],
        capture_output=True,
        text=True,
    )
    assert lint.returncode == 0, lint.stdout
    tests = out / "deepseek_v4" / "tests"
    run = subprocess.run(
        [
            *GENERATED_PYTEST,
            str(tests / "test_registry.py"),
            str(tests / "test_speculative.py"),
        ],
        cwd=out,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]


# Names the family's backends.py defines once, across variants: a child's class or get_name()
# that another variant already uses would define one name twice (or shadow an import).
FAMILY_BACKEND_CLASHES = [
    (
        # a child class named like the engine class the root's backend subclasses: the engine
        # import disappears and the root's backend subclasses the child's class (was exit 70)
        "  DeepseekV41RocmMxfp4IndexerBackend:\n",
        "  DeepseekV32IndexerBackend:\n",
        "attention_backends.DeepseekV32IndexerBackend: 'DeepseekV32IndexerBackend' is the "
        "engine class",
    ),
    (
        # a child sparse backend registered under the root's name: two functions of one name
        # and a duplicate dict key in backends.py (was exit 0, F811/F601, the root's sizes lost)
        "  FLASHMLA_MEGA_ATTN_DSV41:\n    name: FLASHMLA_MEGA_ATTN_DSV41\n",
        "  FLASHMLA_MEGA_ATTN_DSV41:\n    name: FLASHMLA_SPARSE_DSV4\n",
        "attention_backends.FLASHMLA_MEGA_ATTN_DSV41.name: 'FLASHMLA_SPARSE_DSV4' is already "
        "the name of FLASHMLA_SPARSE_DSV4",
    ),
    (
        # two indexer classes answering one get_name(): the engine can select only one of them
        "    name: DEEPSEEK_V41_ROCM_MXFP4_INDEXER\n",
        "    name: DEEPSEEK_V4_INDEXER\n",
        "'DEEPSEEK_V4_INDEXER' is already the name of DeepseekV4IndexerBackend",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), FAMILY_BACKEND_CLASHES)
def test_backend_names_clashing_across_the_family_are_located_errors(specs, old, new, message):
    edit(specs / V41, old, new)
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(result, message, f"{V41}:")
    assert not (specs.parent / "out").exists()


CHILD_WITH_OWN_MXFP8 = (
    "spec_version: 1\nextends: {parent}\nvariant:\n  name: {name}\n  display_name: X\n"
    "  model_type: {name}\nquantization:\n  mxfp8:\n    launch:\n      num_warps: 8\n"
)


@pytest.mark.parametrize(
    ("name", "message"),
    [
        # its Triton module mxfp8_reference.py silently replaced the root's torch reference of
        # the same name: exit 0, and the kernel was tested against a kernel
        ("reference", "'mxfp8_reference' is already the root's torch reference module"),
        # deepseek_v41_reference's kernel module is deepseek_v41's reference module
        (
            "deepseek_v41_reference",
            "'mxfp8_deepseek_v41_reference' is already deepseek_v41's torch reference module",
        ),
    ],
)
def test_variant_names_whose_kernel_modules_collide_are_located_errors(specs, name, message):
    (specs / V41).write_text(
        (specs / V41).read_text() + "quantization:\n  mxfp8:\n    launch:\n      num_warps: 2\n"
    )
    (specs / "child.yaml").write_text(CHILD_WITH_OWN_MXFP8.format(parent=V41, name=name))
    result = cli("build", "specs/child.yaml", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(result, "child.yaml:4:", f"variant.name: {message}")


@pytest.mark.parametrize(
    "name, message",
    [
        ("vllm", "'vllm' is a package the generated code imports"),
        ("dsv41gen", "'dsv41gen' is a package the generated code imports"),
        ("torch", "'torch' is a package the generated code imports"),
        ("triton", "'triton' is a package the generated code imports"),
        ("pytest", "'pytest' is a package the generated code imports"),
        ("transformers", "'transformers' is a package the generated code imports"),
        ("sitecustomize", "'sitecustomize' is a module Python imports by itself at every start"),
    ],
)
def test_root_named_like_a_package_the_generated_code_imports_is_rejected(specs, name, message):
    """The root names the package (generated/<name>/, the wheel's top-level package): `vllm`
    built a package that shadows vLLM for anyone with generated/ on sys.path and whose wheel
    overwrites vLLM's own files; `sitecustomize` would run at every interpreter start."""
    edit(specs / V4, "  name: deepseek_v4\n", f"  name: {name}\n")
    result = cli("build", f"specs/{V41}", "--out", "out", cwd=specs.parent)
    assert_clean_rejection(
        result, f"specs/{V4}:", f"variant.name: {message}", "choose another name"
    )
    assert not (specs.parent / "out").exists()
