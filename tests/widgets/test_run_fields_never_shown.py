"""No field of a run another program wrote reaches a view's widget state or its output with a key in it.

A run folder can say anything in any field: a phase, an agent id, an event's name, kind or type, a time, a model
and its provider, a tool name, an error, a rule, a status, a draft's fingerprint. Each is planted here as a key,
and the view is looked at every way a person can (steps, every step expanded, raw events, ``replay`` at several
moments, ``replay(…, compare=…)``, and the inbox), then the whole state of every widget in it is taken, walking each
widget's ``get_state()`` to the widgets it holds, with the output bundle (``text/plain``, ``text/html``). No
8-character piece of any key may be in it, in any case (a status is read lowercased). Before: a phase was shown in
the counts line, a status in the badge and the ``text/plain`` line, a time that was none by its first 12 characters,
and a draft's fingerprint and impact hash on its card.
"""

from __future__ import annotations

import asyncio
import json
import secrets as random_secrets
import shutil
import string
import sys
from pathlib import Path
from typing import Any

import pytest
from ipywidgets.widgets.widget import _instances

import noesis_nb
from noesis_nb.frames.loadwarning import LoadProblemsWarning

_ALNUM = string.ascii_letters + string.digits


class Keys:
    """Fresh keys, one a field, and every 8-character piece of their random parts (lowercased)."""

    def __init__(self) -> None:
        self.pieces: dict[str, str] = {}

    def __call__(self, field: str, prefix: str = "sk-proj-", size: int = 44) -> str:
        body = "".join(random_secrets.choice(_ALNUM) for _ in range(size))
        for i in range(len(body) - 7):
            self.pieces[body[i : i + 8].lower()] = field
        return prefix + body

    def leaked(self, text: str) -> dict[str, str]:
        low = text.lower()
        found: dict[str, str] = {}
        for piece, field in self.pieces.items():
            at = low.find(piece)
            if at >= 0 and field not in found:
                found[field] = text[max(0, at - 120) : at + 20]
        return found


def _widget_state(root: Any) -> str:
    """The state of ``root`` and of every widget it holds, as JSON text (what a saved notebook's widget state keeps)."""
    seen: set[str] = set()
    stack, texts = [root.model_id], []
    while stack:
        model_id = stack.pop()
        if model_id in seen or model_id not in _instances:
            continue
        seen.add(model_id)
        state = _instances[model_id].get_state()
        text = json.dumps(state, default=str)
        texts.append(text)
        stack.extend(ref[len("IPY_MODEL_") :] for ref in _refs(state))
    assert len(seen) > 20, len(seen)  # the walk went into the view, not only its root
    return "\n".join(texts)


def _refs(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value] if value.startswith("IPY_MODEL_") else []
    if isinstance(value, dict):
        return [r for v in value.values() for r in _refs(v)]
    if isinstance(value, (list, tuple)):
        return [r for v in value for r in _refs(v)]
    return []


def _seen(widget: Any) -> str:
    """The widget's whole state and its output bundle."""
    return _widget_state(widget) + json.dumps(widget._repr_mimebundle_(), default=str)


def _foreign_run(root: Path, key: Keys) -> Path:
    episode = "ep_fields"
    events: list[dict[str, Any]] = []

    def event(phase: str, payload: dict[str, Any], **fields: Any) -> None:
        i = len(events)
        line = {
            "id": f"00000000-0000-4000-8000-{i:012d}",
            "timestamp": f"2025-11-11T02:19:{10 + i:02d}.000000+00:00",
            "episode_id": episode,
            "agent_id": "system",
            "phase": phase,
            "payload": payload,
            "evidence_ids": [],
        }
        events.append({**line, **fields})

    event("start", {"task": "probe", "seed": 0, "using": "probe"})
    event(key("phase"), {"a": 1})
    event("x" + key("phase glued"), {"a": 1})
    event("tool." + key("phase dotted"), {"a": 1})
    event("act", {"a": 1}, agent_id=key("agent id"))
    event("act", {"event_name": key("event name")})
    event("runtime", {"kind": key("kind"), "status": key("runtime status")})
    event("act", {"a": 1}, timestamp=key("time", prefix="ghp_", size=36))
    event("act", {"a": 1}, event_type=key("event type"))
    event("act", {"a": 1}, caused_by=key("caused by"))
    event(
        "model",
        {"event_name": "model.call", "model": key("model"), "provider": key("provider"), "input_tokens": 5, "output_tokens": 3},
        agent_id="model:x",
    )
    event("act", {"tool": key("tool"), "status": "ok"})
    event("error", {"error": key("error"), "message": key("message")})
    event("governance", {"decision": key("decision"), "rule_id": key("rule"), "message": key("rule message")})
    event("tool", {"event_name": "tool.execution.failed", "tool": key("failed tool"), "reason_code": key("reason code")})
    event("terminate", {"status": key("terminate status")})
    run = root / episode
    run.mkdir(parents=True)
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    summary = {
        "episode_id": episode,
        "task": "probe " + key("task"),
        "started_at": "2025-11-11T02:19:10+00:00",
        "status": key("summary status"),
        "flags": {"using": key("using")},
    }
    (run / "summary.json").write_text(json.dumps(summary))
    return run


