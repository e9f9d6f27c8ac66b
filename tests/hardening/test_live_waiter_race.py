"""A kernel waits, alive, on a paused episode while another process approves and resumes it.

Kernel A (a real process from the fork server) started the episode and waits for a decision.
Process B (this test process) decides it and calls ``resume_run`` — in several orders and
timings, and through ``show(…)``'s disk view too. One owner at a time: B stands down, A picks
the decision up; the tool runs once, the run is sealed once, nothing is appended after the
manifest, and A's handle ends ``ok``.
"""

from __future__ import annotations

import random
import threading
import time
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import noesis_nb
from noesis_nb.runtime.resume import NothingToResume
from noesis_nb.store import is_sealed, read_events, verify_manifest

from .forkserver import ForkServer
from .report import figures

HERE = Path(__file__).resolve().parent
TRIALS = 32
WAYS = (
    "approve then resume",
    "resume first, then approve and resume",
    "three resumes racing an approval",
    "show() then Approve and Resume",
)


def _wait_for(path: Path, timeout: float = 20.0) -> Path:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text():
        if time.monotonic() > deadline:
            raise AssertionError(f"kernel A never paused ({path} not written)")
        time.sleep(0.01)
    return Path(path.read_text())


def _act_as_process_b(way: str, run: Path, rng: random.Random) -> list[str]:
    """What process B does; returns the NothingToResume messages it got."""
    told: list[str] = []
    time.sleep(rng.uniform(0, 0.3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if way == "approve then resume":
            noesis_nb.approve_draft(run, approver_id="bob")
            noesis_nb.resume_run(run)
        elif way == "resume first, then approve and resume":
            try:
                noesis_nb.resume_run(run)
            except noesis_nb.errors.NoesisNbError:
                pass  # nothing decided yet: a clear error is fine, as long as nothing was written
            noesis_nb.approve_draft(run, approver_id="bob")
            noesis_nb.resume_run(run)
        elif way == "three resumes racing an approval":
            with ThreadPoolExecutor(4) as pool:
                pool.submit(noesis_nb.approve_draft, run, approver_id="bob")
                for _ in range(3):
                    pool.submit(_quiet_resume, run)
        else:
            from noesis_nb import DiskRun

            view = DiskRun(run)
            view.approve(approver_id="bob")
            view.resume()
    told += [str(w.message) for w in caught if issubclass(w.category, NothingToResume)]
    return told


def _quiet_resume(run: Path) -> None:
    try:
        noesis_nb.resume_run(run)
    except noesis_nb.errors.NoesisNbError:
        pass


def test_a_live_waiter_and_another_process_never_both_continue(crash_server: ForkServer, tmp_path: Path) -> None:
    rng = random.Random(7)
    tally: Counter = Counter()
    for trial in range(TRIALS):
        way = WAYS[trial % len(WAYS)]
        root = tmp_path / f"t{trial}"
        root.mkdir()
        flag = root / "paused.txt"
        reply: dict = {}
        kernel_a = threading.Thread(
            target=lambda reply=reply, root=root, flag=flag: reply.update(
                crash_server.run(scenario="live_waiting", root=str(root), kill_at=None, flag=str(flag))
            )
        )
        kernel_a.start()
        run = _wait_for(flag)
        told = _act_as_process_b(way, run, rng)
        kernel_a.join(40)
        assert not kernel_a.is_alive(), "kernel A never finished"
        assert reply.get("outcome") == "ok", f"{way}: kernel A's episode ended {reply}"
        assert is_sealed(run) and verify_manifest(run).ok, f"{way}: {verify_manifest(run).problems}"
        events = read_events(run / "events.jsonl", strict=True)
        phases = Counter(e["phase"] for e in events)
        resumes = [e for e in events if e.get("event_type") == "run.resume"]
        assert phases["terminate"] == 1 and phases["insight"] == 1 and phases["act"] == 1, f"{way}: sealed twice? {phases}"
        assert len(resumes) == 1, f"{way}: {len(resumes)} resumes"
        assert (root / "marker.txt").read_text().splitlines() == ["ran"], f"{way}: the tool ran more or less than once"
        decision = noesis_nb.approve_draft(run, approver_id="carol")  # a late decision changes nothing
        assert not decision.created and decision.approver_id == "bob"
        tally["one execution, one seal"] += 1
        tally["process B stood down"] += bool(told)
    figures(
        "live waiter vs another process's approve + resume",
        {"trials": TRIALS, **tally, "tools run twice": 0, "runs sealed twice": 0},
    )
