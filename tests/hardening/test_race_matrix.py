"""A matrix of write operations racing on one run, or one runs root, from two real processes.

Each pair below is raced with two children of two fork servers (``racekit.py``) released by one
barrier file, each delayed by a small random offset (seeded: ``NOESIS_RACE_SEED`` picks another
set), or the later one spread over the span of the other's work, so every interleaving is hit.
After every trial:

- every run passes Noēsis' validators (our port, ``tests/compat/checker.py``), is sealed at most
  once, has no event id twice, and its manifest verifies once sealed;
- the tool ran as often as the stored decision says (at most once per draft), and a draft has at
  most one decision;
- each racer either did what it asked, or got one clear noesis_nb error (never a raw OSError,
  KeyError or JSON error, never a hang: every wait has a timeout);
- nothing half-written is left: no temporary files, no ``.creating`` folders (but for a racer
  killed with SIGKILL on purpose: then only its runs must be whole once recovered).
"""

from __future__ import annotations

import json
import os
import random
import time
import warnings
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_events, verify_manifest

from ..compat.checker import check_run
from .crashkit import TASKS, low_risk_agent, tool_agent
from .forkserver import ForkServer, Racers, race
from .recovery import check_recovered, recover
from .report import figures

HERE = Path(__file__).resolve().parent
REPLY_S = 60.0  # no racer may take longer: a hang fails the trial instead of the whole run
SEED = int(os.environ.get("NOESIS_RACE_SEED", "20261201"))


@pytest.fixture(scope="module")
def racers() -> Iterator[Racers]:
    pair = ForkServer(HERE / "racekit.py"), ForkServer(HERE / "racekit.py")
    yield pair
    for racer in pair:
        racer.close()


def _race(racers: Racers, root: Path, first: dict[str, Any], second: dict[str, Any]) -> list[dict[str, Any]]:
    """``race`` with the matrix's reply timeout: a racer that hangs fails its trial, not the whole run."""
    return race(racers, root, first, second, timeout=REPLY_S)


def _paused_run(root: Path) -> Path:
    runs = root / "runs"
    episode = noesis_nb.solve(TASKS["tool"], using=tool_agent(str(root / "marker.txt")), runs_dir=runs, approver="ask")
    return runs / episode


def _clear(reply: dict[str, Any], what: str) -> None:
    """A racer that failed failed with one of the package's own errors (never a raw OSError, KeyError, JSON error)."""
    if reply.get("ok"):
        return
    assert not reply.get("killed"), f"{what}: a racer was killed: {reply}"
    assert reply.get("ours"), f"{what}: not one clear noesis_nb error: {reply.get('error')}"


def _leftovers(root: Path) -> list[str]:
    """Temporary files and staging folders anywhere under ``root``."""
    odd = []
    for path in root.rglob("*"):
        name = path.name
        if name.endswith((".tmp", ".new", ".creating")) or ".creating" in name:
            odd.append(str(path.relative_to(root)))
    return odd


def _decisions(run: Path) -> Counter[str]:
    """How many decision files each draft has (a name is one draft)."""
    folder = run / "tool_invocations" / "approvals"
    return Counter(p.stem.split(".")[0] for p in folder.iterdir()) if folder.is_dir() else Counter()


def _check_run(run: Path, marker: Path | None, what: str) -> dict[str, Any]:
    """The invariants of one run once both racers are done; what it says about itself."""
    violations = check_run(run)
    assert not violations, f"{what}: {run.name} fails the validators: {violations[:5]}"
    events = read_events(run / "events.jsonl", strict=True)
    ids = [e["id"] for e in events]
    assert len(ids) == len(set(ids)), f"{what}: an event id appears twice in {run.name}"
    phases = Counter(e["phase"] for e in events)
    assert phases["terminate"] <= 1 and phases["insight"] <= 1, f"{what}: {run.name} sealed more than once: {phases}"
    decisions = _decisions(run)
    assert all(n == 1 for n in decisions.values()), f"{what}: a draft holds more than one decision: {decisions}"
    sealed = is_sealed(run)
    if sealed:
        check = verify_manifest(run)
        assert check.ok, f"{what}: {check.problems}"
        assert not (run / ".owner.lock").exists(), f"{what}: sealed {run.name} keeps a lock note"
    stored = [json.loads(p.read_text()) for p in (run / "tool_invocations" / "approvals").glob("*.json")]
    approved = sum(d.get("status") == "approved" for d in stored)
    ran = marker.read_text().splitlines() if marker and marker.exists() else []
    if marker is not None:
        assert len(ran) <= 1, f"{what}: the tool ran {len(ran)} times"
    return {"sealed": sealed, "approved": approved, "decisions": len(stored), "ran": len(ran), "phases": phases}


