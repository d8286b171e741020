"""Typed and semantic rules on one resolved spec: methods, weights, backends, limits."""

from __future__ import annotations

from collections.abc import Mapping

from ...errors import did_you_mean
from ..limits import MAX_EXPERTS, MAX_STAGES, MAX_TOKENS_PER_ROUND
from ..model import (
    AttentionBackend,
    BackendKind,
    Block,
    Divisibility,
    Method,
    NumSpeculativeTokensDefault,
    SpeculativeMethod,
    UnresolvedWeightSet,
)
from ..resolve import ResolvedSpec
from .report import Report
from .schema import _deleted_at, _number
from .typed import TypedSpec


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _is_power_of_two(value: object) -> bool:
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and value > 0
        and value & (value - 1) == 0
    )


def _lineage_section(spec: ResolvedSpec, section: str) -> dict:
    """The union of a top-level mapping over every spec in the lineage (deleted entries too):
    references such as `parent: DeepseekV4IndexerBackend` may name what an ancestor defines."""
    merged: dict = {}
    for doc in spec.lineage:
        value = doc.data.get(section)
        if isinstance(value, dict):
            merged.update({k: v for k, v in value.items() if isinstance(v, dict)})
    merged.update(spec.data.get(section, {}))
    return merged


def _method_allowed_and_forbidden(spec: ResolvedSpec, report: Report) -> None:
    speculative = spec.data.get("speculative", {})
    methods = speculative.get("methods", {})
    for method, forbid in speculative.get("forbidden", {}).items():
        here = ("speculative", "forbidden", method)
        if method in methods:
            report(
                here,
                f"method {method!r} is both allowed (speculative.methods.{method}) and forbidden; "
                f"remove one of them (a child spec drops an inherited method with `{method}: !delete`)",
            )
        instead = forbid.get("use_instead")
        if instead is not None and instead not in methods:
            report(
                here + ("use_instead",),
                f"suggests {instead!r}, which this variant does not allow"
                + did_you_mean(instead, methods),
            )
        if "message" not in forbid and _ancestor_method(spec, method) is None:
            report(
                here,
                f"cannot derive the rejection message: no parent spec allows {method!r}, so its weights "
                "are unknown; write `message:` for it",
            )


def _ancestor_method(spec: ResolvedSpec, method: str) -> dict | None:
    for doc in reversed(spec.lineage[:-1]):
        found = doc.data.get("speculative", {}).get("methods", {}).get(method)
        if isinstance(found, dict) and "weights" in found:
            return found
    return None


def _method_weights_declared(spec: TypedSpec, report: Report) -> None:
    sets = spec.weight_sets
    for method in spec.methods:
        if isinstance(method.weights, UnresolvedWeightSet):
            weights = method.weights.name
            report(
                ("speculative", "methods", method.method.value, "weights"),
                f"weight set {weights!r} is not declared under checkpoint.weight_sets"
                + (
                    did_you_mean(weights, sets)
                    or f"; declared: {', '.join(sorted(sets)) or 'none'}"
                ),
            )


def _draft_architecture_registered(spec: ResolvedSpec, report: Report) -> None:
    archs = _lineage_section(spec, "architectures")
    for method, body in spec.data.get("speculative", {}).get("methods", {}).items():
        arch = body.get("draft_architecture")
        if arch is None:
            continue
        here = ("speculative", "methods", method, "draft_architecture")
        check_draft_architecture(arch, archs, here, report)


def check_draft_architecture(arch: str, archs: dict, here: tuple, report: Report) -> None:
    """A draft architecture is declared, and registered as a speculative_decoding entry."""
    if arch not in archs:
        report(
            here,
            f"unknown architecture {arch!r}; declare it under `architectures`"
            + did_you_mean(arch, archs),
        )
    elif archs[arch].get("registry") != "speculative_decoding":
        report(
            here,
            f"{arch!r} is registered as {archs[arch].get('registry')}; a draft architecture "
            "must be a speculative_decoding entry",
        )


def _names_or_prefix(item: str, names: tuple[str, ...]) -> bool:
    return any(w == item or w.startswith(item + ".") or w.startswith(item) for w in names)


