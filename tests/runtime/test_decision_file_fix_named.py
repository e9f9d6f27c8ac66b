"""A decision file that is no decision on its draft (another draft's, not JSON, missing fields): the error names the
call that mends it, approve_draft/reject_draft on that draft, which moves the file aside by itself; it never asks
for a file to be deleted by hand (the README: nothing ever needs a file deleted by hand). The fix said, done, works."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import DecisionFileError

from .agents import paused_on_disk


def _another_drafts(path: Path) -> None:
    record = json.loads(path.read_text())
    record["draft_id"] = record["draft_id"][:-4] + "ZZZZ"
    path.write_text(json.dumps(record))


_DAMAGE = {
    "another_drafts": _another_drafts,
    "not_json": lambda path: path.write_text('{"status": "appr'),
    "missing_fields": lambda path: path.write_text('{"status": "approved"}'),
}


@pytest.mark.parametrize("damage", sorted(_DAMAGE))
def test_a_bad_decision_file_names_approve_draft_and_it_mends_it(tmp_path: Path, damage: str) -> None:
    out = tmp_path / "out.txt"
    run, draft = paused_on_disk(tmp_path / "runs", out)
    noesis_nb.approve_draft(run, approver_id="ana")
    path = run / "tool_invocations" / "approvals" / f"{draft}.json"
    _DAMAGE[damage](path)

    with pytest.raises(DecisionFileError) as caught:
        noesis_nb.resume_run(run)
    said = str(caught.value)
    assert f"approve_draft('{run.name}', '{draft}', approver_id=...) or reject_draft(...)" in said
    assert "delete" not in said.lower()
    assert not out.exists()

    noesis_nb.approve_draft(run.name, draft, runs_dir=run.parent, approver_id="ana")  # the call it names
    assert [p.name for p in path.parent.iterdir() if ".invalid-" in p.name]  # moved aside, not deleted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        noesis_nb.resume_run(run)
    assert out.read_text() == "one\n"
