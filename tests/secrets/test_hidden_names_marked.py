"""Two run folders named with two different tokens, put in a shared root, are shown apart: each hidden name as
``[REDACTED:<mark>]``, the mark a keyed hash of the text hidden (``secrets.namemarks``). Shown as one bare
``[REDACTED]``, a frame's groupby and joins merged the two runs without a word and the shown path opened neither.

The runs are written by noesis_nb's own runtime (a model call, a tool draft approved) and copied into the root as
another user would, renamed with a token; a second root holds Noēsis' smoke run renamed so (its seal made true, so a
whole-folder load keeps its frame for the next process)."""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb.errors import RunNotFoundError
from noesis_nb.frames.problems import RunLoadError
from noesis_nb.secrets import for_run
from noesis_nb.secrets.display import shown
from noesis_nb.store import find_run_dir
from noesis_nb.store.shownnames import found_shown
from tests.frames.runkit import basic_events, hand_summary, write_run, writer_adapter
from tests.hardening.test_credential_folders_shown import SMOKE, _renamed, _resealed

# built from parts: no whole credential stands in the repository's text
_ONE = "ghp" + "_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb12"
_TWO = "ghp" + "_" + "Pa2Sd3Fg4Hj5Kl6Zx7Cv8Bn9Mq1We2Rt3Yu4"
NAMES = {f"ep_{_ONE}": "write a file: one", f"ep_{_TWO}": "write a file: two"}  # folder -> its task
MARKED = re.compile(r"\[REDACTED:[0-9a-f]{16}\]")
READERS = (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.tools_df, noesis_nb.usage_df)


def _leaks(text: str) -> list[str]:
    """What of either token ``text`` holds (the part after ``ghp_``: a mark is never made of it)."""
    return [t[4:] for t in (_ONE, _TWO) if t[4:] in text or t[4:16] in text]


def _load(reader: Any, source: Any, **options: Any) -> tuple[pd.DataFrame, str]:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        df = reader(source, **options)
    return df, "\n".join(str(w.message) for w in said)


def _texts(df: pd.DataFrame) -> str:
    return "\n".join([repr(df), df.to_csv(), df.to_json(default_handler=str), repr(df.attrs)])


@pytest.fixture
def shared(tmp_path: Path) -> Path:
    """A root holding two runs noesis_nb wrote (tasks ``one`` and ``two``), each renamed with its own token."""
    made, root = tmp_path / "made", tmp_path / "shared"
    made.mkdir(), root.mkdir()
    for name, task in NAMES.items():
        episode = noesis_nb.solve(task, using=writer_adapter, runs_dir=made, approver="ask")
        noesis_nb.approve_draft(episode, approver_id="ops", runs_dir=made)
        noesis_nb.resume_run(episode, runs_dir=made)
        _renamed(made / episode, root, name)
    return root


def _tasks(root: Path) -> dict[str, str]:
    """Each run's shown id -> the task its folder's summary holds (read from disk, by the folder it opens)."""
    runs = noesis_nb.runs_df(root)
    out = {}
    for row in runs.itertuples():
        folder = found_shown(Path(row.run_dir))
        out[row.episode_id] = json.loads((folder / "summary.json").read_text())["task"]
    return out


def test_two_token_named_runs_have_two_ids_in_every_frame_and_a_groupby_keeps_them_apart(shared: Path) -> None:
    lines = {name: len((shared / name / "events.jsonl").read_text().splitlines()) for name in NAMES}
    for reader in READERS:
        df, said = _load(reader, shared)
        assert len(df) >= 2, reader.__name__
        assert df["episode_id"].nunique() == 2, (reader.__name__, set(df["episode_id"]))
        assert "run_dir" not in df.columns or df["run_dir"].nunique() == 2, reader.__name__
        assert all(MARKED.fullmatch(str(e)) for e in df["episode_id"].unique()), set(df["episode_id"])
        assert not _leaks(_texts(df) + said), reader.__name__
    runs, events = noesis_nb.runs_df(shared), noesis_nb.events_df(shared)
    assert sorted(runs["task"]) == sorted(NAMES.values())
    per_run = events.groupby("episode_id", observed=True).size()
    assert sorted(per_run.tolist()) == sorted(lines.values()) and len(per_run) == 2  # merged: one group of both
    joined = events.merge(runs[["episode_id", "task"]], on="episode_id")
    assert len(joined) == len(events)  # merged ids: each event joined to both runs
    # each run's events are its own: the group of a run's id holds its folder's lines
    for row in runs.itertuples():
        folder = found_shown(Path(row.run_dir))
        assert per_run[row.episode_id] == len((folder / "events.jsonl").read_text().splitlines())
    # problems (each copy's files changed after its seal) name each run apart, as its row names it
    named = [[d for d in runs["run_dir"] if e["path"].startswith(d + "/")] for e in runs.attrs["errors"]]
    assert all(len(n) == 1 for n in named) and {n[0] for n in named} == set(runs["run_dir"]), runs.attrs["errors"]


