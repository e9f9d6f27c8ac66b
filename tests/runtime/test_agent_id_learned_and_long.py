"""An event's agent id is judged once per distinct id and run (``Recorder._agents``). Two gaps of that memo:

- an id judged before the run learned a value (a client's key captured mid-run) was reused as judged: every later
  event a live subscriber got named the value in clear in its ``agent_id`` while its payload said ``[REDACTED]``.
  The memo is now forgotten when the run learns a value (the runtime's own ids kept).
- an agent id had no length limit: a 100 KB one was taken and written on each event, and each distinct 2 KB id cost
  a screen of its own. ``ctx.emit`` now refuses one over ``MAX_AGENT_ID`` characters, naming its start and the limit.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.runtime.context import MAX_AGENT_ID
from noesis_nb.secrets import for_run
from tests.callcount import counting_calls


def _secret() -> str:
    return "Zq" + "".join(random.choices(string.ascii_letters + string.digits, k=22))


def test_names_judged_before_a_value_is_learned_are_hidden_in_live_events_after(runs_dir: Path) -> None:
    """An agent id (a captured call's, an adapter's) and a phase accepted whole, each judged before the run learned
    the value they hold: the events written after name them redacted."""
    secret = _secret()
    seen: list[dict[str, Any]] = []

    def agent(task: str, ctx: Any) -> int:
        for step in ("before", "after"):
            if step == "after":
                for_run(ctx.run_dir).learn([secret])  # a client's key captured, say
            ctx.model_call("gpt-4o", provider=f"acme-{secret}", input_tokens=1, output_tokens=1)
            ctx.emit("note", {"step": step}, agent_id=f"sub-{secret}")
            for _ in range(2):  # accepted whole the first time: the next event takes the hot path
                ctx.emit(f"x-{secret}", {"step": step})
        return 1

    async def cell() -> None:
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir)
        handle.subscribe(seen.append)
        await handle.wait()

    asyncio.run(cell())
    models = [e for e in seen if e["phase"] == "model"]
    notes = [e for e in seen if e["phase"] == "note"]
    assert len(models) == 2 and len(notes) == 2, [e["phase"] for e in seen]
    after = [e for e in seen if e["payload"].get("step") == "after" or e in models[1:]]
    assert [(e["phase"], e["agent_id"]) for e in after] == [
        ("model", "model:acme-[REDACTED]"),
        ("note", "sub-[REDACTED]"),
        ("x-[REDACTED]", "adapter:agent"),
        ("x-[REDACTED]", "adapter:agent"),
    ], [(e["phase"], e["agent_id"]) for e in after]
    assert models[1]["payload"]["provider"] == "acme-[REDACTED]"
    # the runtime's own ids are written as before
    assert "system" in {e["agent_id"] for e in seen}
    assert [p for p in runs_dir.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()] == []


def test_an_agent_id_over_the_limit_is_refused_naming_its_start_and_the_limit(runs_dir: Path) -> None:
    said: dict[str, str] = {}

    def agent(task: str, ctx: Any) -> int:
        ctx.emit("note", {"text": "x"}, agent_id="w" * MAX_AGENT_ID)  # at the limit: taken
        for size in (MAX_AGENT_ID + 1, 100_000):
            try:
                ctx.emit("note", {"text": "x"}, agent_id="lead-" + "b" * size)
            except InvalidOptionError as exc:
                said[str(size)] = str(exc)
        return 1

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert sorted(said) == sorted([str(MAX_AGENT_ID + 1), "100000"]), said
    for message in said.values():
        assert "agent_id='lead-bbb" in message and f"longer than {MAX_AGENT_ID} characters" in message, message
        assert len(message) < 400, message
    events = (next(runs_dir.iterdir()) / "events.jsonl").read_text()
    assert "w" * MAX_AGENT_ID in events and "lead-" not in events


def test_a_peers_long_provider_is_written_cut_in_its_agent_id_as_in_its_payload(runs_dir: Path) -> None:
    from noesis_nb.integrations._emit import emit_row
    from noesis_nb.store.vocab import MODEL_CALL

    provider = "peer-" + "p" * 5_000

    def agent(task: str, ctx: Any) -> int:
        payload = {"event_name": MODEL_CALL, "model": "m", "provider": provider, "input_tokens": 1, "output_tokens": 1}
        emit_row(ctx, ("model", payload))
        return 1

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    events = [json.loads(line) for line in (next(runs_dir.iterdir()) / "events.jsonl").read_text().splitlines()]
    model = next(e for e in events if e["phase"] == "model")
    assert model["agent_id"] == f"model:{model['payload']['provider']}", model["agent_id"][:80]
    assert model["agent_id"].startswith("model:peer-ppp") and len(model["agent_id"]) <= MAX_AGENT_ID


def test_an_agent_id_written_empty_is_judged_once(runs_dir: Path) -> None:
    """The memo kept an id judged to ``""`` and read it back as missing (``memo.get(id) or judge(id)``): each event of
    that id screened it again."""
    screens: list[int] = []

    def agent(task: str, ctx: Any) -> int:
        for_run(ctx.run_dir).learn(["Zq8-learned-" + "Vw3xYt7"])  # as CI: a process that has learned values
        recorder = ctx._episode.recorder
        recorder.emit("note", {"n": 0}, agent_id="")  # judged here
        for n in range(1, 6):
            with counting_calls("redact") as made:
                recorder.emit("note", {"n": n}, agent_id="")
            screens.append(made[0])
        return 1

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    assert screens == [0] * 5, screens
