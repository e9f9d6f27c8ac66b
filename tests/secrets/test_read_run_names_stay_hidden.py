"""A run folder named with a credential (``ep_ghp_…`` copied into a shared root) is shown redacted
(``[REDACTED:<mark>]``) by every view; after ``approve_draft`` or ``resume_run`` of that folder in the same process,
``runs_df`` and ``list_runs`` showed its token in clear: every run registered in the process (one only read from
disk too) counted as a run this process named, whose id a view keeps whole. Only the runs this process made, with an
id checked as new, are such public names now.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

TOKEN = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"


def _paused(task: str, ctx: Any) -> Any:
    return ctx.tool("w", {"argv": ["true"]}, effect="write", risk="high")


def _shown_anywhere(root: Path) -> str:
    """Every id and path runs_df and list_runs show for ``root``, and a view of each run, as one text."""
    frame = noesis_nb.runs_df(root)
    rows = noesis_nb.list_runs(runs_dir=root)
    views = [str(noesis_nb.show(root / p.name)._repr_mimebundle_()) for p in sorted(root.iterdir()) if p.name != "batches"]
    return " ".join([*map(str, frame["episode_id"]), *map(str, frame["run_dir"]), *(str(r) for r in rows), *views])


@pytest.mark.parametrize("step", ["approve_draft", "resume_run", "both"])
def test_a_credential_named_folder_stays_hidden_after_it_was_decided_or_resumed(runs_dir: Path, step: str) -> None:
    made = noesis_nb.solve("p", using=_paused, runs_dir=runs_dir, approver="ask")
    copy = runs_dir / f"ep_{TOKEN}_paused"
    shutil.copytree(runs_dir / made, copy)
    before = _shown_anywhere(runs_dir)
    assert TOKEN not in before and "[REDACTED:" in before
    if step in ("approve_draft", "both"):
        noesis_nb.approve_draft(copy)
    if step in ("resume_run", "both"):
        try:
            noesis_nb.resume_run(copy)
        except Exception:  # resumed or refused: the folder was read either way
            pass
    after = _shown_anywhere(runs_dir)
    assert TOKEN not in after and TOKEN[4:24] not in after
    assert "[REDACTED:" in after
    assert made in after  # the run this process made is named whole


def test_a_run_made_here_keeps_its_own_id_whole(runs_dir: Path) -> None:
    made = noesis_nb.solve("t", using=lambda task: 1, runs_dir=runs_dir, episode_id="api_key-smoke")
    assert made == "api_key-smoke"
    assert noesis_nb.runs_df(runs_dir)["episode_id"].tolist() == ["api_key-smoke"]
