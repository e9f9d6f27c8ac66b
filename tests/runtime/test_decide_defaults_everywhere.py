"""Every way to decide a draft records the same default approver: ``$NOESIS_NB_APPROVER_ID``, else ``"human"``.

``approve_draft`` / ``reject_draft``, the buttons and the magics read the variable; a live handle's and a run
view's ``approve`` / ``reject`` recorded ``"human"`` whatever it said.
"""

from __future__ import annotations

import asyncio
import json

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from tests.runtime.agents import make_writer


def _approver(run_dir):
    return json.loads(next((run_dir / "tool_invocations" / "approvals").glob("*.json")).read_text())["approver_id"]


def test_a_live_handle_records_the_configured_approver(tmp_path, monkeypatch):
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "ana")
    runs = tmp_path / "runs"

    async def main(decide):
        handle = noesis_nb.start("n", using=make_writer(tmp_path / "o.txt", handle_rejection=True), runs_dir=runs, approver="ask")
        while not handle.pending:
            await asyncio.sleep(0.01)
        getattr(handle, decide)()
        await handle
        return handle.episode_id

    for decide in ("approve", "reject"):
        ep = asyncio.run(main(decide))
        assert _approver(runs / ep) == "ana", decide


def test_a_run_view_records_the_configured_approver(tmp_path, monkeypatch):
    runs = tmp_path / "runs"
    for decide in ("approve", "reject"):
        ep = noesis_nb.solve("n", using=make_writer(tmp_path / "o.txt"), runs_dir=runs, approver="ask")
        monkeypatch.setenv("NOESIS_NB_APPROVER_ID", f"bo-{decide}")
        getattr(DiskRun(runs / ep), decide)()
        assert _approver(runs / ep) == f"bo-{decide}"
        monkeypatch.delenv("NOESIS_NB_APPROVER_ID")
    ep = noesis_nb.solve("n", using=make_writer(tmp_path / "o.txt"), runs_dir=runs, approver="ask")
    DiskRun(runs / ep).approve()
    assert _approver(runs / ep) == "human"
