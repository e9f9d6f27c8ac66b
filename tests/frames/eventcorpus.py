"""A varied crafted corpus of runs for the event frames, and a canonical text dump of the frames built from it.

``build(root)`` writes the same bytes every time (a seeded generator): good runs of several sizes
mixed with hostile lines — wrong-typed fields, non-object payloads, tool dicts, runtime events,
repeated ids (in a run and across runs), times going backwards, unparseable and odd timestamps,
events naming other episodes, corrupt, blank and torn lines. ``frames_text()`` loads every event
frame from it (in this process) and dumps columns, dtypes, categories, values, row order and the
problem rows as text, with the corpus folder replaced by ``<root>``: frozen once with the code of a
known-good release (``tests/fixtures/events_frames/make_expected.py``), compared by the tests after.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

_PHASES = ["start", "observe", "interpret", "plan", "model", "reason", "tool", "act", "reflect", "learn", "terminate"]
_NAMES = ["model.call", "tool.requested", "tool.draft_created", "plan.step", None, "Model.Call", "model_call"]
_MODELS = ["gpt-4o", "claude-sonnet-4", "gpt-4o-mini", None]
_BAD_TIMES: list[Any] = [
    "yesterday",
    "2025-13-01T00:00:00.000000+00:00",  # the fixed shape, month 13
    "2025-02-30T10:00:00.000000+00:00",  # the fixed shape, 30 February
    "2025-01-01T00:00:00Z",  # another ISO form (parses)
    "2025-01-01 08:00:00.5+02:00",  # a space, short fraction (parses)
    "2025-01-01T00:00:00.000000-05:30",  # the fixed shape, negative offset
    "2025-01-01T00:00:00.000000+24:00",  # offset out of range
    "2025-01-01T00:00:00,000000+00:00",  # a comma where the dot goes
    "2025-01-01T00:00:00.000000+00:0\u00e9",  # 32 characters, not ASCII
    "0001-01-01T00:00:00.000000+00:00",  # out of pandas' range
    "",
    12345,
    None,
    ["2025-01-01T00:00:00Z"],
]
_HOSTILE_FIELDS: list[tuple[str, Any]] = [
    ("id", 17),
    ("id", None),
    ("phase", 3),
    ("phase", ""),
    ("phase", None),
    ("phase", "modle"),
    ("phase", "Model"),
    ("agent_id", ["a"]),
    ("caused_by", {"id": "x"}),
    ("faculty", "bogus"),
    ("faculty", 2),
    ("faculty", "insight"),
    ("event_type", 5),
    ("metrics", [1, 2]),
    ("metrics", {"duration_ms": -3}),
    ("metrics", {"duration_ms": "12"}),
    ("metrics", {"duration_ms": True}),
    ("metrics", {"duration_ms": 2.5e16}),
    ("metrics", {"duration_ms": 7}),
    ("payload", ["not", "an", "object"]),
    ("payload", "text"),
    ("payload", None),
    ("payload", 5),
    ("episode_id", "someone_else"),
    ("episode_id", None),
]
_HOSTILE_PAYLOADS: list[dict[str, Any]] = [
    {"event_name": 12},
    {"status": ["ok"]},
    {"tool": {"name": "read_file", "namespace": "fs", "version": 2}},
    {"tool": {"name": 3}},
    {"tool": ["x"]},
    {"tool": "fs.write@1"},
    {"draft_id": 9},
    {"model": {"id": "gpt"}},
    {"source": "langgraph"},
    {"source": ["langgraph"]},
    {"source": "planner.minimal"},
    {"event_name": "model.call", "model": "gpt-4o", "input_tokens": "12", "output_tokens": -1},
    {"event_name": "model.call", "model": "gpt-4o", "input_tokens": 10, "cached_input_tokens": 20},
    {"event_name": "model.call", "input_tokens": 5, "output_tokens": 3, "reasoning_tokens": 9, "latency_ms": -2},
    {"event_name": "model.call", "cost_usd": "free", "provider": 4, "model_calls": 1.5},
    {"event_name": "tool.requested", "request_id": 4, "reason_code": ["x"], "protocol": 1},
    {"event_name": "mod\u200bel.call"},
    {"event_name": "model.call", "input_tokens": 1e300},
]


def _ts(t: int) -> str:
    """The writer's fixed shape (``+00:00``), ``t`` milliseconds after 2025-01-01."""
    seconds, ms = divmod(t, 1000)
    minutes, s = divmod(seconds, 60)
    hours, m = divmod(minutes, 60)
    days, h = divmod(hours, 24)
    return f"2025-01-{1 + days:02d}T{h:02d}:{m:02d}:{s:02d}.{ms:03d}{t % 997:03d}+00:00"


