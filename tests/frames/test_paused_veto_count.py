"""``runs_df.veto_count`` of a run with no summary yet (paused) is counted from its log, as its ``act_count`` is
from its state: a run paused on an enforced veto counts that veto, one paused for an approval counts none."""

from __future__ import annotations

import json
from pathlib import Path

import noesis_nb
from noesis_nb.frames import runs_df
from noesis_nb.scripted import researcher

from ..runtime.agents import make_writer


def _enforced_vetoes(run: Path) -> int:
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    governance = [e["payload"] for e in events if e["phase"] == "governance"]
    return sum(1 for p in governance if p["decision"] == "veto" and p["enforced"])


def test_a_paused_runs_veto_count_comes_from_its_log(runs_dir: Path, tmp_path: Path) -> None:
    vetoed = noesis_nb.solve("please destroy x", using=researcher(), runs_dir=runs_dir, governance="enforce", pause_on_veto=True)
    waiting = noesis_nb.solve("write a note", using=make_writer(tmp_path / "a.txt"), approver="ask", runs_dir=runs_dir)
    for ep in (vetoed, waiting):
        assert not (runs_dir / ep / "summary.json").exists()
    assert _enforced_vetoes(runs_dir / vetoed) == 1 and _enforced_vetoes(runs_dir / waiting) == 0
    for cache in (False, True, True):  # cold, then kept, then served from the cache
        df = runs_df(runs_dir, cache=cache).set_index("episode_id")
        assert (df.loc[vetoed, "status"], df.loc[waiting, "status"]) == ("paused", "paused")
        assert df.loc[vetoed, "veto_count"] == _enforced_vetoes(runs_dir / vetoed)
        assert df.loc[waiting, "veto_count"] == 0
