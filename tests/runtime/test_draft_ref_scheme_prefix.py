"""A draft reference must reach past the request ids' common prefix ``req_``: ``h.reject("req_")`` picked the only
pending draft, as every request id starts with it. The rule: at least ``MIN_PART`` (4) characters of the request id
past ``req_`` (``"req_01K9"``), or the whole request or draft id."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError

from .agents import make_writer


def _decisions(run_dir: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]


@pytest.mark.parametrize("ref", ["req_", " req_ ", "req_0", "req_01M", "draft:req_"])
def test_the_scheme_prefix_alone_selects_no_live_draft(runs_dir: Path, tmp_path: Path, ref: str) -> None:
    async def main() -> noesis_nb.EpisodeHandle:
        handle = noesis_nb.start("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
        await handle
        [pending] = handle.pending
        # white space around a reference is refused as such (as around an episode id), before its prefix is judged
        said = "has white space around it" if ref != ref.strip() else "past its common prefix 'req_'"
        for decide in (handle.reject, handle.approve):
            with pytest.raises(InvalidIdError, match=said):
                decide(ref)
        assert handle.pending == [pending] and _decisions(handle.run_dir) == []
        request = pending.draft_id.rsplit(":", 1)[1]
        decision = handle.reject(request[: len("req_") + 4], reason="named by a real prefix")
        assert decision.draft_id == pending.draft_id and decision.status == "rejected"
        await handle.wait()
        return handle

    asyncio.run(main())


def test_the_scheme_prefix_alone_selects_no_draft_on_disk(runs_dir: Path, tmp_path: Path) -> None:
    ep = noesis_nb.solve("note", using=make_writer(tmp_path / "out.txt"), runs_dir=runs_dir)
    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(InvalidIdError, match="past its common prefix 'req_'"):
            decide(ep, "req_", approver_id="ops", runs_dir=runs_dir)
    assert _decisions(runs_dir / ep) == []