def test_each_shown_path_and_id_opens_its_own_run(shared: Path) -> None:
    runs = noesis_nb.runs_df(shared)
    for row in runs.itertuples():
        real = shared / next(n for n, task in NAMES.items() if task == row.task)
        assert found_shown(Path(row.run_dir)) == real
        assert find_run_dir(row.run_dir) == real and find_run_dir(row.episode_id, runs_dir=shared) == real
        again = noesis_nb.runs_df(row.run_dir)
        assert again["task"].tolist() == [row.task] and again["episode_id"].tolist() == [row.episode_id]
        picked = noesis_nb.runs_df(shared, episodes=[row.episode_id])
        assert picked["task"].tolist() == [row.task]
        view = noesis_nb.show(row.run_dir)
        html = str(view.mimebundle(widget=False))  # not _repr_mimebundle_: after a test shell showed it, text only
        assert row.episode_id in html and not _leaks(repr(view) + html)
        other = runs.loc[runs["episode_id"] != row.episode_id, "episode_id"].iloc[0]
        assert other not in html  # the header names this run, not the other
    elsewhere = shared.parent / "elsewhere"
    elsewhere.mkdir()
    with pytest.raises(RunNotFoundError) as caught:  # a shown id of a root not given: said so, not a typo's message
        find_run_dir(runs["episode_id"].iloc[0], runs_dir=elsewhere)
    assert "as a frame shows it" in str(caught.value) and not _leaks(str(caught.value))


def test_list_runs_the_magic_and_errors_name_each_run_apart(shared: Path, ip: Any) -> None:
    ids = set(noesis_nb.runs_df(shared)["episode_id"])
    rows = noesis_nb.list_runs(runs_dir=shared)
    assert {r["episode_id"] for r in rows} == ids and len({r["run_dir"] for r in rows}) == 2
    table = ip.run_line_magic("noesis", f"list --runs-dir {shared}")
    listed = table._repr_html_() + repr(table)
    assert all(i in listed for i in ids) and not _leaks(listed + repr(rows) + repr(rows.problems))
    with pytest.raises(RunLoadError) as caught:
        noesis_nb.runs_df(shared, strict=True)
    message = str(caught.value)
    assert not _leaks(message) and any(i in message for i in ids), message
    with capture_output() as out:
        ip.run_line_magic("noesis", f"show {noesis_nb.runs_df(shared)['run_dir'].iloc[0]}")
    html = "".join(str(o.data.get("text/html", "")) for o in out.outputs)
    assert sum(i in html for i in ids) == 1 and not _leaks(html + out.stdout + out.stderr)


def test_a_mark_is_no_secret_and_holds_no_token(shared: Path) -> None:
    runs = noesis_nb.runs_df(shared)
    for text in [*runs["episode_id"], *runs["run_dir"]]:
        assert shown(text) == text  # shown again: kept (a mark read as a secret would be hidden in turn)
        assert shown(f"run {text} paused") == f"run {text} paused"
        mark = MARKED.search(text).group()[10:-1]
        assert not any(mark in token or token in mark for token in (_ONE, _TWO))


_CHILD = """
import json, sys
import noesis_nb
root, given = sys.argv[1], json.loads(sys.argv[2])
runs = noesis_nb.runs_df(root)
opened = {d: noesis_nb.runs_df(d)["task"].tolist() for d in given}
print(json.dumps({"rows": sorted(zip(runs["episode_id"], runs["run_dir"], runs["task"])), "opened": opened}))
"""


def _child(root: Path, given: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(root), json.dumps(given)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert not _leaks(done.stdout + done.stderr)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_another_process_shows_the_same_marks_and_opens_the_run_each_names(shared: Path, tmp_path: Path) -> None:
    runs = noesis_nb.runs_df(shared)
    rows = sorted(zip(runs["episode_id"], runs["run_dir"], runs["task"]))
    child = _child(shared, list(runs["run_dir"]))
    assert [tuple(r) for r in child["rows"]] == rows
    assert child["opened"] == {d: [task] for _, d, task in rows}
    # a root a whole-folder load keeps the frame of (no problem): the next process is served it, marks and all
    sealed = tmp_path / "sealed"
    sealed.mkdir()
    for name in NAMES:
        _resealed(_renamed(SMOKE, sealed, name))
    first, second = _child(sealed, []), _child(sealed, [])
    here = noesis_nb.runs_df(sealed)
    assert first["rows"] == second["rows"] == [list(r) for r in sorted(zip(here["episode_id"], here["run_dir"], here["task"]))]
    assert len({r[0] for r in first["rows"]}) == 2 and not here.attrs.get("errors")


def test_a_cold_load_marks_each_hidden_name_once_and_a_warm_one_none(tmp_path: Path) -> None:
    """The mark is made once a name (``store.shownnames`` keeps what each name shows), in a process that learned a
    value too (the memo of shown names is kept through it)."""
    from noesis_nb.secrets import namemarks  # (here: the file is read on code without it too)

    for_run(tmp_path / "ep_x").learn(["Vq" + secrets.token_hex(8)])
    root = tmp_path / "many"
    names = ["ep_ghp_" + secrets.token_hex(18) for _ in range(40)]
    for name in names:
        write_run(root, name, basic_events(name), summary=hand_summary(name, task="t"))
    code, calls = namemarks._mark.__code__, []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            calls.append(1)

    sys.setprofile(profile)
    try:
        cold = noesis_nb.runs_df(root, cache=False)
        cold_calls = len(calls)
        warm = noesis_nb.runs_df(root, cache=False)
    finally:
        sys.setprofile(None)
    assert cold["episode_id"].nunique() == len(names) and list(warm["episode_id"]) == list(cold["episode_id"])
    assert cold_calls <= len(names), cold_calls  # one a name: its id and its folder's name are one text
    assert len(calls) == cold_calls  # the warm load made none again
