"""A view of a run costs the same work however many runs of the process learned secrets (``display.shown_known``).

Every view hides what any run of the process learned (up to 512 runs). Each shown text was searched value by value, or
had those values compiled again for it: a short text cost work per value learned, so a view of a few events grew with
the runs before it (a long-lived kernel's, or a test run's: a hardening test went from ~90 s to past 300 s after
``tests/secrets``). The calls are counted, not timed: a busy machine slows every call alike."""

from __future__ import annotations

import random
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.secrets import guard
from noesis_nb.secrets.display import shown
from noesis_nb.widgets import EpisodeView
from noesis_nb.widgets.render import row_html

from ..callcount import counting_calls

_RNG = random.Random(20261206)
_ALNUM = string.ascii_letters + string.digits


def _token(n: int) -> str:
    return "".join(_RNG.choice(_ALNUM) for _ in range(n))


def _learn_runs(root: Path, start: int, stop: int) -> list[str]:
    """Runs ``start`` to ``stop`` of this process each learn three values (as a run's payloads teach it)."""
    values = []
    for i in range(start, stop):
        learned = [f"hunter2-{_token(12)}", _token(32), f"sk-{_token(40)}"]
        assert guard.for_run(root / f"run{i:04d}").learn(learned)
        values += learned
    return values


def _agent(task: str, ctx: Any) -> str:
    ctx.emit("note", {"text": f"password={_token(14)} and token sk-proj-{_token(40)}", "auth": _token(24)})
    ctx.emit("note", {"text": "step done, wrote the summary of the build log"})
    return "ok"


def _view(run: DiskRun, texts: list[str]) -> list[str]:
    """What a user sees of ``run``: its snapshot, its HTML, each row; and ``texts`` as any view shows a text."""
    view = EpisodeView(run)
    view.flush()
    html = [view.snapshot_html(), view.mimebundle(widget=False)["text/html"], *(row_html(e) for e in run.events)]
    view.close()
    return html + [shown(text) for text in texts]


def _calls(run: DiskRun, texts: list[str]) -> tuple[int, list[str]]:
    _view(run, texts)  # what a new value compiles, once
    with counting_calls() as calls:
        out = _view(run, texts)
    return calls[0], out


def test_a_view_costs_no_more_calls_after_500_runs_learned_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(guard, "_REGISTRY", type(guard._REGISTRY)())  # this process's earlier runs set aside
    monkeypatch.setattr(guard, "_UNION", guard._UNION)  # (and their values read again after the test)
    runs = tmp_path / "runs"
    run = DiskRun(runs / noesis_nb.solve("ship it", using=_agent, runs_dir=runs, approver="auto"))
    first = _learn_runs(tmp_path / "others", 1, 10)
    prose = "The agent read the build log, found the failing test and wrote a short summary of the fix. "
    texts = ["short text", prose, prose * 8, f"{prose}{first[0]} {first[1][:12]}…"]
    few, _ = _calls(run, texts)

    last = _learn_runs(tmp_path / "others", 10, 500)
    texts += [f"auth {last[-1]} and {last[-3]}", f"{prose}{last[-2][:10]}…"]
    many, out = _calls(run, texts[:4])
    assert many < few * 1.2, f"a view took {many:,} calls once 500 runs had learned secrets, {few:,} after 10"

    # and what any of those runs learned is hidden still: the first runs', the last ones', a cut-off head of one
    shown_texts = "\n".join([*out, *(shown(t) for t in texts)])
    leaked = [v for v in [*first, *last[-3:]] if v in shown_texts or v[:10] in shown_texts]
    assert not leaked, f"{len(leaked)} learned values shown: {leaked[:3]}"
