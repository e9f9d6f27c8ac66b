"""Everything the views send to the browser holds no live markup and no secret, whatever the run says.

The other view tests check one widget's value at a time. This one records every comm message the
widgets send (the state the browser renders: opened widgets and every later update) while a batch
of episodes runs whose every source of text is hostile — the task and its tags, adapter events, a
model's name, a tool's arguments, a steer, a rejection reason, the adapter's error, a scorer's error
— and is watched, decided and replayed every way a person can: the batch grid with its inbox, an
episode view, the inbox, ``show`` of a sealed run, ``replay`` and its comparison. Each ``HTML``
widget's value must hold the planted markup only escaped, and no message may hold a secret or an
8-character piece of one.
"""

from __future__ import annotations

import asyncio
import json
import secrets as random_secrets
import string
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.widgets import EpisodeView, batch_view

MARK = '<img src=x data-planted="1" onerror=alert(1)>'
_ALNUM = string.ascii_letters + string.digits


def _token() -> str:
    return "ghp_" + "".join(random_secrets.choice(_ALNUM) for _ in range(36))


def _password() -> str:
    return "".join(random_secrets.choice(_ALNUM) for _ in range(14))


TOKEN, PASSWORD = _token(), _password()
SECRET_TEXT = f"token {TOKEN} and password={PASSWORD}"


def _pieces() -> set[str]:
    return {v[i : i + 8] for v in (TOKEN[4:], PASSWORD) for i in range(len(v) - 7)}


def _agent(marker: Path) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        ctx.emit("note", {"text": f"{MARK} {SECRET_TEXT}", MARK: SECRET_TEXT})
        ctx.model_call(f"gpt-4o-mini{MARK}", provider=MARK, input_tokens=1200, output_tokens=80, cached_input_tokens=512)
        argv = ["python3", "-c", f"open({str(marker)!r}, 'a').write('x')", MARK, f"--password={PASSWORD}"]
        try:
            await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high")
        except Exception:
            raise RuntimeError(f"the deploy failed {MARK} {SECRET_TEXT}") from None
        return {"answer": f"{MARK} done", "auth": SECRET_TEXT}

    return agent


def _score(task: str, result: Any) -> float:
    raise ValueError(f"cannot score {MARK} {SECRET_TEXT}")


def _widgets_sent(log: list[tuple[str, str, int, Any]]) -> tuple[dict[str, str], list[tuple[str, dict[str, Any]]]]:
    """The model name of every widget opened, and every state sent: (comm id, state)."""
    models: dict[str, str] = {}
    states: list[tuple[str, dict[str, Any]]] = []
    for msg_type, comm_id, _, data in log:
        if not isinstance(data, dict):
            continue
        state = data.get("state") or {}
        if msg_type == "comm_open" and isinstance(state, dict) and "_model_name" in state:
            models[comm_id] = str(state["_model_name"])
        if isinstance(state, dict) and state:
            states.append((comm_id, state))
    return models, states


def test_no_view_sends_live_markup_or_a_secret(runs_dir: Path, tmp_path: Path, comm_log: list, nnb: Any) -> None:
    marker = tmp_path / "marker.txt"
    tasks = [{"task": f"deploy {MARK} with {SECRET_TEXT}", "tags": {"owner": MARK, "auth": SECRET_TEXT}} for _ in range(3)]

    async def main() -> None:
        b = noesis_nb.batch(tasks, using=_agent(marker), concurrency=3, root=runs_dir, score=_score)
        grid = batch_view(b, rows=5)
        await nnb.until(lambda: b.counts().get("paused") == 3, timeout=20)
        first, second, third = (e.handle for e in b.entries)
        view = EpisodeView(first, approver_id=MARK)
        view.flush()
        inbox = noesis_nb.inbox(runs_dir)
        inbox.refresh()
        grid.flush()
        card = view.approvals.card()
        card.reason.value = f"{MARK} fine {SECRET_TEXT}"
        card.approve_button.click()
        inbox.refresh()
        item = next(i for i in inbox.pending if i.episode_id == second.episode_id)
        inbox.reject(item, reason=f"no {MARK} {SECRET_TEXT}")
        third.reject(reason=f"{MARK} not now, {SECRET_TEXT}")
        await b.wait()
        await nnb.until(lambda: view.settled is not None, timeout=10)
        view.flush()
        grid.flush()
        inbox.refresh()
        for entry in b.entries:
            noesis_nb.show(entry.run_dir)
            replay = noesis_nb.replay(entry.run_dir, compare=b.entries[0].run_dir)
            for k in (0, 3, 10_000):
                replay.seek(k) if hasattr(replay, "seek") else None
        inbox.close()
        grid.close()

    asyncio.run(main())
    models, states = _widgets_sent(comm_log)
    assert any(name == "HTMLModel" for name in models.values()) and len(states) > 50, (len(models), len(states))
    pieces = _pieces()
    for comm_id, state in states:
        if models.get(comm_id) in {"TextModel", "TextareaModel"}:  # what the person typed, echoed to the box they typed in
            state = {k: v for k, v in state.items() if k != "value"}
        sent = json.dumps(state, default=str)
        leaked = [p for p in pieces if p in sent]
        assert not leaked, f"{models.get(comm_id)} sent a secret piece {leaked[:2]}: …{sent[:300]}…"
        if models.get(comm_id) in {"HTMLModel", "HTMLMathModel"}:
            value = str(state.get("value", ""))
            at = value.find("data-planted")
            assert at < 0 or value[max(0, at - 12) : at].count("<img") == 0, (
                f"planted markup live in an HTML widget: …{value[max(0, at - 200) : at + 60]}…"
            )
            assert "<img src=x" not in value, value[:400]
