"""summary.metrics counts the direction events as it counts the intuition events: every one in the log, an adapter's
``ctx.emit`` included (one rule for the phase counts), with those applied and those blocked (a veto) apart."""

from __future__ import annotations

import collections
import json
from pathlib import Path
from typing import Any

import noesis_nb


def _agent(task: str, ctx: Any) -> str:
    ctx.emit("direction", {"steps": ["act:x"], "status": "applied"})
    ctx.emit("intuition", {"kind": "hint"})
    ctx.emit("direction", {"steps": ["act:y"], "status": "blocked", "reason": "governance_veto"})
    ctx.emit("direction", {"steps": ["act:z"], "status": "applied"})
    return "ok"


def test_direction_events_counted_as_the_log_holds_them(tmp_path: Path) -> None:
    ep = noesis_nb.solve("direct", using=_agent, runs_dir=tmp_path)
    metrics = json.loads((tmp_path / ep / "summary.json").read_text())["metrics"]
    events = [json.loads(line) for line in (tmp_path / ep / "events.jsonl").read_text().splitlines()]
    phases = collections.Counter(e["phase"] for e in events)
    statuses = collections.Counter(e["payload"].get("status") for e in events if e["phase"] == "direction")
    assert metrics["intuition_events"] == phases["intuition"] == 1
    assert metrics["direction_events"] == phases["direction"] == 3
    assert (metrics["direction_applied"], metrics["direction_vetoed"]) == (statuses["applied"], statuses["blocked"])
    assert metrics["direction_applied_rate"] == round(statuses["applied"] / phases["direction"], 4)
