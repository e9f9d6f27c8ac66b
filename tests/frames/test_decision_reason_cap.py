"""A decision's reason is at most 20,000 characters (README), and a decision file any program wrote is taken so by
every reader: ``runs_df`` screened a 10 MB reason whole (5.8 s of CPU a load), ``tools_df`` showed it whole and
``resume_run`` carried it whole into the run's events. Each now takes it cut, ending ``… [cut: N characters]``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import noesis_nb

CAP = 20_000


def _paused(task: str, ctx: Any) -> Any:
    return ctx.tool("w", {"argv": ["true"]}, effect="write", risk="high")


def _decided(root: Path, reason_size: int) -> Path:
    """A run paused on a draft, approved, its decision file's reason then written ``reason_size`` characters long."""
    run = root / noesis_nb.solve("p", using=_paused, runs_dir=root, approver="ask")
    noesis_nb.approve_draft(run)
    (path,) = (run / "tool_invocations" / "approvals").glob("*.json")
    record = json.loads(path.read_text())
    record["reason"] = "x" * reason_size
    path.write_text(json.dumps(record))
    return run


def _load_cpu(root: Path) -> float:
    start = time.process_time()
    noesis_nb.list_runs(runs_dir=root)
    return time.process_time() - start


def test_a_long_reason_is_read_cut_by_every_reader(tmp_path: Path) -> None:
    run = _decided(tmp_path, 600_000)
    reasons = noesis_nb.tools_df(tmp_path)["decision_reason"].dropna().tolist()
    assert len(reasons) == 1 and len(reasons[0]) <= CAP and reasons[0].endswith("characters]"), len(reasons[0])
    noesis_nb.resume_run(run)
    logged = [line for line in (run / "events.jsonl").read_text().splitlines() if '"reason"' in line]
    assert logged and max(map(len, logged)) < CAP + 5_000, max(map(len, logged))


def test_a_long_reason_costs_a_load_about_what_a_short_one_does(tmp_path: Path) -> None:
    costs: dict[str, list[float]] = {"short": [], "long": []}
    for turn in range(3):  # alternated, each root loaded once (cold): the machine's load weighs on both alike
        for kind, size in (("short", 100), ("long", 3_000_000)):
            root = tmp_path / f"{kind}{turn}"
            _decided(root, size)
            costs[kind].append(_load_cpu(root))
    assert min(costs["long"]) < 3 * min(costs["short"]) + 0.25, costs
