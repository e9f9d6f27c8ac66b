"""``EpisodeView`` and ``batch_view`` given what a newcomer has at hand (an episode id, a path, None) say what
they take and the call that shows it: ``EpisodeView("ep_…")`` raised ``'str' object has no attribute
'run_dir'`` and then printed a second traceback from the half-made widget's ``__del__``."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest

from noesis_nb.errors import InvalidOptionError
from noesis_nb.widgets import EpisodeView, batch_view


@pytest.mark.parametrize("given", ["ep_01K9ABCDEFGHJKMNPQRSTVWXYZ", Path("runs/ep_x"), None, 42])
def test_episode_view_of_an_id_names_show(given: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch) -> None:
    raised_late: list[Any] = []  # what a ``__del__`` raises goes to this hook (pytest would make it a warning)
    monkeypatch.setattr(sys, "unraisablehook", raised_late.append)
    with pytest.raises(InvalidOptionError) as info:
        EpisodeView(given)
    said = str(info.value)
    assert "EpisodeView takes an episode handle" in said and "noesis_nb.show(" in said, said
    gc.collect()  # the refused view is collected: nothing more is raised
    assert raised_late == []


@pytest.mark.parametrize("given", [None, "batch_1", [1, 2]])
def test_batch_view_of_something_else_names_batch(given: Any, comm_log: list) -> None:
    with pytest.raises(InvalidOptionError, match=r"batch_view takes the handle noesis_nb\.batch\("):
        batch_view(given)
