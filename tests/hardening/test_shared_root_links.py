"""Symbolic links in a shared runs root: one that someone else made, leading out of the root, is not followed.

Anyone who can write to a shared root could put a link ``ep_x -> /etc`` or ``ep_x -> /home/other/runs/ep_y`` in
it; followed, that folder's files would be read and shown as a run of the root. Such a link is left out and said,
in every frame; a link leading inside the root, or the user's own link (a folder of links to one's runs), is read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from noesis_nb.frames import clear_cache, events_df, runs_df, usage_df
from tests.frames.runkit import basic_events, hand_summary, write_run

OTHER_UID = 65534  # "nobody": a link made by another user (the tests run as a user that may give files away)
FRAMES = {"runs_df": runs_df, "events_df": events_df, "usage_df": usage_df}


def _theirs(link: Path, target: Path | str) -> Path:
    link.symlink_to(target)
    os.lchown(link, OTHER_UID, OTHER_UID)
    return link


@pytest.fixture
def shared(tmp_path: Path) -> tuple[Path, list[Path]]:
    """A root with a run of its own, a label folder, and links another user made: out of the root (to a run, to a
    label-like folder, to /etc) and inside it (an alias of the root's run)."""
    if os.getuid() != 0:
        pytest.skip("giving a link to another user (lchown) needs root; the project's CI runs these tests as root")
    root, elsewhere = tmp_path / "runs", tmp_path / "private"
    write_run(root, "ep_mine", basic_events("ep_mine"), summary=hand_summary("ep_mine", task="mine"))
    write_run(elsewhere, "ep_private", basic_events("ep_private"), summary=hand_summary("ep_private", task="private"))
    write_run(elsewhere, "ep_labelled", basic_events("ep_labelled"), summary=hand_summary("ep_labelled", task="x"))
    (root / "label").mkdir()
    write_run(root / "label", "ep_in_label", basic_events("ep_in_label"), summary=hand_summary("ep_in_label", task="l"))
    refused = [
        _theirs(root / "ep_private", elsewhere / "ep_private"),
        _theirs(root / "ep_etc", "/etc"),
        _theirs(root / "team", elsewhere),  # a label folder of runs elsewhere
        _theirs(root / "label" / "ep_labelled", elsewhere / "ep_labelled"),
    ]
    _theirs(root / "ep_alias", root / "ep_mine")  # inside the root: read (once)
    return root, refused


@pytest.mark.parametrize("frame", sorted(FRAMES))
def test_a_link_someone_else_made_out_of_a_shared_root_is_said_not_followed(shared, frame: str) -> None:
    root, refused = shared
    for _ in range(2):  # cold, then warm
        df = FRAMES[frame](root)
        assert set(df["episode_id"]) == {"ep_mine", "ep_in_label"}
        said = {e["path"]: e["reason"] for e in df.attrs["errors"]}
        for link in refused[:3]:  # the root's own entries: each said, whatever its name
            assert str(link) in said and "not followed" in said[str(link)], (link, said)
        elsewhere = str(root.parent / "private")
        assert not any(elsewhere in str(v) for v in df.astype(str).to_numpy().ravel())
    clear_cache()


def test_the_users_own_link_out_of_the_root_is_followed(tmp_path: Path) -> None:
    root, elsewhere = tmp_path / "runs", tmp_path / "mine"
    write_run(elsewhere, "ep_kept", basic_events("ep_kept"), summary=hand_summary("ep_kept", task="kept"))
    root.mkdir()
    (root / "ep_kept").symlink_to(elsewhere / "ep_kept")
    df = runs_df(root)
    assert list(df["episode_id"]) == ["ep_kept"] and df.attrs["errors"] == []
