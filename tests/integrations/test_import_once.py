"""Importing the identical recorded trace twice into one root made two runs of the same thing. Now the second
import returns the first run (found by the content digest recorded as its ``trace_digest`` tag), also when two
processes race the same import; a changed trace, task or option makes a new run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.replay import TraceAlreadyImported
from noesis_nb.integrations.taisce import import_taisce
from noesis_nb.store import read_json

LOG = [
    {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": ["u1"]}},
    {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "Look"}, "outputIndex": 0},
    {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}},
]
TRANSCRIPT = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]


def _runs(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("ep_"))


def _write_log(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_same_noetic_file_imported_twice_is_one_run(tmp_path: Path, runs_dir: Path) -> None:
    log = _write_log(tmp_path / "stream.jsonl", LOG)
    first = import_noetic(log, runs_dir=runs_dir)
    with pytest.warns(TraceAlreadyImported, match=rf"already, as run {first} .*Pass another task= or runs_dir="):
        again = import_noetic(log, runs_dir=runs_dir)
    assert again == first
    assert _runs(runs_dir) == [first]
    tags = read_json(runs_dir / first / "state.json")["episode"]["tags"]
    assert tags["source"] == "noetic" and tags["trace_digest"].startswith("sha256:")


def test_a_changed_trace_task_or_option_is_a_new_run(tmp_path: Path, runs_dir: Path) -> None:
    log = _write_log(tmp_path / "stream.jsonl", LOG)
    first = import_noetic(log, runs_dir=runs_dir)
    _write_log(log, [*LOG[:2], {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": "!"}}, LOG[2]])
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceAlreadyImported)
        changed = import_noetic(log, runs_dir=runs_dir)
        retitled = import_noetic(log, task="the same log, another title", runs_dir=runs_dir)
        reseeded = import_noetic(log, seed=7, runs_dir=runs_dir)
    assert len({first, changed, retitled, reseeded}) == 4
    assert len(_runs(runs_dir)) == 4


def test_every_importer_returns_the_first_run_for_the_same_trace(runs_dir: Path, tmp_path: Path) -> None:
    other_root = tmp_path / "other"
    for importer, trace in ((import_taisce, TRANSCRIPT), (import_noetic, LOG)):
        first = importer(trace, runs_dir=runs_dir)
        with pytest.warns(TraceAlreadyImported):
            assert importer(trace, runs_dir=runs_dir) == first
        assert importer(trace, runs_dir=other_root) != first  # another root holds its own run
    assert len(_runs(runs_dir)) == 2 and len(_runs(other_root)) == 2


def test_a_recorded_failure_imported_twice_is_one_error_run(runs_dir: Path) -> None:
    aborted = [LOG[0], {"source": "framework", "type": "helper:turn_aborted", "data": {"turnId": "t1", "reason": "x"}}]
    first = import_noetic(aborted, runs_dir=runs_dir)
    assert read_json(runs_dir / first / "summary.json")["status"] == "error"
    with pytest.warns(TraceAlreadyImported):
        assert import_noetic(aborted, runs_dir=runs_dir) == first


_IMPORT = """
import sys, warnings
warnings.simplefilter("ignore")
from noesis_nb.integrations.noetic import import_noetic
sys.stdin.readline()  # both processes start importing on the same signal
print(import_noetic(sys.argv[1], runs_dir=sys.argv[2]), flush=True)
"""


def test_two_processes_racing_the_same_import_make_one_run(tmp_path: Path, runs_dir: Path) -> None:
    log = _write_log(tmp_path / "stream.jsonl", LOG * 50)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _IMPORT, str(log), str(runs_dir)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": str(Path(noesis_nb.__file__).parents[1])},  # this checkout's package
        )
        for _ in range(3)
    ]
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    said = [proc.communicate(timeout=120) for proc in procs]
    assert all(proc.returncode == 0 for proc in procs), [err for _, err in said]
    ids = {out.strip() for out, _ in said}
    assert len(ids) == 1
    assert _runs(runs_dir) == sorted(ids)
