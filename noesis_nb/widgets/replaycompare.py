"""Two runs replayed side by side, aligned step by step, with the steps that differ marked.

The alignment is ``plots.aligned_steps`` (the table behind ``plots.compare_episodes``): one slider
moves over its rows, and each side shows its run after the events of that step. A row only one run
has is marked, and so is a step whose time or cost differs between the two.
"""

from __future__ import annotations

import os
from typing import Any

import ipywidgets as w
import pandas as pd

from ..errors import InvalidOptionError
from ..frames import events_df, usage_df
from ..plots.compare import aligned_steps
from ..runtime.diskrun import DiskRun
from ..secrets import quoted
from ..store.runfiles import UnreadableRunFile
from .keyguard import count_unit
from .money import money as money_text
from .render import label
from .replayview import ReplayView, count_arg
from .theme import ROOT_CLASS

__all__ = ["ReplayCompare", "replay"]

_ROWS = 12  # aligned steps shown around the current one
_STEP_SHOWN = 80  # characters of a step's name (a tool or model name from the run) in the table
_WIDGET = "application/vnd.jupyter.widget-view+json"
_CSS = (
    "<style>.noesis-nb-compare table{border-collapse:collapse;font-size:12px;width:100%}"
    ".noesis-nb-compare td,.noesis-nb-compare th{padding:1px 6px;text-align:right;border-bottom:1px solid var(--nnb-line)}"
    ".noesis-nb-compare td:first-child,.noesis-nb-compare th:first-child{text-align:left;overflow-wrap:anywhere}"
    ".noesis-nb-compare tr.nnb-now td{background:var(--nnb-blue-tint)}</style>"
)


def replay(target: Any, *, compare: Any = None, runs_dir: str | os.PathLike[str] | None = None) -> ReplayView | ReplayCompare:
    """Replay a finished or paused run (episode id or run directory) in the live view, with a scrubber and play.

    ``compare``: a second run, replayed beside it and aligned step by step, differences marked.
    """
    if compare is not None:
        return ReplayCompare(target, compare, runs_dir=runs_dir)
    return ReplayView(target, runs_dir=runs_dir)


def _frames(run_a: DiskRun, run_b: DiskRun) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Events and usage of both runs, each keyed by its side (``A``, ``B``) rather than by its id: a run compared with
    its copy, or with a run of another root that has its id, stays two runs, and a folder whose name is not the id
    its files hold is compared all the same."""
    events = [_events_of(run, side) for run, side in ((run_a, "A"), (run_b, "B"))]
    usage = [usage_df([str(run.run_dir)]).assign(episode_id=side) for run, side in ((run_a, "A"), (run_b, "B"))]
    return pd.concat(events, ignore_index=True), pd.concat(usage, ignore_index=True)


def _events_of(run: DiskRun, side: str) -> pd.DataFrame:
    """One side's events. A log the run's own view names a problem of (a FIFO, a folder, a link out of the run …)
    leaves that side with no steps, and its view says why, as ``replay`` of that run alone does; a run with no events
    and nothing to say why is one error naming its file or the run, never just its side's letter."""
    frame = events_df([str(run.run_dir)])
    if frame.empty and not run.problems:
        problems = [p for p in frame.attrs.get("errors") or [] if isinstance(p, dict)]
        if problems:
            raise UnreadableRunFile(str(problems[0].get("path") or run.run_dir), str(problems[0].get("reason") or "unreadable"))
        raise InvalidOptionError(f"run {side} ({quoted(str(run.run_dir))}) has no events to compare: its events.jsonl is empty")
    return frame.assign(episode_id=side)


def _aligned(events: pd.DataFrame, usage: pd.DataFrame) -> pd.DataFrame:
    """``aligned_steps`` of A and B; a side whose log could not be read has no steps, so every row is the other's
    alone (both unreadable: no rows), and its view names why."""
    sides = set(events["episode_id"].astype(str))
    if sides == {"A", "B"}:
        return aligned_steps(events, "A", "B", usage)
    kept = next(iter(sides), None)
    if kept is None:
        columns = ["step", "seconds_a", "seconds_b", "delta_s", "cost_a", "cost_b", "delta_cost"]
        return pd.DataFrame(columns=[*columns, "in_a", "events_a", "in_b", "events_b"])
    table = aligned_steps(events, kept, kept, usage)
    gone = "b" if kept == "A" else "a"
    table[[f"seconds_{gone}", f"cost_{gone}", "delta_s", "delta_cost"]] = float("nan")
    table[f"in_{gone}"], table[f"events_{gone}"] = False, 0
    return table