def _signature_names_declared_weights(spec: TypedSpec, report: Report) -> None:
    for name, weight_set in spec.weight_sets.items():
        names = weight_set.shipped
        for i, item in enumerate(weight_set.signature):
            if not _names_or_prefix(item, names):
                report(
                    ("checkpoint", "weight_sets", name, "signature", i),
                    f"{item!r} names no weight of this set (nor a prefix of one)"
                    + did_you_mean(item, names),
                )
        overlap = sorted(set(weight_set.required) & set(weight_set.optional))
        if overlap:
            report(
                ("checkpoint", "weight_sets", name, "optional"),
                f"{', '.join(overlap)} listed as both required and optional",
            )


def _weight_set_loader_rules(spec: TypedSpec, report: Report) -> None:
    """The loader rules of a weight set can all hold at once: some weight is required, a weight
    is per stage or model-level (not both), renames and rejections name what the set ships or
    must not, derived parameters have a model-level prefix, and maps_to's offset field is an
    hf_config field the family reads."""
    hf = spec.hf_config
    for name, weight_set in spec.weight_sets.items():
        at = ("checkpoint", "weight_sets", name)
        shared = weight_set.shared
        per_stage = weight_set.required + weight_set.optional
        model_level = shared.required + shared.optional if shared else ()
        if not weight_set.required and not (shared and shared.required):
            report(
                (*at, "required"),
                "the set requires no weight: list the weights every stage has under `required` "
                "or the model-level ones under `shared.required`",
            )
        for both in sorted(set(per_stage) & set(model_level)):
            report(
                (*at, "shared"),
                f"{both!r} is listed per stage and in `shared`: the engine loads a weight either "
                "per stage or once at model level",
            )
        shipped = weight_set.shipped
        for source, _ in weight_set.renames:
            if source not in shipped:
                report(
                    (*at, "renames", source),
                    f"{source!r} renames no weight of this set (renames go from a checkpoint name "
                    "the set lists to the engine's parameter name)" + did_you_mean(source, shipped),
                )
        for i, item in enumerate(weight_set.rejected):
            clash = [w for w in shipped if w == item or w.startswith(item + ".")]
            if clash:
                report(
                    (*at, "rejected", i),
                    f"{item!r} is rejected but the set ships {', '.join(clash)}: a checkpoint "
                    "could never satisfy both",
                )
        block = weight_set.block
        experts = block.experts if block else None
        routed = experts.prefix.split("{e}")[0].rstrip(".") if experts else ""
        weights = list(
            dict.fromkeys(
                [
                    *shipped,
                    *(parameter for parameter, _ in weight_set.derived),
                    *(block.required + block.optional if block else ()),
                    *([routed] if routed else []),  # every routed expert's weights
                ]
            )
        )
        if block is not None:
            _block_parameters_are_declared(report, at, block)
        for i, item in enumerate(weight_set.completeness.untracked):
            if item not in weights:
                report(
                    (*at, "completeness", "untracked", i),
                    f"{item!r} is no weight of this set: `untracked` names a weight the set "
                    "lists (its checkpoint name; a derived parameter by its own name; a block "
                    "weight; the routed experts by their prefix before `{e}`)"
                    + did_you_mean(item, weights),
                )
        if weight_set.derived and shared is None:
            report(
                (*at, "derived"),
                "derived parameters are model-level: declare `shared.maps_to` (the model-level "
                "prefix they are built under)",
            )
        field = weight_set.maps_to.offset_field
        if field is not None:
            if field not in hf:
                report(
                    (*at, "maps_to"),
                    f"{field!r} is not an hf_config field: the stage offset is read from the "
                    "checkpoint's config.json, with the spec's hf_config value as the fallback"
                    + did_you_mean(field, hf),
                )
            elif not _is_count(hf[field]) and hf[field] != 0:
                report(
                    (*at, "maps_to"),
                    f"hf_config.{field} is {_number(hf[field])}: the stage offset must be a "
                    "non-negative integer",
                )


def _block_parameters_are_declared(report: Report, at: tuple, block: Block) -> None:
    """`block.parameters` names weights the block declares: a name listed there is read as one
    tensor, so one that names no block weight would silently change nothing."""
    declared = block.required + block.optional
    for i, item in enumerate(block.parameters):
        if item not in declared:
            report(
                (*at, "block", "parameters", i),
                f"{item!r} is no weight of the block: `block.parameters` lists the block weights "
                "(`block.required` / `block.optional`) that are one nn.Parameter each (the "
                "tensor is the name itself)" + did_you_mean(item, declared),
            )


