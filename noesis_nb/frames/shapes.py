"""What the fields of each run document must hold, and a checker that reads misfits as unknown and reports them.

One spec per document (summary, state, final, manifest, the three tool records): dotted paths
to the fields the frames read (and the documented ones beside them), each with a rule from
``values.RULES``; ``[]`` stands for every item of an array, ``!`` marks a field that must be
present. ``check`` returns the document with every misfit replaced by None — copying only
the objects on the way to a change, never the caller's — and reports each one with its path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from .values import RULES, TOKEN_KEYS, describe, usage_conflicts

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
SUMMARY = spec([
    "episode_id:text", "task:text", "status:text", "outcome:text", "schema_version:text", "adapter_result:text",
    "started_at:time", "duration_sec:nonneg", "flags:object", "flags.using:text", "flags.governance_mode:text",
    "flags.mode:text", "metrics:object", "metrics.success:success", "metrics.act_count:count", "metrics.veto_count:count",
    "metrics.would_veto_count:count", "tags:object", "x-noesis_nb:object", "x-noesis_nb.usage:object",
    "x-noesis_nb.usage.model_calls:count", *[f"x-noesis_nb.usage.{c}" for c in _COUNTS], "x-noesis_nb.usage.by_model:list",
    "x-noesis_nb.usage.by_model.[]:object", "x-noesis_nb.usage.by_model.[].model:text", "x-noesis_nb.usage.by_model.[].provider:text",
    "x-noesis_nb.usage.by_model.[].model_calls:count", *[f"x-noesis_nb.usage.by_model.[].{c}" for c in _COUNTS],
])
STATE = spec([
    "version:text", "state_schema_version:text", "episode:object", "episode.id:text", "episode.started_at:time",
    "episode.using:text", "episode.tags:object", "goal:object", "goal.task:text", "outcomes:object", "outcomes.status:text",
    "outcomes.actions:list", "x-noesis_nb:object", "x-noesis_nb.governance_mode:text",
])
FINAL = spec([
    "schema_version:text", "episode_id:text", "process_id:text", "run_index:count", "finalized_at:time", "outcome:text",
    "verification_status:text",
])
MANIFEST = spec([
    "schema_version:text", "episode_id:text", "created_at:time", "signer:text", "files!:list", "files.[]:object",
    "files.[].name!:relpath", "files.[].sha256:text", "files.[].size_bytes:count", "files.[].kind:text",
])
_TOOL_IDS = ["draft_id:text", "request_id:text", "run_id:text", "schema_version:text", "status:text", "reason_code:text"]
PREPARED = spec([
    *_TOOL_IDS, "protocol:text", "tool:tool", "governance:object", "governance.effect_kind:text", "governance.risk_tier:text",
    "governance.requires_approval:bool", "governance.candidate_id:text", "governance.tags:list", "execution:object",
    "execution.timeout_ms:count", "execution.retry_limit:count", "execution.idempotency_key:text", "payload:object",
    "security:object",
])
APPROVAL = spec([*_TOOL_IDS, "decision_id:text", "approver_id:text", "reason:text", "decided_at:time", "candidate_id:text"])
EXECUTION = spec([*_TOOL_IDS, "execution_id:text", "duration_ms:nonneg", "replayed_from_execution_id:text"])


def check(doc: dict[str, Any], tree: Spec, report: Callable[[str], None]) -> dict[str, Any]:
    """``doc`` with the fields that break ``tree`` read as None; each one reported as ``"<path> is …"``."""
    return _walk(doc, tree, "", report)


def _walk(obj: dict[str, Any], tree: Spec, prefix: str, report: Callable[[str], None]) -> dict[str, Any]:
    out = obj
    for key, (rule_name, required, children) in tree.items():
        value = obj.get(key)
        where = prefix + key
        if value is None:
            if required:
                report(f"{where} is missing")
            continue
        new = _value(value, rule_name, children, where, report)
        if new is not value:
            if out is obj:
                out = dict(obj)
            out[key] = new
    if tree is _BY_MODEL_ITEM:
        for conflict in usage_conflicts(out):
            report(f"{prefix.rstrip('.')}: {conflict}")
    return out


def _value(value: Any, rule_name: str, children: Spec, where: str, report: Callable[[str], None]) -> Any:
    rule = RULES[rule_name]
    if not rule.ok(value):
        report(f"{where} is {describe(value)}, not {rule.want}; read as unknown")
        return None
    if not children:
        return value
    if type(value) is dict:
        return _walk(value, children, where + ".", report)
    if type(value) is list and "[]" in children:
        item_rule, _, item_children = children["[]"]
        items = value
        for i, item in enumerate(value):
            if item is None:
                continue
            new = _value(item, item_rule, item_children, f"{where}[{i}]", report)
            if new is not item:
                if items is value:
                    items = list(value)
                items[i] = new
        return items
    return value


_BY_MODEL_ITEM = SUMMARY["x-noesis_nb"][2]["usage"][2]["by_model"][2]["[]"][2]
