"""What a cell prints about a paused episode holds no secret: ``handle.pending`` and a stop's ``DrainReport``.

A peer names its tool calls itself (AG-UI's ``toolCallName``); a name carrying a key was redacted in the run's
files but kept whole in the ``PendingApproval`` a live handle holds, so ``handle.pending`` (the tour's own cell)
printed the key into the notebook.
"""

from __future__ import annotations

import asyncio
import random
import re

import pytest

from noesis_nb.integrations import start
from noesis_nb.integrations.agui import AGUIAdapter
from noesis_nb.runtime.drain import DrainReport
from tests.hardening.secret_corpus import corpus, leaks

# key shapes whose value can stand in a tool's name (no blank, no quote); fresh values each session, fixed shapes
NAMES = ("github_pat", "aws_access_key", "slack", "stripe", "openai", "anthropic")
SHAPES = [s for s in corpus(random.SystemRandom().randrange(2**32)) if s.name in NAMES]
assert [s.name for s in SHAPES] == list(NAMES) and all(re.fullmatch(r"[A-Za-z0-9_.\-]{16,}", s.value) for s in SHAPES)


def _peer(name: str):
    async def agent(run_input):
        ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
        yield {"type": "RUN_STARTED", **ids}
        yield {"type": "TOOL_CALL_START", "toolCallId": "t1", "toolCallName": name}
        yield {"type": "TOOL_CALL_END", "toolCallId": "t1"}
        interrupt = {"id": "i1", "reason": "tool", "toolCallId": "t1"}
        yield {"type": "RUN_FINISHED", **ids, "outcome": {"type": "interrupt", "interrupts": [interrupt]}}

    return agent


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
def test_a_tool_name_carrying_a_key_is_shown_redacted_in_pending(tmp_path, shape):
    async def main():
        handle = start("t", using=AGUIAdapter(_peer("call_with_" + shape.value)), runs_dir=tmp_path, approver="ask")
        await asyncio.wait_for(handle, 30)
        try:
            assert handle.status == "paused" and len(handle.pending) == 1
            pending = handle.pending[0]
            shown = [
                ("tool", pending.tool.encode()),
                ("repr", repr(handle.pending).encode()),
                ("str", str(pending).encode()),
            ]
            assert pending.tool.startswith("agui.")  # still says whose call it is
            assert leaks([shape], shown) == []
        finally:
            handle.cancel()
            await asyncio.sleep(0.2)

    asyncio.run(main())


def test_a_drain_report_prints_call_names_redacted():
    shape = SHAPES[0]
    report = DrainReport(
        reason="settled",
        duration_s=0.1,
        drain_s=1.0,
        finished=[{"kind": "tool", "name": "agui.call_with_" + shape.value, "status": "ok"}],
        cut_off=[{"kind": "model", "name": shape.value, "running_s": 0.2}],
        refused=[],
    )
    printed = [("repr", repr(report).encode()), ("str", str(report).encode())]
    assert "DrainReport(reason='settled'" in printed[0][1].decode()
    assert leaks([shape], printed) == []
