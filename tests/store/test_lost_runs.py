"""A run whose process was killed (``kill -9``) while it ran reads ``lost``, not ``running``, everywhere a status
is shown: ``DiskRun`` (and a view following it, with no file changing), ``runs_df`` (on a reload the caches
would serve, and in a new process served the kept frame), ``list_runs``, ``ns.summary``'s error, ``show()``'s
header, ``%noesis stop``'s answer. While the process lives the run reads ``running``; ``resume_run`` then seals
it ``error``. A run another tool wrote (no owner note, no lock) keeps ``running``: nothing can tell it lost."""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb.errors import EpisodeStateError, SummaryNotWrittenError
from noesis_nb.runtime.api import RunRecovered
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store.status import LOST_HINT
from noesis_nb.widgets.view import EpisodeView
from tests.ipshell import run_magic

from ..compat.checker import check_run
from ..widgets.lostruns import start_writer

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"

_READER = """
import json, sys
import noesis_nb
df = noesis_nb.runs_df(sys.argv[1])
print(json.dumps(dict(zip(df["episode_id"], df["status"].astype(str)))))
"""


def _ok_agent(task: str, ctx: object) -> str:
    ctx.emit("reason", {"text": "done"})  # type: ignore[attr-defined]
    return "fine"


def _statuses_in_new_process(runs: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _READER, str(runs)], env=env, cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _statuses(runs: Path) -> dict[str, str]:
    df = noesis_nb.runs_df(runs)
    return dict(zip(df["episode_id"], df["status"].astype(str)))


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    noesis_nb.solve("a short task", using=_ok_agent, runs_dir=root, episode_id="ep_done")
    return root


def test_a_killed_run_reads_lost_everywhere_and_running_while_its_process_lives(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = start_writer(runs, "ep_killed")
    try:
        assert _statuses(runs) == {"ep_done": "ok", "ep_killed": "running"}  # cached and kept while it lives
        assert _statuses_in_new_process(runs)["ep_killed"] == "running"
        disk = DiskRun(runs / "ep_killed")
        unwatched = DiskRun(runs / "ep_killed")  # as an inbox or a batch keeps one: never read again
        assert disk.status == "running" and disk.hint is None and unwatched.status == "running"
        assert {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs)}["ep_killed"] == "running"

        async def follow() -> list[str]:
            seen: list[str] = []
            disk.poll_interval = 0.05
            disk.on_change(lambda run: seen.append(run.status))
            assert disk.watch()
            os.kill(writer.pid, signal.SIGKILL)
            writer.wait()
            deadline = time.monotonic() + 10
            while "lost" not in seen and time.monotonic() < deadline:  # the follower tells its views
                await asyncio.sleep(0.05)
            return seen

        before = sorted(p.name for p in (runs / "ep_killed").iterdir())
        seen = asyncio.run(follow())
    finally:
        writer.kill()
        writer.wait()
    assert sorted(p.name for p in (runs / "ep_killed").iterdir()) == before  # nothing on disk said it
    assert seen and seen[-1] == "lost", seen  # the view following it was told
    assert disk.status == "lost" and disk.lost
    assert unwatched.status == "lost" and unwatched.hint is not None  # asked anew, with no file changed
    assert "resume_run('ep_killed')" in (disk.hint or "") and "process" in (disk.hint or "")

    assert _statuses(runs) == {"ep_done": "ok", "ep_killed": "lost"}  # the same files: the caches' rows
    note = os.open(runs / "ep_killed" / ".owner.lock", os.O_RDONLY)
    try:  # a writer on a file system that cannot lock a directory (NFS) locks the note itself: it lives
        fcntl.flock(note, fcntl.LOCK_EX)
        assert _statuses(runs)["ep_killed"] == "running" and DiskRun(runs / "ep_killed").status == "running"
    finally:
        os.close(note)
    assert _statuses_in_new_process(runs) == {"ep_done": "ok", "ep_killed": "lost"}  # the kept frame
    assert noesis_nb.runs_df(runs, episodes="ep_killed")["status"].astype(str).tolist() == ["lost"]
    assert {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs)}["ep_killed"] == "lost"
    with pytest.raises(SummaryNotWrittenError, match=r"process went .*resume_run\("):
        noesis_nb.ns.summary.read(str(runs / "ep_killed"))

    monkeypatch.setenv("NOESIS_RUNS_DIR", str(runs))
    with pytest.raises(UsageError, match=r"Its run ep_killed is lost: its process is gone .*resume_run\('ep_killed'\)"):
        run_magic("stop ep_killed")

    view = EpisodeView(DiskRun(runs / "ep_killed"))
    try:
        header = view.state()["header"]
        assert "lost" in view.header.value and "resume_run" in view.message.value
        elapsed = header["elapsed"]
        time.sleep(1.1)
        assert view.state()["header"]["elapsed"] == elapsed  # its running time no longer counts
    finally:
        view.close()

    with pytest.warns(RunRecovered, match="lost its process"):
        noesis_nb.resume_run("ep_killed", runs_dir=runs)
    assert _statuses(runs) == {"ep_done": "ok", "ep_killed": "error"}
    assert DiskRun(runs / "ep_killed").status == "error"


