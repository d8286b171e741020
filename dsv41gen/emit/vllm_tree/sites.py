"""The sites of vLLM 0.33.0 that name a model family, and how each is written from the specs.

Each site finds its nodes by their shape (a table by name, a comparison by its subject and the
family's model_types), builds what the specs say, and swaps nodes only where the meaning
differs (see cst.py). A site knows which keys it owned at the last emit (the tree's manifest),
so a variant dropped from the specs is removed from the tree, not left behind.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from ...plan.speculative import forbidden_message
from ...spec.model import (
    AttentionBackend,
    BackendKind,
    BackendPlatform,
    Family,
    Method,
    StateLike,
    Variant,
)
from . import cstutil as c


class SiteError(Exception):
    """The tree does not have the shape of vLLM 0.33.0 at a site: file, what is missing, fix."""


@dataclass
class SiteResult:
    module: cst.Module
    # (region name, its code): what check compares with a fresh emit
    regions: list[tuple[str, str]] = field(default_factory=list)
    owned: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Site:
    name: str
    path: str  # relative to the tree root
    what: str  # one line for `emit` / docs

    def apply(self, module: cst.Module, family: Family, owned: set[str]) -> SiteResult:
        raise NotImplementedError

    def lacks(self, family: Family) -> str | None:
        """The spec section this site writes from, when no variant of the family declares it
        (then the site has nothing to say about the family); None when it applies."""
        return None


def _declares_method(family: Family, method: Method) -> bool:
    return any(
        v.method(method) is not None or any(f.method is method for f in v.forbidden)
        for v in family.variants
    )


def _declares_backend(family: Family, kind: BackendKind) -> bool:
    return any(b.kind is kind for v in family.variants for b in v.backends)


def _error(path: str, what: str) -> SiteError:
    return SiteError(
        f"{path}: {what}. Is this vLLM 0.33.0's source tree (scripts/fetch_vllm_sdist.py "
        "--extract gives one)? Emit nothing into a tree of another release."
    )


def _short(variant: Variant, family: Family) -> str:
    """'V4.1' from 'DeepSeek V4.1' (the family's common display-name prefix removed)."""
    words = [v.display_name.split() for v in family.variants]
    common = 0
    while all(len(w) > common + 1 for w in words) and len({w[common] for w in words}) == 1:
        common += 1
    return " ".join(variant.display_name.split()[common:])


def family_label(variants: Sequence[Variant]) -> str:
    """'DeepSeek-V4' for one variant, 'DeepSeek-V4(.1)' for V4 and V4.1 (vLLM's comments)."""
    names = [v.display_name.replace(" ", "-") for v in variants]
    root = names[0]
    rest = [n[len(root) :] for n in names[1:] if n.startswith(root)]
    if len(rest) != len(names) - 1:
        return "/".join(names)
    return root + "".join(f"({r})" for r in rest)


def _flag(variant: Variant, family: Family) -> str:
    return "is_" + re.sub(r"\W+", "", _short(variant, family).lower())


def _function(module: cst.Module, path: str, cls: str | None, name: str) -> cst.FunctionDef:
    scope: Sequence[cst.CSTNode] = module.body
    if cls is not None:
        found = [s for s in module.body if isinstance(s, cst.ClassDef) and s.name.value == cls]
        if not found:
            raise _error(path, f"no class {cls}")
        scope = found[0].body.body
    for stmt in scope:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    raise _error(path, f"no function {cls + '.' if cls else ''}{name}")


# --- model registry tables ------------------------------------------------------------------


def _dict_assignment(module: cst.Module, name: str) -> cst.Dict | None:
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            targets = []
            if isinstance(small, cst.Assign):
                targets = [t.target for t in small.targets]
            elif isinstance(small, cst.AnnAssign):
                targets = [small.target]
            if any(c.dotted(t) == name for t in targets) and isinstance(small.value, cst.Dict):
                return small.value
    return None


def _edit_table(
    module: cst.Module,
    path: str,
    table: str,
    wanted: dict[str, str],  # key -> value expression text
    owned: set[str],
    keep_existing_value: bool,
) -> tuple[cst.Module, list[tuple[str, str]]]:
    node = _dict_assignment(module, table)
    if node is None:
        raise _error(path, f"no `{table} = {{...}}` table")
    elements: list[cst.BaseDictElement] = []
    seen: set[str] = set()
    for element in node.elements:
        key = c.string_value(element.key) if isinstance(element, cst.DictElement) else None
        if key is None or (key not in wanted and key not in owned):
            elements.append(element)
            continue
        if key not in wanted:
            continue  # the specs no longer produce it
        seen.add(key)
        if not keep_existing_value:
            new_value = cst.parse_expression(wanted[key])
            element = element.with_changes(value=c.keep_or_replace(element.value, new_value))
        elements.append(element)
    missing = [k for k in wanted if k not in seen]
    for key in missing:
        element = cst.DictElement(
            key=cst.SimpleString(c.string(key)),
            value=_exploded(cst.parse_expression(wanted[key])),
            comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True)),
        )
        at = _insertion_point(elements, set(wanted), key)
        if at == len(elements) and elements:
            # the old last element needs a comma before the new one
            elements[-1] = elements[-1].with_changes(
                comma=cst.Comma(whitespace_after=cst.ParenthesizedWhitespace(indent=True))
            )
        elements.insert(at, element)
    updated = node.with_changes(elements=elements)
    module = c.replace_nodes(module, {node: updated})
    regions = [
        (f"{table}[{c.string_value(e.key)}]", c.code(e.value))
        for e in elements
        if isinstance(e, cst.DictElement) and c.string_value(e.key) in wanted
    ]
    return module, regions


