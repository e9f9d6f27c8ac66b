"""An approver policy that raises ``CancelledError`` of its own (it awaited a task another cancelled) failed, as it
does raising any other error: ``solve`` returns, the run sealed ``error`` as with a policy's ``ValueError``, the
tool never run. Only a cancellation of the episode while its policy works is a stop."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.store import is_sealed, read_json

from ..compat.checker import check_run


def _make_agent(ran: list[str]) -> Any:
    def tool() -> str:
        ran.append("tool")
        return "written"

    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("py.write", {"args": []}, protocol="python", fn=tool, effect="write", risk="high")

    return agent


async def _awaits_a_cancelled_task(pending: Any) -> bool:
    helper = asyncio.ensure_future(asyncio.sleep(60))
    asyncio.get_running_loop().call_soon(helper.cancel)
    await helper  # raises the helper's CancelledError: this policy's own, nobody cancelled the episode
    return True


def _sync_cancelled(pending: Any) -> bool:
    raise asyncio.CancelledError("the review service gave up")


def _sync_value_error(pending: Any) -> bool:
    raise ValueError("the review service broke")


async def _async_value_error(pending: Any) -> bool:
    raise ValueError("the review service broke")


def _terminate(run_dir: Path) -> dict[str, Any]:
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    [terminate] = [e for e in events if e["phase"] == "terminate"]
    return terminate


def _solved(runs_dir: Path, policy: Any) -> tuple[Path, list[str]]:
    ran: list[str] = []
    episode_id = noesis_nb.solve("t", using=_make_agent(ran), runs_dir=runs_dir / policy.__name__, approver=policy)
    return runs_dir / policy.__name__ / episode_id, ran


@pytest.mark.parametrize(
    "policy, failing",
    [(_awaits_a_cancelled_task, _async_value_error), (_sync_cancelled, _sync_value_error)],
    ids=["async-policy", "sync-policy"],
)
def test_a_policy_raising_cancelled_error_of_its_own_fails_as_other_errors_do(runs_dir: Path, policy, failing) -> None:
    run_dir, ran = _solved(runs_dir, policy)  # returned: before, CancelledError raised out of solve
    failed_dir, failed_ran = _solved(runs_dir, failing)
    summary, failed = read_json(run_dir / "summary.json"), read_json(failed_dir / "summary.json")
    assert (summary["status"], summary["x-noesis_nb"]["reasons"]) == (failed["status"], failed["x-noesis_nb"]["reasons"])
    assert summary["status"] != "cancelled"  # before: sealed cancelled, as if the user had stopped it
    assert ran == failed_ran == []  # no decision: the tool never ran
    assert is_sealed(run_dir) and check_run(run_dir) == []
    message = _terminate(run_dir)["payload"]["message"]
    assert "CancelledError" in message and policy.__name__ in message, message
    assert "cancelled by" not in message and "stopped" not in message, message


def test_cancelling_the_episode_while_its_policy_works_still_cancels_it(runs_dir: Path) -> None:
    asked = threading.Event()

    async def slow_review(pending: Any) -> bool:
        asked.set()
        await asyncio.sleep(60)
        return True

    ran: list[str] = []

    async def main() -> Any:
        handle = noesis_nb.start("t", using=_make_agent(ran), runs_dir=runs_dir, approver=slow_review)
        while not asked.is_set():
            await asyncio.sleep(0.01)
        handle.cancel()
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    handle = asyncio.run(main())
    run_dir = Path(handle.run_dir)
    assert read_json(run_dir / "summary.json")["status"] == "cancelled" and ran == []
    assert check_run(run_dir) == []