# -- one draft, two deciders -------------------------------------------------------------------
DECIDERS = [("draft", "approve", "reject"), ("draft", "approve", "approve"), ("draft", "reject", "reject")]
DECIDERS += [("veto", "approve", "reject")]


def _paused_on_veto(root: Path) -> Path:
    runs = root / "runs"
    agent = low_risk_agent(str(root / "marker.txt"))
    episode = noesis_nb.solve(TASKS["veto"], using=agent, runs_dir=runs, governance="enforce", pause_on_veto=True)
    return runs / episode


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("pause", "first", "second"), DECIDERS)
def test_two_processes_decide_one_pause_and_exactly_one_decision_stands(
    racers: Racers, tmp_path: Path, pause: str, first: str, second: str
) -> None:
    """approve_draft × reject_draft (or the same twice) on one draft, or one governance veto, on disk: one decision
    is stored, the loser is handed the stored decision (``created=False``) and never told its own; a resume then
    runs the tool (or the overridden adapter) as it says."""
    rng = random.Random(SEED)
    trials = 5
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        run = _paused_run(root) if pause == "draft" else _paused_on_veto(root)
        replies = _race(
            racers,
            root,
            {"action": first, "run": str(run), "who": f"{first}-A", "delay": rng.uniform(0, 0.01)},
            {"action": second, "run": str(run), "who": f"{second}-B", "delay": rng.uniform(0, 0.01)},
        )
        what = f"{pause}: {first} × {second}, trial {trial}"
        for reply in replies:
            assert reply["ok"], f"{what}: a decider raised {reply['error']}"
        created = [r for r in replies if r["created"]]
        assert len(created) == 1, f"{what}: {len(created)} decisions were created: {replies}"
        winner = created[0]
        loser = next(r for r in replies if r is not winner)
        assert (loser["status"], loser["approver_id"]) == (winner["status"], winner["approver_id"]), (
            f"{what}: the loser was told {loser}, not the stored decision {winner}"
        )
        noesis_nb.resume_run(run, using=low_risk_agent(str(root / "marker.txt")) if pause == "veto" else None)
        seen = _check_run(run, root / "marker.txt", what)
        decided = seen["decisions"] if pause == "draft" else len(list(run.glob("checkpoints/*/decision.json")))
        approved = seen["approved"] if pause == "draft" else int(winner["status"] == "approved")
        assert decided == 1 and seen["sealed"], f"{what}: {decided} decisions, {seen}"
        assert seen["ran"] == approved, f"{what}: the tool ran {seen['ran']} times, approved {approved}"
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
        tally[f"{winner['status']} won"] += 1
    figures(f"two deciders of one {pause} ({first} × {second})", {"trials": trials, **tally, "two decisions": 0})


@pytest.mark.timeout(120)
@pytest.mark.parametrize("decider", ["approve", "reject"])
def test_a_resume_racing_the_first_decision_of_a_paused_run(racers: Racers, tmp_path: Path, decider: str) -> None:
    """A: ``resume_run`` of a run whose draft nobody decided yet; B decides it at once. A continues with B's decision,
    or is told a decision is needed and writes nothing (the run stays a whole paused run); a later resume seals it."""
    trials = 6
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        run = _paused_run(root)
        resume, decide = _race(
            racers,
            root,
            {"action": "resume", "run": str(run)},
            {"action": decider, "run": str(run), "who": "B", "delay": 0.15 * trial / (trials - 1)},
        )
        what = f"resume × first {decider}, trial {trial}"
        assert decide["ok"] and decide["created"], f"{what}: the decision was refused {decide}"
        _clear(resume, what)
        if resume["ok"]:
            tally["resumed with it"] += 1
        else:
            assert resume["error"].startswith("ApprovalDecisionRequiredError: "), f"{what}: {resume['error']}"
            assert not is_sealed(run) and not check_run(run), f"{what}: the refused resume left {check_run(run)}"
            tally["told to decide first"] += 1
            with _quiet():
                noesis_nb.resume_run(run)
        seen = _check_run(run, root / "marker.txt", what)
        assert seen["sealed"] and seen["decisions"] == 1 and seen["ran"] == seen["approved"], f"{what}: {seen}"
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
    figures(f"resume × first decision ({decider})", {"trials": trials, **tally, "tools run twice": 0})


