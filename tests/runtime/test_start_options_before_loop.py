"""``start`` (and ``%noesis run``, which calls it) names a wrong option before asking for a running loop, as
``batch`` does: outside a loop it said only "start() needs a running event loop", so a script fixed to run one
was then refused again for ``idle_timeout_s=nan`` or ``governance='Enforce'``. Nothing is written either way."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import EpisodeStateError, InvalidIdError, InvalidOptionError
from tests.ipshell import noesis_shell


def _agent(task: str) -> str:
    return "done"


BAD = [
    ({"idle_timeout_s": math.nan}, "idle_timeout_s=nan"),
    ({"governance": "Enforce"}, "governance='Enforce'"),
    ({"seed": "x"}, "seed='x'"),
    ({"nonsense": 1}, "unknown option(s) 'nonsense'"),
    ({"approver": "maybe"}, "approver="),
    ({"score_timeout_s": -1}, "score_timeout_s=-1"),
    ({"episode_id": "../x"}, "episode id"),
]


@pytest.mark.parametrize("options, named", BAD, ids=[next(iter(o)) for o, _ in BAD])
def test_start_outside_a_loop_names_the_wrong_option_first(tmp_path: Path, options: dict[str, Any], named: str) -> None:
    with pytest.raises((InvalidOptionError, InvalidIdError)) as caught:  # before: EpisodeStateError, "needs a running event loop"
        noesis_nb.start("t", _agent, runs_dir=tmp_path / "runs", **options)
    assert named in str(caught.value), str(caught.value)
    assert "event loop" not in str(caught.value)
    assert not (tmp_path / "runs").exists()


def test_start_outside_a_loop_with_right_options_still_asks_for_the_loop_and_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(EpisodeStateError, match="needs a running event loop"):
        noesis_nb.start("t", _agent, runs_dir=tmp_path / "runs", governance="enforce", idle_timeout_s=30, seed=7)
    assert not (tmp_path / "runs").exists()


def test_start_outside_a_loop_names_a_task_and_agent_given_the_other_way_round(tmp_path: Path) -> None:
    with pytest.raises(InvalidOptionError, match="task=_agent is a function"):
        noesis_nb.start(_agent, "summarise the logs", runs_dir=tmp_path)  # type: ignore[arg-type]


def test_noesis_run_names_a_wrong_idle_timeout_not_the_loop(tmp_path: Path) -> None:
    with noesis_shell() as shell:
        shell.user_ns["my_agent"] = _agent
        with pytest.raises(UsageError) as caught:
            shell.run_line_magic("noesis", f"run my_agent t --runs-dir {tmp_path} --idle-timeout nan")
    assert "idle_timeout_s=nan" in str(caught.value) and "positive number of seconds" in str(caught.value)
    assert "event loop" not in str(caught.value)