def _good(rnd: random.Random, ep: str, n: int, t: int, prev: str | None) -> dict[str, Any]:
    phase = rnd.choice(_PHASES)
    payload: dict[str, Any] = {"text": f"step {n}"}
    if phase == "model":
        payload = {
            "event_name": "model.call",
            "model": rnd.choice(_MODELS),
            "provider": "openai",
            "input_tokens": rnd.randint(10, 900),
            "output_tokens": rnd.randint(1, 90),
            "latency_ms": round(rnd.uniform(1, 900), 1),
        }
    elif phase == "tool":
        payload = {"event_name": rnd.choice(_NAMES[1:4]), "request_id": f"req{n % 7}", "status": rnd.choice(["ok", "denied"])}
        if rnd.random() < 0.5:
            payload["tool"] = rnd.choice(["read_file", "fs.write@1", {"name": "grep", "namespace": "fs"}])
        if rnd.random() < 0.3:
            payload["draft_id"] = f"draft:{ep}:req{n % 7}"
    elif phase == "act":
        payload = {"tool": "adapter:x", "reason": rnd.choice(["fine", "slow", None]), "kind": rnd.choice(["a", "b"])}
    elif rnd.random() < 0.2:
        payload["event_name"] = rnd.choice(_NAMES)
    event: dict[str, Any] = {
        "id": f"{ep}-{n:05d}",
        "episode_id": ep,
        "agent_id": rnd.choice(["system", "model:openai", "adapter:x", "tool_contract"]),
        "phase": phase,
        "payload": payload,
        "evidence_ids": [],
        "timestamp": _ts(t),
    }
    if prev is not None:
        event["caused_by"] = prev
    if phase == "act":
        event["metrics"] = {"duration_ms": round(rnd.uniform(0, 50), 3)}
    if rnd.random() < 0.05:
        event["faculty"] = rnd.choice(["intuition", "direction", "governance", "insight"])
    return event


def _runtime(ep: str, n: int, t: int) -> dict[str, Any]:
    return {
        "id": f"{ep}-{n:05d}",
        "episode_id": ep,
        "agent_id": "system",
        "phase": "runtime",
        "payload": {"kind": "run.state_projection", "status": "ok", "event_name": "ignored"},
        "event_type": "run.state_projection",
        "timestamp": _ts(t),
    }


