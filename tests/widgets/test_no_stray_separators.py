"""A line made of fields with `` · `` between them never shows a separator for a field that is not there: an inbox
row of a draft or a veto without an effect, a risk, a payload, a rule's message or an adapter, a step's line
without its text. Checked on the HTML the rows and steps really produce (tags taken away, as a reader sees it)."""

from __future__ import annotations

import dataclasses
import itertools
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.runtime.inboxitems import InboxItem
from noesis_nb.widgets.inboxrows import item_html
from noesis_nb.widgets.steps import Step
from noesis_nb.widgets.stepview import summary_html

_TAG = re.compile(r"<[^>]+>")


def _lines(html: str) -> list[str]:
    """The text of each line as it reads (``<br>`` breaks lines)."""
    return [" ".join(_TAG.sub("", part).split()) for part in re.split(r"<br\s*/?>", html)]


def _stray(html: str) -> list[str]:
    return [line for line in _lines(html) if line.startswith("·") or line.endswith("·") or "· ·" in line]


@pytest.fixture(scope="module")
def paused(tmp_path_factory: pytest.TempPathFactory) -> DiskRun:
    runs_dir = tmp_path_factory.mktemp("runs")

    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")

    ep = noesis_nb.solve("a task", using=agent, runs_dir=runs_dir, approver="ask")
    return DiskRun(Path(runs_dir) / ep)


@pytest.mark.parametrize(
    "effect, risk, line, payload", list(itertools.product(["", "write"], ["", "  ", "high"], ["", None], [{}, {"k": 1}]))
)
def test_a_draft_row_joins_only_the_fields_it_has(paused: DiskRun, effect: str, risk: str, line: Any, payload: Any) -> None:
    p = dataclasses.replace(paused.pending[0], effect_kind=effect, risk_tier=risk, command_line=line, redacted_payload=payload)
    html = item_html(InboxItem(paused, p))
    assert not _stray(html), _lines(html)
    assert "fs.append" in html


@pytest.mark.parametrize("rule", ["", "no-rm-rf"])
@pytest.mark.parametrize("message", ["", "   ", "deletes the cache"])
def test_a_veto_row_joins_only_the_fields_it_has(paused: DiskRun, rule: str, message: str) -> None:
    governance = {"phase": "governance", "timestamp": "", "payload": {"decision": "veto", "rule_id": rule, "message": message}}
    html = item_html(InboxItem(paused, None, governance))
    assert not _stray(html), _lines(html)
    assert "governance veto" in html


def test_a_step_line_joins_only_the_fields_it_has() -> None:
    step = Step(0, "steer", "s1")
    step.events.append({"phase": "steer", "timestamp": "2025-01-01T00:00:00Z", "payload": {"text": "", "sender": "ana"}})
    html = summary_html(step)
    assert not _stray(html), _lines(html)
    assert "from ana" in _lines(html)[0]