def _exploded(value: cst.BaseExpression) -> cst.BaseExpression:
    """A new tuple or call gets a magic trailing comma, so ruff keeps one argument per line:
    vLLM's registries write their out-of-legacy entries (``vllm.models.*``) that way."""
    if isinstance(value, cst.Tuple) and value.elements:
        last = value.elements[-1].with_changes(comma=cst.Comma())
        return value.with_changes(elements=[*value.elements[:-1], last])
    return value


def _insertion_point(elements: list, family_keys: set[str], key: str) -> int:
    """After the family's entry whose key shares the longest prefix with ``key`` (a V4.1
    draft lands beside the V4 draft, not after the last DeepSeek entry); after the family's
    last entry on a tie; at the end when the family has none here."""
    best, best_len = None, -1
    for i, element in enumerate(elements):
        other = c.string_value(element.key) if isinstance(element, cst.DictElement) else None
        if other is None or other not in family_keys or other == key:
            continue
        common = len(os.path.commonprefix([other, key]))
        if common >= best_len:
            best, best_len = i, common
    return len(elements) if best is None else best + 1


@dataclass(frozen=True)
class RegistryTables(Site):
    """vllm/model_executor/models/registry.py: architecture -> (module, class) per table."""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        for table in _tables(family):
            wanted = {
                a.name: f"({c.string(_registry_module(a.module))}, {c.string(a.class_name)})"
                for v in family.variants
                for a in v.architectures
                if a.registry.dict_name == table
            }
            mine = {k.partition(":")[2] for k in owned if k.startswith(table + ":")}
            result.module, regions = _edit_table(
                result.module, self.path, table, wanted, mine, keep_existing_value=False
            )
            result.regions += regions
            result.owned += [f"{table}:{k}" for k in wanted]
        return result


# vLLM's registry resolves a module name without "vllm." against this package
# (_resolve_module_name), and names its own models' modules that way
MODELS_PACKAGE = "vllm.model_executor.models."


def _registry_module(module: str) -> str:
    """The module as vLLM's table writes it: relative when it is one of vLLM's model modules."""
    relative = module.removeprefix(MODELS_PACKAGE)
    return relative if relative != module and "." not in relative else module


def _tables(family: Family) -> list[str]:
    from ...spec.model import RegistryTable

    return [t.dict_name for t in RegistryTable]


@dataclass(frozen=True)
class TestRegistryTables(Site):
    """tests/models/registry.py: one `_HfExamplesInfo` per architecture (vLLM's
    test_hf_registry_coverage fails without it). Its arguments are facts the specs do not
    hold (the example checkpoint on the Hub, whether it is online), so an existing entry is
    kept as it is; a missing one gets a placeholder that keeps it offline and a note."""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        for table in _tables(family):
            test_table = table.replace("_MODELS", "_EXAMPLE_MODELS")
            wanted = {
                a.name: f'_HfExamplesInfo("TODO/{a.name}", is_available_online=False)'
                for v in family.variants
                for a in v.architectures
                if a.registry.dict_name == table
            }
            mine = {k.partition(":")[2] for k in owned if k.startswith(test_table + ":")}
            retired = _retired(owned, test_table)
            before = _dict_assignment(result.module, test_table)
            existing = {
                c.string_value(e.key): c.code(e.value)
                for e in (before.elements if before else ())
                if isinstance(e, cst.DictElement)
            }
            # an entry the specs drop is kept in the manifest, so adding the variant back
            # restores its Hub facts instead of a placeholder
            retired.update({k: existing[k] for k in mine - set(wanted) if k in existing})
            for key in wanted:
                if key not in existing and key in retired:
                    wanted[key] = retired[key]
            result.module, _ = _edit_table(
                result.module, self.path, test_table, wanted, mine, keep_existing_value=True
            )
            result.owned += [f"{test_table}:{k}" for k in wanted]
            result.owned += [
                f"retired:{test_table}:{json.dumps([k, v])}"
                for k, v in sorted(retired.items())
                if k not in wanted
            ]
            result.notes += [
                f"{self.path}: {test_table}[{k!r}] is a placeholder; name its example "
                "checkpoint on the Hub"
                for k in wanted
                if k not in existing and k not in retired
            ]
        return result


def _retired(owned: set[str], table: str) -> dict[str, str]:
    found = {}
    for item in owned:
        if item.startswith(f"retired:{table}:"):
            key, value = json.loads(item[len(f"retired:{table}:") :])
            found[key] = value
    return found


# --- speculative config ---------------------------------------------------------------------


def _model_types(family: Family, owned: set[str]) -> set[str]:
    return {v.model_type for v in family.variants} | {
        k.partition(":")[2] for k in owned if k.startswith("model_type:")
    }


def _mtp(family: Family):
    for v in family.variants:
        if m := v.method(Method.MTP):
            return m
    for v in family.variants:
        for f in v.forbidden:
            if f.method is Method.MTP and f.ancestor_definition:
                return f.ancestor_definition
    return None


def _n_predict(sources: Sequence[str], subject: str) -> str:
    return " or ".join(f"getattr({subject}, {c.string(s)}, None)" for s in sources)


