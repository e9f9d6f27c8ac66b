"""Mutations of real run directories, each with the report a reader owes for it.

``mutate(run, choice, rng)`` changes one thing in one file of a copied run — a field of an
event line or of a document given a value of the wrong kind (or deleted when required), a line
cut short or replaced by garbage bytes, a number turned into a NaN/Infinity literal, a value
nested deep, a document truncated or emptied, a file replaced by a directory, a FIFO or a
symlink pointing out of the run — and returns an ``Expect``: the file, the line (event lines)
and words one of the reasons must contain. ``choice`` (drawn by hypothesis) picks the file kind
and operation; ``rng`` (seeded by hypothesis) picks the line, the field and the value.
"""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from .episodes import tool_records

OUTSIDE_MARK = "LEAKED-FROM-OUTSIDE"
EVENT_OPS = ("field", "field", "field", "field", "cut_line", "garbage_line", "nan_line")
DOC_OPS = ("field", "field", "field", "truncate", "garbage", "empty", "nan")
FILE_OPS = ("directory", "symlink_out", "symlink_dir_out", "fifo")
_COUNTS = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
# The fields each document has that the frames read (format: dotted path, "[]" = each array item, "!" = required; rule)
DOC_FIELDS = {
    "summary.json": [
        "episode_id:text",
        "task:text",
        "status:text",
        "outcome:text",
        "started_at:time",
        "duration_sec:nonneg",
        "flags:object",
        "flags.using:text",
        "flags.governance_mode:text",
        "metrics:object",
        "metrics.success:success",
        "metrics.act_count:count",
        "metrics.veto_count:count",
        "tags:object",
        "x-noesis_nb:object",
        "x-noesis_nb.usage:object",
        "x-noesis_nb.usage.model_calls:count",
        "x-noesis_nb.usage.by_model:list",
        "x-noesis_nb.usage.by_model.[]:object",
        "x-noesis_nb.usage.by_model.[].model:text",
        "x-noesis_nb.usage.by_model.[].provider:text",
        "x-noesis_nb.usage.by_model.[].model_calls:count",
        *[f"x-noesis_nb.usage.by_model.[].{c}:count" for c in _COUNTS],
    ],
    "state.json": [
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
    ],
    "final.json": ["episode_id:text", "finalized_at:time", "outcome:text", "run_index:count"],
    "manifest.json": [
        "episode_id:text",
        "created_at:time",
        "files!:list",
        "files.[]:object",
        "files.[].name!:relpath",
        "files.[].size_bytes:count",
        "files.[].sha256:text",
    ],
    "prepared": [
        "draft_id:text",
        "request_id:text",
        "status:text",
        "protocol:text",
        "tool:tool",
        "governance:object",
        "governance.effect_kind:text",
        "governance.risk_tier:text",
        "governance.requires_approval:bool",
    ],
    "approvals": ["draft_id:text", "status:text", "decided_at:time", "approver_id:text", "reason:text", "reason_code:text"],
    "executions": ["draft_id:text", "status:text", "duration_ms:nonneg", "reason_code:text"],
}


def _tree(fields: list[str]) -> dict[str, Any]:
    """``["a.b:text", "l.[].x!:count"]`` → {key: (rule, required, children)}."""
    tree: dict[str, Any] = {}
    for line in fields:
        path, rule = line.rsplit(":", 1)
        node, keys = tree, path.split(".")
        for i, key in enumerate(keys):
            required, key = key.endswith("!"), key.rstrip("!")
            if i == len(keys) - 1:
                node[key] = (rule, required, node[key][2] if key in node else {})
            else:
                node = node.setdefault(key, ("object", False, {}))[2]
    return tree


DOCS = {name: _tree(fields) for name, fields in DOC_FIELDS.items()}

# wrong values by rule: every one breaks its rule (a deep list is read before it is judged)
_DEEP = "[" * 60 + "]" * 60
_TOO_DEEP = "[" * 1500 + "]" * 1500
BAD = {
    "text": ["5", "-1.5", "true", "[]", '{"a": 1}', _DEEP, _TOO_DEEP],
    "time": ['"yesterday"', '""', "1700000000", "true", '"2025-13-45T99:00:00"', "[]", '"not a time"'],
    "count": ['"12"', "-5", "true", "1.5", "100000000000000000000000000000", "1e300", "[]", "{}", "1e400"],
    "nonneg": ['"12"', "-1", "true", "1e300", "100000000000000000000000000000", "[]", "1e400"],
    "success": ['"yes"', "2", "-1", "[]", "{}"],
    "object": ["[]", '"x"', "5", "true", _DEEP],
    "list": ["{}", '"x"', "5", "false"],
    "bool": ['"yes"', "1", "0", "[]"],
    "tool": ["5", "[]", '{"name": 5}', "true", '{"version": "1"}'],
    "relpath": ['"../../etc/passwd"', '"/etc/passwd"', '""', '"a/../../b"', "5", '"a\\\\b"', '"x//y"'],
    "faculty": ['"feelings"', "5", "[]"],
}
EVENT_TOP = {
    "timestamp": "time",
    "phase": "text",
    "payload": "object",
    "id": "text",
    "agent_id": "text",
    "caused_by": "text",
    "faculty": "faculty",
    "event_type": "text",
    "metrics": "object",
}
EVENT_PAYLOAD = {"event_name": "text", "status": "text", "tool": "tool", "draft_id": "text", "model": "text", "source": "text"}
CALL_PAYLOAD = {
    k: "count" for k in ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
} | {"latency_ms": "nonneg", "cost_usd": "nonneg", "provider": "text"}
TOOL_PAYLOAD = {"request_id": "text", "reason_code": "text", "protocol": "text", "reason": "text"}
REQUIRED_EVENT = {"timestamp", "phase", "payload"}