# -- a live kernel paused on its draft, another process on disk --------------------------------
LIVE_WAYS = [
    ("approve", None),  # B approves on disk; A's episode picks it up
    ("reject", None),
    ("approve", "reject"),  # A's own handle decides at the same moment
    ("reject", "approve"),
    ("approve", "approve"),
    ("resume", "approve"),  # B resumes while A, alive, owns the run and approves it itself
    ("approve", "cancel"),  # A's kernel stops the episode as B approves it
]


@pytest.mark.timeout(180)
@pytest.mark.parametrize(("on_disk", "in_kernel"), LIVE_WAYS)
def test_a_live_kernel_and_another_process_decide_one_draft_once(
    racers: Racers, tmp_path: Path, on_disk: str, in_kernel: str | None
) -> None:
    """Kernel A started the episode and waits on its draft; B decides (or resumes) it on disk as A's handle decides."""
    rng = random.Random(SEED + len(on_disk) + len(in_kernel or ""))
    trials = 5
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        flag, go, marker = root / "paused.txt", root / "go", root / "marker.txt"
        (root / "ready").touch()
        racers[0].send(
            action="live",
            runs_dir=str(root / "runs"),
            marker=str(marker),
            flag=str(flag),
            go=str(root / "ready"),
            barrier=str(go),
            decide=in_kernel,
            delay=rng.uniform(0, 0.02),
        )
        deadline = time.monotonic() + 30
        while not flag.exists() or not flag.read_text():
            assert time.monotonic() < deadline, "kernel A never paused"
            time.sleep(0.005)
        run = Path(flag.read_text())
        racers[1].send(action=on_disk, run=str(run), who="B", go=str(go), delay=rng.uniform(0, 0.02))
        time.sleep(0.02)
        go.touch()
        kernel, other = racers[0].reply(REPLY_S), racers[1].reply(REPLY_S)
        what = f"B {on_disk} × A {in_kernel}, trial {trial}"
        assert kernel["ok"], f"{what}: kernel A raised {kernel.get('error')}"
        _clear(other, what)
        assert "decide_error" not in kernel, f"{what}: A's handle was refused: {kernel['decide_error']}"
        seen = _check_run(run, marker, what)
        on_file = str(noesis_nb.runs_df(run, strict=True, cache=False)["status"].iloc[0])
        assert kernel["handle"] == on_file, f"{what}: A's handle ended {kernel['handle']}, its run {on_file}"
        if in_kernel == "cancel":  # B's decision came first (and was acted on), or was listed, or taken back
            assert seen["sealed"] and seen["ran"] <= seen["approved"] and on_file in ("cancelled", "ok"), f"{what}: {seen}"
            assert other["ok"] or other["error"].startswith("RunSealedError: "), f"{what}: B was told {other}"
            tally[f"{on_file}, B {'decided' if other['ok'] else 'refused'}"] += 1
            continue
        assert seen["sealed"] and seen["decisions"] == 1, f"{what}: {seen}"
        assert seen["ran"] == seen["approved"], f"{what}: the tool ran {seen['ran']} times, approved {seen['approved']}"
        deciders = [r for r in (kernel, other) if "created" in r]
        assert sum(r["created"] for r in deciders) == 1, f"{what}: {[kernel, other]}"
        stored = next(r for r in deciders if r["created"])
        for reply in deciders:  # the loser is told the stored decision, not its own
            assert reply["status"] == stored["status"], f"{what}: told {reply}, stored {stored}"
        assert (on_file == "ok") == bool(seen["approved"]), f"{what}: run {on_file} after {seen}"
        if on_disk == "resume":
            assert other["ok"] and other["warnings"], f"{what}: B's resume of A's run was not told it is A's: {other}"
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
        tally[f"{stored['approver_id']} decided"] += 1
    figures(f"live kernel × another process (B {on_disk}, A {in_kernel})", {"trials": trials, **tally, "tools run twice": 0})