@dataclass(frozen=True)
class DraftConfigRewrite(Site):
    """SpeculativeConfig.hf_config_override: a family target's config becomes its MTP draft's
    (seed 000 change 1a). Shared entry (every variant becomes `deepseek_mtp` with n_predict),
    forked handling (only variants with an MTP draft get its architecture)."""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        types = _model_types(family, owned)
        function = _function(module, self.path, "SpeculativeConfig", "hf_config_override")
        found = c.find_all(
            function,
            cst.If,
            lambda n: bool((c.compared_strings(n.test, "hf_config.model_type") or set()) & types),
        )
        if len(_mtp_draft_types(family)) > 1:
            result.notes.append(self._skip_note(module, found, family))
            return result
        if len(found) != 1:
            raise _error(
                self.path,
                "no one `if hf_config.model_type ...` for this family in "
                "SpeculativeConfig.hf_config_override",
            )
        old = found[0]
        mtp = _mtp(family)
        result.owned = [f"model_type:{t}" for t in sorted({v.model_type for v in family.variants})]
        if mtp is None:
            result.module = c.replace_nodes(module, {old: cst.RemovalSentinel.REMOVE})
            return result
        members = [v.model_type for v in family.variants]
        lacking = [v for v in family.variants if v.method(Method.MTP) is None]
        arch = mtp.draft_architecture
        n_predict = _n_predict(mtp.tokens_per_round_sources, "hf_config")
        test = c.membership("hf_config.model_type", members)
        if not lacking:
            body = (
                f"hf_config.model_type = {c.string(mtp.draft_model_type)}\n"
                f"n_predict = {n_predict}\n"
                f'hf_config.update({{"n_predict": n_predict, "architectures": [{c.string(arch)}]}})\n'
            )
        else:
            flag_test = c.membership("hf_config.model_type", [v.model_type for v in lacking])
            flag = _flag(lacking[0], family) if len(lacking) == 1 else "lacks_mtp"
            comment = ""
            if len(lacking) == 1 and (dspark := lacking[0].method(Method.DSPARK)):
                name = _short(lacking[0], family)
                others = " and ".join(
                    _short(v, family) for v in family.variants if v not in lacking
                )
                prefix = (dspark.weights.stage_prefix or "").replace("{i}.", "*")
                comment = c.wrap_comment(
                    f"{name} has no {mtp.label} draft: its checkpoints ship {dspark.label} "
                    f"stages under ``{prefix}``, so only {others} gets an MTP architecture "
                    f"here. The {dspark.label} path rewrites ``architectures`` itself; "
                    f'``method="mtp"`` on {name} is rejected below.',
                    indent=12,
                )
            body = (
                comment + f"{flag} = {flag_test}\n"
                f"hf_config.model_type = {c.string(mtp.draft_model_type)}\n"
                f"n_predict = {n_predict}\n"
                'overrides = {"n_predict": n_predict}\n'
                f"if not {flag}:\n"
                f'    overrides["architectures"] = [{c.string(arch)}]\n'
                "hf_config.update(overrides)\n"
            )
        new = c.statement(f"if {test}:\n" + _indent(body))
        new = c.keep_or_replace(old, new.with_changes(leading_lines=old.leading_lines))
        result.module = c.replace_nodes(module, {old: new})
        result.regions = [("hf_config_override", c.code(new))]
        return result

    def _skip_note(self, module: cst.Module, found: Sequence[cst.If], family: Family) -> str:
        """Why this site leaves the family's branches as vLLM wrote them, and where they are:
        the site writes one shared `if` whose body makes every variant one MTP draft, and a
        family whose variants have drafts of their own has one branch per draft in vLLM."""
        lines = _line_numbers(module, found)
        where = ", ".join(f"{self.path}:{n}" for n in lines) or self.path
        drafts = ", ".join(sorted(_mtp_draft_types(family)))
        return (
            f"{where}: SpeculativeConfig.hf_config_override left as it is for family "
            f"{family.name!r}: its variants have MTP drafts of their own ({drafts}), and this "
            "site writes one shared branch for a family whose variants share one draft. "
            "vLLM 0.33.0's branches for it are not compared (docs/vllm-source-tree.md)"
        )


def _mtp_draft_types(family: Family) -> set[str]:
    return {m.draft_model_type for v in family.variants if (m := v.method(Method.MTP))}


def _line_numbers(module: cst.Module, nodes: Sequence[cst.CSTNode]) -> list[int]:
    """The first line of each node in the module's text (nodes of this very module)."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return sorted(positions[n].start.line for n in nodes if n in positions)


def _indent(text: str, by: str = "    ") -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(True))


def _body_statements(node: cst.If) -> Sequence[cst.BaseStatement]:
    return node.body.body if isinstance(node.body, cst.IndentedBlock) else ()


def _assigns(stmt: cst.CSTNode, target: str, value: str | None = None) -> bool:
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return False
    small = stmt.body[0]
    if not isinstance(small, cst.Assign) or len(small.targets) != 1:
        return False
    if c.dotted(small.targets[0].target) != target:
        return False
    return value is None or c.string_value(small.value) == value


@dataclass(frozen=True)
class ForbiddenMethodCheck(Site):
    """SpeculativeConfig.__post_init__, the branch that sets `self.method = "mtp"`: a variant
    that forbids MTP raises there with the spec's fix-it message (seed 000 change 1b)."""

    def apply(self, module, family, owned):
        result = SiteResult(module)
        types = _model_types(family, owned)
        subject = "self.target_model_config.hf_config.model_type"
        branches = c.find_all(
            module,
            cst.If,
            # the first statement: the deprecation rewrite above it ends with the same line
            lambda n: (
                bool(_body_statements(n)) and _assigns(_body_statements(n)[0], "self.method", "mtp")
            ),
        )
        if len(branches) != 1:
            raise _error(self.path, 'no one branch that sets `self.method = "mtp"`')
        branch = branches[0]
        body = list(_body_statements(branch))
        anchor = next(i for i, s in enumerate(body) if _assigns(s, "self.method", "mtp"))
        old = [
            s
            for s in body
            if isinstance(s, cst.If) and (c.compared_strings(s.test, subject) or set()) & types
        ]
        at = body.index(old[0]) if old else anchor + 1
        new = []
        for variant in family.variants:
            for forbidden in variant.forbidden:
                if forbidden.method is not Method.MTP:
                    continue
                message = forbidden_message(variant, forbidden)
                pieces = "\n".join(c.wrap_string(message, indent=28))
                new.append(
                    c.statement(
                        "if (\n"
                        "    self.target_model_config is not None\n"
                        f"    and {subject}\n"
                        f"    == {c.string(variant.model_type)}\n"
                        "):\n"
                        "    raise ValueError(\n"
                        f"{_indent(pieces, ' ' * 8)}\n"
                        "    )\n"
                    )
                )
        kept = [s for s in body if s not in old]
        if len(old) == len(new) and all(
            c.same_meaning(c.code(a), c.code(b)) for a, b in zip(old, new)
        ):
            new = old
        kept[at:at] = new  # nothing of ours stands before `at`: it is the first of ours
        updated = branch.with_changes(body=branch.body.with_changes(body=kept))
        result.module = c.replace_nodes(module, {branch: updated})
        result.regions = [(f"forbid mtp {i}", c.code(n)) for i, n in enumerate(new)]
        result.owned = [f"model_type:{v.model_type}" for v in family.variants]
        return result


