"""Clicks sent to a real kernel exactly as a frontend sends them: Approve, Reject, double click, Stop."""

from __future__ import annotations

from typing import Any

import pytest

from noesis_nb.store import read_summary, verify_manifest

pytestmark = pytest.mark.kernel

WIDGET = "application/vnd.jupyter.widget-view+json"


def start(kernel: Any, task: str, agent: str = "tool_agent") -> str:
    out = kernel.run(f'h = %noesis run {agent} "{task}" --runs-dir {kernel.runs}\nprint(h.episode_id)')
    bundle = out["outputs"][0]["data"]
    assert {WIDGET, "text/plain", "text/html"} <= set(bundle)
    return out["stdout"].strip().splitlines()[-1]


def html_values(kernel: Any) -> list[str]:
    return [str(s.get("value") or "") for s in kernel.widgets("HTMLModel").values()]


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup()


def test_approve_click_continues_the_episode(kernel: Any, disk: Any) -> None:
    episode = start(kernel, "approve a1")
    approve = kernel.button("Approve", episode)
    kernel.click(approve)
    run_dir = kernel.runs / episode
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    [decision] = disk.decisions(run_dir)
    assert decision["status"] == "approved" and decision["approver_id"] == "human"
    assert "tool.execution.succeeded" in disk.names(run_dir)
    assert (kernel.mark / "a1").read_text() == "x"
    # the view's new state, as the frontend received it
    reject = kernel.button("Reject", episode)
    kernel.wait(
        lambda: kernel.widgets()[approve].get("disabled") and kernel.widgets()[reject].get("disabled"), what="disabled buttons"
    )
    kernel.wait(lambda: any("approved</b> by human" in v for v in html_values(kernel)), what="'approved by human' in the card")
    assert kernel.value("h.status") == "ok"


def test_reject_click_records_and_skips_execution(kernel: Any, disk: Any) -> None:
    episode = start(kernel, "reject r1")
    kernel.click(kernel.button("Reject", episode))
    run_dir = kernel.runs / episode
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    [decision] = disk.decisions(run_dir)
    assert decision["status"] == "rejected"
    names = disk.names(run_dir)
    assert "tool.rejected.governance" in names and "tool.execution.succeeded" not in names
    assert not (kernel.mark / "r1").exists()
    kernel.wait(lambda: any("rejected</b> by human" in v for v in html_values(kernel)), what="'rejected' in the card")


def test_double_click_executes_once(kernel: Any, disk: Any) -> None:
    episode = start(kernel, "double d1")
    approve, reject = kernel.button("Approve", episode), kernel.button("Reject", episode)
    kernel.click(approve)
    kernel.click(approve)
    kernel.click(reject)
    run_dir = kernel.runs / episode
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    assert [d["status"] for d in disk.decisions(run_dir)] == ["approved"]
    assert disk.names(run_dir).count("tool.execution.succeeded") == 1
    assert (kernel.mark / "d1").read_text() == "x"


def test_stop_click_cancels_and_seals(kernel: Any, disk: Any) -> None:
    episode = start(kernel, "wait s1", agent="slow_agent")
    run_dir = kernel.runs / episode
    kernel.wait(lambda: "reason" in disk.names(run_dir), what="the episode to start")
    kernel.click(kernel.button("Stop"))
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    assert (read_summary(run_dir) or {}).get("episode_id") == episode
    assert "terminate" in disk.names(run_dir) and verify_manifest(run_dir).status == "ok"
    assert kernel.value("h.status") == "cancelled"
    kernel.wait(lambda: any(">cancelled<" in v for v in html_values(kernel)), what="the cancelled badge")


def test_a_steer_typed_in_the_box_and_sent_with_a_click_reaches_the_adapter(kernel: Any, disk: Any) -> None:
    kernel.run(
        """
        async def steer_agent(task, ctx):
            ctx.emit("reason", {"text": "listening"})
            got = await ctx.next_steer_async(timeout=30)
            return got.text if got else "nothing"
        """
    )
    episode = start(kernel, "steer k1", agent="steer_agent")
    run_dir = kernel.runs / episode
    kernel.wait(lambda: "reason" in disk.names(run_dir), what="the episode to listen")
    boxes = [cid for cid, s in kernel.widgets("TextModel").items() if "tell the agent" in (s.get("placeholder") or "")]
    # what a frontend sends as a person types into the box, then the click on Send
    update = {"comm_id": boxes[-1], "data": {"method": "update", "state": {"value": "use staging"}, "buffer_paths": []}}
    kernel.kc.shell_channel.send(kernel.kc.session.msg("comm_msg", update))
    kernel.click(kernel.button("Send"))
    kernel.wait(lambda: (run_dir / "manifest.json").exists(), what="the run to seal")
    names = disk.names(run_dir)
    assert names.index("steer.sent") < names.index("steer.applied")
    assert kernel.value("h.result()") == "use staging"
    kernel.wait(lambda: any("heard after" in v for v in html_values(kernel)), what="the steer heard in the step tree")
