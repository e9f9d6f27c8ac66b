"""``ctx.emit("plan", …)``: Noēsis' plan steps are a list of text labels (``"<kind>:<description>"``), which readers
parse; a payload whose steps are none of that is refused with one error naming the value, as a missing key is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb


@pytest.mark.parametrize("steps", [None, "act:one", {"id": "step-1"}, [1, 2], [{"kind": "act"}]])
def test_plan_steps_that_are_no_labels_are_refused(tmp_path: Path, steps: Any) -> None:
    seen: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        try:
            ctx.emit("plan", {"steps": steps})
        except ValueError as exc:
            seen.append(str(exc))
        ctx.emit("plan", {"steps": ["act:fetch the page"]})  # the same phase with its labels: accepted
        return "ok"

    ep = noesis_nb.solve("plan", using=agent, runs_dir=tmp_path)
    assert len(seen) == 1 and "payload['steps']" in seen[0] and "list of step labels" in seen[0], seen
    plans = noesis_nb.events_df(tmp_path).query("phase == 'plan'")["payload"].tolist()
    assert {"steps": steps} not in plans and {"steps": ["act:fetch the page"]} in plans, ep
