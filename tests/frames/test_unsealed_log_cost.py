"""runs_df reads a run without manifest.json (paused, live, crashed) from its log, whole where it has no summary: the
Python work that read takes must not grow with the log's events that are no pause, resume or call (counted as the
lines of noesis_nb's code run, a shared machine's clock being too noisy to hold a figure). Nor may a torn last line
(a writer killed mid-line) have the log parsed whole to learn that no event names another run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.frames import runs_df

PACKAGE = str(Path(noesis_nb.__file__).resolve().parent)
#: secret screening reads each run's ids and names, random for each run written: its work depends on them, not on the log
SCREENING = str(Path(PACKAGE) / "secrets")

#: lines of noesis_nb's code a cold runs_df may run for 2,000 more events of a paused run that are no pause, resume,
#: model call or tool event (its log is found through by ``bytes.find``; 2 lines an event, ~4,000, before). The loads
#: are made with ``cache=False``, which reads what a run reveals (``runlearned``) again too: when it served the short
#: run's from the warm-up load and read the long run's, the long run seemed to cost 124 more lines
GROWTH_BUDGET = 100


def _thinker(events: int):
    def adapter(task: str, ctx: Any) -> Any:
        for i in range(events):
            ctx.emit("reason", {"step": i, "text": f"thought {i} about {task} " * 4})
        ctx.model_call("gpt-4o", provider="openai", input_tokens=1000, output_tokens=100, cached_input_tokens=400)
        return ctx.tool("fs.write@1", {"kwargs": {"x": 1}}, protocol="python", fn=_add_one, effect="write", risk="high")

    return adapter


def _add_one(x: int) -> int:
    return x + 1


def _lines_run(root: Path) -> tuple[int, dict[str, Any]]:
    """Lines of noesis_nb's code (its secret screening left out) a cold runs_df of ``root`` runs, and its one row."""
    count = [0]

    def local(frame, event, arg):
        if event == "line":
            count[0] += 1
        return local

    def tracer(frame, event, arg):
        name = frame.f_code.co_filename
        return local if name.startswith(PACKAGE) and not name.startswith(SCREENING) else None

    sys.settrace(tracer)
    try:
        df = runs_df(str(root), cache=False, progress=False)
    finally:
        sys.settrace(None)
    assert len(df) == 1
    return count[0], df.iloc[0].to_dict()


def test_a_paused_runs_long_log_costs_no_python_work_an_event(tmp_path: Path):
    for name, events in (("short", 40), ("long", 2040)):
        root = tmp_path / name
        root.mkdir()
        noesis_nb.solve("write a file", using=_thinker(events), runs_dir=root, approver="ask")
        run = next(p for p in root.iterdir() if p.is_dir())
        assert not (run / "manifest.json").exists() and not (run / "summary.json").exists()  # paused, unsealed
    runs_df(str(tmp_path / "short"), cache=False, progress=False)  # imports and first-call paths out of the count
    (short, short_row), (long, long_row) = (_lines_run(tmp_path / n) for n in ("short", "long"))
    for row in (short_row, long_row):  # read as the engine wrote them: paused at its draft, its wait not over
        assert row["status"] == "paused" and row["pending_approvals"] == 1 and row["model_calls"] == 1
        assert row["tool_calls"] == 1 and row["waiting_s"] != row["waiting_s"]  # NaN: still waiting
    assert long - short <= GROWTH_BUDGET, (
        f"runs_df ran {long - short} more lines of noesis_nb's code for 2,000 more events of a paused run "
        f"({short} for 40, {long} for 2,040; budget {GROWTH_BUDGET})"
    )


def test_a_torn_last_line_costs_no_python_work_an_event(tmp_path: Path):
    for name, events in (("short", 40), ("long", 2040)):
        root = tmp_path / name
        root.mkdir()
        noesis_nb.solve("write a file", using=_thinker(events), runs_dir=root, approver="ask")
        run = next(p for p in root.iterdir() if p.is_dir())
        with (run / "events.jsonl").open("ab") as fh:  # killed while writing a line: cut before it names its run
            fh.write(b'{"agent_id":"system","caused_by":"')
    runs_df(str(tmp_path / "short"), cache=False, progress=False)  # imports and first-call paths out of the count
    (short, short_row), (long, long_row) = (_lines_run(tmp_path / n) for n in ("short", "long"))
    for row in (short_row, long_row):  # the torn line skipped, as every reader skips it
        assert row["status"] == "paused" and row["model_calls"] == 1 and row["tool_calls"] == 1
    assert long - short <= GROWTH_BUDGET, (
        f"runs_df ran {long - short} more lines of noesis_nb's code for 2,000 more events of a run whose last line "
        f"is torn ({short} for 40, {long} for 2,040; budget {GROWTH_BUDGET})"
    )
    # a whole line naming another run is still reported, torn line or not
    run = next(p for p in (tmp_path / "long").iterdir() if p.is_dir())
    data = (run / "events.jsonl").read_bytes()
    cut = data.rfind(b"\n") + 1
    other = data[:cut].replace(run.name.encode(), b"ep_someone_else", 1) + data[cut:]
    (run / "events.jsonl").write_bytes(other)
    df = runs_df(str(tmp_path / "long"), cache=False, progress=False)
    assert any("ep_someone_else" in e["reason"] and e["line"] == 1 for e in df.attrs["errors"]), df.attrs["errors"]
