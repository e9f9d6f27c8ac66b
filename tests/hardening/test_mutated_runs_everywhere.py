"""Mutated real runs read through the ``ns`` readers and continued by ``resume_run``: each works, or raises one clear error.

``test_mutated_runs.py`` loads the four frames over runs mutated by ``mutate.py``; the ``ns``
readers (``ns.events.read``, ``ns.summary.read``), ``approve_draft`` and ``resume_run`` read the
same files. A run file that is no file of the run (a folder, a FIFO, a link out of it) or no
JSON object, an event line whose links are no text, a state whose episode id is no id: each is
one ``NoesisNbError`` naming the file (and line), never a raw error from deep inside, and a run
``resume_run`` refuses is left as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import (
    CheckpointConsistencyError,
    EpisodeStateError,
    EventLogIntegrityError,
    NoesisNbError,
)
from noesis_nb.store.ownership import OWNER_FILE
from noesis_nb.store.runfiles import UnreadableRunFile

from . import mutate
from .episodes import SHAPES, _llm, tool_records

pytestmark = pytest.mark.timeout(120)  # a reader waiting on a FIFO fails the test instead of hanging it

MARK = "<b data-planted=1>"  # text of the marked run: it may reach HTML only escaped


@pytest.fixture(scope="module")
def bases(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Real runs of varied shapes (two paused on a draft), written once by the engine."""
    root = tmp_path_factory.mktemp("bases") / "runs"
    for n, shape in enumerate(["llm", "tool", "command", "paused", "failing", "integration", "phases", "paused", "tagged"]):
        SHAPES[shape](root, n)
    SHAPES["resume"](root, 90)  # approved and resumed: approvals, executions, a resumed log
    SHAPES["reject"](root, 99)  # rejected and resumed
    for n in (100, 101):
        SHAPES["paused"](root, n)
    noesis_nb.solve(f"marked {MARK}", using=_llm([("openai", MARK)]), runs_dir=root, tags={"note": MARK})
    return sorted(p for p in root.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def outside(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Files out of every run that symlinks point to: their marker must never be shown or exported."""
    place = tmp_path_factory.mktemp("outside")
    doc = {key: mutate.OUTSIDE_MARK for key in ("episode_id", "task", "status", "outcome", "draft_id", "request_id")}
    doc["files"] = [{"name": mutate.OUTSIDE_MARK}]
    (place / "doc.json").write_text(json.dumps(doc))
    line = {
        "id": mutate.OUTSIDE_MARK,
        "timestamp": "2025-01-01T00:00:00+00:00",
        "phase": "model",
        "payload": {"event_name": "model.call", "model": mutate.OUTSIDE_MARK, "input_tokens": 1, "output_tokens": 1},
    }
    (place / "events.jsonl").write_text(json.dumps(line) + "\n")
    return place


def tree(path: Path) -> dict[str, Any]:
    """Every entry under ``path``: kind, and the bytes' digest of a regular file or a symlink's target (never followed)."""
    out: dict[str, Any] = {}
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            st_ = os.lstat(full)
            rel = os.path.relpath(full, path)
            if stat.S_ISLNK(st_.st_mode):
                out[rel] = ("link", os.readlink(full))
            elif stat.S_ISREG(st_.st_mode):
                out[rel] = ("file", hashlib.sha256(Path(full).read_bytes()).hexdigest())
            else:
                out[rel] = ("dir" if stat.S_ISDIR(st_.st_mode) else "other", None)
    return out


def _paused(run: Path) -> bool:
    """A run waiting on a draft: no summary yet, a draft on disk."""
    return not (run / "summary.json").exists() and bool(tool_records(run, "prepared"))


def _copy(base: Path, tmp_path: Path) -> Path:
    run = tmp_path / "runs" / base.name
    shutil.copytree(base, run, symlinks=True)
    return run


def _unchanged(run: Path, before: dict[str, Any]) -> None:
    after = tree(run)
    assert {k: v for k, v in after.items() if k != OWNER_FILE} == {k: v for k, v in before.items() if k != OWNER_FILE}


def _rewrite_line(run: Path, number: int, change: Callable[[dict[str, Any]], None]) -> None:
    log = run / "events.jsonl"
    lines = log.read_text().splitlines()
    event = json.loads(lines[number - 1])
    change(event)
    lines[number - 1] = json.dumps(event)
    log.write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("op", ["directory", "fifo", "symlink_out"])
def test_an_events_file_that_is_no_file_is_one_clear_error_for_the_ns_readers_and_resume_run(
    bases: list[Path], outside: Path, tmp_path: Path, op: str
) -> None:
    """It was a raw ``UnreadableRunFile`` (an ``OSError``): now a ``NoesisNbError`` naming the file (still an ``OSError``)."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    mutate.mutate(run, (0, op), random.Random(0), outside)
    log = re.escape(str(run / "events.jsonl"))
    for read in (lambda: ns.events.read(str(run)), lambda: list(ns.events.read(str(run), stream=True))):
        with pytest.raises(UnreadableRunFile, match=log) as err:
            read()
        assert isinstance(err.value, NoesisNbError) and isinstance(err.value, OSError)
        assert mutate.OUTSIDE_MARK not in str(err.value)
    before = tree(run)
    with pytest.raises(NoesisNbError, match=log):  # a link is refused before it is read (UnsafeRunPathError)
        noesis_nb.resume_run(run)
    _unchanged(run, before)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        ("truncate", "invalid JSON"),
        ("array", "a JSON list, not an object"),
        ("directory", "a directory"),
        ("fifo", "FIFO"),
        ("symlink_out", "outside the run"),
    ],
)
def test_a_damaged_summary_is_named_by_ns_summary_read_never_taken_for_one_not_written_yet(
    bases: list[Path], outside: Path, tmp_path: Path, damage: str, reason: str
) -> None:
    """``ns.summary.read`` said "does not exist yet: the run is paused or still running" (a raw ``FileNotFoundError``)."""
    run = _copy(bases[0], tmp_path)
    summary = run / "summary.json"
    if damage == "truncate":
        summary.write_bytes(summary.read_bytes()[:20])
    elif damage == "array":
        summary.write_text("[1, 2]")
    else:
        mutate._file_op(summary, damage, outside)
    with pytest.raises(UnreadableRunFile, match=f"{re.escape(str(summary))}: .*{reason}.*Restore summary.json") as err:
        ns.summary.read(str(run))
    assert "does not exist yet" not in str(err.value) and mutate.OUTSIDE_MARK not in str(err.value)
    with pytest.raises(FileNotFoundError, match="does not exist yet"):  # a paused run has none yet: said as before
        ns.summary.read(str(next(filter(_paused, bases))))