@dataclass(frozen=True)
class DsparkDraftConfig(Site):
    """SpeculativeConfig.__post_init__, the DeepSeek DSpark branch: the draft config's
    model_type and architecture per target (seed 000 change 1c, as 0.33.0 has it: 0.33.0 no
    longer rewrites n_predict there)."""

    def lacks(self, family):
        return None if _declares_method(family, Method.DSPARK) else "speculative.methods.dspark"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        drafts = [(v, m) for v in family.variants if (m := v.method(Method.DSPARK)) is not None]
        archs = {m.draft_architecture for _, m in drafts} | {
            k.partition(":")[2] for k in owned if k.startswith("dspark_arch:")
        }

        def is_ours(stmt: cst.CSTNode) -> bool:
            text = c.code(stmt)
            return _assigns(stmt, "self.draft_model_config.hf_config.model_type") or (
                "architectures" in text and any(f'"{a}"' in text for a in archs if a)
            )

        blocks = c.find_all(
            module,
            cst.If,
            lambda n: (
                any(
                    _assigns(s, "self.draft_model_config.quantization") for s in _body_statements(n)
                )
                and any(is_ours(s) or _assigns(s, "draft_hf_config") for s in _body_statements(n))
            ),
        )
        if len(blocks) != 1:
            raise _error(
                self.path,
                "no one DSpark branch that rewrites the draft's "
                "model_type and architectures before forcing the target's quantization",
            )
        block = blocks[0]
        body = list(_body_statements(block))
        end = next(
            i for i, s in enumerate(body) if _assigns(s, "self.draft_model_config.quantization")
        )
        old, rest = body[:end], body[end:]
        result.owned = [f"dspark_arch:{m.draft_architecture}" for _, m in drafts]
        if not drafts:
            new = []
        else:
            new = c.statements(self._generate(family, drafts))
        if c.same_meaning("".join(c.code(s) for s in old), "".join(c.code(s) for s in new)):
            new = old
        updated = block.with_changes(body=block.body.with_changes(body=new + rest))
        result.module = c.replace_nodes(module, {block: updated})
        result.regions = [("dspark draft config", "".join(c.code(s) for s in new))]
        return result

    @staticmethod
    def _generate(family: Family, drafts) -> str:
        label = family_label([v for v, _ in drafts])
        forms = sorted({(m.draft_model_type, m.draft_architecture) for _, m in drafts})
        root_type, root_arch = drafts[0][1].draft_model_type, drafts[0][1].draft_architecture
        if len(forms) == 1:
            return (
                f"# {label} DSpark reuses the full {label} config\n"
                "# and its weights ship in the target checkpoint.\n"
                f"self.draft_model_config.hf_config.model_type = {c.string(root_type)}\n"
                f"self.draft_model_config.hf_config.architectures = [{c.string(root_arch)}]\n"
            )
        if len(drafts) != 2:
            raise SiteError(
                "vllm/config/speculative.py: the emitter writes the DSpark draft rewrite for "
                "one or two draft forms per family; split the family or extend DsparkDraftConfig"
            )
        (other, m), subject = drafts[1], "self.target_model_config.hf_config.model_type"
        flag = _flag(other, family)
        return (
            f"# {label} DSpark reuses the full target config\n"
            "# and its weights ship in the target checkpoint.\n"
            f"{flag} = ({c.membership(subject, [other.model_type])})\n"
            "draft_hf_config = self.draft_model_config.hf_config\n"
            f"draft_hf_config.model_type = ({c.string(m.draft_model_type)} if {flag} else "
            f"{c.string(root_type)})\n"
            f"draft_hf_config.architectures = [{c.string(m.draft_architecture)} if {flag} "
            f"else {c.string(root_arch)}]\n"
        )


# --- DSpark runner: the draft reuses the target's attention backend --------------------------


@dataclass(frozen=True)
class DsparkBackendReuse(Site):
    """_resolve_dspark_attention_backend: the variants whose DSpark draft shares the target's
    KV-cache layout use the target's backend (seed 000 change 7b: merged, same behaviour)."""

    def lacks(self, family):
        return None if _declares_method(family, Method.DSPARK) else "speculative.methods.dspark"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        types = _model_types(family, owned)
        function = _function(module, self.path, None, "_resolve_dspark_attention_backend")
        subject = "draft_model_config.hf_config.model_type"
        found = c.find_all(
            function, cst.If, lambda n: bool((c.compared_strings(n.test, subject) or set()) & types)
        )
        if len(found) != 1:
            raise _error(
                self.path, f"no one `if {subject} ...` in _resolve_dspark_attention_backend"
            )
        old = found[0]
        sharing = [
            v
            for v in family.variants
            if (m := v.method(Method.DSPARK)) is not None and m.reuses_target_kv_layout
        ]
        result.owned = [f"model_type:{v.model_type}" for v in family.variants]
        if not sharing:
            result.module = c.replace_nodes(module, {old: cst.RemovalSentinel.REMOVE})
            return result
        test = cst.parse_expression(c.membership(subject, [v.model_type for v in sharing]))
        label = family_label(sharing)
        root = re.escape(family.variants[0].display_name.replace(" ", "-")) + r"(\([^)]*\))*"
        lines = [
            line.with_changes(comment=cst.Comment(re.sub(root, label, line.comment.value, count=1)))
            if line.comment is not None
            else line
            for line in old.leading_lines
        ]
        new = old.with_changes(test=c.keep_or_replace(old.test, test), leading_lines=lines)
        new = c.keep_or_replace(old, new)
        result.module = c.replace_nodes(module, {old: new})
        result.regions = [("dspark backend reuse", c.code(new.test))]
        return result


