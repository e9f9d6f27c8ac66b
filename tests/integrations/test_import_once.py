"""Importing the identical recorded trace twice into one root made two runs of the same thing. Now the second
import returns the first run (found by the content digest recorded as its ``trace_digest`` tag), also when two
processes race the same import; a changed trace, task or option makes a new run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.integrations.noetic import import_noetic
from noesis_nb.integrations.replay import TraceAlreadyImported
from noesis_nb.integrations.taisce import import_taisce
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.store import read_json
from noesis_nb.store.runfiles import RACY_NS

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
    with pytest.warns(TraceAlreadyImported, match=rf"already, as run {first} .*Pass reimport=True \(or another task="):
        again = import_noetic(log, runs_dir=runs_dir)
    assert again == first
    assert _runs(runs_dir) == [first]
    tags = read_json(runs_dir / first / "state.json")["episode"]["tags"]
    assert tags["source"] == "noetic" and tags["trace_digest"].startswith("hmac-sha256:")


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


def _counting_state_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The run folders whose ``state.json`` the de-dup search reads (the real read, counted)."""
    from noesis_nb.integrations import _dedupe

    reads: list[str] = []
    real = _dedupe.read_file

    def counted(path: str, within: str | None = None, **kw: Any) -> Any:
        if path.endswith("state.json"):
            reads.append(Path(path).parent.name)
        return real(path, within, **kw)

    monkeypatch.setattr(_dedupe, "read_file", counted)
    return reads


def _settle() -> None:
    """Wait past the file system's tick: a log stamped within it is not known by its stamp (read again each time)."""
    time.sleep(3 * RACY_NS / 1e9)


def _noetic_log(n: int) -> list[dict[str, Any]]:
    return [*LOG[:1], {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": f"run {n}"}}, LOG[2]]


def test_the_search_reads_only_runs_it_has_not_seen_and_the_candidates(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each import searched the root by reading every run's state.json (a root of 5,000 runs: 5,000 reads per
    import). A run's tag never changes, so a run already seen is not read again: an import reads the runs made
    since the last search, and the one run that holds its digest."""
    from noesis_nb.integrations._dedupe import imported_before

    made = [import_noetic(_noetic_log(n), runs_dir=runs_dir) for n in range(12)]
    _settle()
    assert imported_before(runs_dir, "sha256:" + "0" * 64) is None  # a search that sees every run
    reads = _counting_state_reads(monkeypatch)
    os.chdir(runs_dir.parent)  # the same root, named another way: what was kept of its runs still serves
    assert imported_before(Path(runs_dir.name), "sha256:" + "0" * 64) is None
    assert reads == []
    fresh = import_noetic(_noetic_log(100), runs_dir=runs_dir)  # a new trace: nothing of it in the root
    assert reads == []
    _settle()
    with pytest.warns(TraceAlreadyImported):
        assert import_noetic(_noetic_log(5), runs_dir=runs_dir) == made[5]
    # the run made since the last search, and the candidate (read and checked in full)
    assert sorted(reads) == sorted([fresh, made[5]])


def test_a_run_replaced_under_its_name_or_a_crafted_copy_of_the_tags_is_read_again(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the search keeps of each run is only a copy: a run folder replaced by another under the same name is
    read again (its log is another file), and a copy saying a run holds a digest is checked against the run."""
    import shutil

    from noesis_nb.integrations import _dedupe

    other = tmp_path / "other"
    kept = import_noetic(_noetic_log(1), runs_dir=other)  # the run that will be moved in under another's name
    decoy = import_noetic(_noetic_log(2), runs_dir=runs_dir)
    _settle()
    import_noetic(_noetic_log(3), runs_dir=runs_dir)  # a search has now seen decoy with its own tag
    assert decoy in str(_dedupe._memo_path(runs_dir).read_text())
    shutil.rmtree(runs_dir / decoy)
    shutil.copytree(other / kept, runs_dir / decoy)  # the same name, another run (its state says its own id)
    state = runs_dir / decoy / "state.json"
    state.write_text(state.read_text().replace(kept, decoy))
    digest = read_json(state)["episode"]["tags"]["trace_digest"]
    _settle()
    assert _dedupe.imported_before(runs_dir, digest) == decoy

    memo = _dedupe._memo_path(runs_dir)
    crafted = json.loads(memo.read_text())
    for path in crafted:
        crafted[path][2] = "sha256:" + "0" * 64  # every run said to hold a digest none holds
    memo.write_text(json.dumps(crafted))
    assert _dedupe.imported_before(runs_dir, "sha256:" + "0" * 64) is None
    memo.write_bytes(memo.read_bytes()[:10])  # cut by a crash
    assert _dedupe.imported_before(runs_dir, digest) == decoy


_KILLED_IMPORT = """
import sys, time, warnings
warnings.simplefilter("ignore")
from noesis_nb.integrations import replay
def stalled(self, task, ctx):  # the replay has begun, then the process is killed before it writes a row
    open(sys.argv[3], "w").close()
    time.sleep(120)
replay.RecordedReplay.invoke = stalled
from noesis_nb.integrations.noetic import import_noetic
import_noetic(sys.argv[1], runs_dir=sys.argv[2])
"""


def test_an_import_killed_then_sealed_by_resume_run_does_not_stand_for_its_trace(tmp_path: Path, runs_dir: Path) -> None:
    """A process killed while it imported leaves a run that resume_run seals ``error`` (``process_lost``): it holds
    none of the trace, yet the next import of the trace returned it as "imported already"."""
    import signal

    log = _write_log(tmp_path / "stream.jsonl", LOG)
    started = tmp_path / "started"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLED_IMPORT, str(log), str(runs_dir), str(started)],
        env={**os.environ, "PYTHONPATH": str(Path(noesis_nb.__file__).parents[1])},
    )
    try:
        for _ in range(1200):
            if started.exists() or proc.poll() is not None:
                break
            time.sleep(0.05)
        assert started.exists(), proc.returncode
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    [killed] = _runs(runs_dir)
    with pytest.warns(RunRecovered, match="lost its process"):
        noesis_nb.resume_run(killed, runs_dir=runs_dir)
    assert read_json(runs_dir / killed / "state.json")["outcomes"]["status"] == "error"
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceAlreadyImported)
        again = import_noetic(log, runs_dir=runs_dir)
    assert again != killed
    assert read_json(runs_dir / again / "summary.json")["status"] == "ok"
    with pytest.warns(TraceAlreadyImported):  # and the whole run stands for the trace from now on
        assert import_noetic(log, runs_dir=runs_dir) == again