def _line(event: Any, spaced: bool) -> bytes:
    if spaced:
        return (json.dumps(event) + "\n").encode()
    return (json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


def _run_lines(rnd: random.Random, ep: str, size: int, hostile: float) -> list[bytes]:
    lines: list[bytes] = []
    t = rnd.randint(0, 10_000_000)
    prev: str | None = None
    spaced = rnd.random() < 0.15
    for n in range(size):
        t += rnd.randint(0, 900)
        event = _runtime(ep, n, t) if rnd.random() < 0.05 else _good(rnd, ep, n, t, prev)
        if rnd.random() < hostile:
            kind = rnd.randrange(7)
            if kind == 0:
                key, value = rnd.choice(_HOSTILE_FIELDS)
                event[key] = value
            elif kind == 1:
                event["timestamp"] = rnd.choice(_BAD_TIMES)
            elif kind == 2:
                event["payload"] = dict(rnd.choice(_HOSTILE_PAYLOADS))
            elif kind == 3:  # a time going backwards
                event["timestamp"] = _ts(max(0, t - rnd.randint(1_000, 100_000)))
            elif kind == 4 and n > 0:  # an id said again
                event["id"] = f"{ep}-{rnd.randrange(n):05d}"
            elif kind == 5:
                del event["timestamp"]
            else:
                event.pop(rnd.choice(["phase", "payload", "id", "agent_id"]), None)
        prev = event.get("id") if type(event.get("id")) is str else prev
        lines.append(_line(event, spaced))
        if rnd.random() < hostile / 6:
            lines.append(rnd.choice([b"{not json\n", b"[1, 2]\n", b"\n", b"   \n", b'"text"\n', b"null\n"]))
    return lines


def build(root: Path, seed: int = 16) -> Path:
    """Write the corpus under ``root`` (created); returns it. The same bytes for the same seed."""
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    sizes = [1, 2, 3, 5, 8, 13, 30, 31, 40, 255, 256, 257, 600, 1500] + [rnd.randint(1, 60) for _ in range(70)]
    kept: list[list[bytes]] = []
    for i, size in enumerate(sizes):
        ep = f"ep_{i:04d}_crafted"
        run = root / ep
        run.mkdir()
        hostile = rnd.choice([0.0, 0.0, 0.05, 0.3, 0.8])
        lines = _run_lines(rnd, ep, size, hostile)
        if i % 17 == 5 and kept:  # a copy of an earlier run's lines: its ids and episode are that run's
            lines = list(rnd.choice(kept))
        kept.append(lines)
        data = b"".join(lines)
        if i % 13 == 7:  # torn: the last line cut while being appended
            data = data[: -rnd.randint(2, 20)]
        (run / "events.jsonl").write_bytes(data)
        if i % 11 == 3:
            (run / "summary.json").write_text(json.dumps({"episode_id": ep, "tags": {"source": "langgraph"}}))
        elif i % 11 == 4:
            (run / "summary.json").write_text(json.dumps({"episode_id": ep, "x-noesis_nb": {}}))
    (root / "ep_9000_empty").mkdir()
    (root / "ep_9000_empty" / "events.jsonl").write_bytes(b"")
    (root / "ep_9001_blank").mkdir()
    (root / "ep_9001_blank" / "events.jsonl").write_bytes(b"\n\n")
    (root / "ep_9002_no_log").mkdir()
    (root / "ep_9002_no_log" / "summary.json").write_text(json.dumps({"episode_id": "ep_9002_no_log"}))
    return root


def extra_columns() -> list[Any]:
    from noesis_nb.frames import Column

    return [
        Column("reason", path="payload.reason", type="str"),
        Column("kind", path="payload.kind", type="category"),
        Column("latency", path="payload.latency_ms", type="float"),
        Column("tokens", path="payload.output_tokens", type="int"),
        Column("when", path="payload.timestamp", type="datetime"),
        Column("ok", path="payload.success", type="bool"),
        Column("evidence", path="evidence_ids", type="object"),
        Column("named", fn=_named, type="category"),
    ]


def _named(event: Any) -> Any:
    payload = event.get("payload")
    return payload.get("event_name") if type(payload) is dict else 7


def _value(v: Any) -> str:
    if isinstance(v, float) and v != v:
        return "nan"
    return f"{type(v).__name__}:{v!r}"


def dump(df: Any, root: Path, label: str) -> list[str]:
    """Lines saying everything the frame holds: columns, dtypes, categories, each value with its type, and the problems."""
    import pandas as pd

    out = [f"## {label}: {len(df)} rows", f"columns {list(df.columns)!r}", f"index {df.index!r}"]
    for name in df.columns:
        column = df[name]
        out.append(f"# {name} {column.dtype}")
        if isinstance(column.dtype, pd.CategoricalDtype):
            out.append(f"categories {[_value(c) for c in column.cat.categories]} ordered={column.cat.ordered}")
            out.append(f"codes {column.cat.codes.tolist()!r}")
        else:
            out.extend(_value(v) for v in column.tolist())
    errors = df.attrs.get("errors")
    out.append(f"# errors {type(errors).__name__} {len(errors) if errors is not None else None}")
    out.extend(_value(problem) for problem in errors or ())
    other = {k: v for k, v in df.attrs.items() if k != "errors"}
    out.append(f"attrs {other!r}")
    return [line.replace(str(root), "<root>") for line in out]


def frames_text(root: Path) -> str:
    """Every event frame of the corpus, dumped: events_df plain and with extra columns, cold and from the cache,
    and tools_df and usage_df (which read the same event columns)."""
    from noesis_nb.frames import events_df, tools_df, usage_df

    lines: list[str] = []
    lines += dump(events_df(root, cache=False, progress=False), root, "events_df")
    lines += dump(events_df(root, columns=extra_columns(), cache=False, progress=False), root, "events_df columns")
    events_df(root, progress=False)
    lines += dump(events_df(root, progress=False), root, "events_df cached")
    lines += dump(events_df(root, phases=["model", "tool"], progress=False), root, "events_df phases")
    lines += dump(tools_df(root, cache=False, progress=False), root, "tools_df")
    lines += dump(usage_df(root, cache=False, progress=False), root, "usage_df")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    """``python -m tests.frames.eventcorpus ROOT OUT [--no-pyarrow] [--small-batches]``: dump ROOT's frames to OUT.

    ``--no-pyarrow`` blocks pyarrow before pandas is imported (a default install); ``--small-batches``
    seals a batch every 300 rows, so runs and chunks straddle many batch boundaries.
    """
    if "--no-pyarrow" in argv:
        import tests.hardening._no_pyarrow  # noqa: F401  (before pandas)
    if "--small-batches" in argv:
        from noesis_nb.frames import eventblocks

        eventblocks._BATCH_ROWS = 300
    Path(argv[1]).write_text(frames_text(Path(argv[0])), encoding="utf-8")


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