EAGLE3_MODEL_TYPE = 'getattr(hf_config, "model_type", None)'
AS_IS_COMMENT = (
    "{label}'s DSpark target layer ids are used as they are (its spec's "
    "hf_config.dspark_target_layer_offset is 0): the draft reads the entry stream of those "
    "layers. Other DSpark ids mean capture-after and take +1."
)


@dataclass(frozen=True)
class DsparkLayerIdOffset(Site):
    """get_eagle3_aux_layers_from_config: the variants whose DSpark target layer ids are used
    as they are (hf_config.dspark_target_layer_offset 0); every other DSpark id takes +1.
    vLLM's site knows only the offsets 0 and 1. Other families' model types stay."""

    def lacks(self, family):
        return None if _declares_method(family, Method.DSPARK) else "speculative.methods.dspark"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        types = _model_types(family, owned)
        function = _function(module, self.path, None, "get_eagle3_aux_layers_from_config")
        outer = c.find_all(function, cst.If, lambda n: c.code(n.test).strip() == "dspark_layer_ids")
        if len(outer) != 1:
            raise _error(self.path, "no one `if dspark_layer_ids:` in get_eagle3_aux_layers")
        offsets = {v: v.hf_value("dspark_target_layer_offset") for v in family.variants}
        odd = [v.name for v, o in offsets.items() if o not in (None, 0, 1)]
        if odd:
            raise SiteError(
                f"{self.path}: {', '.join(odd)}: hf_config.dspark_target_layer_offset must be 0 "
                "or 1 here; vLLM 0.33.0's get_eagle3_aux_layers_from_config has only ids as "
                "they are and ids + 1"
            )
        inner = [s for s in outer[0].body.body if isinstance(s, cst.If)]
        present = c.compared_strings(inner[0].test, EAGLE3_MODEL_TYPE) if inner else set()
        as_is = [v for v, o in offsets.items() if o == 0]
        names = sorted(n for n in present or () if n not in types)
        names += [v.model_type for v in as_is]
        result.owned = [f"model_type:{v.model_type}" for v in family.variants]
        if not names:
            new = outer[0].with_changes(
                body=outer[0].body.with_changes(
                    body=c.statements("layer_ids = [i + 1 for i in dspark_layer_ids]\n")
                )
            )
        else:
            comment = c.wrap_comment(
                AS_IS_COMMENT.format(label=family_label(as_is) if as_is else "These"), indent=16
            )
            text = (
                f"if {c.membership(EAGLE3_MODEL_TYPE, names)}:\n"
                + _indent(comment + "layer_ids = list(dspark_layer_ids)\n")
                + "else:\n"
                + _indent("layer_ids = [i + 1 for i in dspark_layer_ids]\n")
            )
            new = outer[0].with_changes(body=outer[0].body.with_changes(body=c.statements(text)))
        if c.same_code(c.code(outer[0]), c.code(new)):
            new = outer[0]  # the same code: vLLM's own comment stays
        result.module = c.replace_nodes(module, {outer[0]: new})
        result.regions = [("dspark layer-id offset", c.code(new))]
        return result


# --- indexer attention backends --------------------------------------------------------------

INDEXER_MODULE = "vllm.v1.attention.backends.mla.indexer"


def backend_module(backend: AttentionBackend, by_key: dict[str, AttentionBackend]) -> str:
    """Where vLLM keeps a backend class: beside its own metadata builder, else beside its
    parent (an engine parent names its module)."""
    if backend.metadata_builder is not None:
        return backend.metadata_builder.module
    if backend.parent_module is not None:
        return backend.parent_module
    if backend.parent in by_key:
        return backend_module(by_key[backend.parent], by_key)
    return INDEXER_MODULE


def _family_backends(family: Family) -> dict[str, AttentionBackend]:
    found: dict[str, AttentionBackend] = {}
    for v in family.variants:
        for b in v.backends:
            if b.kind is BackendKind.INDEXER:
                found[b.key] = b
    return found


def block_sizes_expression(backend: AttentionBackend) -> str | None:
    sizes = backend.kernel_block_sizes
    if sizes is None:
        return None
    default = list(sizes.default)
    special = [(f, list(v)) for f, v in sizes.by_family if list(v) != default]
    if not special:
        return repr(default)
    if all(len(v) == 1 for _, v in special) and len(default) == 1:
        expr = str(default[0])
        for family_, values in reversed(special):
            cond = f"current_platform.is_device_capability_family({family_.major * 10})"
            expr = f"{values[0]} if {cond} else {expr}"
        return f"[{expr}]"
    expr = repr(default)
    for family_, values in reversed(special):
        cond = f"current_platform.is_device_capability_family({family_.major * 10})"
        expr = f"{values!r} if {cond} else {expr}"
    return expr


def _method(name: str, text: str, decorator: str = "staticmethod") -> cst.FunctionDef:
    node = c.statement(f"@{decorator}\n{text}")
    assert isinstance(node, cst.FunctionDef)
    return node