def _weight_set_block(spec: ResolvedSpec, report: Report) -> None:
    """A weight set's decoder block: every stacked or renamed name is a block weight, the
    shards of one merged parameter are distinct, a block weight is not also a weight of the set
    itself nor rejected, and the routed experts' count has a value the check can fall back on
    (the spec's hf_config: the reference checkpoint's)."""
    hf = spec.data.get("hf_config", {})
    for name, body in spec.data.get("checkpoint", {}).get("weight_sets", {}).items():
        block = body.get("block")
        if not isinstance(block, dict):
            continue
        at = ("checkpoint", "weight_sets", name, "block")
        names = list(block.get("required", [])) + list(block.get("optional", []))
        for both in sorted(set(block.get("required", [])) & set(block.get("optional", []))):
            report((*at, "optional"), f"{both!r} is listed as both required and optional")
        for key in ("stacked", "renames"):
            for source in block.get(key, {}) or {}:
                if source not in names:
                    report(
                        (*at, key, source),
                        f"{source!r} is no weight of the block: list it under `block.required` "
                        "(or `optional`); stacked and renamed names go from a checkpoint name "
                        "the block ships to the engine's parameter" + did_you_mean(source, names),
                    )
        for source in sorted(
            set(block.get("stacked", {}) or {}) & set(block.get("renames", {}) or {})
        ):
            report(
                (*at, "renames", source),
                f"{source!r} is both stacked and renamed: the engine's loader applies one rule "
                "to a name; keep it under `stacked` (a shard of a merged parameter) or `renames`",
            )
        shards: dict[tuple[str, object], str] = {}
        for source, target in (block.get("stacked", {}) or {}).items():
            key = (target.get("into"), target.get("shard"))
            if key in shards:
                report(
                    (*at, "stacked", source, "shard"),
                    f"{source!r} and {shards[key]!r} both load shard {key[1]!r} of {key[0]!r}: "
                    "each checkpoint tensor of a merged parameter fills its own shard; give "
                    f"{source!r} another shard id",
                )
            shards.setdefault(key, source)
        shared = body.get("shared") or {}
        # a derived parameter's source may be a block weight (V4 DSpark's attn.wkv loads into
        # the block and is copied into context_wkv_proj)
        set_names = [
            *body.get("required", []),
            *body.get("optional", []),
            *shared.get("required", []),
            *shared.get("optional", []),
        ]
        for weight in names:
            if weight in set_names:
                report(
                    (*at, "required" if weight in block.get("required", []) else "optional"),
                    f"{weight!r} is a weight of the set and of its block: the engine loads a "
                    "stage weight into the stage (maps_to) or into its decoder block "
                    "(maps_to + block.maps_to), not both; list it once",
                )
            for i, item in enumerate(body.get("rejected", []) or []):
                if weight == item or weight.startswith(item + "."):
                    report(
                        ("checkpoint", "weight_sets", name, "rejected", i),
                        f"{item!r} is rejected but the block ships {weight!r}: a checkpoint "
                        "could never satisfy both",
                    )
        experts = block.get("experts")
        if not isinstance(experts, dict):
            continue
        expert_shards: dict[tuple[str, object], str] = {}
        for weight, target in (experts.get("weights", {}) or {}).items():
            key = (target.get("into"), target.get("shard"))
            if key in expert_shards:
                report(
                    (*at, "experts", "weights", weight, "shard"),
                    f"{weight!r} and {expert_shards[key]!r} both load shard {key[1]!r} of "
                    f"{key[0]!r} for every expert; give {weight!r} another shard id",
                )
            expert_shards.setdefault(key, weight)
        sources = (experts.get("count") or {}).get("sources", [])
        if sources and not any(_is_count(hf.get(s)) for s in sources):
            report(
                (*at, "experts", "count", "sources"),
                f"no source ({', '.join(sources)}) has a value in hf_config: a checkpoint whose "
                "config.json sets none is checked with the spec's value (the reference "
                f"checkpoint's); state it, e.g. `hf_config: {{{sources[-1]}: 256}}`",
            )


