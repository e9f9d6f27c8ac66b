"""Every run noesis_nb writes, through every entry point, passes the checks Noēsis applies to a run directory.

One test per entry point (``ENTRY_POINTS`` of ``entrypoints``, ``entrypoints_models``, ``entrypoints_recovery``,
``entrypoints_paths`` and ``entrypoints_scenarios``): it writes its runs into a temporary directory, then
``checker.check_run`` judges each one; a failure lists the broken rules by run. No event id may repeat in a run either.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from . import entrypoints, entrypoints_models, entrypoints_paths, entrypoints_recovery, entrypoints_scenarios
from .checker import check_run
from .rundata import Violation

ENTRY_POINTS = {
    **entrypoints.ENTRY_POINTS,
    **entrypoints_models.ENTRY_POINTS,
    **entrypoints_recovery.ENTRY_POINTS,
    **entrypoints_paths.ENTRY_POINTS,
    **entrypoints_scenarios.ENTRY_POINTS,
}


def report(found: dict[Path, list[Violation]]) -> str:
    """Broken rules per run: how often, and the first few places."""
    lines = []
    for run, violations in found.items():
        if not violations:
            continue
        by_rule: dict[str, list[Violation]] = defaultdict(list)
        for violation in violations:
            by_rule[violation.rule].append(violation)
        lines.append(f"{run.name}: {len(violations)} violation(s) of {len(by_rule)} rule(s)")
        for rule, items in sorted(by_rule.items()):
            lines.append(f"  {rule} ×{len(items)}")
            lines.extend(f"    {item}" for item in items[:3])
    return "\n".join(lines)


@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry_point", list(ENTRY_POINTS))
def test_runs_pass_noesis_validators(entry_point: str, tmp_path: Path) -> None:
    runs = ENTRY_POINTS[entry_point](tmp_path)
    assert runs, f"{entry_point} wrote no run under {tmp_path}"
    found = {run: check_run(run) for run in runs}
    if any(found.values()):
        pytest.fail(f"{entry_point}: Noēsis' validators reject its runs\n" + report(found), pytrace=False)
    repeated = {run.name: n for run in runs if (n := _ids_used_twice(run))}
    assert not repeated, f"{entry_point}: event ids used twice (caused_by could not tell those events apart): {repeated}"


def _ids_used_twice(run: Path) -> int:
    """How many event ids of ``run`` repeat an earlier one (not a rule of Noēsis' validators: its runs never do)."""
    log = run / "events.jsonl"
    if not log.is_file():
        return 0
    ids = [json.loads(line).get("id") for line in log.read_bytes().splitlines() if line.strip()]
    return len(ids) - len(set(ids))
