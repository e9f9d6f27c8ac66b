"""An act names its actor under ``tool`` or ``adapter`` (Noēsis' act rule): events_df's ``tool`` reads the adapter of
an act that has no tool (the synthetic act of Noēsis' smoke run) and of nothing else."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import noesis_nb

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-smoke-run"


def test_the_synthetic_act_has_its_adapter_for_tool(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    shutil.copytree(FIXTURE, root)
    (log,) = root.glob("ep_*/events.jsonl")
    acts = [e for e in map(json.loads, log.read_text().splitlines()) if e["phase"] == "act"]
    synthetic = [e for e in acts if "tool" not in e["payload"]]
    assert synthetic and all("adapter" in e["payload"] for e in synthetic)
    df = noesis_nb.events_df(root).set_index("event_id")
    for act in acts:
        assert df.loc[act["id"], "tool"] == act["payload"].get("tool", act["payload"].get("adapter"))


def test_only_an_acts_adapter_stands_for_its_tool(tmp_path: Path) -> None:
    def agent(task: str, ctx) -> str:
        ctx.emit("note", {"adapter": "not a tool"})
        return "ok"

    noesis_nb.solve("acts", using=agent, runs_dir=tmp_path)
    df = noesis_nb.events_df(tmp_path)
    assert len(df[df.phase == "note"]) == 1 and df.loc[df.phase == "note", "tool"].isna().all()
