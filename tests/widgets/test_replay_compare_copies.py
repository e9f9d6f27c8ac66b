"""``replay(a, compare=b)`` compares two run folders, whatever ids their files hold: a run and its copy in another
root (one id, two folders) stay two runs of their own length, and a folder renamed after the run was written
(its name is not the id in its files) is compared all the same instead of being 'not in events'."""

from __future__ import annotations

import shutil
from pathlib import Path

import noesis_nb

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"


def _lines(run: Path) -> int:
    return len([line for line in (run / "events.jsonl").read_text().splitlines() if line.strip()])


def test_a_run_compared_with_its_copy_stays_two_runs(tmp_path: Path, comm_log: list) -> None:
    a = tmp_path / "before" / FIXTURE.name
    b = tmp_path / "after" / FIXTURE.name
    shutil.copytree(FIXTURE, a)
    shutil.copytree(FIXTURE, b)
    compare = noesis_nb.replay(a, compare=b)
    last = compare.table.iloc[-1]
    assert int(last["events_a"]) == _lines(a) and int(last["events_b"]) == _lines(b), compare.table
    assert compare.differing == []


def test_a_renamed_run_folder_is_compared(tmp_path: Path, comm_log: list) -> None:
    a = tmp_path / "runs" / "ep_renamed_first"
    b = tmp_path / "runs" / "ep_renamed_second"
    shutil.copytree(FIXTURE, a)
    shutil.copytree(FIXTURE, b)
    compare = noesis_nb.replay(a, compare=b)
    last = compare.table.iloc[-1]
    assert int(last["events_a"]) == _lines(a) and int(last["events_b"]) == _lines(b)
    assert compare.differing == []


def test_a_tool_event_naming_its_request_with_a_list_is_compared(tmp_path: Path, comm_log: list) -> None:
    a = tmp_path / "runs" / "ep_plain"
    b = tmp_path / "runs" / "ep_damaged"
    shutil.copytree(FIXTURE, a)
    shutil.copytree(FIXTURE, b)
    lines = (b / "events.jsonl").read_text().splitlines()
    odd = (
        '{"id":"odd-1","timestamp":"2025-01-01T00:00:00.041+00:00","episode_id":"ep_adr008_allow","agent_id":"a",'
        '"phase":"tool","payload":{"event_name":"tool.requested","tool":{"x":1},"request_id":["r",1]},"evidence_ids":[]}'
    )
    (b / "events.jsonl").write_text("\n".join([*lines[:-2], odd, *lines[-2:]]) + "\n")
    compare = noesis_nb.replay(a, compare=b)
    assert int(compare.table.iloc[-1]["events_b"]) == _lines(b)
    assert [step for step in compare.differing if step.startswith("tool:")], compare.differing
