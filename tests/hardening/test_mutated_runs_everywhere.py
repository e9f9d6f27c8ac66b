"""Mutated real runs read through the ``ns`` readers: each works, or raises one clear error.

``test_mutated_runs.py`` loads the four frames over runs mutated by ``mutate.py``; the ``ns``
readers (``ns.events.read``, ``ns.summary.read``) and ``resume_run`` read the same files. A run
file that is no file of the run (a folder, a FIFO, a link out of it) or no JSON object is one
``NoesisNbError`` naming the file, never a raw ``OSError`` nor a summary "not written yet".
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import shutil
import stat
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import NoesisNbError
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