def _assert_nothing_shown(key: Keys, where: str, text: str) -> None:
    leaked = key.leaked(text)
    assert not leaked, f"{where}: a key planted in {sorted(leaked)} is shown, e.g. …{next(iter(leaked.values()))!r}"


def test_no_field_of_a_foreign_run_is_shown_with_its_key(tmp_path: Path) -> None:
    key = Keys()
    run = _foreign_run(tmp_path / "runs", key)
    view = noesis_nb.show(run)
    assert view.events_seen == 16
    for row in view.steps.rows():
        row.toggle.value = True  # every step's events, and each of those expands to the whole event
    _assert_nothing_shown(key, "steps, expanded", _seen(view))
    view.mode.value = "events"
    _assert_nothing_shown(key, "raw events", _seen(view))

    replay = noesis_nb.replay(run)
    for k in (16, 2, 4, 9, 0, 16):
        replay.seek(k)
        _assert_nothing_shown(key, f"replay at event {k}", _seen(replay))
    replay.view.mode.value = "events"
    _assert_nothing_shown(key, "replay, raw events", _seen(replay))

    other = tmp_path / "other" / run.name
    shutil.copytree(run, other)
    with pytest.warns(LoadProblemsWarning):  # the event whose time is a key: named among the frames' problems
        compare = noesis_nb.replay(run, compare=other)
    for i in (len(compare.table), 1, 5, 0):
        compare.seek_step(i)
        _assert_nothing_shown(key, f"compare at step {i}", _seen(compare))


def test_no_field_of_a_paused_run_draft_is_shown_with_its_key(tmp_path: Path) -> None:
    """A run paused on a tool draft whose file another program then rewrote: its card, the inbox and a replay."""

    async def agent(task: str, ctx: Any) -> Any:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=120, output_tokens=30)
        return await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", "print(1)"]}, effect="write", risk="high")

    async def paused() -> Path:
        handle = noesis_nb.start("pause", using=agent, runs_dir=tmp_path)
        await handle
        assert handle.status == "paused"
        return Path(handle.run_dir)

    run = asyncio.run(paused())
    key = Keys()
    (prepared,) = (run / "tool_invocations" / "prepared").iterdir()
    draft = json.loads(prepared.read_text())
    draft["tool"] = {"name": key("tool name"), "namespace": key("tool namespace"), "version": None}
    draft["payload"]["request_fingerprint"] = key("fingerprint")
    draft["preflight"]["impact_hash"] = key("impact hash")
    prepared.write_text(json.dumps(draft))

    view = noesis_nb.show(run)
    assert len(view.source.pending) == 1 and view.approvals.cards  # the card is drawn, from the rewritten file
    for row in view.steps.rows():
        row.toggle.value = True
    _assert_nothing_shown(key, "paused run's view", _seen(view))
    view.mode.value = "events"
    _assert_nothing_shown(key, "paused run's raw events", _seen(view))
    _assert_nothing_shown(key, "paused run's replay", _seen(noesis_nb.replay(run)))
    inbox = noesis_nb.inbox(tmp_path)
    try:
        _assert_nothing_shown(key, "inbox", _seen(inbox))
    finally:
        inbox.close()
