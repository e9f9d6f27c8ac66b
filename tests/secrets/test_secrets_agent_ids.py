"""An agent id holding a credential is redacted whichever path writes it: ``ctx.emit(agent_id=…)``, a captured call
(``ctx.emit_captured``), a reported call's provider (``ctx.model_call(provider=…)``, written as ``model:<provider>``).
``emit_captured`` and ``model_call`` wrote theirs as given, so the token stood bare in ``events.jsonl``."""

from __future__ import annotations

import asyncio
import random
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.render import row_html

from .hostile_str import LiesAll, LiesEq

_RNG = random.Random(20261206)
_ALNUM = string.ascii_letters + string.digits


def _random(alphabet: str, n: int) -> str:
    return "".join(_RNG.choice(alphabet) for _ in range(n))


OPENAI = "sk-proj-" + _random(_ALNUM, 40)
AWS = "AKIA" + _random(string.ascii_uppercase + string.digits, 16)
GITHUB = "ghp_" + _random(_ALNUM, 36)
TOKENS = {"openai": OPENAI, "aws": AWS, "github": GITHUB}
_CALL = {"event_name": "model.call", "model": "gpt-4o-mini", "provider": "openai", "input_tokens": 12, "output_tokens": 3}


def _parts(token: str) -> list[str]:
    """Every 8-character piece of the token's random body (past its prefix): none may be written anywhere."""
    body = token[4:] if token.startswith(("AKIA", "ghp_")) else token[len("sk-proj-") :]
    return [body[i : i + 8] for i in range(len(body) - 7)]


def _leaks(root: Path, token: str) -> list[str]:
    pieces = [p.encode() for p in _parts(token)]
    return [f"{path.name}" for path in sorted(root.rglob("*")) if path.is_file() if any(p in path.read_bytes() for p in pieces)]


def _agent(way: str, agent_id: str) -> Any:
    def agent(task: str, ctx: Any) -> str:
        for _ in range(3):  # the same id on several events: judged once, redacted on each
            if way == "emit_captured":
                ctx.emit_captured(dict(_CALL), agent_id)
            elif way == "model_call":
                ctx.model_call("gpt-4o-mini", provider=agent_id, input_tokens=12, output_tokens=3)
            else:
                ctx.emit("note", {"text": "step"}, agent_id=agent_id)
        ctx.emit("note", {"text": "done"})
        return "ok"

    return agent


def _run_and_views(runs_dir: Path, agent: Any) -> tuple[str, list[str]]:
    async def main() -> tuple[str, list[str]]:
        handle = noesis_nb.start("go", using=agent, runs_dir=runs_dir, approver="auto")
        await asyncio.wait_for(handle.wait(), 60)
        view = EpisodeView(handle)
        view.flush()
        html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in handle.events)]
        view.close()
        return handle.episode_id, html

    return asyncio.run(main())


@pytest.mark.parametrize("way", ["emit_captured", "model_call", "emit"])
@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_a_token_as_an_agent_id_is_in_no_file_and_no_view(tmp_path: Path, way: str, kind: str) -> None:
    token = TOKENS[kind]
    episode, html = _run_and_views(tmp_path, _agent(way, token))
    assert _leaks(tmp_path, token) == []
    shown = "".join(html)
    assert "note" in shown  # the views did render the run
    assert not [p for p in _parts(token) if p in shown]
    events = noesis_nb.events_df(tmp_path)
    agents = set(events["agent_id"])
    assert not [a for a in agents if any(p in str(a) for p in _parts(token))]
    assert any("[REDACTED]" in str(a) for a in agents), agents  # the event is written, its agent redacted
    summary = noesis_nb.runs_df(tmp_path)
    assert list(summary["status"]) == ["ok"], summary


@pytest.mark.parametrize("cls", [LiesEq, LiesAll], ids=["LiesEq", "LiesAll"])
def test_a_subclass_passing_for_an_id_judged_before_is_read_as_written(tmp_path: Path, cls: type[str]) -> None:
    """An id remembered clean is looked up in a set: a ``str`` subclass that hashes and compares as that id is
    judged by the characters it holds (which the JSON writer writes), not by what it says."""

    class PassesForModel(cls):  # type: ignore[valid-type,misc]
        def __hash__(self) -> int:
            return hash("model:openai")

    def agent(task: str, ctx: Any) -> str:
        ctx.emit_captured(dict(_CALL), "model:openai")  # judged clean and remembered
        ctx.emit_captured(dict(_CALL), PassesForModel(f"model:{GITHUB}"))
        return "ok"

    _run_and_views(tmp_path, agent)
    assert _leaks(tmp_path, GITHUB) == []


def test_plain_agent_ids_are_written_as_given(tmp_path: Path) -> None:
    ids = ["model:openai", "planner", "asst_Ab3dEf6gHi9JkLmNoPqRsTuV", "https://agents.internal/v1/planner"]

    def agent(task: str, ctx: Any) -> str:
        ctx.emit_captured(dict(_CALL), ids[0])
        for agent_id in ids[1:]:
            ctx.emit("note", {"text": "a"}, agent_id=agent_id)
        return "ok"

    _run_and_views(tmp_path, agent)
    agents = list(noesis_nb.events_df(tmp_path)["agent_id"])
    assert [a for a in agents if a in ids] == ids