class ReplayCompare(w.VBox):  # type: ignore[misc]  # ipywidgets ships no type information
    """Run A and run B side by side; ``seek_step(i)`` shows both after the i-th aligned step."""

    def __init__(self, a: Any, b: Any, *, runs_dir: str | os.PathLike[str] | None = None):
        run_a, run_b = DiskRun(a, runs_dir=runs_dir), DiskRun(b, runs_dir=runs_dir)
        events, usage = _frames(run_a, run_b)
        self.table = _aligned(events, usage)
        self.left = ReplayView(run_a, title=f"A · {run_a.episode_id}")
        self.right = ReplayView(run_b, title=f"B · {run_b.episode_id}")
        self.slider = w.IntSlider(
            value=len(self.table), min=0, max=len(self.table), description="step", layout=w.Layout(width="auto")
        )
        count_unit(self.slider, "step")  # "step 3 of 12" to a screen reader
        self.steps = w.HTML()
        self.slider.observe(lambda change: self.seek_step(change["new"]), "value")
        # side by side where each half gets 360px, one above the other where it would not (a narrow notebook)
        self.left.layout, self.right.layout = (w.Layout(flex="1 1 360px", width="auto", min_width="0") for _ in "ab")
        pair = w.HBox([self.left, self.right], layout=w.Layout(width="100%", flex_flow="row wrap"))
        css = w.HTML(_CSS)
        css.add_class("nnb-css")  # no margins: it shows nothing
        super().__init__([css, self.slider, self.steps, pair])
        self.add_class(ROOT_CLASS)
        self.add_class("noesis-nb-compare")
        self.seek_step(len(self.table))

    @property
    def differing(self) -> list[str]:
        """The aligned steps that differ: only one run has them, or their time or cost is not the same."""
        return [row["step"] for _, row in self.table.iterrows() if _differs(row)]

    def seek_step(self, i: int) -> ReplayCompare:
        """Show both runs through the first ``i`` aligned steps (0: before any)."""
        i = max(0, min(len(self.table), count_arg(i, "seek_step")))
        if self.slider.value != i:
            self.slider.value = i  # observed: comes back here
            return self
        row = self.table.iloc[i - 1] if i else None
        self.left.seek(int(row["events_a"]) if row is not None else 0)
        self.right.seek(int(row["events_b"]) if row is not None else 0)
        self.steps.value = self._rows_html(i)
        return self

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, Any]:
        """The widget, a stable ``text/plain`` line, and a static ``text/html`` of the aligned steps and both views."""
        i = int(self.slider.value)
        sides = "".join(
            f'<div style="flex:1 1 0;min-width:0">{side.view.snapshot_html()}</div>' for side in (self.left, self.right)
        )
        html = (
            f'<div class="{ROOT_CLASS} noesis-nb-compare">{_CSS}{self._rows_html(i)}'
            f'<div style="display:flex;gap:8px">{sides}</div></div>'
        )
        return {
            "text/plain": f"ReplayCompare(step={i}, steps={len(self.table)}, differing={len(self.differing)})",
            "text/html": html,
            _WIDGET: {"version_major": 2, "version_minor": 0, "model_id": self.model_id},
        }

    def _rows_html(self, i: int) -> str:
        lo = max(0, min(i - _ROWS // 2, len(self.table) - _ROWS))
        rows = []
        for j in range(lo, min(len(self.table), lo + _ROWS)):
            row = self.table.iloc[j]
            mark = _mark(row)
            now = ' class="nnb-now"' if j == i - 1 else ""
            rows.append(
                f"<tr{now}><td>{label(row['step'], _STEP_SHOWN)} {mark}</td>"
                # figures with their units: one line each (the stylesheet's ``nnb-num``), "0.03 s" never "0.03" over "s"
                f'<td class="nnb-num">{_s(row["seconds_a"])}</td><td class="nnb-num">{_s(row["seconds_b"])}</td>'
                f'<td class="nnb-num">{_delta(row["delta_s"], " s")}</td>'
                f'<td class="nnb-num">{_delta(row["delta_cost"], "", money=True)}</td></tr>'
            )
        head = "<tr><th>step (aligned)</th><th>A</th><th>B</th><th>Δ time B − A</th><th>Δ cost</th></tr>"
        return f'<div class="nnb-scroll-x"><table>{head}{"".join(rows)}</table></div>'  # too wide: it scrolls, whole


def _differs(row: Any) -> bool:
    if not (row["in_a"] and row["in_b"]):
        return True
    delta = row["delta_s"]
    return bool(delta == delta and abs(delta) >= 0.05) or bool(row["delta_cost"] == row["delta_cost"] and row["delta_cost"])


def _mark(row: Any) -> str:
    if not row["in_a"]:
        return '<b class="nnb-c-orange">only in B</b>'
    if not row["in_b"]:
        return '<b class="nnb-c-orange">only in A</b>'
    return '<b class="nnb-c-purple">≠</b>' if _differs(row) else ""


def _s(value: Any) -> str:
    return "—" if value != value else f"{float(value):.2f} s"


def _delta(value: Any, unit: str, money: bool = False) -> str:
    if value != value:
        return "—"
    v = float(value)
    if abs(v) < (5e-7 if money else 0.005):  # rounds to nothing at the precision shown
        v = 0.0
    # in the units and decimals of the values compared: "0.00 s" beside "0.00 s", not a bare "0"; a cost as every
    # view writes one ("+$0.0031", "$0.0000")
    text = money_text(v, signed=True) if money else (f"{v:+.2f}{unit}" if v else f"0.00{unit}")
    hue = "red" if v > 0 else ("green" if v < 0 else "grey")
    return f'<span class="nnb-c-{hue}">{text}</span>'