def _block_sizes_powers_of_two(spec: TypedSpec, report: Report) -> None:
    for backend in spec.backends:
        for path, size in backend.block_sizes():
            if not _is_power_of_two(size):
                report(
                    path, f"block size {size!r} is not a positive power of two (e.g. 64, 128, 256)"
                )


def _sparse_mla_entries(spec: TypedSpec, report: Report) -> None:
    """A sparse_mla entry is a registered name with block sizes: no class, so no parent or
    metadata builder, and no parent to inherit its sizes from."""
    for backend in spec.backends:
        if backend.kind is not BackendKind.SPARSE_MLA:
            continue
        here = ("attention_backends", backend.key)
        if backend.metadata_builder is not None:
            report(
                here + ("metadata_builder",),
                "a sparse_mla entry records a name and block sizes only; remove `metadata_builder`",
            )
        if backend.parent is not None:
            report(
                here + ("parent",),
                "a sparse_mla entry records a name and block sizes only; remove `parent`",
            )
        if backend.kernel_block_sizes is None:
            report(
                here,
                "a sparse_mla entry must state kernel_block_sizes: it has no parent to inherit them from",
            )


def _backend_parents(spec: TypedSpec, report: Report) -> None:
    backends = spec.lineage_backends
    for backend in spec.backends:
        parent = backend.parent
        here = ("attention_backends", backend.key)
        if backend.kind is BackendKind.SPARSE_MLA:
            continue  # _sparse_mla_entries
        engine_parent = parent not in backends and backend.parent_module is not None
        if parent is None:
            report(
                here,
                "missing required field 'parent' (another backend of the family, or an engine class with parent_module)",
            )
        elif parent not in backends and backend.parent_module is None:
            report(
                here + ("parent",),
                f"unknown parent {parent!r}: not a backend of this family; name one, or give "
                "`parent_module` for an engine class" + did_you_mean(parent, backends),
            )
        elif parent in backends and backend.parent_module is not None:
            report(
                here + ("parent_module",),
                f"{parent!r} is a backend of this family; drop `parent_module`",
            )
        elif parent == backend.key:
            report(here + ("parent",), "a backend cannot be its own parent")
        elif parent in backends and backends[parent].kind is BackendKind.SPARSE_MLA:
            # a sparse_mla entry is a registered name with block sizes: no class to derive from
            report(
                here + ("parent",),
                f"{parent!r} is a sparse_mla entry, which generates no class; name an indexer "
                "backend of the family, or an engine class with `parent_module`",
            )
        if engine_parent and backend.kernel_block_sizes is None:
            report(here, "an engine-parented backend must state kernel_block_sizes")
        if engine_parent:
            _engine_parent_binds_once(spec, backend, report)


def _engine_parent_binds_once(spec: TypedSpec, backend: AttentionBackend, report: Report) -> None:
    """The generated _binding module imports each engine parent by its name, beside the KV spec
    types: one name, one class. A parent named like a KV spec type (or imported from two
    modules) would bind one name twice (ruff F811) and silently pick one of them."""
    here = ("attention_backends", backend.key, "parent")
    parent, module = backend.parent, backend.parent_module
    if parent in spec.lineage_kv_spec_types:
        report(
            here,
            f"{parent!r} is also a KV spec type (kv_cache.spec_types.{parent}); the generated "
            "binding module binds each engine name once: name the engine class this backend "
            "extends, or rename the spec type",
        )
    for other in spec.backends:
        if (
            other.key < backend.key
            and other.parent == parent
            and (other.parent_module or module) != module
        ):
            report(
                here,
                f"{parent!r} is imported from {other.parent_module!r} by {other.key} and from "
                f"{module!r} here; one name binds one class: use the same parent_module",
            )


def _num_speculative_tokens_default(spec: ResolvedSpec, report: Report) -> None:
    for name, body in spec.data.get("speculative", {}).get("methods", {}).items():
        rules = body.get("num_speculative_tokens", {})
        here = ("speculative", "methods", name, "num_speculative_tokens")
        if rules.get("default") == "draft_config_fields" and "default_sources" not in rules:
            if _deleted_at(spec, here + ("default_sources",)) is not None:
                report(  # at the child's `!delete`, where the fix goes
                    here + ("default_sources",),
                    "`!delete` removes default_sources, which the inherited `default: "
                    "draft_config_fields` reads the default from; also set `default: "
                    "tokens_per_round` (the draft's n_predict) or `default: none` (no default), "
                    "or keep default_sources",
                )
                continue
            report(
                here + ("default",),
                "default: draft_config_fields needs `default_sources` (the draft config fields "
                "the default is read from)",
            )
        if rules.get("default") != "draft_config_fields" and "default_sources" in rules:
            report(
                here + ("default_sources",),
                "`default_sources` is read only with `default: draft_config_fields`",
            )