@dataclass
class Expect:
    """The report a mutation must produce: on ``path`` (and ``line``), with one of ``words`` in its reason."""

    path: str
    line: int | None
    words: tuple[str, ...]
    what: str
    kind: str = ""

    def met(self, errors: list[dict[str, Any]]) -> bool:
        return any(
            e["path"] == self.path and (self.line is None or e["line"] == self.line) and any(w in e["reason"] for w in self.words)
            for e in errors
        )


def targets(run: Path) -> list[tuple[str, Path]]:
    """(kind, file) of every file the frames read in ``run``."""
    out = [("events", run / "events.jsonl")]
    out += [
        (name, run / name) for name in ("summary.json", "state.json", "final.json", "manifest.json") if (run / name).is_file()
    ]
    for kind in ("prepared", "approvals", "executions"):
        out += [(kind, p) for p in tool_records(run, kind)]
    return out


def mutate(run: Path, choice: tuple[int, str], rng: random.Random, outside: Path) -> Expect:
    """Apply one mutation: ``choice[0]`` picks the file (events.jsonl two times in five), ``choice[1]`` the operation."""
    files = targets(run)
    kind, path = files[0] if choice[0] % 5 < 2 or len(files) == 1 else files[1 + choice[0] // 5 % (len(files) - 1)]
    op = choice[1]
    if op in FILE_OPS:
        expect = _file_op(path, op, outside)
    elif kind == "events":
        expect = _event_op(path, EVENT_OPS[rng.randrange(len(EVENT_OPS))] if op == "any" else op, rng)
    else:
        expect = _doc_op(path, DOCS[kind], DOC_OPS[rng.randrange(len(DOC_OPS))] if op == "any" else op, rng)
    expect.kind = kind
    return expect


def _file_op(path: Path, op: str, outside: Path) -> Expect:
    os.unlink(path)
    if op == "directory":
        path.mkdir()
        (path / "inner.json").write_text("{}")
        return Expect(str(path), None, ("a directory",), f"{path.name} replaced by a directory")
    if op == "fifo":
        os.mkfifo(path)
        return Expect(str(path), None, ("FIFO",), f"{path.name} replaced by a FIFO")
    target = outside if op == "symlink_dir_out" else outside / ("events.jsonl" if path.name == "events.jsonl" else "doc.json")
    os.symlink(target, path)
    return Expect(str(path), None, ("symlink", "a directory"), f"{path.name} is a symlink to {target}")


def _literal(value: str) -> Any:
    return orjson.loads(value)


def _event_op(path: Path, op: str, rng: random.Random) -> Expect:
    lines = path.read_bytes().split(b"\n")
    body = [i for i, raw in enumerate(lines) if raw.strip()]
    index = body[rng.randrange(len(body))]
    number = index + 1
    raw = lines[index]
    where = str(path)
    if op == "cut_line":
        lines[index] = raw[: rng.randrange(1, len(raw) - 1)]
        words: tuple[str, ...] = ("invalid JSON",)
        what = "event line cut short"
    elif op == "nan_line" and _invalid(
        nan := re.sub(rb'":(\s*)-?\d[\d.eE+-]*', rb'":\1' + rng.choice([b"NaN", b"Infinity", b"-Infinity"]), raw, count=1)
    ):
        lines[index] = nan
        words, what = ("invalid JSON",), "a number in an event line replaced by a NaN/Infinity literal"
    elif op in ("garbage_line", "nan_line"):  # nan_line without a number to replace: garbage instead
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\xff{"
        # a first line starting with gzip's magic is rightly reported as a gzip'd log, not as garbage
        lines[index] = b"\x00" + junk[1:] if junk.startswith(b"\x1f\x8b") else junk
        words, what = ("invalid JSON", "invalid UTF-8"), "event line replaced by garbage bytes"
    else:
        event = json.loads(raw)
        fields = dict(EVENT_TOP)
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        fields |= {f"payload.{k}": r for k, r in EVENT_PAYLOAD.items()}
        if payload.get("event_name") == "model.call":
            fields |= {f"payload.{k}": r for k, r in CALL_PAYLOAD.items()}
        if event.get("phase") == "tool":
            fields |= {f"payload.{k}": r for k, r in TOOL_PAYLOAD.items()}
        if isinstance(event.get("metrics"), dict):
            fields["metrics.duration_ms"] = "nonneg"
        field = rng.choice(sorted(fields))
        delete = field in REQUIRED_EVENT and rng.random() < 0.3
        value = None if delete else rng.choice(BAD[fields[field]])
        lines[index] = _set_raw(raw, field.split("."), value)
        report = "id" if field == "id" else field
        words = (f"{report} is", f"{report} '", "invalid JSON")
        what = f"event field {field} " + ("deleted" if delete else f"set to {value[:30]}")
    path.write_bytes(b"\n".join(lines))
    return Expect(where, number, words, what)


def _set_raw(raw: bytes, keys: list[str], value: str | None) -> bytes:
    """``raw`` (one JSON object) with ``keys`` set to the JSON text ``value`` (None: deleted), as text."""
    marker = "__MUTATED_VALUE__"
    doc = json.loads(raw)
    node = doc
    for key in keys[:-1]:
        node = node.setdefault(key, {}) if isinstance(node.get(key), dict) or key not in node else node[key]
        if not isinstance(node, dict):
            return raw  # unreachable in practice: parents of mutated fields are objects
    if value is None:
        node.pop(keys[-1], None)
        return json.dumps(doc).encode()
    node[keys[-1]] = marker
    return json.dumps(doc).replace(json.dumps(marker), value).encode()


def _doc_paths(doc: dict[str, Any], tree: dict[str, Any], prefix: list[Any]) -> list[tuple[list[Any], str, bool]]:
    """(key path, rule, required) for each spec'd field whose parent exists in ``doc``; ``[]`` → an existing index."""
    out = []
    for key, (rule, required, children) in tree.items():
        if key == "[]":
            continue
        out.append(([*prefix, key], rule, required))
        value = doc.get(key)
        if isinstance(value, dict) and children:
            out += _doc_paths(value, children, [*prefix, key])
        elif isinstance(value, list) and value and "[]" in children:
            item_rule, _, item_children = children["[]"]
            for i, item in enumerate(value[:3]):
                out.append(([*prefix, key, i], item_rule, False))
                if isinstance(item, dict):
                    out += _doc_paths(item, item_children, [*prefix, key, i])
    return out


def _shown(keys: list[Any]) -> str:
    text = ""
    for key in keys:
        text += f"[{key}]" if isinstance(key, int) else (f".{key}" if text else key)
    return text


def _doc_op(path: Path, tree: dict[str, Any], op: str, rng: random.Random) -> Expect:
    data = path.read_bytes()
    body = data.rstrip()
    where = str(path)
    if op == "truncate":
        path.write_bytes(body[: rng.randrange(1, len(body))])
        return Expect(where, None, ("invalid JSON",), f"{path.name} truncated")
    if op == "garbage":
        start = rng.randrange(len(body))
        path.write_bytes(body[:start] + b"\xff\xfe" + bytes(rng.randrange(256) for _ in range(8)) + body[start + 1 :])
        return Expect(where, None, ("invalid JSON",), f"{path.name} has garbage bytes")
    if op == "empty":
        path.write_bytes(b"")
        return Expect(where, None, ("invalid JSON",), f"{path.name} emptied")
    nan = re.sub(rb'":(\s*)-?\d[\d.eE+-]*', rb'":\1' + rng.choice([b"NaN", b"Infinity"]), body, count=1)
    if op == "nan" and _invalid(nan):
        path.write_bytes(nan)
        return Expect(where, None, ("invalid JSON",), f"a number in {path.name} replaced by a NaN/Infinity literal")
    doc = json.loads(data)
    keys, rule, required = rng.choice(_doc_paths(doc, tree, []))
    delete = required and rng.random() < 0.4
    value = None if delete else rng.choice(BAD[rule])
    text = _set_doc(doc, keys, value)
    path.write_text(text)
    shown = _shown(keys)
    words = (f"{shown} is missing",) if delete else (f"{shown} is ",)
    if not delete and _invalid(text):
        words = ("invalid JSON",)
    return Expect(where, None, words, f"{path.name}: {shown} " + ("deleted" if delete else f"set to {value[:30]}"))


def _set_doc(doc: dict[str, Any], keys: list[Any], value: str | None) -> str:
    marker = "__MUTATED_VALUE__"
    node: Any = doc
    for key in keys[:-1]:
        node = node[key]
    if value is None:
        node.pop(keys[-1], None) if isinstance(node, dict) else node.__setitem__(keys[-1], None)
        return json.dumps(doc, indent=1)
    node[keys[-1]] = marker
    return json.dumps(doc, indent=1).replace(json.dumps(marker), value)


def _invalid(text: str | bytes) -> bool:
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return True
    return False
