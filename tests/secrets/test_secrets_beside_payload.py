"""What an adapter passes beside an event's payload is screened too: the agent id, the phase, a tool's
idempotency key. They were written as given, and the idempotency key also named a file of the run."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

import noesis_nb

PASSWORD = "Hn5sW8yT3cBd"
KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7cDe0fGh3iJk6l"


def _written(root: Path) -> str:
    return "".join(p.read_text(errors="replace") + str(p) for p in root.rglob("*") if p.is_file())


def test_an_agent_id_and_a_phase_holding_secrets_are_redacted(tmp_path: Path) -> None:
    def agent(task, ctx):
        ctx.emit("note", {"text": "planning"}, agent_id=f"https://planner:{PASSWORD}@agents.internal/v1")
        ctx.emit(f"x-{KEY}", {"text": "a phase name"})
        ctx.emit("note", {"text": "plain"}, agent_id="planner")
        return "ok"

    noesis_nb.solve("plan", using=agent, runs_dir=tmp_path)
    written = _written(tmp_path)
    assert PASSWORD not in written and KEY[:16] not in written
    events = noesis_nb.events_df(tmp_path)
    assert "https://planner:[REDACTED]@agents.internal/v1" in set(events["agent_id"])
    assert "planner" in set(events["agent_id"])  # a plain agent id is written as given
    assert not [p for p in events["phase"] if KEY[:16] in str(p)]


def test_an_idempotency_key_that_is_a_credential_is_refused_before_anything_is_prepared(tmp_path: Path) -> None:
    def agent(task, ctx):
        ctx.tool("billing.charge", {"kwargs": {"amount": 5}}, protocol="python", fn=lambda **kw: "ok", idempotency_key=KEY)
        return "ok"

    episode = noesis_nb.solve("charge", using=agent, runs_dir=tmp_path, approver="auto")
    events = [json.loads(line) for line in (tmp_path / episode / "events.jsonl").read_text().splitlines()]
    error = next(e for e in events if e["phase"] == "terminate")["payload"]["message"]
    assert "idempotency_key=" in error and "looks like a credential" in error, error
    assert KEY[:12] not in error
    assert KEY[:16] not in _written(tmp_path)
    assert not (tmp_path / episode / "tool_invocations").exists()


@pytest.mark.parametrize("key", [str(uuid.uuid4()), "order-2024-11-30-0042", uuid.uuid4().hex])
def test_an_ordinary_idempotency_key_is_kept(tmp_path: Path, key: str) -> None:
    def agent(task, ctx):
        return ctx.tool("billing.charge", {"kwargs": {"amount": 5}}, protocol="python", fn=lambda **kw: "ok", idempotency_key=key)

    episode = noesis_nb.solve("charge", using=agent, runs_dir=tmp_path, approver="auto")
    assert key in _written(tmp_path / episode)


def test_agent_ids_that_read_random_are_kept(tmp_path: Path) -> None:
    """An assistant's or thread's id (``asst_Ab3dEf6gHi9JkLmNoPqRsTuV``) reads random: redacted, every agent of
    the run became one ``[REDACTED]``. Agent ids and phases are screened for known formats and credentials only."""
    ids = ["asst_Ab3dEf6gHi9JkLmNoPqRsTuV", "asst_9Xk2LmQp7RtZ4vW8yB1nC6dF", "thread_kR7p2XmQ9vL4tZ8wY3nB6cDf"]

    def agent(task, ctx):
        for agent_id in ids:
            ctx.emit("note", {"text": "a"}, agent_id=agent_id)
        return "ok"

    noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    events = noesis_nb.events_df(tmp_path)
    assert [a for a in events["agent_id"] if a in ids] == ids


@pytest.mark.parametrize("key", ["reset-password:user-42", "auth:user-1234:2024-11-30", "api_key_rotation:2024-11-30"])
def test_an_idempotency_key_naming_a_secret_word_is_kept(tmp_path: Path, key: str) -> None:
    """A key of the form ``action:id`` whose action names a password or a key holds no credential."""

    def agent(task, ctx):
        payload = {"kwargs": {"user": 42}}
        return ctx.tool("accounts.reset", payload, protocol="python", fn=lambda **kw: "sent", idempotency_key=key)

    episode = noesis_nb.solve("reset", using=agent, runs_dir=tmp_path, approver="auto")
    summary = json.loads((tmp_path / episode / "summary.json").read_text())
    assert summary["status"] == "ok", summary
