"""A cold ``events_df`` spends few calls on each event of a run (issue 16: the column lists are taken with C loops,
``map`` of ``dict.get`` a field, not a Python expression an event with a ``get`` call each field). Calls are counted
with ``sys.setprofile`` (Python calls and calls into C), a shared machine's clock being too noisy to hold a figure;
the budget holds in a process that has learned a secret value, as a kernel that ran an episode has."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.frames import clear_cache, events_df

#: calls (Python and C) a cold load makes per event beyond a root of the same runs with fewer events: 17.0 when each
#: event's fields were read by a ``get`` call each (a tuple an event, then transposed), 1.1 with a ``map`` a field;
#: in a process that has learned a value 25.2 and 9.3 (the payloads then looked through for it)
EVENT_BUDGET = 12


def _agent(steps: int):
    def agent(task, ctx):
        for i in range(steps):
            ctx.emit("reason", {"step": i, "text": f"thought {i} about {task}"})
        return "ok"

    return agent


def _calls(root: Path) -> tuple[int, int]:
    """Calls (Python and C) of a cold events_df of ``root`` (the cache emptied first), and its rows."""
    clear_cache()
    count = [0]

    def profile(frame, event, arg):
        if event in ("call", "c_call"):
            count[0] += 1

    sys.setprofile(profile)
    try:
        df = events_df(str(root), progress=False)
    finally:
        sys.setprofile(None)
    return count[0], len(df)


def per_event(base: Path) -> float:
    """Calls a cold load makes per event: four runs of 206 reasons against four of 6."""
    short, long = base / "short", base / "long"
    for root, steps in ((short, 6), (long, 206)):
        root.mkdir()
        for i in range(4):
            noesis_nb.solve(f"task {i}", using=_agent(steps), runs_dir=root)
    events_df(str(short), progress=False)  # imports and first-call paths out of the count
    few, few_rows = _calls(short)
    many, many_rows = _calls(long)
    assert many_rows - few_rows == 4 * 200
    return (many - few) / (many_rows - few_rows)


def test_a_cold_load_spends_few_calls_an_event(tmp_path: Path):
    calls = per_event(tmp_path)
    assert calls <= EVENT_BUDGET, f"a cold load made {calls:.1f} calls an event (budget {EVENT_BUDGET})"


LEARNED_CHILD = """
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from noesis_nb.secrets import guard
from tests.frames.test_event_columns_per_event import per_event
guard.for_run("ep_elsewhere_learning").learn(["sk-proj-Zq8r3kVbXw9LmPq2TtY7uJf0Hn5aBcDeRs4GhW"])
print(per_event(Path(sys.argv[2])))
"""


def test_the_budget_holds_once_the_process_has_learned_a_value(tmp_path: Path):
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", LEARNED_CHILD, str(repo), str(tmp_path)], capture_output=True, text=True, timeout=300, check=True
    )
    calls = float(out.stdout.split()[-1])
    assert calls <= EVENT_BUDGET, f"a cold load made {calls:.1f} calls an event once a value was learned"
