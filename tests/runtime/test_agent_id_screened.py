"""An event's ``agent_id`` is written beside its payload, and many are built from what a caller typed: the model
call's provider (``model:<provider>``), a steer's or a cancel's sender (``human:<sender>``), the adapter's name
(``adapter:<label>``). The payload was screened and the agent id was not: a secret the environment holds, named in
one of them, was written in clear into ``events.jsonl``. Every agent id is now screened as the payload is.
"""

from __future__ import annotations

import asyncio
import json
import random
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb


@pytest.fixture
def secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "Zq" + "".join(random.choices(string.ascii_letters + string.digits, k=18))
    monkeypatch.setenv("ACME_API_KEY", value)
    return value


def _agent_ids(root: Path, secret: str) -> tuple[list[str], list[str]]:
    """The agent ids of every event written under ``root``, and the files holding ``secret`` anywhere."""
    ids = [
        json.loads(line)["agent_id"]
        for log in root.rglob("events.jsonl")
        for line in log.read_text().splitlines()
        if line.strip()
    ]
    holding = [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]
    return ids, holding


def test_a_model_calls_provider_holding_a_secret_is_written_redacted(runs_dir: Path, secret: str) -> None:
    def agent(task: str, ctx: Any) -> int:
        ctx.model_call("gpt-4o", provider=f"acme-{secret}", input_tokens=1, output_tokens=1)
        ctx.model_call("gpt-4o", provider=f"acme-{secret}", input_tokens=1, output_tokens=1)  # judged once, both hidden
        return 1

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    ids, holding = _agent_ids(runs_dir, secret)
    assert holding == []
    assert [i for i in ids if i.startswith("model:")] == ["model:acme-[REDACTED]"] * 2


def test_an_adapters_name_holding_a_secret_is_written_redacted(runs_dir: Path, secret: str) -> None:
    def agent(task: str, ctx: Any) -> int:
        ctx.emit("integration", {"event_name": "x"})
        return 1

    agent.__name__ = agent.__qualname__ = f"agent_{secret}"
    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    ids, holding = _agent_ids(runs_dir, secret)
    assert [p for p in holding if p.endswith("events.jsonl")] == []
    assert any(i.startswith("adapter:") and "[REDACTED]" in i for i in ids), ids


def test_a_steers_and_a_cancels_sender_holding_a_secret_are_written_redacted(runs_dir: Path, secret: str) -> None:
    async def agent(task: str, ctx: Any) -> int:
        for _ in range(200):
            await asyncio.sleep(0.02)
            ctx.steers()
        return 1

    async def main() -> None:
        handle = noesis_nb.start("t", using=agent, runs_dir=runs_dir)
        handle.steer("hello", sender=f"ana-{secret}")
        handle.cancel(sender=f"bo-{secret}")
        await handle.wait()

    asyncio.run(main())
    ids, holding = _agent_ids(runs_dir, secret)
    assert holding == []
    humans = [i for i in ids if i.startswith("human:")]
    assert "human:ana-[REDACTED]" in humans and all("[REDACTED]" in i for i in humans), humans


def test_ordinary_agent_ids_are_written_as_they_are(runs_dir: Path, secret: str) -> None:
    def agent(task: str, ctx: Any) -> int:
        ctx.model_call("gpt-4o", provider="openai", input_tokens=1, output_tokens=1)
        ctx.emit("integration", {"event_name": "x"}, agent_id="asst_Ab3dK9xQ2mZ7")
        return 1

    noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    ids, _ = _agent_ids(runs_dir, secret)
    assert {"model:openai", "asst_Ab3dK9xQ2mZ7", "adapter:agent", "system"} <= set(ids), set(ids)