def _get_name(backend: AttentionBackend) -> cst.FunctionDef:
    return _method("get_name", f"def get_name() -> str:\n    return {c.string(backend.name)}\n")


def _block_sizes(backend: AttentionBackend, expr: str) -> cst.FunctionDef:
    note = backend.kernel_block_sizes.note if backend.kernel_block_sizes else None
    comment = c.wrap_comment(note, indent=8) if note else ""
    return _method(
        "get_supported_kernel_block_sizes",
        "def get_supported_kernel_block_sizes(kv_cache_spec=None) -> list[int | MultipleOf]:\n"
        + _indent(comment)
        + f"    return {expr}\n",
    )


def _with_return(function: cst.FunctionDef, value: str, path: str) -> cst.FunctionDef:
    """``function`` returning ``value``: only the returned expression is the emitter's; the
    signature, decorators and comments stay vLLM's."""
    body = list(function.body.body)
    returns = [
        i
        for i, s in enumerate(body)
        if isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Return)
    ]
    if len(returns) != 1 or len(body) != returns[0] + 1:
        raise _error(path, f"{function.name.value} is not one `return ...` statement")
    line = body[-1]
    old = line.body[0]
    new = old.with_changes(value=c.keep_or_replace(old.value, cst.parse_expression(value)))
    body[-1] = line.with_changes(body=[new])
    return function.with_changes(body=function.body.with_changes(body=body))


@dataclass(frozen=True)
class IndexerBackends(Site):
    """Indexer backend classes in one vLLM module: get_name and the kernel block sizes edited
    in place in each class the specs name; a class with nothing but those two (no metadata
    builder of its own) is generated whole after its parent, and removed when the specs drop
    it (seed 000 change 2)."""

    module_name: str = INDEXER_MODULE

    def lacks(self, family):
        if _declares_backend(family, BackendKind.INDEXER):
            return None
        return "attention_backends (an indexer backend)"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        by_key = _family_backends(family)
        here = {k: b for k, b in by_key.items() if backend_module(b, by_key) == self.module_name}
        classes = {s.name.value: s for s in result.module.body if isinstance(s, cst.ClassDef)}
        mine = {k.partition(":")[2] for k in owned if k.startswith("backend:")}
        mapping: dict = {}
        for name in mine - set(here):
            if name in classes and self._only_generated(classes[name]):
                mapping[classes[name]] = cst.RemovalSentinel.REMOVE
        inserts: dict[str, list] = {}
        for key, backend in here.items():
            expr = block_sizes_expression(backend)
            if key in classes:
                node = classes[key]
                members = []
                for member in node.body.body:
                    if isinstance(member, cst.FunctionDef) and member.name.value == "get_name":
                        member = _with_return(member, c.string(backend.name), self.path)
                    elif (
                        isinstance(member, cst.FunctionDef)
                        and member.name.value == "get_supported_kernel_block_sizes"
                        and expr is not None
                    ):
                        member = _with_return(member, expr, self.path)
                    members.append(member)
                mapping[node] = node.with_changes(body=node.body.with_changes(body=members))
                result.regions.append((f"class {key}", c.code(mapping[node])))
            elif backend.metadata_builder is None and backend.parent in classes:
                parts = [_get_name(backend)]
                if expr is not None:
                    parts.append(
                        _block_sizes(backend, expr).with_changes(leading_lines=[cst.EmptyLine()])
                    )
                new = cst.ClassDef(
                    name=cst.Name(key),
                    bases=[cst.Arg(cst.Name(backend.parent))],
                    body=cst.IndentedBlock(body=parts),
                    leading_lines=[cst.EmptyLine(), cst.EmptyLine()],
                )
                inserts.setdefault(backend.parent, []).append(new)
                result.regions.append((f"class {key}", c.code(new)))
            else:
                result.notes.append(
                    f"{self.path}: class {key} is not here; it has its own metadata builder "
                    f"({backend.metadata_builder.class_name if backend.metadata_builder else '?'}"
                    "), vLLM code the specs do not hold: write it by hand"
                )
            result.owned.append(f"backend:{key}")
        for parent, new_classes in inserts.items():
            anchor = mapping.get(classes[parent], classes[parent])
            mapping[classes[parent]] = [anchor, *new_classes]
        if mapping:
            result.module = c.replace_nodes(result.module, mapping)
        return result

    @staticmethod
    def _only_generated(node: cst.ClassDef) -> bool:
        return all(
            isinstance(m, cst.FunctionDef)
            and m.name.value in ("get_name", "get_supported_kernel_block_sizes")
            for m in node.body.body
        )


ROCM_MXFP4_MODULE = "vllm.v1.attention.backends.mla.rocm_paged_mxfp4_indexer"
ROCM_MXFP4_MESSAGE = "indexer_kv_dtype='mxfp4' on ROCm is only supported for "


def rocm_mxfp4_variants(family: Family) -> list[Variant]:
    """The variants with a ROCm indexer backend over the MXFP4 K cache (its metadata builder
    lives in rocm_paged_mxfp4_indexer): the model types dsa_indexer_uses_fp4 lets through."""
    return [
        v
        for v in family.variants
        if any(
            b.kind is BackendKind.INDEXER
            and b.platform is BackendPlatform.ROCM
            and b.metadata_builder is not None
            and b.metadata_builder.module == ROCM_MXFP4_MODULE
            for b in v.backends
        )
    ]


