"""A name of any length leaves a figure readable: legends and ticks show it short, the hover shows it whole.

Plotly wraps neither a legend entry nor a tick label, so a 400-character model, tool, adapter or phase name
from a run file took the whole figure and squeezed the plot to a sliver. Names that differ only past the cut
must still be told apart (never merged into one bar), and the whole name must still be reachable in the hover.
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import pytest

from noesis_nb import plots
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df

from ..frames.runkit import event, model_call, write_run

LONG = "n" * 300  # two names differing only after it: "<LONG>0" and "<LONG>1"
BOUND = 48  # characters a legend entry or tick label may take (a name cut, "…", and " (2)" when needed)


@pytest.fixture(scope="module")
def long_named(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], Any, Any, Any, Any]:
    clear_cache()
    root = tmp_path_factory.mktemp("long") / "runs"
    ids = ["ep_long_a", "ep_long_b"]
    for i, ep in enumerate(ids):
        t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 60, 10)]
        draft = f"draft:{ep}:r1"
        run = write_run(
            root,
            ep,
            [
                event(ep, 0, "start", {"task": "t"}, ts=t[0]),
                model_call(ep, 1, t[1], f"model-{LONG}{i}", "openai", input_tokens=100, output_tokens=10),
                event(ep, 2, f"phase-{LONG}{i}", {}, ts=t[2]),
                event(ep, 3, "tool", {"event_name": "tool.requested", "request_id": "r1", "tool": f"tool-{LONG}"}, ts=t[3]),
                event(ep, 4, "tool", {"event_name": "tool.approval.pending", "request_id": "r1", "draft_id": draft}, ts=t[3]),
                event(ep, 5, "terminate", {"status": "ok"}, ts=t[4]),
            ],
            summary={
                "episode_id": ep,
                "task": "t",
                "status": "ok",
                "started_at": t[0],
                "duration_sec": 40.0 + i,
                "flags": {"using": f"adapter-{LONG}{i}"},
            },
        )
        folder = run / "tool_invocations"
        for kind, doc in (
            ("prepared", {"draft_id": draft, "tool": f"tool-{LONG}{i}", "status": "approved"}),
            ("approvals", {"draft_id": draft, "status": "approved", "approver_id": f"person-{LONG}{i}", "reason": "ok"}),
        ):
            (folder / kind).mkdir(parents=True, exist_ok=True)
            (folder / kind / f"{draft}.json").write_text(json.dumps(doc | {"decided_at": "2025-03-01T10:00:35+00:00"}))
    return ids, events_df(root), runs_df(root), tools_df(root), usage_df(root)


def _read(text: str) -> str:
    """What a person reads: the package's own line breaks joined, entities read back."""
    return html.unescape(text.replace("<br>", ""))


def _drawn(fig: go.Figure) -> dict[str, list[tuple[str, str]]]:
    """Per category axis ("xaxis", "yaxis2"…), (category, label drawn under its tick) of each category; and
    "legend": (name, name) of each legend entry."""
    layout = fig.to_plotly_json()["layout"]
    drawn: dict[str, list[tuple[str, str]]] = {"legend": []}
    for trace in fig.data:
        if trace.showlegend is not False and trace.name and layout.get("showlegend", True) is not False:
            drawn["legend"].append((str(trace.name), str(trace.name)))
        for letter in ("x", "y"):
            values = getattr(trace, letter, None)
            if values is None and trace.type == "box" and letter == "x":
                values = [trace.name]  # a box without positions sits at the category of its name
            if values is None or not any(isinstance(v, str) for v in values):
                continue
            ref = getattr(trace, f"{letter}axis", None) or letter
            axis = layout.get(f"{letter}axis{ref[1:]}", {})
            under = dict(zip(axis.get("tickvals") or [], axis.get("ticktext") or []))
            drawn.setdefault(f"{letter}axis{ref[1:]}", []).extend((str(v), str(under.get(v, v))) for v in values)
    return drawn


def _hover_texts(fig: go.Figure) -> str:
    """Every text a hover may show (hovertext and customdata), read as a person reads it."""
    parts = []
    for trace in fig.data:
        for field in ("hovertext", "customdata"):
            value = getattr(trace, field, None)
            if value is not None:
                parts.append(_read(" ".join(map(str, pd.DataFrame(value).to_numpy().ravel()))))
    return "\n".join(parts)


