"""Views whose kernel restarted, in a real kernel: what each said it would say once the kernel is gone fits its run,
and typed in the restarted kernel it works. An episode this kernel was running is lost by the restart (its badge
then reads ``lost``, as ``%noesis list`` does) and is settled with ``%noesis resume``; an ended one has nothing left to
decide. The notice once told both to ``%noesis approve``: "no draft is pending approval … Pass a draft id."."""

from __future__ import annotations

from typing import Any

import pytest

from noesis_nb.store import is_sealed
from tests.widgets.staletext import SETUP, commands, without_kernel

pytestmark = pytest.mark.kernel


def _said(kernel: Any, episode_id: str, words: str) -> str:
    """The notice of ``episode_id``'s view, once it says ``words`` (the view drew the run in that state)."""

    def find() -> str | None:
        found = [str(s.get("value")) for s in kernel.widgets("HTMLModel").values() if 'class="nnb-stale"' in str(s.get("value"))]
        return next((v for v in found if episode_id in v and words in without_kernel(v)), None)

    notice: str = kernel.wait(find, what=f"the notice of {episode_id} to say {words!r}")
    return notice


def _header(kernel: Any, episode_id: str) -> str:
    return next(
        str(s["value"])
        for s in kernel.widgets("HTMLModel").values()
        if 'class="nnb-h"' in str(s.get("value")) and episode_id in str(s["value"])
    )


def _typed(kernel: Any, line: str) -> str:
    """What typing ``line`` in a cell printed (a magic's UsageError is printed, not raised)."""
    return str(kernel.run(line)["stdout"])


def test_what_views_say_once_their_kernel_restarted_works_there(kernel: Any) -> None:
    kernel.setup()
    runs = kernel.tmp / "stale advice"  # not a root a fresh kernel searches: every command names it
    kernel.run(f"R = {str(runs)!r}\ndef quick(task, ctx):\n    return 'done'\n")
    ended = kernel.run("h = noesis_nb.start('quick one', using=quick, runs_dir=R)\nprint(h.episode_id)\nh")["stdout"].split()[-1]
    running = kernel.run("s = noesis_nb.start('slow one', using=slow_agent, runs_dir=R)\nprint(s.episode_id)\ns")[
        "stdout"
    ].split()[-1]
    ended_notice = _said(kernel, ended, "nothing is left to decide")
    lost_notice = _said(kernel, running, "lost")
    assert without_kernel(_header(kernel, running)).split()[1] == "lost"
    kernel.restart()
    kernel.run("\n".join(SETUP))  # as every notice says first: the new kernel has neither
    assert [c for c in commands(ended_notice) if c.startswith("%noesis")] == [], ended_notice
    for line in commands(ended_notice):
        assert "Error" not in _typed(kernel, line)
    kernel.run("from pathlib import Path\nfrom noesis_nb.store.listing import status_of")  # what %noesis list says
    assert kernel.value(f"status_of(Path({str(runs / running)!r}))") == "lost"
    [resume] = [c for c in commands(lost_notice) if c.startswith("%noesis")]
    out = _typed(kernel, resume)
    assert "Error" not in out and is_sealed(runs / running) and "process_lost" in (runs / running / "summary.json").read_text(), (
        out
    )
