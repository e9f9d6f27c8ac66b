"""A decision's reason follows the rule of a steer's text (``steer.check_free_text``): at most 20,000 characters,
no control character but TAB and line ends, no bidi control. A reason of 2,000,000 characters was written whole,
and one holding ESC, RLO or NUL was kept in the approval file and tools_df while the approver id beside it refused
those characters. Refused: nothing is written and the draft still waits; a reason of several lines is kept.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.runtime.steer import MAX_TEXT, check_steer

BAD = ["x" * 2_000_000, "ok\x1b[2Jgone", "see \u202eexe.txt", "a\x00b", "x" * (MAX_TEXT + 1)]
# line ends and tabs kept: every control character str.splitlines reads as a line end (VT, FF, NEL…) is one
_LINES = "checked the diff\n\tlooks fine\r\npage\x0cbreak\x0bvt\x85nel\x1cfs\x1dgs\x1ers\u2028ls\u2029ps "
GOOD = _LINES + "y" * (MAX_TEXT - len(_LINES))


def _agent(task: str, ctx: Any) -> str:
    ctx.tool("fs.x", {"argv": ["echo", "hi"]}, effect="write", risk="high")
    return "ok"


def _approvals(run_dir: Path) -> list[bytes]:
    return [p.read_bytes() for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]


def test_approve_and_reject_draft_refuse_a_reason_steer_text_could_not_be(runs_dir: Path) -> None:
    ep = noesis_nb.solve("task", using=_agent, runs_dir=runs_dir, approver="ask")
    run_dir = runs_dir / ep
    for reason in BAD:
        for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
            with pytest.raises(InvalidOptionError) as refused:
                decide(run_dir, approver_id="ana", reason=reason)
            message = str(refused.value)
            assert message.startswith("reason "), message
            assert len(message) < 400 and reason[-20:] not in message, message  # named, not quoted
        with pytest.raises(InvalidOptionError):  # the steer rule itself says the same of it
            check_steer(reason, "next", "ana")
    assert _approvals(run_dir) == []  # before: the first reason was written (2 MB in the approval file)
    noesis_nb.reject_draft(run_dir, approver_id="ana", reason=GOOD)
    (written,) = _approvals(run_dir)
    assert orjson.loads(written)["reason"] == GOOD  # line ends and tabs kept, up to the limit
    assert noesis_nb.tools_df(runs_dir).decision_reason.dropna().tolist() == [GOOD]


def test_a_live_handle_refuses_such_a_reason_and_the_draft_still_waits(runs_dir: Path) -> None:
    async def main() -> None:
        handle = noesis_nb.start("task", using=_agent, runs_dir=runs_dir, approver="ask")
        await handle
        for reason in BAD[1:4]:
            with pytest.raises(InvalidOptionError, match="^reason holds"):
                handle.reject(approver_id="ana", reason=reason)
        assert handle.pending
        handle.approve(approver_id="ana", reason="fine")
        await handle.wait()

    asyncio.run(main())
    assert noesis_nb.tools_df(runs_dir).decision_reason.dropna().tolist() == ["fine"]
