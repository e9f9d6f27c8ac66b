"""A run's folder name is worked out once per reference: a load asks for it several times a run."""

from __future__ import annotations

from noesis_nb.frames import events_df
from noesis_nb.frames.source import resolve_source

from .runkit import basic_events, hand_summary, write_run


def test_the_name_is_the_folders_and_kept(tmp_path):
    root = tmp_path / "runs"
    for ep in ("ep_a", "ep_b"):
        write_run(root, ep, basic_events(ep), summary=hand_summary(ep, task=ep))
    refs = resolve_source([str(root / "ep_a") + "/", root / "ep_b"])
    assert [ref.name for ref in refs] == ["ep_a", "ep_b"]
    assert all(ref.name is ref.name for ref in refs)  # the same string each time: not split again
    assert events_df([str(root / "ep_a") + "/", root / "ep_b"])["episode_id"].unique().tolist() == ["ep_a", "ep_b"]