# -- one episode id, two solves ----------------------------------------------------------------
@pytest.mark.timeout(120)
def test_two_solves_of_one_episode_id_make_one_run(racers: Racers, tmp_path: Path) -> None:
    """``solve(…, episode_id=SAME)`` in two processes: one run, its tool run once; the other caller is told the id is taken."""
    rng = random.Random(SEED)
    trials = 6
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        runs = root / "runs"
        root.mkdir()
        ask = {"action": "solve", "runs_dir": str(runs), "episode_id": "ep_same", "marker": str(root / "marker.txt")}
        replies = _race(racers, root, ask, {**ask, "delay": rng.uniform(0, 0.03)})
        what = f"two solves of ep_same, trial {trial}"
        winners = [r for r in replies if r["ok"]]
        assert len(winners) == 1, f"{what}: {replies}"
        loser = next(r for r in replies if not r["ok"])
        assert loser["error"].startswith("RunExistsError: ") and "ep_same" in loser["error"], f"{what}: {loser}"
        assert sorted(p.name for p in runs.iterdir()) == ["ep_same"], f"{what}: {sorted(p.name for p in runs.iterdir())}"
        seen = _check_run(runs / "ep_same", root / "marker.txt", what)
        assert seen["sealed"] and seen["ran"] == 1, f"{what}: {seen}"
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
        tally["one run"] += 1
    figures("two solves of one episode id", {"trials": trials, **tally, "merged runs": 0})


@pytest.mark.timeout(120)
def test_two_processes_fill_one_new_root_with_generated_ids(racers: Racers, tmp_path: Path) -> None:
    """Two processes make runs at once in a root neither finds on disk (made by whichever comes first)."""
    trials, count = 4, 6
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        runs = root / "deep" / "runs"
        ask = {"action": "many", "runs_dir": str(runs), "count": count}
        replies = _race(racers, root, ask, ask)
        what = f"two writers in a new root, trial {trial}"
        for reply in replies:
            assert reply["ok"], f"{what}: {reply['error']}"
        made = [e for r in replies for e in r["episode_ids"]]
        assert len(set(made)) == 2 * count, f"{what}: ids made twice: {made}"
        assert sorted(p.name for p in runs.iterdir()) == sorted(made), f"{what}: {sorted(p.name for p in runs.iterdir())}"
        for episode in made:
            _check_run(runs / episode, None, what)
        frame = noesis_nb.runs_df(runs, strict=True, cache=False)
        assert len(frame) == 2 * count and frame["manifest_ok"].all()
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
    figures("two processes fill one new root", {"trials": trials, "runs": trials * 2 * count, "ids twice": 0})


# -- a resume that reaches the next draft, an approval on disk ---------------------------------
@pytest.mark.timeout(120)
def test_a_resume_after_a_veto_races_an_approval_of_the_next_draft(racers: Racers, tmp_path: Path) -> None:
    """A: ``resume_run(using=…)`` of an overridden veto, whose adapter then drafts a tool and pauses on it;
    B: ``approve_draft(run)`` at once. B's approval meets the veto (already decided: handed back) or the new
    draft (approved); a later resume finishes the run, its tool run once or never."""
    trials = 8
    tally: Counter[str] = Counter()
    noesis_nb.ns.set(governance_pause_on_veto=True)
    try:
        for trial in range(trials):
            root = tmp_path / f"t{trial}"
            root.mkdir()
            marker = root / "marker.txt"
            runs = root / "runs"
            episode = noesis_nb.solve(
                TASKS["veto"], using=tool_agent(str(marker)), runs_dir=runs, governance="enforce", approver="ask"
            )
            run = runs / episode
            noesis_nb.approve_draft(run, approver_id="ana")
            replies = _race(
                racers,
                root,
                {"action": "resume", "run": str(run), "marker": str(marker)},
                {"action": "approve", "run": str(run), "who": "B", "delay": 0.3 * trial / (trials - 1)},
            )
            what = f"veto resume × approval of the next draft, trial {trial}"
            resumed, approval = replies
            _clear(resumed, what)
            _clear(approval, what)
            assert resumed["ok"], f"{what}: the resume raised {resumed['error']}"
            if approval["ok"] and approval["created"]:
                tally["the new draft approved"] += 1
            elif approval["ok"]:
                tally["handed the veto's decision"] += 1
            else:
                tally[approval["error"].split(":")[0]] += 1
            with _quiet():
                if not is_sealed(run):
                    if not _decisions(run):
                        noesis_nb.reject_draft(run, approver_id="carol")
                    noesis_nb.resume_run(run)
            seen = _check_run(run, marker, what)
            assert seen["sealed"] and seen["ran"] == seen["approved"], f"{what}: {seen}"
            assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
    finally:
        noesis_nb.ns.set(governance_pause_on_veto=False)
    figures("veto resume × approval of the next draft", {"trials": trials, **tally, "tools run twice": 0})