def test_a_paused_run_changed_after_its_pause_is_refused_naming_the_run_and_left_as_it_was(
    bases: list[Path], tmp_path: Path
) -> None:
    """The refusal said only "checkpoint chk_…: run artifacts changed since the pause": not which run, nor what to do."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    _rewrite_line(run, 2, lambda event: event["payload"].update(planted=1))
    before = tree(run)
    with pytest.raises(CheckpointConsistencyError, match=f"of run {re.escape(str(run))}: .*events.jsonl up to event") as err:
        noesis_nb.resume_run(run)
    assert "restore the changed file from a copy of the run" in str(err.value)
    _unchanged(run, before)


@pytest.mark.parametrize("value", [-1.5, True, ["ep_x"], {"a": 1}])
def test_a_state_whose_episode_id_is_no_id_is_refused_naming_state_json(bases: list[Path], tmp_path: Path, value: Any) -> None:
    """It was ``InvalidIdError: episode id must be a non-empty string, got -1.5``, naming neither the file nor the run."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    state = json.loads((run / "state.json").read_text())
    state["episode"]["id"] = value
    (run / "state.json").write_text(json.dumps(state))
    before = tree(run)
    with pytest.raises(EpisodeStateError, match=rf"{re.escape(str(run))}/state\.json: episode\.id .* is no episode id"):
        noesis_nb.resume_run(run)
    _unchanged(run, before)


@pytest.mark.parametrize(
    ("field", "value", "kind"),
    [("id", [[1]], "array"), ("phase", {"a": 1}, "object"), ("event_type", 5, "number"), ("caused_by", ["x"], "array")],
)
def test_an_event_whose_links_are_no_text_is_refused_by_resume_run_naming_its_line(
    bases: list[Path], tmp_path: Path, field: str, value: Any, kind: str
) -> None:
    """An ``id`` or ``phase`` that is a list or object raised a raw ``TypeError: unhashable type`` from deep in the resume
    (and from ``approve_draft``); the decision now reads past the line, and the resume names it."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    _rewrite_line(run, 2, lambda event: event.__setitem__(field, value))
    assert noesis_nb.approve_draft(run, approver_id="x").status == "approved"  # the pause is on another line
    before = tree(run)
    with pytest.raises(EventLogIntegrityError, match=rf"events\.jsonl, line 2: {field} is a JSON {kind}, not text"):
        noesis_nb.resume_run(run)
    _unchanged(run, before)


def test_an_act_event_whose_tool_is_a_list_is_refused_by_the_checkpoint_not_a_type_error(
    bases: list[Path], tmp_path: Path
) -> None:
    """Reopening the run counted the tools of its act events in a set: a list raised ``TypeError: unhashable type``."""
    run = _copy(next(filter(_paused, bases)), tmp_path)
    noesis_nb.approve_draft(run, approver_id="x")
    _rewrite_line(run, 2, lambda event: event.update(phase="act", payload={"tool": ["sh", "-c"]}))
    with pytest.raises(CheckpointConsistencyError, match="events.jsonl up to event"):
        noesis_nb.resume_run(run)
