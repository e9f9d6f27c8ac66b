"""A run whose seal began (``final.json`` written, ``manifest.json`` not yet, or lost) has a complete log: a cut
last line there is damage, and the view of the run says so, as ``events_df`` and the OpenTelemetry export do.

Before, the view's reader counted only ``manifest.json`` as the end, so it took the cut line for one still being
appended and showed the run as if nothing were missing.
"""

from __future__ import annotations

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun


def _agent(task, ctx):
    for i in range(3):
        ctx.emit("reason", {"step": i})
    return "done"


def _cut_last_line(log):
    data = log.read_bytes()
    head, last = data.rstrip(b"\n").rsplit(b"\n", 1)
    log.write_bytes(head + b"\n" + last[: len(last) // 2])


def test_a_cut_last_line_once_the_seal_began_is_reported(tmp_path):
    ep = noesis_nb.solve("t", using=_agent, runs_dir=tmp_path)
    run = tmp_path / ep
    (run / "manifest.json").unlink()  # the seal's last document: killed between final.json and it
    _cut_last_line(run / "events.jsonl")
    view = DiskRun(run)
    assert view.problems, "the cut line of a closed log was taken for one still being written"
    assert "events.jsonl" in view.problems[0]
    frame = noesis_nb.events_df(run)
    assert frame.attrs["errors"], "events_df and the view must agree"


def test_a_cut_last_line_of_a_live_log_is_not_damage(tmp_path):
    ep = noesis_nb.solve("t", using=_agent, runs_dir=tmp_path)
    run = tmp_path / ep
    for name in ("manifest.json", "final.json"):  # no seal began: the writer may be mid-line
        (run / name).unlink()
    _cut_last_line(run / "events.jsonl")
    assert DiskRun(run).problems == []
