"""A run whose terminate event has a status that cannot be read (a key written twice, a number, null) ended with no
word the reader can trust: every reader calls it ``unknown``, never ``ok``. A terminate without a status key keeps
the old reading (``ok``), and a readable word is kept as written."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache

_HEAD = '{"id":"%s","timestamp":"2025-11-11T02:19:1%s+00:00","episode_id":"%s","agent_id":"system",'
_START = _HEAD % ("e0", 0, "%s") + '"phase":"start","payload":{"task":"t"}}'
_END = _HEAD % ("e1", 1, "%s") + '"phase":"terminate","payload":%s}'

CASES = {
    "ep_twice_ok_last": ('{"status":"error","status":"ok"}', "unknown"),
    "ep_twice_error_last": ('{"status":"ok","status":"error"}', "unknown"),
    "ep_number": ('{"status":5}', "unknown"),
    "ep_null": ('{"status":null}', "unknown"),
    "ep_no_key": ("{}", "ok"),
    "ep_error": ('{"status":"error"}', "error"),
}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("terminate") / "runs"
    for episode, (payload, _) in CASES.items():
        run = runs / episode
        run.mkdir(parents=True)
        (run / "events.jsonl").write_text(_START % episode + "\n" + _END % (episode, payload) + "\n")
    return runs


def test_unreadable_terminate_status_is_unknown_in_every_reader(root: Path) -> None:
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = noesis_nb.runs_df(root, cache=False).set_index("episode_id")
        listed = {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=root)}
    for episode, (_, want) in CASES.items():
        view = repr(noesis_nb.show(root / episode))
        badge = re.search(r'<span class="nnb-badge nnb-c-\w+">([^<]*)<', view)
        assert badge is not None
        seen = {
            "runs_df": frame.loc[episode, "status"],
            "list_runs": listed[episode],
            "DiskRun": noesis_nb.DiskRun(root / episode).status,
            "show": badge.group(1),
        }
        assert seen == dict.fromkeys(seen, want), episode


def test_a_key_written_twice_is_still_reported(root: Path) -> None:
    clear_cache()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = noesis_nb.runs_df(root, cache=False)
    reported = {Path(p["path"]).parent.name for p in frame.attrs["errors"] if "comes twice" in p["reason"]}
    assert reported == {"ep_twice_ok_last", "ep_twice_error_last"}
