"""The first episode in a fresh kernel starts at its first event: the rest of the cell that started it (its view's
first display, the widgets' import, the comms' set-up) is no part of its running time, in the summary or the view."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.kernel


def test_the_first_episode_of_a_fresh_kernel_counts_from_its_start_event(kernel: Any) -> None:
    kernel.setup()
    kernel.run(
        """
        async def quick(task, ctx):
            ctx.emit("reason", {"text": "plan"})
            return "done"
        h = noesis_nb.start("first run", using=quick, runs_dir=RUNS)
        h
        """
    )
    kernel.run("await h")
    got = kernel.value(
        """(lambda d: {
            "summary": __import__("json").loads((d / "summary.json").read_text()),
            "state": __import__("json").loads((d / "state.json").read_text())["episode"]["started_at"],
            "events": [__import__("json").loads(line) for line in (d / "events.jsonl").read_text().splitlines()],
            "handle": h.started_at,
        })(h.run_dir)"""
    )
    from noesis_nb.store.instants import epoch_seconds

    events, summary = got["events"], got["summary"]
    assert events[0]["phase"] == "start"
    first, last = epoch_seconds(events[0]["timestamp"]), epoch_seconds(events[-1]["timestamp"])
    started = epoch_seconds(summary["started_at"])
    assert abs(first - started) < 0.2, (summary["started_at"], events[0]["timestamp"])
    assert got["state"] == summary["started_at"]
    assert abs(got["handle"] - started) < 0.001  # the live view's clock is the run's
    assert abs(summary["duration_sec"] - (last - first)) < 0.2, (summary["duration_sec"], last - first)
