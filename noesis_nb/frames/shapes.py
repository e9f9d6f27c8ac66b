"""What the fields of each run document must hold, and a checker that reads misfits as unknown and reports them.

One spec per document (summary, state, final, manifest, the three tool records): dotted paths
to the fields the frames read (and the documented ones beside them), each with a rule from
``values.RULES``; ``[]`` stands for every item of an array, ``!`` marks a field that must be
present. ``check`` returns the document with every misfit replaced by None — copying only
the objects on the way to a change, never the caller's — and reports each one with its path.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..store.vocab import BILLED_COUNTS
from .values import MAX_COUNT, RULES, TOKEN_KEYS, Rule, describe, usage_conflicts

__all__ = ["SUMMARY", "STATE", "FINAL", "MANIFEST", "PREPARED", "APPROVAL", "EXECUTION", "check", "Spec"]

Spec = dict[str, tuple[str, bool, "Spec"]]  # key -> (rule, required, children); "[]" = each array item


def spec(fields: Iterable[str]) -> Spec:
    """``["flags.using:text", "files!:list", "files.[]:object", "files.[].name!:relpath"]`` → a spec tree."""
    tree: Spec = {}
    for line in fields:
        path, rule = line.rsplit(":", 1)
        node = tree
        keys = path.split(".")
        for i, key in enumerate(keys):
            required = key.endswith("!")
            key = key.rstrip("!")
            if i == len(keys) - 1:
                children = node[key][2] if key in node else {}
                node[key] = (rule, required, children)
            else:
                node = node.setdefault(key, ("object", False, {}))[2]
    return tree


_COUNTS = [f"{k}:count" for k in TOKEN_KEYS]
SUMMARY = spec(
    [
        "episode_id:text",
        "task:text",
        "status:text",
        "outcome:text",
        "schema_version:text",
        "adapter_result:text",
        "started_at:time",
        "duration_sec:nonneg",
        "flags:object",
        "flags.using:text",
        "flags.governance_mode:text",
        "flags.mode:text",
        "metrics:object",
        "metrics.success:success",
        "metrics.act_count:count",
        "metrics.veto_count:count",
        "metrics.would_veto_count:count",
        "tags:object",
        "x-noesis_nb:object",
        "x-noesis_nb.usage:object",
        "x-noesis_nb.usage.model_calls:count",
        *[f"x-noesis_nb.usage.{c}" for c in _COUNTS],
        "x-noesis_nb.usage.by_model:list",
        "x-noesis_nb.usage.by_model.[]:object",
        "x-noesis_nb.usage.by_model.[].model:text",
        "x-noesis_nb.usage.by_model.[].provider:text",
        "x-noesis_nb.usage.by_model.[].model_calls:count",
        *[f"x-noesis_nb.usage.by_model.[].{c}" for c in _COUNTS],
        *[f"x-noesis_nb.usage.by_model.[].{c}:count" for c in BILLED_COUNTS],
    ]
)
STATE = spec(
    [
        "version:text",
        "state_schema_version:text",
        "episode:object",
        "episode.id:text",
        "episode.started_at:time",
        "episode.using:text",
        "episode.tags:object",
        "goal:object",
        "goal.task:text",
        "outcomes:object",
        "outcomes.status:text",
        "outcomes.actions:list",
        "x-noesis_nb:object",
        "x-noesis_nb.governance_mode:text",
    ]
)
FINAL = spec(
    [
        "schema_version:text",
        "episode_id:text",
        "process_id:text",
        "run_index:count",
        "finalized_at:time",
        "outcome:text",
        "verification_status:text",
    ]
)
MANIFEST = spec(
    [
        "schema_version:text",
        "episode_id:text",
        "created_at:time",
        "signer:text",
        "files!:list",
        "files.[]:object",
        "files.[].name!:relpath",
        "files.[].sha256:text",
        "files.[].size_bytes:count",
        "files.[].kind:text",
    ]
)
_TOOL_IDS = ["draft_id:text", "request_id:text", "run_id:text", "schema_version:text", "status:text", "reason_code:text"]
PREPARED = spec(
    [
        *_TOOL_IDS,
        "protocol:text",
        "tool:tool",
        "governance:object",
        "governance.effect_kind:text",
        "governance.risk_tier:text",
        "governance.requires_approval:bool",
        "governance.candidate_id:text",
        "governance.tags:list",
        "execution:object",
        "execution.timeout_ms:count",
        "execution.retry_limit:count",
        "execution.idempotency_key:text",
        "payload:object",
        "security:object",
    ]
)
APPROVAL = spec([*_TOOL_IDS, "decision_id:text", "approver_id:text", "reason:text", "decided_at:time", "candidate_id:text"])
EXECUTION = spec([*_TOOL_IDS, "execution_id:text", "duration_ms:nonneg", "replayed_from_execution_id:text"])


def check(doc: dict[str, Any], tree: Spec, report: Callable[[str], None]) -> dict[str, Any]:
    """``doc`` with the fields that break ``tree`` read as None; each one reported as ``"<path> is …"``."""
    return _walk(doc, _compiled(tree), "", report)


# A compiled node: (key, required, types that fit at once, rule, children node, item rule, item children node)
_Node = tuple[tuple[str, bool, frozenset[type], Rule, "_Node", Rule | None, "_Node"], ...]
_FAST: dict[str, set[type]] = {"text": {str}, "object": {dict}, "list": {list}, "bool": {bool}, "any": {object}}
_CACHE: dict[int, _Node] = {}


def _compiled(tree: Spec) -> _Node:
    node = _CACHE.get(id(tree))
    if node is None:
        node = _CACHE[id(tree)] = tuple(
            (
                key,
                required,
                frozenset(_FAST.get(rule, ())),
                RULES[rule],
                _compiled(children) if children else (),
                RULES[children["[]"][0]] if "[]" in children else None,
                _compiled(children["[]"][2]) if "[]" in children and children["[]"][2] else (),
            )
            for key, (rule, required, children) in tree.items()
            if key != "[]"
        )
        _KEEP.append(tree)  # keeps id(tree) valid
    return node


_KEEP: list[Spec] = []
_COUNT = RULES["count"]


def _walk(obj: dict[str, Any], node: _Node, prefix: str, report: Callable[[str], None]) -> dict[str, Any]:
    out = obj
    get = obj.get
    for key, required, fast, rule, children, item_rule, item_children in node:
        value = get(key)
        if value is None:
            if required:
                report(f"{prefix}{key} is missing")
            continue
        kind = type(value)
        new: dict[str, Any] | list[Any] | None
        fits = kind in fast or (kind is int and rule is _COUNT and 0 <= value < MAX_COUNT) or rule.ok(value)
        if not fits:
            report(f"{prefix}{key} is {describe(value)}, not {rule.want}; read as unknown")
            new = None
        elif children and kind is dict:
            new = _walk(value, children, f"{prefix}{key}.", report)
        elif item_rule is not None and kind is list:
            new = _items(value, item_rule, item_children, f"{prefix}{key}", report)
        else:
            continue
        if new is not value:
            if out is obj:
                out = dict(obj)
            out[key] = new
    if node is _BY_MODEL_ITEM:
        for conflict in usage_conflicts(out):
            report(f"{prefix.rstrip('.')}: {conflict}")
    return out


def _items(items: list[Any], rule: Rule, children: _Node, where: str, report: Callable[[str], None]) -> list[Any]:
    if len(items) > 4 and children and children is not _BY_MODEL_ITEM and _all_fit(items, children):
        return items  # a long list of well-formed objects (a manifest's files): checked field by field at once
    out = items
    for i, item in enumerate(items):
        if item is None:
            continue
        if not rule.ok(item):
            report(f"{where}[{i}] is {describe(item)}, not {rule.want}; read as unknown")
            new = None
        elif children and type(item) is dict:
            new = _walk(item, children, f"{where}[{i}].", report)
        else:
            continue
        if new is not item:
            if out is items:
                out = list(items)
            out[i] = new
    return out


def _all_fit(items: list[Any], children: _Node) -> bool:
    """Whether every item is an object whose fields all plainly fit (one pass per field); False: check item by item."""
    if set(map(type, items)) != {dict}:
        return False
    for key, required, fast, rule, sub, item_rule, _ in children:
        if sub or item_rule is not None:
            return False
        column = [item.get(key) for item in items]
        kinds = set(map(type, column))
        if type(None) in kinds:
            if required:
                return False
            kinds.discard(type(None))
            column = [v for v in column if v is not None]
        if not column or kinds <= fast:
            continue
        if rule.name == "count" and kinds <= {int} and min(column) >= 0 and max(column) < MAX_COUNT:
            continue
        if rule.name == "relpath" and kinds <= {str} and _names_fit(column):
            continue
        return False
    return True


_DRIVE = re.compile(r"\n[^/\n]:")  # "C:..." at the start of a name
_BAD_PARTS = tuple(a + part + b for part in ("", ".", "..") for a in "\n/" for b in "\n/")  # "\n\n", "//", "/../", "\n./" …


def _names_fit(names: list[str]) -> bool:
    """Whether all ``names`` are safe relative paths, by substring search over them joined (no call per name)."""
    joined = "\n" + "\n".join(names) + "\n"
    return (
        "\\" not in joined
        and "\x00" not in joined
        and not any(bad in joined for bad in _BAD_PARTS)
        and _DRIVE.search(joined) is None
    )


_BY_MODEL_ITEM = _compiled(SUMMARY["x-noesis_nb"][2]["usage"][2]["by_model"][2]["[]"][2])