@dataclass(frozen=True)
class RocmMxfp4Gate(Site):
    """dsa_indexer_uses_fp4: on ROCm, indexer_kv_dtype='mxfp4' is refused for a model type
    wired to no ROCm MXFP4 indexer backend (the first of indexer.py's two ROCm checks). The
    family's wired model types, and their names in the message; other model types in the
    tuple are not the family's and stay."""

    def lacks(self, family):
        if _declares_backend(family, BackendKind.INDEXER):
            return None
        return "attention_backends (an indexer backend)"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        types = _model_types(family, owned)
        function = _function(module, self.path, None, "dsa_indexer_uses_fp4")
        subject = "model_config.hf_config.model_type"

        def gate(node: cst.CSTNode) -> bool:
            return (
                isinstance(node, cst.Comparison)
                and c.dotted(node.left) == subject
                and isinstance(node.comparisons[0].operator, (cst.NotIn, cst.NotEqual))
                and bool((c.compared_strings(node, subject) or set()) & types)
            )

        tests = c.find_all(function, cst.Comparison, gate)
        ifs = c.find_all(function, cst.If, lambda n: bool(c.find_all(n.test, cst.Comparison, gate)))
        if len(tests) != 1 or len(ifs) != 1:
            raise _error(self.path, f"no one `{subject} not in (...)` in dsa_indexer_uses_fp4")
        wired = rocm_mxfp4_variants(family)
        mine = {v.model_type for v in wired}
        comparator = tests[0].comparisons[0].comparator
        present = [c.string_value(e.value) for e in getattr(comparator, "elements", ())] or [
            c.string_value(comparator)
        ]
        names = [n for n in present if n is not None and (n not in types or n in mine)]
        names += [v.model_type for v in wired if v.model_type not in names]
        new_test = c.keep_or_replace(
            tests[0], cst.parse_expression(c.non_membership(subject, names))
        )
        raises = c.find_all(ifs[0].body, cst.Raise, lambda n: True)
        if len(raises) != 1:
            raise _error(self.path, "the ROCm MXFP4 model-type check raises no one error")
        label = " and ".join(v.display_name.replace(" ", "-") for v in wired)
        message = cst.parse_expression(
            f"ValueError(\n{c.string(ROCM_MXFP4_MESSAGE)}\n{c.string(label + '.')}\n)"
        )
        new_raise = c.keep_or_replace(raises[0], raises[0].with_changes(exc=message))
        result.module = c.replace_nodes(module, {tests[0]: new_test, raises[0]: new_raise})
        result.owned = [f"model_type:{v.model_type}" for v in family.variants]
        result.regions = [
            ("rocm mxfp4 model types", c.code(new_test)),
            ("rocm mxfp4 message", c.code(new_raise)),
        ]
        return result


# --- KV-cache planning: the state-bucket table ------------------------------------------------

STATE_TABLE = "_STATE_BUCKET_SPEC_TYPES"
UNSPLIT_STATE_TABLE = "_UNSPLIT_STATE_BUCKET_SPEC_TYPES"


def state_bucket_types(family: Family) -> tuple[list[str], list[str]]:
    """The KV spec types (always, when unsplit) the family puts into is_state_bucket's tables:
    the state-like types its variants' caches are planned with (kv_cache.cache_spec_types),
    in variant order, so a type stays only while some variant's caches use it. A variant that
    names no caches contributes every type its spec_types declare state-like."""
    always: list[str] = []
    unsplit: list[str] = []
    for v in family.variants:
        if v.kv_cache is None:
            continue
        if v.kv_cache.cache_spec_types:
            v_always, v_unsplit = v.kv_cache.state_types_in_use()
        else:
            v_always = [t.name for t in v.kv_cache.spec_types if t.state_like is StateLike.ALWAYS]
            v_unsplit = [
                t.name for t in v.kv_cache.spec_types if t.state_like is StateLike.WHEN_UNSPLIT
            ]
        always += [n for n in v_always if n not in always]
        unsplit += [n for n in v_unsplit if n not in unsplit]
    return always, unsplit


def _tuple_assignment(module: cst.Module, name: str):
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            small = stmt.body[0]
            if isinstance(small, cst.AnnAssign) and c.dotted(small.target) == name:
                return stmt, small
    return None, None


@dataclass(frozen=True)
class StateBucketTable(Site):
    """vllm/v1/core/kv_cache_planning.py, after the one-time upstream refactor (refactor.py):
    the module-level tables is_state_bucket reads (seed 000 change 4a). Entries the family
    did not put there (MambaSpec) are vLLM's and stay."""

    def lacks(self, family):
        if any(v.kv_cache and v.kv_cache.spec_types for v in family.variants):
            return None
        return "kv_cache.spec_types"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        always, unsplit = state_bucket_types(family)
        mine = {k.partition(":")[2] for k in owned if k.startswith("state:")}
        mine_unsplit = {k.partition(":")[2] for k in owned if k.startswith("unsplit:")}
        for table, wanted, previous in (
            (STATE_TABLE, always, mine),
            (UNSPLIT_STATE_TABLE, unsplit, mine_unsplit),
        ):
            stmt, small = _tuple_assignment(result.module, table)
            if stmt is None:
                raise SiteError(
                    f"{self.path}: no `{table}` table. In vLLM 0.33.0 is_state_bucket is a "
                    "closure in _get_packed_kv_cache_groups that no tool can edit safely; "
                    "apply the one-time refactor first (`dsv41gen emit --refactor-upstream`, "
                    "docs/vllm-source-tree.md says what it changes)"
                )
            value = small.value
            present = [
                c.dotted(e.value) for e in getattr(value, "elements", ()) if c.dotted(e.value)
            ]
            names = [n for n in present if n not in previous or n in wanted]
            names += [n for n in wanted if n not in names]
            text = f"({', '.join(names)},)" if len(names) == 1 else f"({', '.join(names)})"
            new = c.keep_or_replace(value, cst.parse_expression(text))
            result.module = c.replace_nodes(
                result.module, {stmt: stmt.with_changes(body=[small.with_changes(value=new)])}
            )
            result.regions.append((table, c.code(new)))
        result.owned = [f"state:{n}" for n in always] + [f"unsplit:{n}" for n in unsplit]
        everything = set(always) | set(unsplit)
        result.module = c.with_import(
            result.module,
            "vllm.v1.kv_cache_interface",
            sorted(everything),
            mine | mine_unsplit,
        )
        return result