def test_a_running_run_another_tool_wrote_keeps_running(tmp_path: Path) -> None:
    """No owner note (Noēsis takes no lock): nothing says its process is gone, so it is not called lost."""
    runs = tmp_path / "runs"
    run = runs / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    for name in ("summary.json", "final.json", "manifest.json"):
        (run / name).unlink(missing_ok=True)
    lines = (run / "events.jsonl").read_text().splitlines()
    kept = [line for line in lines if json.loads(line).get("phase") != "terminate"]
    kept = kept[: max(2, len(kept) // 2)]
    (run / "events.jsonl").write_text("\n".join(kept) + "\n")
    state = json.loads((run / "state.json").read_text())
    state.setdefault("outcomes", {})["status"] = "pending"
    (run / "state.json").write_text(json.dumps(state))
    assert noesis_nb.store.run_status(None, state, [json.loads(line) for line in kept]) == "running"
    assert DiskRun(run).status == "running"
    assert noesis_nb.runs_df(runs)["status"].astype(str).tolist() == ["running"]
    assert noesis_nb.list_runs(runs_dir=runs)[0]["status"] == "running"


def _bytes_read() -> int:
    """What this process has read so far (the kernel's count, ``rchar``: every read call, whatever the file)."""
    for line in Path("/proc/self/io").read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _widen_log(run: Path, kept_at_end: int, middle: int) -> None:
    """Make the run's log ``middle`` bytes longer: a hole (read as NUL bytes, one unreadable line) before its last
    ``kept_at_end`` lines, which are what decides the run's status."""
    log = run / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    head, tail = b"".join(lines[:-kept_at_end]), b"".join(lines[-kept_at_end:])
    with open(log, "wb") as out:
        out.write(head)
        out.seek(middle, os.SEEK_CUR)
        out.write(b"\n" + tail)


def test_stop_of_a_run_with_a_huge_log_reads_only_its_end_and_names_its_status(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``%noesis stop`` of an episode not running here says what became of its run from the run's documents and
    the end of its log: a 64 MB log is not read whole for a refusal (counted by the kernel's read counter)."""
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(runs))
    middle = 64 << 20
    writer = start_writer(runs, "ep_huge")
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    _widen_log(runs / "ep_huge", kept_at_end=1, middle=middle)

    def refusal(episode_id: str) -> tuple[str, int]:
        before = _bytes_read()
        with pytest.raises(UsageError) as told:
            run_magic(f"stop {episode_id}")
        return str(told.value), _bytes_read() - before

    said, read = refusal("ep_huge")
    assert said.endswith("Its run ep_huge is lost: " + LOST_HINT.format(run="'ep_huge'"))
    assert read < middle // 8, f"{read} bytes read to refuse a stop"

    paused = noesis_nb.solve(  # a run paused on a draft: stopped by nobody, and not lost (it waits for a decision)
        "append the note",
        lambda task, ctx: ctx.tool("fs.append", {"argv": ["true"]}, effect="write", risk="high"),
        runs_dir=runs,
        approver="ask",
        episode_id="ep_huge_paused",
    )
    _widen_log(runs / paused, kept_at_end=3, middle=middle)
    said, read = refusal(paused)
    assert said.endswith("running: none") and "lost" not in said
    assert read < middle // 8, f"{read} bytes read to refuse a stop"


@pytest.mark.parametrize("shape", ["link_out", "link_in", "fifo", "folder"])
def test_a_killed_run_whose_note_was_replaced_reads_lost_and_resume_names_the_note(
    runs: Path, tmp_path: Path, shape: str
) -> None:
    """The writer was killed and its owner note replaced by something no writer can hold (a link, a FIFO, a folder):
    nobody holds the run's lock, so it reads lost (it read running for ever); resume_run refuses it naming the note
    to remove, writing nothing in the run or where the link leads, and once it is removed seals the run."""
    writer = start_writer(runs, "ep_noted")
    os.kill(writer.pid, signal.SIGKILL)
    writer.wait()
    run, note = runs / "ep_noted", runs / "ep_noted" / ".owner.lock"
    outside = tmp_path / "outside.txt"
    outside.write_text("not the run's\n")
    note.unlink()
    {
        "link_out": lambda: note.symlink_to(outside),
        "link_in": lambda: note.symlink_to("state.json"),
        "fifo": lambda: os.mkfifo(note),
        "folder": note.mkdir,
    }[shape]()
    files = {p: (p.lstat().st_size, p.lstat().st_mtime_ns) for p in [*run.rglob("*"), outside]}

    assert DiskRun(run).status == "lost" and noesis_nb.store.run_info(run)["status"] == "lost"
    assert {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs)}["ep_noted"] == "lost"
    with pytest.raises(EpisodeStateError, match=rf"^{note} is .*(Move it out of the run folder|Remove the link)"):
        noesis_nb.resume_run(run)
    assert {p: (p.lstat().st_size, p.lstat().st_mtime_ns) for p in [*run.rglob("*"), outside]} == files

    note.rmdir() if shape == "folder" else note.unlink()
    with pytest.warns(RunRecovered, match="lost its process"):
        noesis_nb.resume_run(run)
    assert DiskRun(run).status == "error" and not check_run(run) and outside.read_text() == "not the run's\n"
