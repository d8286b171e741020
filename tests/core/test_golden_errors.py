# ruff: noqa: E501  (golden messages are kept on one line each, as the CLI prints them)
"""Golden tests of the exact error output for broken specs.

Each case copies the real specs, makes one edit (a string replace on the real text, so line
numbers are those a user would see), runs `dsv41gen build`, and compares stderr line by line.
Expected messages are written out by hand. Line numbers are written as ``@needle@`` (the line of
the edited file that holds ``needle``, ``@needle+1@`` the line below) so that unrelated edits to
the real specs do not break the goldens; they were checked by hand against the specs at the time
of writing (e.g. the V4.1 `extends:` key is line 8 column 1). Columns are literal.
"""

from __future__ import annotations

import re
import shutil

import pytest
from corehelpers import V4, V41, edit, expand
from repohelpers import SPECS

# (id, [(file, old, new), ...], expected stderr lines without the "N errors" summary)
CASES = [
    (
        "child_changes_inherited_backend_in_place",
        [
            (
                V41,
                "  DeepseekV4IndexerBackend: !delete\n",
                "  DeepseekV4IndexerBackend:\n    kernel_block_sizes:\n      default: [512]\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@DeepseekV4IndexerBackend:@:3: attention_backends.DeepseekV4IndexerBackend: changes the backend DeepseekV4IndexerBackend that specs/deepseek_v4.yaml defines; a backend class has one definition per family: declare a subclass (`parent: DeepseekV4IndexerBackend`) with the change, and `DeepseekV4IndexerBackend: !delete` here if this variant no longer uses it
""",
    ),
    (
        "extends_cycle",
        [(V4, "spec_version: 1\n", "spec_version: 1\nextends: deepseek_v41.yaml\n")],
        """
specs/deepseek_v41.yaml:@extends: deepseek_v4.yaml@:1: extends: `extends` cycle: deepseek_v41.yaml -> deepseek_v4.yaml -> deepseek_v41.yaml; one spec in the cycle must stop extending
""",
    ),
    (
        "unknown_parent_did_you_mean",
        [(V41, "extends: deepseek_v4.yaml", "extends: deepseek_v5.yaml")],
        """
specs/deepseek_v41.yaml:@extends: deepseek_v5.yaml@:1: extends: unknown parent spec 'deepseek_v5.yaml': no such file next to this spec; did you mean 'deepseek_v4.yaml'?
""",
    ),
    (
        # one error, not 43 follow-on ones from checking the child as if it were a root spec
        "extends_null",
        [(V41, "extends: deepseek_v4.yaml", "extends: ~")],
        """
specs/deepseek_v41.yaml:@extends: ~@:1: extends: names no parent spec (null); write the parent's file name, e.g. `extends: deepseek_v4.yaml`, or remove the key if this spec is a root
""",
    ),
    (
        "extends_not_a_string",
        [(V41, "extends: deepseek_v4.yaml", "extends: [deepseek_v4.yaml]")],
        """
specs/deepseek_v41.yaml:@extends: [deepseek_v4.yaml]@:1: extends: must be the file name of the parent spec, e.g. `deepseek_v4.yaml`
""",
    ),
    (
        "extends_parent_directory",
        [(V41, "extends: deepseek_v4.yaml", "extends: ../x.yaml")],
        """
specs/deepseek_v41.yaml:@extends: ../x.yaml@:1: extends: '../x.yaml' leaves the spec directory; name a spec beside this one or below it (relative, no '..', not absolute)
""",
    ),
    (
        "extends_absolute",
        [(V41, "extends: deepseek_v4.yaml", "extends: /etc/passwd")],
        """
specs/deepseek_v41.yaml:@extends: /etc/passwd@:1: extends: '/etc/passwd' leaves the spec directory; name a spec beside this one or below it (relative, no '..', not absolute)
""",
    ),
    (
        "method_allowed_and_forbidden",
        [
            (
                V41,
                "  forbidden:\n    mtp:\n",
                "  forbidden:\n    dspark:\n      use_instead: dspark\n    mtp:\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@forbidden:+1@:5: speculative.forbidden.dspark: method 'dspark' is both allowed (speculative.methods.dspark) and forbidden; remove one of them (a child spec drops an inherited method with `dspark: !delete`)
""",
    ),
    (
        "weight_set_not_declared",
        [
            (
                V41,
                "    dspark:\n      draft_model_type",
                "    dspark:\n      weights: dsparkk\n      draft_model_type",
            )
        ],
        """
specs/deepseek_v41.yaml:@weights: dsparkk@:7: speculative.methods.dspark.weights: weight set 'dsparkk' is not declared under checkpoint.weight_sets; did you mean 'dspark'?
""",
    ),
    (
        "draft_architecture_unknown",
        [
            (
                V41,
                "draft_architecture: DSparkV41DraftModel",
                "draft_architecture: DSparkV41DrafModel",
            )
        ],
        """
specs/deepseek_v41.yaml:@DSparkV41DrafModel@:7: speculative.methods.dspark.draft_architecture: unknown architecture 'DSparkV41DrafModel'; declare it under `architectures`; did you mean 'DSparkV41DraftModel'?
""",
    ),
    (
        "draft_architecture_wrong_registry",
        [
            (
                V41,
                "draft_architecture: DSparkV41DraftModel",
                "draft_architecture: DeepseekV41ForCausalLM",
            )
        ],
        """
specs/deepseek_v41.yaml:@draft_architecture: DeepseekV41ForCausalLM@:7: speculative.methods.dspark.draft_architecture: 'DeepseekV41ForCausalLM' is registered as multimodal; a draft architecture must be a speculative_decoding entry
""",
    ),
    (
        "signature_names_no_weight",
        [(V4, "hnorm, hc_head]", "hnorm, hc_heads]")],
        """
specs/deepseek_v4.yaml:@hc_heads]@:49: checkpoint.weight_sets.classic_mtp.signature.4: 'hc_heads' names no weight of this set (nor a prefix of one); did you mean 'hc_head_base'?
""",
    ),
    (
        "block_size_not_power_of_two",
        [(V41, "sm100: [128]", "sm100: [96]")],
        """
specs/deepseek_v41.yaml:@sm100: [96]@:17: attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm100.0: block size 96 is not a positive power of two (e.g. 64, 128, 256)
""",
    ),
    (
        "block_size_zero_reported_once",
        [
            (
                V41,
                "DeepseekV41RocmMxfp4IndexerMetadataBuilder\n    kernel_block_sizes:\n      default: [64, 128]",
                "DeepseekV41RocmMxfp4IndexerMetadataBuilder\n    kernel_block_sizes:\n      default: [0, 128]",
            )
        ],
        """
specs/deepseek_v41.yaml:@default: [0, 128]@:17: attention_backends.DeepseekV41RocmMxfp4IndexerBackend.kernel_block_sizes.default.0: must be at least 1
""",
    ),
    (
        "unknown_capability_family",
        [(V41, "sm120: [128]", "sm95: [128]")],
        """
specs/deepseek_v41.yaml:@sm95: [128]@:9: attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm95: unknown compute-capability family 'sm95'; did you mean 'sm90'?
""",
    ),
    (
        "backend_parent_unknown",
        [
            (
                V41,
                "parent: DeepseekV41IndexerBackend # block",
                "parent: DeepseekV41IndexrBackend # block",
            )
        ],
        """
specs/deepseek_v41.yaml:@DeepseekV41IndexrBackend@:5: attention_backends.DeepseekV41SparseIndexerBackend.parent: unknown parent 'DeepseekV41IndexrBackend': not a backend of this family; name one, or give `parent_module` for an engine class; did you mean 'DeepseekV41IndexerBackend'?
""",
    ),
    (
        # Found by the fuzz test: the planner crashed on a sparse_mla entry without block sizes.
        "sparse_mla_without_block_sizes",
        [
            (
                V41,
                "    class_path: vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAttnBackend\n"
                "    kernel_block_sizes:\n      default: [128]\n  FLASHINFER",
                "    class_path: vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAttnBackend\n"
                "  FLASHINFER",
            )
        ],
        """
specs/deepseek_v41.yaml:@FLASHMLA_MEGA_ATTN_DSV41:@:3: attention_backends.FLASHMLA_MEGA_ATTN_DSV41: a sparse_mla entry must state kernel_block_sizes: it has no parent to inherit them from
""",
    ),
    (
        "runner_architecture_unknown",
        [
            (
                V41,
                "kv_cache: # [ref §3]",
                "runner:\n  default_model_runner:\n    DeepseekV41ForCausalLMX: v2\n\nkv_cache: # [ref §3]",
            )
        ],
        """
specs/deepseek_v41.yaml:@DeepseekV41ForCausalLMX: v2@:5: runner.default_model_runner.DeepseekV41ForCausalLMX: unknown architecture 'DeepseekV41ForCausalLMX'; did you mean 'DeepseekV41ForCausalLM'?
""",
    ),
    (
        # issue 26 item 5: V4.1 inherits V4's message; naming V4 in it would make V4.1 raise it
        # naming V4. Reported at V4's line, naming the variant that inherits it.
        "inherited_message_names_the_ancestor",
        [
            (
                V4,
                "        Adaptive verification requires full",
                "        DeepSeek V4 adaptive verification requires full",
            )
        ],
        """
specs/deepseek_v4.yaml:@adaptive_verification_without_full_cudagraphs:+3@:7: runner.forbidden_modes.adaptive_verification_without_full_cudagraphs.message: names 'DeepSeek V4', but DeepSeek V4.1 inherits this message and would raise it naming DeepSeek V4; write {display_name} where the name goes (each variant's own display_name fills it in) (in specs/deepseek_v41.yaml, which inherits this value)
""",
    ),
    (
        # issue 26 item 6: porting messages say what to write
        "stage_count_old_shape_says_the_new_one",
        [
            (
                V41,
                "stage_count: {sources: [n_mtp_layers, num_nextn_predict_layers], default: 3}",
                "stage_count: num_nextn_predict_layers",
            )
        ],
        """
specs/deepseek_v41.yaml:@stage_count: num_nextn_predict_layers@:7: checkpoint.weight_sets.dspark.stage_count: expected a mapping, got a string ('num_nextn_predict_layers'); write `stage_count: {sources: [num_nextn_predict_layers]}` (the HF config fields that count the stages, first set wins, and the loader's fallback as `default`)
""",
    ),
    (
        "stage_count_number_says_the_new_shape",
        [
            (
                V41,
                "stage_count: {sources: [n_mtp_layers, num_nextn_predict_layers], default: 3}",
                "stage_count: 3",
            )
        ],
        """
specs/deepseek_v41.yaml:@stage_count: 3@:7: checkpoint.weight_sets.dspark.stage_count: expected a mapping, got an integer (3); write `stage_count: {sources: [num_nextn_predict_layers], default: 3}` (the HF config fields that count the stages, first set wins, and the loader's fallback as `default`)
""",
    ),
    (
        "maps_to_missing_names_examples",
        [
            (
                V4,
                '      maps_to: "model.layers.{num_hidden_layers+i}." # DeepSeekV4MTP._to_spec_layer_name\n',
                "",
            )
        ],
        """
specs/deepseek_v4.yaml:@classic_mtp:@:5: checkpoint.weight_sets.classic_mtp: missing required field 'maps_to'; the engine parameter prefix each stage loads into, e.g. `maps_to: "model.layers.{num_hidden_layers+i}."` for MTP stages that continue the target's decoder layers (V4's classic MTP), `maps_to: "model.layers.{i}."` for a draft model with layers of its own (EAGLE-3: vLLM loads its midlayer.* there; DSpark)
""",
    ),
    (
        "default_sources_delete_reported_at_the_childs_line",
        [
            (
                V41,
                "      draft_architecture: DSparkV41DraftModel\n",
                "      draft_architecture: DSparkV41DraftModel\n      num_speculative_tokens:\n        default_sources: !delete\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@default_sources: !delete@:9: speculative.methods.dspark.num_speculative_tokens.default_sources: `!delete` removes default_sources, which the inherited `default: draft_config_fields` reads the default from; also set `default: tokens_per_round` (the draft's n_predict) or `default: none` (no default), or keep default_sources
""",
    ),
    (
        "e5m2_says_only_e4m3_is_implemented",
        [(V4, "value_dtype: float8_e4m3fn", "value_dtype: float8_e5m2")],
        """
specs/deepseek_v4.yaml:@value_dtype: float8_e5m2@:5: quantization.mxfp8.value_dtype: float8_e5m2 is not implemented: the MXFP8 emitter generates e4m3 values only (float8_e4m3fn, max 448); e5m2 elements (max 57344) need their own quantize and dequantize kernels. Use value_dtype: float8_e4m3fn
""",
    ),
    (
        "kv_spec_type_unknown",
        [
            (
                V4,
                "CircularBufferSpec: {parent: AttentionSpec",
                "CircularBufferSpec: {parent: AttentionSpc",
            )
        ],
        """
specs/deepseek_v4.yaml:@parent: AttentionSpc@:26: kv_cache.spec_types.CircularBufferSpec.parent: unknown KV spec type 'AttentionSpc'; did you mean 'AttentionSpec'?
""",
    ),
    (
        # kv_cache.cache_spec_types names a type the hierarchy does not declare
        "cache_spec_type_unknown",
        [(V41, "compressor_state: CircularBufferSpec", "compressor_state: CircularBuferSpec")],
        """
specs/deepseek_v41.yaml:@compressor_state: CircularBuferSpec@:5: kv_cache.cache_spec_types.compressor_state: unknown KV spec type 'CircularBuferSpec' for cache 'compressor_state'; name a key of kv_cache.spec_types (or declare the type there); did you mean 'CircularBufferSpec'?
""",
    ),
    (
        # issue 26 item 4: kv_cache.layouts reached no generated code (a junk block_size_rule
        # was accepted, and the review called its edits BEHAVIOUR); it left the language, and
        # a spec that still writes it is told what to do
        "kv_layouts_left_the_language",
        [
            (
                V41,
                "  compress_ratios: [0, 1, 2]",
                '  layouts:\n    compressor_state:\n      block_size_rule: "this is not a rule at all (("\n  compress_ratios: [0, 1, 2]',
            )
        ],
        """
specs/deepseek_v41.yaml:@layouts:@:3: kv_cache.layouts: unknown field 'layouts': the language no longer has it: its fields (block sizes, bytes per token, page alignment, block-size rules) reached no generated code; remove the section and keep any facts it recorded as comments
""",
    ),
    (
        "missing_required_field_reported_once",
        [
            (
                V41,
                "  DSparkV41DraftModel:\n    registry",
                "  NoModule:\n    registry: multimodal\n    class: NoModule\n  DSparkV41DraftModel:\n    registry",
            )
        ],
        """
specs/deepseek_v41.yaml:@NoModule:@:3: architectures.NoModule: missing required field 'module'
""",
    ),
    (
        "scaling_divide_rejected_with_reason",
        [(V4, "scaling: multiply_reciprocal", "scaling: divide")],
        """
specs/deepseek_v4.yaml:@scaling: divide@:5: quantization.mxfp8.scaling: the divide form is rejected: dividing by exp2(sb - 127) makes the divisor 2^-127 when sb == 0 (an all-zero block), an fp32 subnormal that flushes to zero on GPUs that flush subnormals (AMD CDNA) and turns the block into 0/0 = NaN; write `scaling: multiply_reciprocal` (both forms are exact powers of two, so results are otherwise identical)
""",
    ),
    (
        "capabilities_reported_at_each_field",
        [
            (V4, re.compile(r"    block_size: 32"), "    block_size: 16"),
            (V4, re.compile(r"fp8_max: 448\b"), "fp8_max: 447.1"),
        ],
        """
specs/deepseek_v4.yaml:@block_size: 16@:5: quantization.mxfp8.block_size: is 16; the MXFP8 emitter implements block_size 32 (its kernels tile [rows, blocks, 32] and the swizzled scale layout assumes 32-value blocks)
specs/deepseek_v4.yaml:@fp8_max: 447.1@:5: kernels.rope_kv_insert.fp8_max: 447.1 is not exactly a float32 value: the kernel compares and saturates in float32, so the bound must be one (e.g. 448)
""",
    ),
    (
        "mxfp8_block_k_not_multiple_of_block_size",
        [(V4, re.compile(r"block_k: \d+"), "block_k: 16")],
        """
specs/deepseek_v4.yaml:@block_k: 16@:7: quantization.mxfp8.launch.block_k: block_k=16 is not a multiple of block_size=32: a tile would split a scale block, which can never be computed; use a multiple of 32
""",
    ),
    (
        "num_heads_q_padded_not_sorted",
        [(V4, "[0, 8, 16, 32, 64, 128]", "[0, 16, 8, 32, 64, 128]")],
        """
specs/deepseek_v4.yaml:@num_heads_q_padded:@:5: kernels.rope_kv_insert.num_heads_q_padded: must be sorted and unique, e.g. [0, 8, 16, 32, 64, 128]
""",
    ),
    (
        "num_heads_q_padded_not_unique",
        [(V4, "[0, 8, 16, 32, 64, 128]", "[0, 8, 8, 16, 32, 64, 128]")],
        """
specs/deepseek_v4.yaml:@num_heads_q_padded:@:5: kernels.rope_kv_insert.num_heads_q_padded: must be sorted and unique, e.g. [0, 8, 16, 32, 64, 128]
""",
    ),
    (
        "num_heads_q_padded_not_multiple_of_8",
        [(V4, "[0, 8, 16, 32, 64, 128]", "[0, 8, 12, 32, 64, 128]")],
        """
specs/deepseek_v4.yaml:@num_heads_q_padded:@:32: kernels.rope_kv_insert.num_heads_q_padded.2: 12 is not a multiple of 8 (a warp-per-slot block holds 8 slots; 0 means KV-only)
""",
    ),
    (
        "record_bytes_per_token_inconsistent",
        [(V41, "bytes_per_token: 528\n", "bytes_per_token: 530\n")],
        """
specs/deepseek_v41.yaml:@bytes_per_token: 530@:9: kernels.rope_kv_insert.cache_formats.mxfp8.bytes_per_token: is 530, but 512 e4m3 + 0 bf16 values + 16 scale bytes take 528
specs/deepseek_v41.yaml:@record_width: 528@:9: kernels.rope_kv_insert.cache_formats.mxfp8.record_width: record_width 528 x 1 byte(s) per uint8 element != bytes_per_token 530
""",
    ),
    (
        "record_width_inconsistent",
        [
            (
                V4,
                "        record_width: 512\n        bf16_values",
                "        record_width: 1024\n        bf16_values",
            )
        ],
        """
specs/deepseek_v4.yaml:@record_width: 1024@:9: kernels.rope_kv_insert.cache_formats.bf16.record_width: record_width 1024 x 2 byte(s) per bfloat16 element != bytes_per_token 1024
""",
    ),
    (
        "record_scale_bytes_too_few",
        [(V41, "scale_bytes: 16", "scale_bytes: 8")],
        """
specs/deepseek_v41.yaml:@bytes_per_token: 528@:9: kernels.rope_kv_insert.cache_formats.mxfp8.bytes_per_token: is 528, but 512 e4m3 + 0 bf16 values + 8 scale bytes take 520
specs/deepseek_v41.yaml:@scale_bytes: 8@:9: kernels.rope_kv_insert.cache_formats.mxfp8.scale_bytes: 512 values in groups of 32 need 16 scale bytes, not 8
""",
    ),
    (
        "divisibility_never_met",
        [(V4, "        divisibility: none", "        divisibility: always\n        maximum: 2")],
        """
specs/deepseek_v4.yaml:@maximum: 2@:9: speculative.methods.dspark.num_speculative_tokens.maximum: maximum 2 is below the default num_speculative_tokens, 5 (hf_config.dspark_block_size): a request that names no count would be refused; raise the maximum to at least 5 or lower hf_config.dspark_block_size
specs/deepseek_v4.yaml:@maximum: 2@:9: speculative.methods.dspark.num_speculative_tokens.maximum: maximum 2 is below tokens per round (3, hf_config.num_nextn_predict_layers): no num_speculative_tokens can be both <= 2 and divisible by 3; raise the maximum to at least 3 or relax `divisibility` (in specs/deepseek_v41.yaml, which inherits this value)
""",
    ),
    (
        # issue 26 item 3: only an explicit count was held to the maximum; the default the
        # reference checkpoint gives (dspark_block_size 7) resolved to 7 above a maximum of 5
        "default_above_maximum",
        [
            (V4, "        divisibility: none", "        divisibility: none\n        maximum: 5"),
            (V4, "  dspark_block_size: 5", "  dspark_block_size: 7"),
        ],
        """
specs/deepseek_v4.yaml:@maximum: 5@:9: speculative.methods.dspark.num_speculative_tokens.maximum: maximum 5 is below the default num_speculative_tokens, 7 (hf_config.dspark_block_size): a request that names no count would be refused; raise the maximum to at least 7 or lower hf_config.dspark_block_size
""",
    ),
    (
        "unknown_key_did_you_mean",
        [(V41, "    mtp: !delete\n", "    mtp: !delete\n    mtpp:\n      label: classic-MTP\n")],
        """
specs/deepseek_v41.yaml:@mtpp:@:5: speculative.methods.mtpp: unknown field 'mtpp'; did you mean 'mtp'?
""",
    ),
    (
        "enum_value_typo",
        [(V4, "registry: multimodal", "registry: multimodel")],
        """
specs/deepseek_v4.yaml:@registry: multimodel@:5: architectures.DeepseekV4ForConditionalGeneration.registry: 'multimodel' is not one of text_generation, multimodal, speculative_decoding; did you mean 'multimodal'?
""",
    ),
    (
        "duplicate_yaml_key",
        [(V4, "  display_name: DeepSeek V4\n", "  display_name: DeepSeek V4\n  name: again\n")],
        """
specs/deepseek_v4.yaml:@name: again@:3: variant.name: duplicate key 'name' (first defined at line @  name: deepseek_v4@); YAML would keep only the last one: remove or rename one of them
""",
    ),
    (
        "class_name_code_injection",
        [(V41, "class: DeepseekV41ForCausalLM", 'class: "X:\\n    import os"')],
        """
specs/deepseek_v41.yaml:@class: "X:@:5: architectures.DeepseekV41ForCausalLM.class: 'X:\\n    import os' must be a Python identifier (letters, digits and '_', not starting with a digit)
""",
    ),
    (
        "class_name_trailing_newline",
        # Python's `$` matches before a trailing newline; the schema's `$(?![\s\S])` does not.
        [(V41, "class: DeepseekV41ForCausalLM", 'class: "X\\n"')],
        """
specs/deepseek_v41.yaml:@class: "X\\n"@:5: architectures.DeepseekV41ForCausalLM.class: 'X\\n' must be a Python identifier (letters, digits and '_', not starting with a digit)
""",
    ),
    (
        "module_path_traversal",
        [
            (
                V41,
                "module: vllm.models.deepseek_v41\n    class: DeepseekV41",
                "module: ../../etc\n    class: DeepseekV41",
            )
        ],
        """
specs/deepseek_v41.yaml:@module: ../../etc@:5: architectures.DeepseekV41ForCausalLM.module: '../../etc' must be a dotted path of Python identifiers such as `vllm.models.deepseek_v4` (no '/', '..', spaces or newlines)
""",
    ),
    (
        "module_absolute_path",
        [
            (
                V41,
                "module: vllm.models.deepseek_v41\n    class: DeepseekV41",
                "module: /abs\n    class: DeepseekV41",
            )
        ],
        """
specs/deepseek_v41.yaml:@module: /abs@:5: architectures.DeepseekV41ForCausalLM.module: '/abs' must be a dotted path of Python identifiers such as `vllm.models.deepseek_v4` (no '/', '..', spaces or newlines)
""",
    ),
    (
        "architecture_key_not_identifier",
        [(V41, "  DeepseekV41ForCausalLM:\n    registry", "  Deepseek-V41:\n    registry")],
        """
specs/deepseek_v41.yaml:@Deepseek-V41:@:3: architectures.Deepseek-V41: key 'Deepseek-V41' must be a Python identifier (letters, digits and '_', not starting with a digit)
""",
    ),
    (
        "delete_key_parent_lacks",
        [
            (
                V41,
                "  DeepseekV4IndexerBackend: !delete\n",
                "  DeepseekV4IndexerBackend: !delete\n  no_such: !delete\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@no_such: !delete@:3: attention_backends.no_such: `!delete` removes nothing: the parent spec has no such key
""",
    ),
    (
        "delete_method_typo_did_you_mean",
        [
            (V41, "    mtp: !delete\n", "    mtpp: !delete\n"),
            (V41, "  forbidden:\n    mtp:\n      use_instead: dspark\n", ""),
        ],
        # mtp stays (the !delete missed), but V4.1 deleted its weight set: that follow-on error is
        # located in V4's file, and says it is about V4.1.
        """
specs/deepseek_v4.yaml:@weights: classic_mtp@:7: speculative.methods.mtp.weights: weight set 'classic_mtp' is not declared under checkpoint.weight_sets; declared: dspark (in specs/deepseek_v41.yaml, which inherits this value)
specs/deepseek_v41.yaml:@mtpp: !delete@:5: speculative.methods.mtpp: `!delete` removes nothing: the parent spec has no such key; did you mean 'mtp'?
""",
    ),
    (
        "delete_nested_under_new_key",
        [
            (
                V41,
                "  DSparkV41DraftModel:\n    registry",
                "  Fresh:\n    registry: multimodal\n    module: vllm.models.deepseek_v41\n    class: DeepseekV41ForCausalLM\n    no_such: !delete\n  DSparkV41DraftModel:\n    registry",
            )
        ],
        """
specs/deepseek_v41.yaml:@no_such: !delete@:5: architectures.Fresh.no_such: `!delete` removes nothing: the parent spec has no such key
""",
    ),
    (
        "delete_in_root_spec",
        [
            (
                V4,
                "  compress_ratios: [0, 1, 4, 128]",
                "  no_such: !delete\n  compress_ratios: [0, 1, 4, 128]",
            )
        ],
        """
specs/deepseek_v4.yaml:@no_such: !delete@:3: kv_cache.no_such: `!delete` removes nothing: this spec extends no parent
""",
    ),
    (
        "delete_with_a_value",
        [(V41, "display_name: DeepSeek V4.1", "display_name: !delete {a: 1}")],
        """
specs/deepseek_v41.yaml:@display_name: !delete@:17: variant.display_name: `!delete` takes no value: write `key: !delete`
""",
    ),
    (
        "unknown_yaml_tag_python_apply",
        [
            (
                V41,
                "display_name: DeepSeek V4.1",
                "display_name: !!python/object/apply:os.system [echo hi]",
            )
        ],
        """
specs/deepseek_v41.yaml:@os.system@:17: variant.display_name: unsupported YAML tag '!!python/object/apply:os.system'; the only tag a spec may use is `!delete`
""",
    ),
    (
        "unknown_yaml_tag_scalar",
        [(V41, "display_name: DeepSeek V4.1", "display_name: !!python/name:os.system")],
        """
specs/deepseek_v41.yaml:@os.system@:17: variant.display_name: unsupported YAML tag '!!python/name:os.system'; the only tag a spec may use is `!delete`
""",
    ),
    (
        "unknown_yaml_tag_custom",
        [(V41, "display_name: DeepSeek V4.1", "display_name: !custom V4.1")],
        """
specs/deepseek_v41.yaml:@!custom@:17: variant.display_name: unsupported YAML tag '!custom'; the only tag a spec may use is `!delete`
""",
    ),
    (
        "compress_ratio_message_unknown_field",
        [(V41, "layer {layer_id} has", "layer {layer} has")],
        """
specs/deepseek_v41.yaml:@compress_ratio_floor: !delete+1@:3: kv_cache.unsupported_compress_ratio_message: may only use the fields {layer_id}, {compress_ratio} and {display_name} (found {layer}); write a literal brace as '{{' or '}}'
""",
    ),
    (
        "engine_release_unknown",
        [("deepseek_v4.yaml", "engine: vllm==0.33.0", "engine: vllm==0.34.1")],
        """
specs/deepseek_v4.yaml:@engine: vllm==0.34.1@:1: engine: dsv41gen knows the wiring sites of vllm==0.33.0 only, not 'vllm==0.34.1'; write `engine: vllm==0.33.0` (and check the spec against that release)
""",
    ),
    (
        "model_type_used_twice_in_family",
        [(V41, "\n  model_type: deepseek_v41\n", "\n  model_type: deepseek_v4\n")],
        """
specs/deepseek_v41.yaml:@  model_type: deepseek_v4@:3: variant.model_type: 'deepseek_v4' is already used by specs/deepseek_v4.yaml; each variant of a family needs its own
""",
    ),
    (
        "invalid_yaml_syntax",
        [(V41, "  hidden_size: 5120\n", "  hidden_size: [5120\n")],
        """
specs/deepseek_v41.yaml:@hidden_size: [5120+2@:12: invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence started at line @hidden_size: [5120@)
""",
    ),
    (
        # Several errors collected in one pass, in a parent and a child file.
        "several_errors_parent_and_child",
        [
            (V4, re.compile(r"block_k: \d+"), "block_k: 16"),
            (V4, "registry: multimodal", "registry: multimodel"),
            (V41, "sm120: [128]", "sm95: [128]"),
            (
                V41,
                "    dspark:\n      draft_model_type",
                "    dspark:\n      weights: dsparkk\n      draft_model_type",
            ),
        ],
        """
specs/deepseek_v4.yaml:@registry: multimodel@:5: architectures.DeepseekV4ForConditionalGeneration.registry: 'multimodel' is not one of text_generation, multimodal, speculative_decoding; did you mean 'multimodal'?
specs/deepseek_v4.yaml:@block_k: 16@:7: quantization.mxfp8.launch.block_k: block_k=16 is not a multiple of block_size=32: a tile would split a scale block, which can never be computed; use a multiple of 32
specs/deepseek_v41.yaml:@weights: dsparkk@:7: speculative.methods.dspark.weights: weight set 'dsparkk' is not declared under checkpoint.weight_sets; did you mean 'dspark'?
specs/deepseek_v41.yaml:@sm95: [128]@:9: attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm95: unknown compute-capability family 'sm95'; did you mean 'sm90'?
""",
    ),
    (
        "default_sources_missing",
        [(V4, "        default_sources: [block_size, dspark_block_size]\n", "")],
        """
specs/deepseek_v4.yaml:@default: draft_config_fields@:9: speculative.methods.dspark.num_speculative_tokens.default: default: draft_config_fields needs `default_sources` (the draft config fields the default is read from)
""",
    ),
    (
        # The parent is valid on its own; the child's hf_config makes the parent's maximum
        # impossible. Reported at the parent's line, naming the child.
        "error_only_the_child_causes_in_parent_field",
        [
            (V4, "        divisibility: none", "        divisibility: always\n        maximum: 6"),
            (V41, "  num_nextn_predict_layers: 3", "  num_nextn_predict_layers: 8"),
        ],
        """
specs/deepseek_v4.yaml:@maximum: 6@:9: speculative.methods.dspark.num_speculative_tokens.maximum: maximum 6 is below tokens per round (8, hf_config.num_nextn_predict_layers): no num_speculative_tokens can be both <= 6 and divisible by 8; raise the maximum to at least 8 or relax `divisibility` (in specs/deepseek_v41.yaml, which inherits this value)
""",
    ),
    (
        # printed above dsv41gen's header, the line was taken for it: every file then looked
        # hand-edited, and build refused to overwrite any of them without --force
        "license_line_reads_like_the_header",
        [
            (
                V4,
                "spec_version: 1\n",
                'spec_version: 1\nlicense_header:\n  - "SPDX-License-Identifier: Apache-2.0"\n'
                '  - "dsv41gen-content: 0000000000000000"\n',
            ),
        ],
        """
specs/deepseek_v4.yaml:@dsv41gen-content: 0000000000000000@:5: license_header.1: 'dsv41gen-content: 0000000000000000' reads like dsv41gen's own header line, which follows the license lines; reword it (a license line cannot start with `dsv41gen-content:`, `dsv41gen-inputs:` or `@generated by dsv41gen`)
""",
    ),
    (
        # reported at the parent's first line ("in deepseek_v41.yaml, which inherits this
        # value"), where nothing is wrong, instead of at the child's `!delete`
        "child_deletes_a_required_field",
        [(V41, "\nvariant:\n", "\nvariant: !delete\nold_variant:\n")],
        """
specs/deepseek_v41.yaml:@variant: !delete@:1: variant: `!delete` removes the field 'variant', which every spec needs; write this variant's own value instead
specs/deepseek_v41.yaml:@old_variant:@:1: old_variant: unknown field 'old_variant'; did you mean 'variant'?
""",
    ),
    (
        # jsonschema's own words for a oneOf were "0.0 is not valid under any of the given
        # schemas": neither what the field takes nor how to fix it
        "amax_floor_neither_alternative",
        [(V4, "amax_floor: 1.0e-4 #", "amax_floor: 0.0 #")],
        """
specs/deepseek_v4.yaml:@amax_floor: 0.0@:9: kernels.rope_kv_insert.cache_formats.fp8_ds_mla.amax_floor: 0.0 is not valid: must be 'fp32_tiny', or a number greater than 0 and at most 448
""",
    ),
    (
        "requires_model_runner_both_conditions",
        [
            (
                V4,
                "      speculative_method: dspark\n",
                "      speculative_method: dspark\n      adaptive_verification: true\n",
            )
        ],
        """
specs/deepseek_v4.yaml:@requires_model_runner:+1@:5: runner.requires_model_runner.dspark: needs exactly one of the fields speculative_method, adaptive_verification; it has speculative_method, adaptive_verification
""",
    ),
]


# Bad input that once crashed the generator (exit 70) or stopped it at the first problem.
CASES += [
    (
        "duplicate_key_reported_with_the_other_errors",
        [
            (
                V41,
                "  display_name: DeepSeek V4.1\n  model_type: deepseek_v41\n",
                "  display_name: DeepSeek V4.1\n  display_name: DeepSeek V4.1\n  model_typ: deepseek_v41\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@  name: deepseek_v41+2@:3: variant.display_name: duplicate key 'display_name' (first defined at line 12); YAML would keep only the last one: remove or rename one of them
specs/deepseek_v41.yaml:@model_typ:@:3: variant.model_typ: unknown field 'model_typ'; did you mean 'model_type'?
""",
    ),
    (
        "integer_literal_over_int_digit_limit",
        [(V4, "num_token_cutoff: 1024", "num_token_cutoff: " + "9" * 5000)],
        """
specs/deepseek_v4.yaml:@num_token_cutoff:@:23: kernels.rope_kv_insert.num_token_cutoff: integer literal of 5000 characters; no spec field takes a number that large (write the value the field's range allows)
""",
    ),
    (
        "root_variant_not_a_mapping",
        [
            (
                V4,
                "variant:\n  name: deepseek_v4\n  display_name: DeepSeek V4\n  model_type: deepseek_v4 # [ref §1] HF config model_type\n",
                "variant: oops\n",
            )
        ],
        """
specs/deepseek_v4.yaml:@variant: oops@:1: variant: expected a mapping, got a string ('oops')
""",
    ),
]


# Checkpoint loader rules that cannot all hold: every error at its own field, in one pass.
CASES += [
    (
        "weight_set_loader_rules_conflict",
        [
            (V4, "rejected: [shared_head]", "rejected: [shared_head, norm]"),
            (V4, "        norm: shared_head.norm", "        nrom: shared_head.norm"),
            (
                V4,
                'maps_to: "model.layers.{num_hidden_layers+i}."',
                'maps_to: "model.layers.{num_layers+i}."',
            ),
        ],
        """
specs/deepseek_v4.yaml:@{num_layers+i}@:7: checkpoint.weight_sets.classic_mtp.maps_to: 'num_layers' is not an hf_config field: the stage offset is read from the checkpoint's config.json, with the spec's hf_config value as the fallback; did you mean 'num_hidden_layers'?
specs/deepseek_v4.yaml:@nrom: shared_head.norm@:9: checkpoint.weight_sets.classic_mtp.renames.nrom: 'nrom' renames no weight of this set (renames go from a checkpoint name the set lists to the engine's parameter name); did you mean 'norm'?
specs/deepseek_v4.yaml:@rejected: [shared_head, norm]@:31: checkpoint.weight_sets.classic_mtp.rejected.1: 'norm' is rejected but the set ships norm: a checkpoint could never satisfy both
""",
    ),
    (
        # the stacked and expert mappings are written once (a YAML anchor) and used by both V4
        # sets: an error in them is reported per set, at the anchored text
        "weight_set_block_conflict",
        [
            (
                V4,
                "attn.wkv: {into: attn.fused_wqa_wkv, shard: 1}",
                "attn.wkw: {into: attn.fused_wqa_wkv, shard: 1}",
            ),
            (
                V4,
                "ffn.shared_experts.w3: {into: ffn.shared_experts.gate_up_proj, shard: 1}",
                "ffn.shared_experts.w3: {into: ffn.shared_experts.gate_up_proj, shard: 0}",
            ),
            (V4, "rejected: [shared_head]", "rejected: [shared_head, ffn.gate]"),
            (
                V41,
                "[dspark_n_routed_experts, n_routed_experts]",
                "[dspark_n_routed_experts, n_experts]",
            ),
        ],
        """
specs/deepseek_v4.yaml:@rejected: [shared_head, ffn.gate]@:31: checkpoint.weight_sets.classic_mtp.rejected.1: 'ffn.gate' is rejected but the block ships 'ffn.gate': a checkpoint could never satisfy both
specs/deepseek_v4.yaml:@attn.wkw: {into@:11: checkpoint.weight_sets.classic_mtp.block.stacked.'attn.wkw': 'attn.wkw' is no weight of the block: list it under `block.required` (or `optional`); stacked and renamed names go from a checkpoint name the block ships to the engine's parameter; did you mean 'attn.wkv'?
specs/deepseek_v4.yaml:@attn.wkw: {into@:11: checkpoint.weight_sets.dspark.block.stacked.'attn.wkw': 'attn.wkw' is no weight of the block: list it under `block.required` (or `optional`); stacked and renamed names go from a checkpoint name the block ships to the engine's parameter; did you mean 'attn.wkv'?
specs/deepseek_v4.yaml:@w3: {into: ffn.shared_experts.gate_up_proj, shard: 0}@:74: checkpoint.weight_sets.classic_mtp.block.stacked.'ffn.shared_experts.w3'.shard: 'ffn.shared_experts.w3' and 'ffn.shared_experts.w1' both load shard 0 of 'ffn.shared_experts.gate_up_proj': each checkpoint tensor of a merged parameter fills its own shard; give 'ffn.shared_experts.w3' another shard id
specs/deepseek_v4.yaml:@w3: {into: ffn.shared_experts.gate_up_proj, shard: 0}@:74: checkpoint.weight_sets.dspark.block.stacked.'ffn.shared_experts.w3'.shard: 'ffn.shared_experts.w3' and 'ffn.shared_experts.w1' both load shard 0 of 'ffn.shared_experts.gate_up_proj': each checkpoint tensor of a merged parameter fills its own shard; give 'ffn.shared_experts.w3' another shard id
specs/deepseek_v41.yaml:@n_experts]}@:19: checkpoint.weight_sets.dspark.block.experts.count.sources: no source (dspark_n_routed_experts, n_experts) has a value in hf_config: a checkpoint whose config.json sets none is checked with the spec's value (the reference checkpoint's); state it, e.g. `hf_config: {n_experts: 256}`
""",
    ),
]


# Numeric ranges the generated code can honour, and inputs that once crashed the planners.
CASES += [
    (
        "stage_count_out_of_range",
        [(V41, "num_nextn_predict_layers: 3", "num_nextn_predict_layers: 100000")],
        """
specs/deepseek_v41.yaml:@num_nextn_predict_layers: 100000@:3: hf_config.num_nextn_predict_layers: 100000 is out of range: checkpoint.weight_sets.dspark.stage_count.sources counts with it, so it must be an integer from 1 to 64
""",
    ),
    (
        "cpp_int_field_overflow",
        [(V4, "num_token_cutoff: 1024", "num_token_cutoff: 4294967297")],
        """
specs/deepseek_v4.yaml:@num_token_cutoff:@:5: kernels.rope_kv_insert.num_token_cutoff: 4294967297 is out of range: must be at most 2147483647 (the CUDA host code holds it in a 32-bit int)
""",
    ),
    (
        "fp8_max_far_above_e4m3",
        [(V4, "fp8_max: 448", "fp8_max: 1.6069380442589903e+60")],
        """
specs/deepseek_v4.yaml:@fp8_max:@:5: kernels.rope_kv_insert.fp8_max: 1.6069380442589903e+60 is out of range: must be at most 448 (float8_e4m3fn's largest finite value is 448)
""",
    ),
    (
        "fp8_max_infinite",
        [(V4, "fp8_max: 448", "fp8_max: .inf")],
        """
specs/deepseek_v4.yaml:@fp8_max:@:5: kernels.rope_kv_insert.fp8_max: must be a finite number, not inf: generated code and kernels hold every number as a finite value
""",
    ),
    (
        "hf_config_integer_beyond_64_bits",
        [(V41, "num_nextn_predict_layers: 3", "num_nextn_predict_layers: 3\n  huge: " + "9" * 60)],
        """
specs/deepseek_v41.yaml:@huge:@:3: hf_config.huge: 9999999999...999999 (60 characters) is out of range: must be at most 9223372036854775807 (a 64-bit integer or a finite number)
""",
    ),
    (
        "mxfp8_single_layout",
        [(V4, "layouts: [row_major, swizzled_128x4]", "layouts: [row_major]")],
        """
specs/deepseek_v4.yaml:@layouts: [row_major]@:5: quantization.mxfp8.layouts: lists only row_major; the MXFP8 emitter generates its scale layouts together, so list row_major, swizzled_128x4
""",
    ),
    (
        "compress_ratios_deleted_error_kept",
        [(V4, "  compress_ratios: [0, 1, 4, 128] # 0 and 1: plain SWA\n", "")],
        """
specs/deepseek_v4.yaml:@kv_cache:@:1: kv_cache.compress_ratios: unsupported_compress_ratio_error is raised for the ratios outside kv_cache.compress_ratios, which is missing (deleted?): list the supported ratios, or delete the error too (`unsupported_compress_ratio_error: !delete`)
""",
    ),
    (
        "a_method_vllm_0_33_does_not_know",
        [(V4, "  methods:\n    mtp:\n", "  methods:\n    medusa: {}\n    mtp:\n")],
        """
specs/deepseek_v4.yaml:@    medusa: {}@:5: speculative.methods.medusa: unknown field 'medusa'; allowed: draft_model, dspark, eagle, eagle3, mtp, ngram, suffix
""",
    ),
    (
        "compress_ratio_floor_without_the_check",
        [(V4, "  unsupported_compress_ratio_error: AssertionError\n", "")],
        """
specs/deepseek_v4.yaml:@compress_ratio_floor: 1@:3: kv_cache.compress_ratio_floor: compress_ratio_floor applies to the compress-ratio check, which this spec does not generate: set kv_cache.unsupported_compress_ratio_error (and compress_ratios), or delete the floor
""",
    ),
    (
        "completeness_untracked_names_no_weight",
        [
            (
                V4,
                "          - h_proj\n",
                "          - h_prj\n",
            )
        ],
        """
specs/deepseek_v4.yaml:@h_prj@:13: checkpoint.weight_sets.classic_mtp.completeness.untracked.1: 'h_prj' is no weight of this set: `untracked` names a weight the set lists (its checkpoint name; a derived parameter by its own name; a block weight; the routed experts by their prefix before `{e}`); did you mean 'h_proj'?
""",
    ),
    (
        "block_parameters_name_no_block_weight",
        [(V4, "[hc_attn_fn, hc_attn_base", "[hc_attn_fm, hc_attn_base")],
        """
specs/deepseek_v4.yaml:@[hc_attn_fm@:12: checkpoint.weight_sets.classic_mtp.block.parameters.0: 'hc_attn_fm' is no weight of the block: `block.parameters` lists the block weights (`block.required` / `block.optional`) that are one nn.Parameter each (the tensor is the name itself); did you mean 'hc_attn_fn'?
specs/deepseek_v4.yaml:@[hc_attn_fm@:12: checkpoint.weight_sets.dspark.block.parameters.0: 'hc_attn_fm' is no weight of the block: `block.parameters` lists the block weights (`block.required` / `block.optional`) that are one nn.Parameter each (the tensor is the name itself); did you mean 'hc_attn_fn'?
""",
    ),
    (
        "kv_spec_type_vllm_lacks",
        [
            (
                V4,
                "    MambaSpec: {parent: KVCacheSpec, state_like: always}\n",
                "    MambaSpec: {parent: KVCacheSpec, state_like: always}\n"
                "    RingStateSpec: {parent: AttentionSpec, state_like: always}\n",
            )
        ],
        """
specs/deepseek_v4.yaml:@RingStateSpec@:5: kv_cache.spec_types.RingStateSpec: vLLM 0.33.0 has no KV spec type 'RingStateSpec' (vllm.v1.kv_cache_interface has AttentionSpec, ChunkedLocalAttentionSpec, CircularBufferSpec, CrossAttentionSpec, EncoderOnlyAttentionSpec, FullAttentionSpec, HiSparseHotSpec, HiSparseResidentSpec, HiddenStateCacheSpec, KVCacheSpec, MLAAttentionSpec, MambaSpec, RSWASpec, SinkFullAttentionSpec, SlidingWindowMLASpec, SlidingWindowSpec, UniformTypeKVCacheSpecs): the generated code imports it from there, so name one of those; a new state type needs a vLLM that defines it; did you mean 'HiddenStateCacheSpec'?
""",
    ),
    (
        "kv_spec_type_parent_not_vllms",
        [
            (
                V4,
                "SlidingWindowMLASpec: {parent: SlidingWindowSpec}",
                "SlidingWindowMLASpec: {parent: AttentionSpec}",
            )
        ],
        """
specs/deepseek_v4.yaml:@SlidingWindowMLASpec: {parent@:28: kv_cache.spec_types.SlidingWindowMLASpec.parent: in vLLM 0.33.0, SlidingWindowMLASpec subclasses SlidingWindowSpec, not 'AttentionSpec': write `parent: SlidingWindowSpec`
""",
    ),
    (
        "registry_target_vllm_lacks",
        [
            (
                V41,
                "    class: DSparkDeepseekV4ForCausalLM",
                "    class: DSparkDeepseekV41ForCausalLM",
            ),
            (
                V41,
                "    module: vllm.models.deepseek_v41\n    class: DeepseekV41",
                "    module: vllm.models.deepseek_v42\n    class: DeepseekV41",
            ),
        ],
        """
specs/deepseek_v41.yaml:@module: vllm.models.deepseek_v42@:5: architectures.DeepseekV41ForCausalLM.module: vLLM 0.33.0 has no model module 'vllm.models.deepseek_v42': name one it has (a YAML-only variant runs a model class vLLM ships, e.g. `module: vllm.models.deepseek_v41`); did you mean 'vllm.models.deepseek_v4'?
specs/deepseek_v41.yaml:@DSparkDeepseekV41ForCausalLM@:5: architectures.DSparkV41DraftModel.class: vllm.models.deepseek_v41 in vLLM 0.33.0 binds no 'DSparkDeepseekV41ForCausalLM' (it has DSparkDeepseekV4ForCausalLM, DeepseekV41ForCausalLM, DeepseekV4FP8Config); did you mean 'DSparkDeepseekV4ForCausalLM'?
""",
    ),
    (
        "compress_ratios_deleted_message_kept",
        [(V41, "  compress_ratios: [0, 1, 2] # 0: pure SWA", "  compress_ratios: !delete")],
        """
specs/deepseek_v41.yaml:@compress_ratios: !delete@:3: kv_cache.compress_ratios: unsupported_compress_ratio_message rejects the ratios outside kv_cache.compress_ratios, which is missing (deleted?): list the supported ratios, or delete the message too (`unsupported_compress_ratio_message: !delete`)
specs/deepseek_v41.yaml:@  kv_source_compressor:@:3: kv_cache.kv_source_compressor: kv_source_compressor is checked after the layer's compress-ratio check, which needs kv_cache.compress_ratios and kv_cache.unsupported_compress_ratio_error (or _message): set them, or delete kv_source_compressor
""",
    ),
    (
        "kv_source_compressor_accepting_no_ratio_the_layer_does",
        [(V41, "    compress_ratios: [1, 2]\n", "    compress_ratios: [4]\n")],
        """
specs/deepseek_v41.yaml:@compress_ratios: [4]@:5: kv_cache.kv_source_compressor.compress_ratios: the compressor accepts none of the ratios the layer accepts (kv_cache.compress_ratios): every kv-source layer would fail; list the ratios the compressor takes
""",
    ),
    (
        "kv_source_compressor_message_with_an_unknown_field",
        [(V41, "got {compress_ratio}.", "got {ratio}.")],
        """
specs/deepseek_v41.yaml:@    unsupported_compress_ratio_message: >-@:5: kv_cache.kv_source_compressor.unsupported_compress_ratio_message: may only use the fields {layer_id}, {compress_ratio} and {display_name} (found {ratio}); write a literal brace as '{{' or '}}'
""",
    ),
]


CASES += [
    (
        "backend_engine_names_vllm_lacks",
        [
            (
                V4,
                "parent_module: vllm.v1.attention.backends.mla.indexer",
                "parent_module: vllm.v1.attention.backends.mla.indexr",
            ),
            (
                V41,
                "class: DeepseekV41SparseIndexerMetadataBuilder",
                "class: DeepseekV41SparseIndexerMetadataBuildr",
            ),
            (V41, "sparse_mla.FlashMLAMegaAttnBackend", "sparse_mla.FlashMLAMegaAtnBackend"),
        ],
        """
specs/deepseek_v4.yaml:@parent_module: vllm.v1.attention.backends.mla.indexr@:5: attention_backends.DeepseekV4IndexerBackend.parent_module: vLLM 0.33.0 has no module 'vllm.v1.attention.backends.mla.indexr' to take the base backend from: name the module that defines `parent`; did you mean 'vllm.v1.attention.backends.mla.indexer'?
specs/deepseek_v41.yaml:@class: DeepseekV41SparseIndexerMetadataBuildr@:7: attention_backends.DeepseekV41SparseIndexerBackend.metadata_builder.class: vllm.v1.attention.backends.mla.sparse_indexer in vLLM 0.33.0 binds no 'DeepseekV41SparseIndexerMetadataBuildr' for the metadata builder (it has AttentionSpec, CommonAttentionMetadata, DeepseekV32IndexerMetadata, DeepseekV32IndexerMetadataBuilder, DeepseekV41IndexerBackend, DeepseekV41SparseIndexerBackend, DeepseekV41SparseIndexerMetadata, DeepseekV41SparseIndexerMetadataBuilder, SparseMQARowsMetadata, VllmConfig); did you mean 'DeepseekV41SparseIndexerMetadataBuilder'?
specs/deepseek_v41.yaml:@class_path: vllm.models.deepseek_v41.sparse_mla.FlashMLAMegaAtnBackend@:5: attention_backends.FLASHMLA_MEGA_ATTN_DSV41.class_path: vllm.models.deepseek_v41.sparse_mla in vLLM 0.33.0 binds no 'FlashMLAMegaAtnBackend' (it has Any, AttentionBackend, AttentionCGSupport, AttentionMetadata, AttentionMetadataBuilder, AttentionSpec, CacheDType, ClassVar, CommonAttentionMetadata, DeepseekSparseSWAMetadata, DeepseekSparseSWAMetadataBuilder, DeepseekV41SparseSWAMetadataBuilder, DeepseekV4FlashMLABackend, DeepseekV4FlashMLAMetadata, DeepseekV4FlashMLAMetadataBuilder, DeepseekV4SparseMLABackend, DeepseekV4SparseMLAMetadataBuilder, DeviceCapability, FlashMLAMegaAttnBackend, MultipleOf, ... (21 in all)); did you mean 'FlashMLAMegaAttnBackend'?
""",
    ),
    (
        "generated_name_clashes_with_the_language_and_the_generated_modules",
        [
            (V4, "  name: deepseek_v4\n", "  name: json\n"),
            (V4, "    KVCacheSpec: {}\n", "    KVCacheSpec: {}\n    Callable: {}\n"),
        ],
        """
specs/deepseek_v4.yaml:@  name: json@:3: variant.name: 'json' is a Python standard-library module (the root variant names the package); choose another name
specs/deepseek_v4.yaml:@    Callable: {}@:5: kv_cache.spec_types.Callable: 'Callable' is already a name of the generated module (it names a generated class); choose another name
specs/deepseek_v4.yaml:@    Callable: {}@:5: kv_cache.spec_types.Callable: vLLM 0.33.0 has no KV spec type 'Callable' (vllm.v1.kv_cache_interface has AttentionSpec, ChunkedLocalAttentionSpec, CircularBufferSpec, CrossAttentionSpec, EncoderOnlyAttentionSpec, FullAttentionSpec, HiSparseHotSpec, HiSparseResidentSpec, HiddenStateCacheSpec, KVCacheSpec, MLAAttentionSpec, MambaSpec, RSWASpec, SinkFullAttentionSpec, SlidingWindowMLASpec, SlidingWindowSpec, UniformTypeKVCacheSpecs): the generated code imports it from there, so name one of those; a new state type needs a vLLM that defines it
""",
    ),
    (
        "name_fields_are_not_python_keywords",
        [
            (V41, "  name: deepseek_v41\n", "  name: class\n"),
            (
                V4,
                "parent_module: vllm.v1.attention.backends.mla.indexer",
                "parent_module: vllm.v1.import.indexer",
            ),
        ],
        """
specs/deepseek_v4.yaml:@parent_module: vllm.v1.import.indexer@:5: attention_backends.DeepseekV4IndexerBackend.parent_module: 'import' is a Python keyword, which cannot be a generated name
specs/deepseek_v41.yaml:@  name: class@:3: variant.name: 'class' is a Python keyword, which cannot be a generated name
""",
    ),
]


# Found by the attacker's review: a bidi control in a message reached vLLM's terminal at run
# time (the generated source escaped it; the raised ValueError carried it raw).
CASES += [
    (
        "text_with_a_bidi_control",
        [(V41, "  display_name: DeepSeek V4.1\n", '  display_name: "DeepSeek \\u202eV4.1"\n')],
        """
specs/deepseek_v41.yaml:@  display_name:@:3: variant.display_name: must be printable text on one line, found U+202E (RIGHT-TO-LEFT OVERRIDE) at character 10; write the text without control, bidi or line-separator characters
""",
    ),
]


# Found by the fuzz campaign (tests/core/fuzz_campaign.py): each once built broken code or
# stopped with a usage error.
CASES += [
    (
        "engine_parent_named_like_a_kv_spec_type",
        [(V4, "parent: DeepseekV32IndexerBackend", "parent: AttentionSpec")],
        """
specs/deepseek_v4.yaml:@name: DEEPSEEK_V4_INDEXER+1@:5: attention_backends.DeepseekV4IndexerBackend.parent: 'AttentionSpec' is also a KV spec type (kv_cache.spec_types.AttentionSpec); the generated binding module binds each engine name once: name the engine class this backend extends, or rename the spec type
""",
    ),
    (
        "variant_name_too_long_for_a_file_name",
        [(V4, "  name: deepseek_v4\n", "  name: " + "x" * 65 + "\n")],
        """
specs/deepseek_v4.yaml:@xxxxxxxxxx@:3: variant.name: too long: at most 64 character(s)
""",
    ),
]


CASES += [
    (
        "root_deletes_its_kv_spec_types",  # once crashed the engine-parent rule (exit 70)
        [
            (
                V4,
                re.compile(r"  spec_types: [^\n]*\n(    \w+: \{[^\n]*\}[^\n]*\n)+"),
                "  spec_types: !delete\n",
            )
        ],
        """
specs/deepseek_v4.yaml:@spec_types: !delete@:3: kv_cache.spec_types: `!delete` removes nothing: this spec extends no parent
specs/deepseek_v4.yaml:@cache_spec_types:@:3: kv_cache.cache_spec_types: names the KV spec types of the caches, but kv_cache.spec_types declares none; declare the types there (each with its parent and state_like)
specs/deepseek_v41.yaml:@cache_spec_types:@:3: kv_cache.cache_spec_types: names the KV spec types of the caches, but kv_cache.spec_types declares none; declare the types there (each with its parent and state_like)
""",
    ),
    (
        "block_sizes_that_are_not_powers_of_two",  # a typed rule (spec/validate/typed.py)
        [
            (V41, "        sm120: [128]\n", "        sm120: [96]\n"),
            (
                V41,
                "      by_capability_family: {sm90: [64]}\n      default: [128]\n",
                "      by_capability_family: {sm90: [64]}\n      default: [100]\n",
            ),
        ],
        """
specs/deepseek_v41.yaml:@sm120: [96]@:17: attention_backends.DeepseekV41IndexerBackend.kernel_block_sizes.by_capability_family.sm120.0: block size 96 is not a positive power of two (e.g. 64, 128, 256)
specs/deepseek_v41.yaml:@default: [100]@:17: attention_backends.FLASHMLA_SPARSE_DSV41.kernel_block_sizes.default.0: block size 100 is not a positive power of two (e.g. 64, 128, 256)
""",
    ),
    (
        "sparse_mla_entry_with_a_parent_and_a_builder",  # a typed rule (spec/validate/typed.py)
        [
            (
                V41,
                "    name: FLASHMLA_SPARSE_DSV41\n    kind: sparse_mla\n",
                "    name: FLASHMLA_SPARSE_DSV41\n    kind: sparse_mla\n"
                "    parent: SparseParentBackend\n"
                "    metadata_builder: {module: vllm.x, class: SparseBuilder}\n",
            )
        ],
        """
specs/deepseek_v41.yaml:@parent: SparseParentBackend@:5: attention_backends.FLASHMLA_SPARSE_DSV41.parent: a sparse_mla entry records a name and block sizes only; remove `parent`
specs/deepseek_v41.yaml:@class: SparseBuilder@:5: attention_backends.FLASHMLA_SPARSE_DSV41.metadata_builder: a sparse_mla entry records a name and block sizes only; remove `metadata_builder`
""",
    ),
]


@pytest.mark.parametrize("edits, expected", [pytest.param(e, x, id=i) for i, e, x in CASES])
def test_golden_error_output(specs_copy, run_cli, tmp_path, edits, expected):
    for name, old, new in edits:
        edit(specs_copy / name, old, new)
    result = run_cli("build", f"specs/{V41}", "--out", "out")
    lines = expand(expected.strip("\n"), specs_copy).splitlines()
    summary = f"{len(lines)} error{'s' if len(lines) != 1 else ''}; nothing was written."
    assert result.stderr.splitlines() == lines + [summary]
    assert result.rc == 1
    assert result.stdout == ""
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


Q35 = "qwen3_5.yaml"
QWEN_SPECS = ("qwen3_next.yaml", Q35, "qwen4_exp.yaml")

# The same, on the Qwen family's child spec (built alone: its own family and package).
QWEN_CASES = [
    (
        "config_hook_warning_names_an_unknown_value",
        [(Q35, "mamba_ssm_dtype='{source}' in its", "mamba_ssm_dtype='{sorce}' in its")],
        """
specs/qwen3_5.yaml:@warning: "Qwen3.5@:9: config_hooks.rules.ssm_dtype.default_setting.warning: {sorce} is not a value the warning can name; use {source} or {setting}; did you mean 'source'?
""",
    ),
    (
        "linear_attention_dtype_names_no_earlier_state",
        [("qwen3_next.yaml", "auto: conv}", "auto: cnv}")],
        """
specs/qwen3_next.yaml:@auto: cnv}@:49: kv_cache.linear_attention.states.1.dtype.auto: 'cnv' is neither model_dtype nor an earlier state's name; use one of: model_dtype, conv
""",
    ),
    (
        "config_hook_two_actions_unknown_rule_and_architecture",
        [
            (
                "qwen4_exp.yaml",
                "strip_mrope: {pop_keys: *strip_mrope}",
                "strip_mrope: {pop_keys: *strip_mrope, refuse: {error: ValueError, message: x}}",
            ),
            (
                "qwen4_exp.yaml",
                "speculative_method, strip_mrope]",
                "speculative_method, strip_mrop]",
            ),
            ("qwen4_exp.yaml", "    Qwen4ExpMTP:\n      [", "    Qwen4ExpMPT:\n      ["),
        ],
        """
specs/qwen4_exp.yaml:@message: x@:5: config_hooks.rules.strip_mrope: a rule has exactly one action (refuse, pop_keys, default_setting); this one has 2: split it into one rule per action
specs/qwen4_exp.yaml:@strip_mrop]@:61: config_hooks.architectures.Qwen4ExpForCausalLM.7: no rule 'strip_mrop' under config_hooks.rules; did you mean 'strip_mrope'?
specs/qwen4_exp.yaml:@Qwen4ExpMPT@:5: config_hooks.architectures.Qwen4ExpMPT: unknown architecture 'Qwen4ExpMPT'; declare it under `architectures` or remove the hook (`!delete` in a child spec); did you mean 'Qwen4ExpMTP'?
""",
    ),
    (
        "checkpoint_name_rule_with_two_tests_and_no_action",
        [
            (
                "qwen3_next.yaml",
                "- {unless: {starts_with: [mtp.], contains: [embed_tokens, lm_head]}, then: drop}",
                "- {if: {starts_with: [mtp.]}, unless: {contains: [lm_head]}}",
            )
        ],
        """
specs/qwen3_next.yaml:@unless: {contains@:11: architectures.Qwen3NextMTP.checkpoint_names.rules.0: this rule does nothing; give it remove_prefix, add_prefix or replace, or `then: keep` / `then: drop`
specs/qwen3_next.yaml:@unless: {contains@:39: architectures.Qwen3NextMTP.checkpoint_names.rules.0.unless: a rule has one test, `if` or `unless`, not both; split it into two rules
""",
    ),
    (
        "model_type_alias_of_itself_and_composite_type_unknown",
        [
            (
                Q35,
                "model_type_aliases: [qwen3_5_text",
                "model_type_aliases: [qwen3_5, qwen3_5_text",
            ),
            (
                Q35,
                "composite_model_types: [qwen3_5, qwen3_5_moe]",
                "composite_model_types: [qwen3_5, qwen3_5_mo]",
            ),
        ],
        """
specs/qwen3_5.yaml:@model_type_aliases:@:24: variant.model_type_aliases.0: 'qwen3_5' is the variant's model_type already; list only further model types here
specs/qwen3_5.yaml:@composite_model_types:@:36: variant.composite_model_types.1: 'qwen3_5_mo' is not one of this variant's model types (qwen3_5, qwen3_5, qwen3_5_text, qwen3_5_moe, qwen3_5_moe_text); list it in variant.model_type_aliases; did you mean 'qwen3_5_moe'?
""",
    ),
    (
        "draft_architecture_for_a_model_type_not_the_variants",
        [(Q35, "qwen3_5_moe_text: Qwen3_5MoeMTP", "qwen3_5_moe_txt: Qwen3_5MoeMTP")],
        """
specs/qwen3_5.yaml:@qwen3_5_moe_txt:@:9: speculative.methods.mtp.draft_architecture_by_model_type.qwen3_5_moe_txt: 'qwen3_5_moe_txt' is not one of this variant's model types (qwen3_5, qwen3_5_text, qwen3_5_moe, qwen3_5_moe_text); remove the entry (`!delete` in a child spec); did you mean 'qwen3_5_moe_text'?
""",
    ),
    (
        "draft_architecture_by_model_type_unregistered",
        [(Q35, "qwen3_5_moe: Qwen3_5MoeMTP", "qwen3_5_moe: Qwen3_5MoeMPT")],
        """
specs/qwen3_5.yaml:@Qwen3_5MoeMPT@:9: speculative.methods.mtp.draft_architecture_by_model_type.qwen3_5_moe: unknown architecture 'Qwen3_5MoeMPT'; declare it under `architectures`; did you mean 'Qwen3_5MoeMTP'?
""",
    ),
    (
        "draft_architecture_by_model_type_not_a_draft",
        [(Q35, "qwen3_5_moe: Qwen3_5MoeMTP", "qwen3_5_moe: Qwen3_5ForCausalLM")],
        """
specs/qwen3_5.yaml:@qwen3_5_moe: Qwen3_5ForCausalLM@:9: speculative.methods.mtp.draft_architecture_by_model_type.qwen3_5_moe: 'Qwen3_5ForCausalLM' is registered as text_generation; a draft architecture must be a speculative_decoding entry
""",
    ),
]


@pytest.mark.parametrize("edits, expected", [pytest.param(e, x, id=i) for i, e, x in QWEN_CASES])
def test_golden_error_output_of_the_qwen_family(specs_copy, run_cli, tmp_path, edits, expected):
    for name in QWEN_SPECS:
        shutil.copy(SPECS / name, specs_copy / name)
    for name, old, new in edits:
        edit(specs_copy / name, old, new)
    result = run_cli("build", f"specs/{Q35}", "--out", "out")
    lines = expand(expected.strip("\n"), specs_copy).splitlines()
    summary = f"{len(lines)} error{'s' if len(lines) != 1 else ''}; nothing was written."
    assert result.stderr.splitlines() == lines + [summary]
    assert result.rc == 1
    assert "Traceback" not in result.output
    assert not (tmp_path / "out").exists()


def test_golden_case_count_and_rules_covered():
    """The issue asks for at least 15 distinct broken specs covering every semantic rule."""
    from dsv41gen.spec.validate import iter_rules

    assert len(CASES) >= 15
    covered = {
        "method_allowed_and_forbidden": "method_allowed_and_forbidden",
        "method_weights_declared": "weight_set_not_declared",
        "draft_architecture_registered": "draft_architecture_unknown",
        "signature_names_declared_weights": "signature_names_no_weight",
        "block_sizes_powers_of_two": "block_size_not_power_of_two",
        "backend_parents": "backend_parent_unknown",
        "sparse_mla_entries": "sparse_mla_entry_with_a_parent_and_a_builder",
        "runner_architectures_known": "runner_architecture_unknown",
        "kv_spec_types": "kv_spec_type_unknown",
        "kv_cache_spec_types": "cache_spec_type_unknown",
        "mx_format": "scaling_divide_rejected_with_reason",
        "rope_kv_capabilities": "capabilities_reported_at_each_field",
        "rope_kv_insert": "num_heads_q_padded_not_multiple_of_8",
        "speculative_token_limits": "divisibility_never_met",
        "num_speculative_tokens_default": "default_sources_missing",
        "compress_ratio_message_fields": "compress_ratio_message_unknown_field",
        "kv_source_compressor": "kv_source_compressor_accepting_no_ratio_the_layer_does",
        "hf_config_counts": "stage_count_out_of_range",
        "weight_set_loader_rules": "weight_set_loader_rules_conflict",
        "weight_set_block": "weight_set_block_conflict",
        "generated_names": "generated_name_clashes_with_the_language_and_the_generated_modules",
        "names_are_not_keywords": "name_fields_are_not_python_keywords",
        "engine_known": "engine_release_unknown",
        "text_is_printable": "text_with_a_bidi_control",
        "license_lines_are_not_headers": "license_line_reads_like_the_header",
        "inherited_messages_name_their_variant": "inherited_message_names_the_ancestor",
        "kv_spec_types_in_engine": "kv_spec_type_vllm_lacks",
        "registry_targets_in_engine": "registry_target_vllm_lacks",
        "backend_names_in_engine": "backend_engine_names_vllm_lacks",
        "model_type_lists": "draft_architecture_for_a_model_type_not_the_variants",
        "draft_architectures_by_model_type_registered": "draft_architecture_by_model_type_unregistered",
        "checkpoint_name_rules": "checkpoint_name_rule_with_two_tests_and_no_action",
        "config_hook_rules": "config_hook_two_actions_unknown_rule_and_architecture",
        "linear_attention_states": "linear_attention_dtype_names_no_earlier_state",
    }
    ids = {case[0] for case in CASES + QWEN_CASES}
    assert set(iter_rules()) == set(covered), "a new semantic rule needs a golden case here"
    assert set(covered.values()) <= ids


def test_alias_bomb_rejected_quickly(tmp_path, run_cli):
    import time

    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "bomb.yaml").write_text("\n".join(lines) + "\n")
    start = time.monotonic()
    result = run_cli("build", "specs/bomb.yaml", "--out", "out")
    assert time.monotonic() - start < 10
    assert result.stderr.splitlines() == [
        "specs/bomb.yaml:5:1: a4: the document expands to more than 20000 nodes once YAML aliases "
        "are followed (an alias bomb?); write the values out or use fewer aliases",
        "1 error; nothing was written.",
    ]
    assert result.rc == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("", "specs/x.yaml:1:1: a spec file holds exactly one YAML document (a mapping)"),
        (
            "a: 1\n---\nb: 2\n",
            "specs/x.yaml:1:1: a spec file holds exactly one YAML document (a mapping)",
        ),
        ("[1, 2]\n", "specs/x.yaml:1:1: the top level of a spec must be a mapping"),
        ("x: &a 1\ny: *b\n", "specs/x.yaml:2:4: invalid YAML: found undefined alias"),
        ("? [1]\n: 2\n", "specs/x.yaml:1:3: mapping keys must be plain scalars"),
        (
            "a: " + "[" * 40 + "]" * 40 + "\n",
            "specs/x.yaml:1:36: a.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0: nesting deeper than 32 levels",
        ),
        (
            "a: 2024-01-01\n",
            "specs/x.yaml:1:4: a: YAML reads this value as a date/time, which a spec has no use for; quote it if it is a string",
        ),
        (
            "a: 1\n<<: {b: 1}\n",
            "specs/x.yaml:2:1: YAML merge keys ('<<') are not supported; use `extends` to share values",
        ),
        (
            "a:\n  b: 0400\n",
            "specs/x.yaml:2:6: a.b: YAML 1.1 reads '0400' as the octal number 256; write the number in decimal, or quote it if it is text",
        ),
        (
            "a: 7:28\n",
            "specs/x.yaml:1:4: a: YAML 1.1 reads '7:28' as the base-60 number 448; write the number in decimal, or quote it if it is text",
        ),
        (
            "a:\n  yes: 1\n",
            "specs/x.yaml:2:3: a: YAML reads the key 'yes' as the boolean True, and a mapping key must be a string; quote it: 'yes':",
        ),
        (
            "a: {010: 1}\n",
            "specs/x.yaml:1:5: a: YAML 1.1 reads '010' as the octal number 8; write the number in decimal, or quote it if it is text",
        ),
    ],
    ids=[
        "empty",
        "two_documents",
        "top_level_list",
        "undefined_alias",
        "complex_key",
        "too_deep",
        "date",
        "merge_key",
        "octal",
        "sexagesimal",
        "boolean_key",
        "octal_key",
    ],
)
def test_malformed_documents(tmp_path, run_cli, text, expected):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_text(text)
    result = run_cli("build", "specs/x.yaml", "--out", "out")
    assert result.stderr.splitlines() == [expected, "1 error; nothing was written."]
    assert result.rc == 1
    assert not (tmp_path / "out").exists()


def test_not_utf8(tmp_path, run_cli):
    (tmp_path / "specs").mkdir()
    (tmp_path / "specs" / "x.yaml").write_bytes(b"a: \xff\xfe\n")
    result = run_cli("build", "specs/x.yaml", "--out", "out")
    assert result.stderr.splitlines() == [
        "specs/x.yaml:1:1: spec is not UTF-8 text (byte 3)",
        "1 error; nothing was written.",
    ]
    assert result.rc == 1