# --- MXFP8 quantization kernel: how a block is scaled --------------------------------------

RECIPROCAL_COMMENT = (
    "Scale by the reciprocal rather than dividing by ``exp2(sb - {bias})``: sb == 0 (an "
    "all-zero / denormal block) makes that divisor 2**-{bias}, which is subnormal in fp32 and "
    "flushes to zero on CDNA, turning the block's zeros into 0/0 == NaN. The reciprocal is "
    "normal for every reachable sb, and both forms are exact powers of two, so nothing else "
    "changes."
)


@dataclass(frozen=True)
class Mxfp8Scaling(Site):
    """The Triton MXFP8 quantize kernel: the statements between the block's biased exponent
    ``sb`` and the quantized ``xq`` (seed 000 hunk 3). The spec language has one form, the
    reciprocal multiply (quantization.mxfp8.scaling), so a tree that divides gets it."""

    def lacks(self, family):
        return None if any(v.mxfp8 for v in family.variants) else "quantization.mxfp8"

    def apply(self, module, family, owned):
        result = SiteResult(module)
        formats = {v.mxfp8 for v in family.variants if v.mxfp8 is not None}
        if not formats:
            return result
        if len({(f.scaling, f.scale_bias) for f in formats}) != 1:
            raise SiteError(
                f"{self.path}: the family's variants scale MXFP8 blocks differently; vLLM has "
                "one kernel for all of them"
            )
        fmt = next(iter(formats))

        def block(node: cst.CSTNode) -> bool:
            body = getattr(getattr(node, "body", None), "body", ())
            return any(_assigns(s, "sb") for s in body) and any(_assigns(s, "xq") for s in body)

        functions = c.find_all(module, cst.FunctionDef, block)
        if len(functions) != 1:
            raise _error(self.path, "no one Triton kernel computing `sb` then `xq`")
        function = functions[0]
        body = list(function.body.body)
        start = max(i for i, st in enumerate(body) if _assigns(st, "sb")) + 1
        end = next(i for i, st in enumerate(body) if _assigns(st, "xq")) + 1
        old = body[start:end]
        bias = f"{float(fmt.scale_bias)!r}"
        comment = c.wrap_comment(RECIPROCAL_COMMENT.format(bias=fmt.scale_bias), indent=8)
        new = c.statements(
            comment + f"rescale = tl.exp2({bias} - sb)\n"
            "xq = (x * rescale[:, None]).to(xq_ptr.dtype.element_ty)\n"
        )
        if c.same_meaning("".join(map(c.code, old)), "".join(map(c.code, new))):
            new = old
        body[start:end] = new
        result.module = c.replace_nodes(
            module, {function: function.with_changes(body=function.body.with_changes(body=body))}
        )
        result.regions = [("mxfp8 scaling", "".join(map(c.code, new)))]
        return result


SITES: tuple[Site, ...] = (
    RegistryTables("registry", "vllm/model_executor/models/registry.py",
                   "architecture -> (module, class) tables"),
    TestRegistryTables("test-registry", "tests/models/registry.py",
                       "an _HfExamplesInfo per architecture"),
    DraftConfigRewrite("speculative.draft-config", "vllm/config/speculative.py",
                       "hf_config_override: the target config becomes its MTP draft's"),
    ForbiddenMethodCheck("speculative.forbidden", "vllm/config/speculative.py",
                         "a forbidden MTP method raises with the spec's fix-it message"),
    DsparkDraftConfig("speculative.dspark", "vllm/config/speculative.py",
                      "the DSpark draft's model_type and architecture per target"),
    DsparkBackendReuse("dspark.backend", "vllm/v1/worker/gpu/spec_decode/dspark/utils.py",
                       "_resolve_dspark_attention_backend: the draft reuses the target's backend"),
    DsparkLayerIdOffset("eagle3.dspark-layer-ids",
                        "vllm/v1/worker/gpu/spec_decode/eagle/eagle3_utils.py",
                        "get_eagle3_aux_layers_from_config: DSpark target layer ids, as is or +1"),
    IndexerBackends("backends.indexer", "vllm/v1/attention/backends/mla/indexer.py",
                    "indexer backend classes: get_name, kernel block sizes"),
    IndexerBackends("backends.sparse-indexer", "vllm/v1/attention/backends/mla/sparse_indexer.py",
                    "the V4.1 sparse indexer backend: get_name",
                    "vllm.v1.attention.backends.mla.sparse_indexer"),
    IndexerBackends("backends.rocm-mxfp4-indexer",
                    "vllm/v1/attention/backends/mla/rocm_paged_mxfp4_indexer.py",
                    "the ROCm MXFP4 indexer backends: get_name, kernel block sizes",
                    "vllm.v1.attention.backends.mla.rocm_paged_mxfp4_indexer"),
    RocmMxfp4Gate("backends.rocm-mxfp4-gate", "vllm/v1/attention/backends/mla/indexer.py",
                  "dsa_indexer_uses_fp4: the model types wired to the ROCm MXFP4 indexer"),
    StateBucketTable("kv.state-bucket", "vllm/v1/core/kv_cache_planning.py",
                     "the state-bucket spec-type tables (after the one-time refactor)"),
    Mxfp8Scaling("quantization.mxfp8",
                 "vllm/model_executor/layers/quantization/utils/mxfp8_utils.py",
                 "the Triton MXFP8 quantize kernel scales by the reciprocal"),
)  # fmt: skip

# the engine-wide architecture sets (after the sites above: they import this module's helpers)
from .engine_sets import ENGINE_SET_SITES  # noqa: E402

SITES += ENGINE_SET_SITES