@contextmanager
def _quiet() -> Iterator[None]:
    """NothingToResume / RunRecovered are what the test expects here: not shown."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# -- readers while a writer seals, resumes, or is killed ---------------------------------------
READ_WHILE = ("resume", "live_ask", "killed", "new runs")


@pytest.mark.timeout(180)
@pytest.mark.parametrize("writer", READ_WHILE)
def test_readers_in_another_process_while_a_run_is_sealed_resumed_or_killed(racers: Racers, tmp_path: Path, writer: str) -> None:
    """B loads every frame and ``show`` in a loop while A resumes a decided run, runs a live episode through its
    approval to the seal, is killed (SIGKILL) at a random write of one, or makes new runs one after the other: B
    never raises nor calls a healthy run damaged; a killed run is then recovered by ``resume_run`` and passes the
    validators."""
    rng = random.Random(SEED)
    trials = 3
    points = 0
    if writer == "killed":  # the scenario's write points, counted once whole
        (tmp_path / "ready").touch()
        whole = racers[0].run(action="scenario", scenario="live_ask", root=str(tmp_path / "count"), go=str(tmp_path / "ready"))
        assert whole["ok"] and whole["outcome"] == "ok", whole
        points = whole["points"]
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        runs, marker, stop = root / "runs", root / "marker.txt", root / "stop"
        if writer == "resume":
            run = _paused_run(root)
            noesis_nb.approve_draft(run, approver_id="ana")
            ask: dict[str, Any] = {"action": "resume", "run": str(run)}
        elif writer == "new runs":
            runs.mkdir()
            ask = {"action": "many", "runs_dir": str(runs), "count": 4}
        else:
            runs.mkdir()
            kill_at = rng.randint(2, points) if writer == "killed" else None
            ask = {"action": "scenario", "scenario": "live_ask", "root": str(root), "kill_at": kill_at}
        (root / "ready").touch()
        warm, go = root / "warm", root / "go"
        racers[1].send(action="read", runs_dir=str(runs), stop=str(stop), go=str(root / "ready"), warm=str(warm), barrier=str(go))
        racers[0].send(**ask, go=str(go), delay=rng.uniform(0, 0.05))
        deadline = time.monotonic() + 30
        while not warm.exists():
            assert time.monotonic() < deadline, "the reader never warmed up"
            time.sleep(0.005)
        go.touch()
        wrote = racers[0].reply(REPLY_S)
        stop.touch()
        read = racers[1].reply(REPLY_S)
        what = f"readers × {writer}, trial {trial}"
        assert read["ok"], f"{what}: the reader failed {read.get('error')}"
        assert not read["raised"], f"{what}: a reader raised {read['raised']}"
        assert not read["reported"], f"{what}: a reader called a run in transit damaged: {read['reported']}"
        if writer == "killed" and wrote.get("killed"):
            tally["killed"] += 1
            for run in runs.glob("ep_*"):
                recover(run, "live_ask", marker, tally)  # checks the run while it waits for a decision too
                check_recovered(run, marker, tally)
                assert not _leftovers(run), f"{what}: left {_leftovers(run)}"
        else:
            assert wrote["ok"], f"{what}: the writer failed {wrote.get('error')}"
            assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
        for run in runs.glob("ep_*"):
            _check_run(run, marker, what)
        tally["reader passes"] += read["passes"]
    figures(f"readers in another process × {writer}", {"trials": trials, **tally, "raised": 0, "false damage": 0})


# -- a batch's live paused entries decided and resumed from another process --------------------
@pytest.mark.timeout(120)
def test_a_batch_paused_live_in_one_kernel_is_decided_and_resumed_from_another(racers: Racers, tmp_path: Path) -> None:
    """Kernel A's batch waits on its drafts; B approves and resumes each on disk. A's episodes continue (B is told
    they are A's), every tool runs once, every entry ends ok in A."""
    trials = 4
    tasks = ["append the note", "append another note", "append a third note"]
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        flag, go = root / "paused.json", root / "go"
        (root / "ready").touch()
        racers[0].send(action="batch_live", root=str(root), tasks=tasks, flag=str(flag), go=str(root / "ready"), barrier=str(go))
        deadline = time.monotonic() + 30
        while not flag.exists() or not flag.read_text():
            assert time.monotonic() < deadline, "the batch never paused"
            time.sleep(0.005)
        runs = json.loads(flag.read_text())
        racers[1].send(action="decide_all", runs=runs, go=str(go))
        time.sleep(0.02)
        go.touch()
        kernel, other = racers[0].reply(REPLY_S), racers[1].reply(REPLY_S)
        what = f"batch in A × decide and resume in B, trial {trial}"
        assert kernel["ok"], f"{what}: the batch raised {kernel.get('error')}"
        assert other["ok"], f"{what}: B raised {other.get('error')}"
        assert [e["status"] for e in kernel["entries"]] == ["ok"] * len(tasks), f"{what}: {kernel['entries']}"
        for run in map(Path, runs):
            seen = _check_run(run, root / f"marker-{run.name}.txt", what)
            assert seen["sealed"] and seen["ran"] == 1, f"{what}: {seen}"
        tally["B told the run is A's"] += sum(bool(t["warnings"]) for t in other["told"])
        assert not _leftovers(root), f"{what}: left {_leftovers(root)}"
    figures("batch paused live × decide and resume from another process", {"trials": trials, **tally, "tools run twice": 0})


# -- two recoveries of one run whose process was killed -----------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize("scenario", ["live_auto", "solve_then_resume"])
def test_two_resumes_of_a_run_whose_process_was_killed_recover_it_once(racers: Racers, tmp_path: Path, scenario: str) -> None:
    """A run whose process died (SIGKILL at a random write) is resumed by two processes at once: one recovers it
    (or is told a decision or an unknown outcome must come first), the other is told the run is taken or sealed;
    the run, recovered to its seal, holds each event once and its tool ran at most once."""
    rng = random.Random(SEED + len(scenario))
    (tmp_path / "ready").touch()
    whole = racers[0].run(action="scenario", scenario=scenario, root=str(tmp_path / "count"), go=str(tmp_path / "ready"))
    assert whole["ok"] and whole["outcome"] == "ok", whole
    trials = 5
    tally: Counter[str] = Counter()
    for trial in range(trials):
        root = tmp_path / f"t{trial}"
        root.mkdir()
        (root / "ready").touch()
        kill_at = rng.randint(10, whole["points"] - 4)  # past the run's creation; a run's count varies by a point or two
        killed = racers[0].run(action="scenario", scenario=scenario, root=str(root), kill_at=kill_at, go=str(root / "ready"))
        assert killed["killed"], killed
        run = next((root / "runs").glob("ep_*"))
        resume = {"action": "resume", "run": str(run)}
        replies = _race(racers, root, resume, {**resume, "delay": rng.uniform(0, 0.05)})
        what = f"two resumes of {scenario} killed at {kill_at}, trial {trial}"
        for reply in replies:
            _clear(reply, what)
            if not reply["ok"]:
                tally[reply["error"].split(":")[0]] += 1
            else:
                tally[reply["warnings"][0].split(":")[0] if reply["warnings"] else "resumed"] += 1
        marker = root / "marker.txt"
        recover(run, scenario, marker, tally)
        check_recovered(run, marker, tally)
        _check_run(run, marker, what)
        assert not _leftovers(run), f"{what}: left {_leftovers(run)}"
    figures(f"two resumes of a killed run ({scenario})", {"trials": trials, **tally, "tools run twice": 0})