def test_long_names_are_cut_in_legends_and_ticks_told_apart_and_whole_in_the_hover(long_named) -> None:
    ids, events, runs, tools, usage = long_named
    from noesis_nb.frames import batch_summary

    figures = {  # each figure, and the names from the runs it draws
        "episode_timeline": (plots.episode_timeline(events, ids[0]), events[events["episode_id"] == ids[0]]["phase"]),
        # the made-up models are priced nowhere, and a line draws priced calls only: priced here for the names' sake
        "cost_over_time": (plots.cost_over_time(usage.assign(cost_usd=0.001), by="model"), usage["model"]),
        "tokens_by": (plots.tokens_by(usage, by="model"), usage["model"]),
        "success_by_adapter": (plots.success_by_adapter(runs), runs["using"]),
        "duration_by_adapter": (plots.duration_by_adapter(runs), runs["using"]),
        "approval_waits": (plots.approval_waits(tools), tools["tool"]),
        "approval_waits by approver": (plots.approval_waits(tools, by="approver_id"), tools["approver_id"]),
        "compare_episodes": (plots.compare_episodes(events, ids[0], ids[1], usage), usage["model"]),
        "batch_summary_plot": (plots.batch_summary_plot(batch_summary(runs)), runs["using"]),
    }
    for what, (fig, names) in figures.items():
        names = sorted({str(n) for n in names if LONG in str(n)})
        assert names, f"{what}: the fixture has no long name to draw"
        drawn = _drawn(fig)
        labels = [label for pairs in drawn.values() for _, label in pairs]
        too_long = [_read(label)[:60] for label in labels if len(_read(label)) > BOUND]
        assert not too_long, f"{what}: labels of {sorted({len(_read(t)) for t in labels})} characters drawn: {too_long}"
        for where, pairs in drawn.items():  # one label per category: names alike for 300 characters are not merged
            under: dict[str, set[str]] = {}
            for category, label in pairs:
                under.setdefault(label, set()).add(category)
            merged = {label: cats for label, cats in under.items() if len(cats) > 1}
            assert not merged, f"{what}: {where} draws different names as one label: {list(merged)}"
        hover = _hover_texts(fig)
        missing = [name[:20] + "…" for name in names if name not in hover]
        assert not missing, f"{what}: the whole name is in no hover: {missing}"


INVISIBLE = ["\u2060", "\u200d", "\u200e", "\ufe0f", "\u00ad"]  # a word joiner, a zero-width joiner, a bidi mark…


def test_names_that_differ_by_an_invisible_character_read_apart(tmp_path: Path) -> None:
    """``gpt-4o`` and ``gpt-4o\u2060`` are two models: drawn alike, one's tokens and cost read as the other's."""
    clear_cache()
    root = tmp_path / "runs"
    models = ["gpt-4o", *(f"gpt-4o{ch}" for ch in INVISIBLE)]
    t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 60, 5)]
    for i, model in enumerate(models):
        ep = f"ep_inv_{i}"
        write_run(
            root,
            ep,
            [
                event(ep, 0, "start", {"task": "t"}, ts=t[0]),
                model_call(ep, 1, t[1 + i], model, "openai", input_tokens=100 + i, output_tokens=10),
                event(ep, 2, "terminate", {"status": "ok"}, ts=t[-1]),
            ],
            summary={
                "episode_id": ep,
                "task": "t",
                "status": "ok",
                "started_at": t[0],
                "duration_sec": 5.0,
                "flags": {"using": f"agent{INVISIBLE[i - 1] if i else ''}"},
            },
        )
    usage, runs = usage_df(root), runs_df(root)
    assert usage["model"].nunique() == len(models)
    for what, fig in {
        "tokens_by": plots.tokens_by(usage, by="model"),
        "cost_over_time": plots.cost_over_time(usage.assign(cost_usd=0.001), by="model"),  # lines draw priced calls
        "success_by_adapter": plots.success_by_adapter(runs),
        "duration_by_adapter": plots.duration_by_adapter(runs),
    }.items():
        drawn = _drawn(fig)
        # the six names are drawn apart somewhere (a legend or an axis), a label each: none merged into another
        base = "gpt-4o" if what in ("tokens_by", "cost_over_time") else "agent"
        named = [{label for _, label in pairs if _read(label).startswith(base)} for pairs in drawn.values()]
        assert max(map(len, named)) == len(models), (what, drawn)
        for where, pairs in drawn.items():
            if not pairs:
                continue
            seen = {label for _, label in pairs}
            read = {"".join(ch for ch in _read(label) if ch.isprintable() and ch not in INVISIBLE) for label in seen}
            assert len(read) == len(seen), f"{what}: {where} draws names that read alike: {sorted(map(ascii, seen))}"
