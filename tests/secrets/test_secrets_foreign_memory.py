"""A run noesis_nb did not write is redacted with the run's memory: a secret found in one of its events is
redacted in all of them, before it and after it, as a live run does with what it learns.

Read back string by string, ``export PGPASSWORD='…'`` lost its password while ``psql connected as bob (…)``
beside it, and a later model event naming it, showed it in the frames.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path

import pytest

import noesis_nb


def _password() -> str:
    rng = random.SystemRandom()
    return "".join(rng.choice(string.ascii_letters) for _ in range(4)) + "".join(rng.choice(string.digits) for _ in range(4))


def _agent(task, ctx) -> str:
    ctx.emit("note", {"text": "placeholder"})
    ctx.model_call("gpt-4o", provider="openai", input_tokens=3, output_tokens=4)
    ctx.emit("note", {"text": "placeholder"})
    return "ok"


@pytest.mark.parametrize("where", ["after", "before", "same-payload"])
def test_a_secret_found_in_one_event_of_a_foreign_run_is_redacted_in_all(tmp_path: Path, where: str) -> None:
    password = _password()
    episode = noesis_nb.solve("t", using=_agent, runs_dir=tmp_path)
    log = tmp_path / episode / "events.jsonl"
    events = [json.loads(line) for line in log.read_text().splitlines()]
    notes = [e for e in events if e["phase"] == "note"]
    named = {"cmd": f"export PGPASSWORD='{password}'"}
    echoed = {"echo": f"psql connected as bob ({password})"}
    if where == "same-payload":
        notes[0]["payload"] = {**named, **echoed}
    else:
        first, second = (echoed, named) if where == "before" else (named, echoed)
        notes[0]["payload"], notes[1]["payload"] = first, second
    next(e for e in events if e["phase"] == "model")["payload"]["provider"] = f"u:{password}"
    log.write_text("".join(json.dumps(e) + "\n" for e in events))  # as a writer that screens nothing logs it
    (tmp_path / episode / "manifest.json").unlink()  # not sealed by noesis_nb: read as a foreign run

    frames = {"events_df": noesis_nb.events_df(tmp_path), "usage_df": noesis_nb.usage_df(tmp_path)}
    for name, frame in frames.items():
        assert password not in frame.to_json(default_handler=str, date_format="iso"), name
    payloads = [p for p in frames["events_df"]["payload"] if isinstance(p, dict) and ({"cmd", "echo"} & set(p))]
    assert payloads and all("connected as bob" in str(p) or "PGPASSWORD" in str(p) for p in payloads)


def test_a_secret_in_an_agent_id_is_hunted_in_the_other_events() -> None:
    """An agent id's password (a URL's) found in one event's field is redacted in another event's payload too."""
    from noesis_nb.secrets.records import shown_records

    password = _password() + "Zq"
    records = [
        {"id": "e1", "phase": "note", "agent_id": f"https://bob:{password}@agents.example/x", "payload": {"text": "hi"}},
        {"id": "e2", "phase": "note", "agent_id": "a", "payload": {"text": f"login bob / {password} ok"}},
    ]
    shown_records(records)
    assert password not in json.dumps(records)
    assert records[1]["payload"]["text"].startswith("login bob / ")
