"""Yes/no options of the analysis functions given text or a number: ``cache="false"`` (which ``bool()`` reads as
true) was taken while ``strict="yes"`` was refused. Every such option is refused the same way, naming the value
and what True and False mean, before any run is read; True, False (and None for ``progress``) still load."""

from __future__ import annotations

import numpy as np
import pytest

from noesis_nb.errors import InvalidOptionError
from noesis_nb.frames import events_df, runs_df, tools_df, usage_df
from noesis_nb.plots import cost_over_time

from .runkit import make_engine_runs

FRAMES = [runs_df, events_df, tools_df, usage_df]


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    runs = tmp_path_factory.mktemp("yes_no") / "runs"
    make_engine_runs(runs)  # real runs with model calls and tool drafts: every frame has rows
    return runs


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("option", ["strict", "cache", "progress"])
@pytest.mark.parametrize("value", ["false", "yes", 0, 1, 0.0, "", [True]])
def test_a_yes_no_option_that_is_not_a_bool_is_refused(root, frame, option, value):
    with pytest.raises(InvalidOptionError) as refused:
        frame(root, **{option: value})
    said = str(refused.value)
    assert said.startswith(f"{option}={value!r}: pass True"), said
    assert "False" in said, said


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f.__name__)
def test_the_refusals_are_the_same_for_every_option(root, frame):
    said = {}
    for option in ("strict", "cache"):
        with pytest.raises(InvalidOptionError) as refused:
            frame(root, **{option: "no"})
        said[option] = str(refused.value).split(":", 1)
    assert said["strict"][0] == "strict='no'" and said["cache"][0] == "cache='no'"
    assert all(text.startswith(" pass True (") and " or False (" in text for _, text in said.values()), said


@pytest.mark.parametrize("frame", FRAMES, ids=lambda f: f.__name__)
def test_bools_and_none_still_load(root, frame):
    whole = frame(root)
    assert len(whole) > 0
    options = [{"cache": False}, {"cache": True}, {"progress": None}, {"progress": False}, {"strict": False}]
    # numpy's bools (``df.any()``, ``arr.all()``) are True and False too
    options += [{"cache": np.False_}, {"cache": np.True_}, {"progress": np.False_}, {"strict": np.False_}]
    for given in options:
        assert len(frame(root, **given)) == len(whole), given


def test_a_plot_yes_no_option_is_refused_too(root):
    usage = usage_df(root)
    assert len(cost_over_time(usage, cumulative=False).data) > 0
    with pytest.raises(InvalidOptionError, match=r"^cumulative='no': pass True or False$"):
        cost_over_time(usage, cumulative="no")