def _runner_architectures_known(spec: ResolvedSpec, report: Report) -> None:
    archs = _lineage_section(spec, "architectures")
    runner = spec.data.get("runner", {})
    for arch in runner.get("default_model_runner", {}):
        if arch not in archs:
            report(
                ("runner", "default_model_runner", arch),
                f"unknown architecture {arch!r}" + did_you_mean(arch, archs),
            )
    for name, mode in runner.get("forbidden_modes", {}).items():
        for i, arch in enumerate(mode.get("architectures", [])):
            if arch not in archs:
                report(
                    ("runner", "forbidden_modes", name, "architectures", i),
                    f"unknown architecture {arch!r}" + did_you_mean(arch, archs),
                )
        if len(set(mode.get("cudagraph_modes", []))) != len(mode.get("cudagraph_modes", [])):
            report(
                ("runner", "forbidden_modes", name, "cudagraph_modes"), "lists the same mode twice"
            )
    # A requirement names a method of the language, not necessarily one this variant wires (a
    # child that drops a method keeps the engine's rule for it harmlessly).
    known = [m.value for m in Method]
    for name, requirement in runner.get("requires_model_runner", {}).items():
        method = requirement.get("speculative_method")
        if method is not None and method not in known:
            report(
                ("runner", "requires_model_runner", name, "speculative_method"),
                f"unknown speculative method {method!r}" + did_you_mean(method, known),
            )


def _display_name_messages(data: dict) -> list[tuple[tuple, str]]:
    """The spec messages that may say {display_name}, with their field paths."""
    found = []
    for name, body in data.get("speculative", {}).get("forbidden", {}).items():
        found.append((("speculative", "forbidden", name, "message"), (body or {}).get("message")))
    for name, body in data.get("runner", {}).get("forbidden_modes", {}).items():
        found.append((("runner", "forbidden_modes", name, "message"), (body or {}).get("message")))
    kv = data.get("kv_cache", {})
    found.append(
        (
            ("kv_cache", "unsupported_compress_ratio_message"),
            kv.get("unsupported_compress_ratio_message"),
        )
    )
    compressor = kv.get("kv_source_compressor") or {}
    found.append(
        (
            ("kv_cache", "kv_source_compressor", "unsupported_compress_ratio_message"),
            compressor.get("unsupported_compress_ratio_message"),
        )
    )
    return [(path, message) for path, message in found if isinstance(message, str)]


def _display_name(data: object) -> str | None:
    variant = data.get("variant") if isinstance(data, dict) else None
    name = variant.get("display_name") if isinstance(variant, dict) else None
    return name if isinstance(name, str) else None


def _inherited_messages_name_their_variant(spec: ResolvedSpec, report: Report) -> None:
    """A message this variant inherits must not name the ancestor that wrote it: raised for
    this variant, it would name the wrong model. {display_name} names the variant it is raised
    for."""
    import re

    own = _display_name(spec.data)
    # The ancestors' own documents, not yet validated when this child is (an ancestor's schema
    # error is reported at the ancestor): read them as data that may be of any shape.
    ancestors = {_display_name(doc.data) for doc in spec.lineage[:-1]} - {own, None}
    for path, message in _display_name_messages(spec.data):
        if spec.where(path).file == spec.file:
            continue  # the variant's own words: it may name another model on purpose
        for name in sorted(ancestors):
            # a whole name only: "DeepSeek V4" in "DeepSeek V4.1" is not V4's name
            if re.search(rf"(?<![\w.]){re.escape(name)}(?!\.?\w)", message):
                report(
                    path,
                    f"names {name!r}, but {own} inherits this message and would raise it "
                    f"naming {name}; write {{display_name}} where the name goes (each "
                    "variant's own display_name fills it in)",
                )
                break


