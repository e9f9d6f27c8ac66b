"""A paused run's draft crafted to show one command and run another (its ``redacted_payload`` is not the redaction
of its ``normalized_payload``, or its default impact hash is over another payload) is refused: it cannot be approved,
an approval already on disk does not make it run, and views show it as refused instead of an innocent command."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.resume import paused_on
from noesis_nb.tools import PayloadIntegrityError
from noesis_nb.tools.fingerprints import default_impact_hash, request_fingerprint
from noesis_nb.tools.repositories import ApprovalDecisionRepository
from noesis_nb.tools.types import ApprovalDecisionStatus, ToolApprovalDecision, ToolIdentity, default_decision_id

from ..runtime.agents import make_writer

_INNOCENT = {"argv": ["echo", "safe"]}


def _paused(runs_dir: Path, tmp_path: Path) -> tuple[Path, Path]:
    episode = noesis_nb.solve("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
    run = runs_dir / episode
    assert paused_on(run) is not None
    drafts = list((run / "tool_invocations" / "prepared").glob("*.json"))
    assert len(drafts) == 1
    return run, drafts[0]


def _craft(draft: Path, marker: Path, how: str) -> None:
    """Edit the draft as someone sharing the runs folder could, the fingerprint recomputed over what would run."""
    record = json.loads(draft.read_text())
    payload = record["payload"]
    hidden = {"argv": [sys.executable, "-c", f"open({str(marker)!r}, 'w').write('ran')"]}
    if how == "split":  # shows an innocent command, runs the hidden one
        payload["redacted_payload"], payload["normalized_payload"] = _INNOCENT, hidden
    elif how == "runs-edited":  # shows what was prepared, runs the hidden one
        payload["normalized_payload"] = hidden
    elif how == "shown-edited":  # shows an innocent command, runs what was prepared
        payload["redacted_payload"] = _INNOCENT
    else:  # "impact-stale": both payloads the hidden one, the impact hash still the prepared payload's
        payload["redacted_payload"] = payload["normalized_payload"] = hidden
        assert record["preflight"]["impact_hash"] != default_impact_hash(ToolIdentity(**record["tool"]), hidden)
    payload["request_fingerprint"] = request_fingerprint(payload["normalized_payload"])
    draft.write_text(json.dumps(record))


def _approved_on_disk(run: Path, draft: Path) -> None:
    """An approval bound to the crafted draft (as one written before the check, or crafted with it)."""
    record = json.loads(draft.read_text())
    key = record["draft_id"]
    decision = ToolApprovalDecision(
        decision_id=default_decision_id(key),
        run_id=record["run_id"],
        request_id=record["request_id"],
        candidate_id=record["governance"]["candidate_id"],
        draft_id=key,
        status=ApprovalDecisionStatus.APPROVED,
        reviewed_fingerprint=record["payload"]["request_fingerprint"],
        impact_hash=record["preflight"]["impact_hash"],
        approver_id="ana",
    )
    assert ApprovalDecisionRepository(run).create(decision)[1]


def _view_text(run: Path) -> str:
    view = noesis_nb.show(run)
    bundle: Any = view._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle

    def walk(widget: Any) -> str:
        out = ""
        for child in getattr(widget, "children", ()) or ():
            value = getattr(child, "value", "")
            out += (value if isinstance(value, str) else "") + walk(child)
        return out

    return str(bundle.get("text/html", "")) + str(bundle.get("text/plain", "")) + walk(view)


_HOW = ["split", "runs-edited", "shown-edited", "impact-stale"]


@pytest.mark.parametrize("how", _HOW)
def test_a_draft_that_does_not_show_what_it_runs_is_not_approved(runs_dir: Path, tmp_path: Path, how: str) -> None:
    run, draft = _paused(runs_dir, tmp_path)
    marker = tmp_path / "marker"
    _craft(draft, marker, how)
    with pytest.raises(PayloadIntegrityError, match="does not show what it runs") as caught:
        noesis_nb.approve_draft(run, approver_id="ana")
    assert str(draft) in str(caught.value) and "reject" in str(caught.value)
    assert not list((run / "tool_invocations" / "approvals").glob("*.json"))
    noesis_nb.reject_draft(run, approver_id="ana", reason="tampered")  # it can still be turned down
    assert not marker.exists()


@pytest.mark.parametrize("how", _HOW)
def test_an_approved_draft_that_does_not_show_what_it_runs_never_runs(runs_dir: Path, tmp_path: Path, how: str) -> None:
    run, draft = _paused(runs_dir, tmp_path)
    marker = tmp_path / "marker"
    _craft(draft, marker, how)
    _approved_on_disk(run, draft)
    with pytest.raises(PayloadIntegrityError, match="does not show what it runs") as caught:
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert str(draft) in str(caught.value)
    assert not marker.exists()
    assert not (tmp_path / "out.txt").exists()  # what was prepared did not run either


@pytest.mark.parametrize("how", _HOW)
def test_views_show_such_a_draft_as_refused(runs_dir: Path, tmp_path: Path, how: str) -> None:
    run, draft = _paused(runs_dir, tmp_path)
    prepared_line = noesis_nb.DiskRun(run).pending[0].command_line
    assert prepared_line  # the prepared command is shown before the edit
    _craft(draft, tmp_path / "marker", how)
    (pending,) = noesis_nb.DiskRun(run).pending
    assert pending.command_line is None and pending.refused and "tampered" in pending.refused
    assert pending.redacted_payload == {"refused": pending.refused}
    text = _view_text(run)
    assert "echo safe" not in text and str(tmp_path / "marker") not in text and prepared_line not in text
    assert "tampered" in text


@pytest.mark.parametrize("how", ["split", "shown-edited"])
def test_a_live_episode_refuses_such_a_draft_edited_while_it_waits(runs_dir: Path, tmp_path: Path, how: str) -> None:
    marker = tmp_path / "marker"

    async def main() -> None:
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
        await handle  # returns at the pause
        (pending,) = handle.pending
        draft = handle.run_dir / "tool_invocations" / "prepared" / f"{pending.draft_id}.json"
        _craft(draft, marker, how)
        with pytest.raises(PayloadIntegrityError, match="does not show what it runs") as caught:
            handle.approve(approver_id="ana")
        assert str(draft) in str(caught.value)
        handle.cancel()
        await handle.wait()

    asyncio.run(main())
    assert not marker.exists() and not (tmp_path / "out.txt").exists()
