"""``show(run, using=…)`` names an adapter that cannot be had when it is called, not at the Resume click that
needs it (a name that resolves to nothing was accepted silently); a value that can be no adapter is named
before any run is looked up, as ``resume_run`` does."""

from __future__ import annotations

from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import UsingResolutionError


def agent(task, ctx):
    return "done"


def asks(task, ctx):
    ctx.tool("fs.touch", {"argv": ["true"]}, effect="write", risk="high")
    return "done"


def test_show_names_an_adapter_that_resolves_to_nothing(runs_dir: Path) -> None:
    ep = noesis_nb.solve("t", using=asks, runs_dir=runs_dir, approver="ask")  # paused: it can be resumed
    with pytest.raises(UsingResolutionError, match="nnb_no_such_module_anywhere"):
        noesis_nb.show(ep, runs_dir=runs_dir, using="nnb_no_such_module_anywhere:agent")
    view = noesis_nb.show(ep, runs_dir=runs_dir, using=agent)  # a real adapter is taken as before
    assert view.source.adapter is not None and view.source.adapter.label == "agent"  # resolved: the run can resume
    view.close()


def test_a_sealed_run_shown_with_an_adapter_factory_does_not_call_it(runs_dir: Path) -> None:
    """Nothing resumes a sealed run: a factory that needs a key or the network is not called to show it."""
    ep = noesis_nb.solve("t", using=agent, runs_dir=runs_dir)

    def make_agent():
        raise RuntimeError("no API key here")

    noesis_nb.show(ep, runs_dir=runs_dir, using=make_agent).close()


def test_show_refuses_a_value_that_is_no_adapter_before_looking_the_run_up(runs_dir: Path) -> None:
    with pytest.raises(UsingResolutionError, match="using=5"):
        noesis_nb.show("ep_not_there_at_all", runs_dir=runs_dir, using=5)