def _hf_config_counts(spec: TypedSpec, report: Report) -> None:
    """The hf_config values the generated code counts with: a stage count becomes one list of
    weight names per stage (100,000 stages once wrote a 518 MB test module), tokens per round
    become divisibility checks. Each must be a small positive integer."""
    hf = spec.hf_config
    uses: dict[str, str] = {}
    for name, weight_set in spec.weight_sets.items():
        for source in weight_set.stage_count.sources:
            uses.setdefault(source, f"checkpoint.weight_sets.{name}.stage_count.sources")
        experts = weight_set.block.experts if weight_set.block else None
        for source in experts.count_sources if experts else ():
            uses.setdefault(source, f"checkpoint.weight_sets.{name}.block.experts.count.sources")
    for method in spec.methods:
        for source in method.tokens_per_round_sources:
            uses.setdefault(
                source, f"speculative.methods.{method.method.value}.tokens_per_round.sources"
            )
    for field_name, use in uses.items():
        if field_name not in hf or hf[field_name] is None:
            continue
        value = hf[field_name]
        if ".experts." in use:
            limit = MAX_EXPERTS
        elif use.startswith("checkpoint."):
            limit = MAX_STAGES
        else:
            limit = MAX_TOKENS_PER_ROUND
        if not _is_count(value) or value > limit:
            report(
                ("hf_config", field_name),
                f"{_number(value)} is out of range: {use} counts with it, so it must be an "
                f"integer from 1 to {limit}",
            )


def _first_count(hf: Mapping[str, object], fields: tuple[str, ...]) -> tuple[str, int] | None:
    """The first of ``fields`` that hf_config sets to a positive integer, with its value."""
    for field in fields:
        value = hf.get(field)
        if isinstance(value, int) and _is_count(value):
            return field, value
    return None


def _default_within_maximum(
    hf: Mapping[str, object], method: SpeculativeMethod, maximum: int, report: Report
) -> None:
    """The default num_speculative_tokens the reference hf_config gives must meet the maximum:
    otherwise the variant's own checkpoint cannot be served without naming the count."""
    rules = method.num_speculative_tokens
    if rules.default is NumSpeculativeTokensDefault.DRAFT_CONFIG_FIELDS:
        fields = rules.default_sources
    elif rules.default is NumSpeculativeTokensDefault.TOKENS_PER_ROUND:
        fields = method.tokens_per_round_sources
    else:
        return
    found = _first_count(hf, fields)
    if found is None or found[1] <= maximum:
        return
    field, default = found
    report(
        ("speculative", "methods", method.method.value, "num_speculative_tokens", "maximum"),
        f"maximum {maximum} is below the default num_speculative_tokens, {default} "
        f"(hf_config.{field}): a request that names no count would be refused; raise the "
        f"maximum to at least {default} or lower hf_config.{field}",
    )


def _speculative_token_limits(spec: TypedSpec, report: Report) -> None:
    hf = spec.hf_config
    for method in spec.methods:
        rules = method.num_speculative_tokens
        maximum = rules.maximum
        if maximum is None:
            continue
        _default_within_maximum(hf, method, maximum, report)
        here = ("speculative", "methods", method.method.value, "num_speculative_tokens")
        found = _first_count(hf, method.tokens_per_round_sources)
        if found is None:
            continue
        source, per_round = found
        if rules.divisibility is Divisibility.ALWAYS and maximum < per_round:
            report(
                (*here, "maximum"),
                f"maximum {maximum} is below tokens per round ({per_round}, hf_config.{source}): no "
                f"num_speculative_tokens can be both <= {maximum} and divisible by {per_round}; "
                f"raise the maximum to at least {per_round} or relax `divisibility`",
            )
        warn = rules.warn_above
        if warn is not None and warn >= maximum:
            report(
                (*here, "warn_above"),
                f"warn_above ({warn}) >= maximum ({maximum}): the warning could never fire",
            )


def _engine_known(spec: ResolvedSpec, report: Report) -> None:
    from ..engine_facts import VLLM_VERSION

    engine = spec.data.get("engine")
    if engine is not None and engine != f"vllm=={VLLM_VERSION}":
        report(
            ("engine",),
            f"dsv41gen knows the wiring sites of vllm=={VLLM_VERSION} only, not {engine!r}; "
            f"write `engine: vllm=={VLLM_VERSION}` (and check the spec against that release)",
        )
