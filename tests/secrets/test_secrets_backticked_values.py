"""A value read with a backtick around it (a shell line in tool output, Markdown's inline code) is learned bare.

``"`TOKEN=<value>`"`` and ``"token = `<value>`;"`` were learned with their backticks (``"<value>`"``, ``"`<value>`"``), so the
run hunted only that form: the bare value, written by a later event or the result, stood in clear in every file."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.render import row_html

# values no detector takes for a secret by themselves: only the name they were given makes them one
VALUES = ["opensesame42", "tr0ub4dor-horse"]
LINES = [
    "`TOKEN={v}`",
    "token = `{v}`;",
    "export API_KEY={v}`",
    "run `export DB_PASSWORD={v}` first",
    "api_key=`{v}`",
    "`password: {v}`",
]


def _leaks(root: Path, value: str) -> list[str]:
    return [path.name for path in sorted(root.rglob("*")) if path.is_file() and value.encode() in path.read_bytes()]


def _run(runs_dir: Path, agent: Any) -> list[str]:
    """The run, and its views once it ended: the live view's snapshot and mimebundle, and each event's row."""

    async def main() -> list[str]:
        handle = noesis_nb.start("deploy", using=agent, runs_dir=runs_dir, approver="auto")
        await asyncio.wait_for(handle.wait(), 60)
        view = EpisodeView(handle)
        view.flush()
        html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in handle.events)]
        view.close()
        return html

    return asyncio.run(main())


def _check(runs_dir: Path, value: str, html: list[str]) -> None:
    shown = "".join(html)
    assert "note" in shown  # the views did render the run's events
    assert value not in shown
    assert _leaks(runs_dir, value) == []
    events = noesis_nb.events_df(runs_dir)
    assert not [p for p in events["payload"] if value in str(p)]
    assert list(noesis_nb.runs_df(runs_dir)["status"]) == ["ok"]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize("line", LINES)
def test_a_backticked_value_in_the_first_event_is_redacted_bare_in_later_ones(tmp_path: Path, line: str, value: str) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": "setup:\n" + line.format(v=value)})
        ctx.emit("note", {"text": f"logged in with {value} as deploy"})
        return f"done; the key was {value}"

    _check(tmp_path, value, _run(tmp_path, agent))


@pytest.mark.parametrize("line", LINES[:3])
def test_a_backticked_value_a_tool_printed_is_redacted_bare_in_later_events(tmp_path: Path, line: str) -> None:
    value = VALUES[0]
    script = f"print('+ deploy.sh'); print({line.format(v=value)!r}); print('ok')"

    def agent(task: str, ctx: Any) -> str:
        ctx.tool("shell.run", {"argv": [sys.executable, "-c", script]}, effect="read", risk="low")
        ctx.emit("note", {"text": f"the deploy used {value}"})
        return "ok"

    _check(tmp_path, value, _run(tmp_path, agent))


def test_only_a_value_quoted_on_both_sides_is_learned_bare_too() -> None:
    """A piece of a secret cut where a list's items meet (``'upstream``, the head of a repr) is no quoted value: learned
    bare it would hide an ordinary word in every later text of the run."""
    guard = RunSecrets()
    guard.learn(["'upstream", 'refused"', "`opensesame42`", "'tr0ub4dor-horse'"])
    shown = guard.scrub_text("upstream refused: opensesame42 tr0ub4dor-horse")
    assert shown.startswith("upstream refused: "), shown
    assert "opensesame42" not in shown and "tr0ub4dor-horse" not in shown, shown
