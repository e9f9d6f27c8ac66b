"""An episode never blocks the kernel: while its agent's code waits (a blocking read, a sync event source, a sync
approver, a scripted model's latency), the next cell is served. The first three wait for something only that next
cell does, the scripted model's call is seen unfinished by it; run on the kernel's loop, each wait would hold the
loop and the next cell would run only once it was over."""

from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.kernel

NEXT_CELL_S = 10  # the next cell is answered well within this; one queued behind a blocked loop is not
GIVE_UP_S = 20  # how long an agent's wait lasts when nothing releases it (only a blocked loop leaves it so)


@pytest.fixture(scope="module", autouse=True)
def _setup(kernel: Any) -> None:
    kernel.setup(
        f"import contextvars, socket, threading\nWHO = contextvars.ContextVar('who', default='nobody')\nGIVE_UP_S = {GIVE_UP_S}\n"
    )


def _settled(kernel: Any, name: str) -> str:
    kernel.wait(lambda: kernel.value(f"{name}.done() or {name}.status == 'paused'"), what=f"{name} to settle")
    return str(kernel.value(f"{name}.status"))


def test_a_sync_agent_blocked_in_a_read_leaves_the_next_cell_served_and_its_ctx_calls_work(kernel: Any, disk: Any) -> None:
    """The sync agent runs on a thread in the cell's context; from there it emits, records a model call, and waits
    for an approval that a click (handled on the loop) gives."""
    episode = kernel.run(
        """
        ours, theirs = socket.socketpair()
        theirs.settimeout(GIVE_UP_S)

        def reader(task, ctx):
            ctx.emit("reason", {"text": "waiting for bytes"})
            got = theirs.recv(16).decode()  # a blocking read: only the next cell sends
            ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=2)
            ctx.tool("fs.append", {"argv": effect_argv("sync-read")}, effect="write", risk="high")
            return f"{got} for {WHO.get()}"

        WHO.set("the cell")
        h1 = noesis_nb.start("read then write", using=reader, runs_dir=RUNS)
        display(h1)  # its live view, whose Approve button is clicked below
        print(h1.episode_id)
        """
    )["stdout"].split()[-1]
    run_dir = kernel.runs / episode
    kernel.wait(lambda: "reason" in disk.names(run_dir), what="the agent to start reading")
    assert kernel.run("ours.send(b'bytes'); print(h1.status)", timeout=NEXT_CELL_S)["stdout"].strip() == "running"
    kernel.click(kernel.button("Approve", episode))
    assert _settled(kernel, "h1") == "ok"
    assert kernel.value("h1.result()") == "bytes for the cell"
    names = disk.names(run_dir)
    assert "model.call" in names and "tool.execution.succeeded" in names
    assert [d["approver_id"] for d in disk.decisions(run_dir)] == ["human"]
    assert (kernel.mark / "sync-read").read_text() == "x"


def test_an_agui_source_blocked_between_events_leaves_the_next_cell_served(kernel: Any) -> None:
    pytest.importorskip("ag_ui")  # an optional extra: the kernel runs this Python (the ipykernel 6.29 run has none)
    kernel.run(
        """
        from noesis_nb.integrations.agui import AGUIAdapter
        agui_blocked, agui_release = threading.Event(), threading.Event()

        def agui_source(run_input):
            ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
            yield {"type": "RUN_STARTED", **ids}
            agui_blocked.set()
            said = "released" if agui_release.wait(GIVE_UP_S) else "never released"  # the server's next event
            yield {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"}
            yield {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": said}
            yield {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
            yield {"type": "RUN_FINISHED", **ids}

        h2 = noesis_nb.start("agui", using=AGUIAdapter(agui_source), runs_dir=RUNS)
        """
    )
    kernel.wait(lambda: kernel.value("agui_blocked.is_set()"), what="the source to block")
    assert kernel.run("agui_release.set(); print(h2.done())", timeout=NEXT_CELL_S)["stdout"].strip() == "False"
    assert _settled(kernel, "h2") == "ok"
    assert kernel.value("h2.result()") == "released"


def test_a_sync_approver_waiting_leaves_the_next_cell_served(kernel: Any, disk: Any) -> None:
    episode = kernel.run(
        """
        asked, verdict = threading.Event(), threading.Event()

        def reviewer(pending):  # a review service asked over blocking HTTP
            asked.set()
            return verdict.wait(GIVE_UP_S)

        h3 = noesis_nb.start("review k1", using=tool_agent, approver=reviewer, runs_dir=RUNS)
        print(h3.episode_id)
        """
    )["stdout"].split()[-1]
    kernel.wait(lambda: kernel.value("asked.is_set()"), what="the approver to be asked")
    assert kernel.run("verdict.set(); print(h3.done())", timeout=NEXT_CELL_S)["stdout"].strip() == "False"
    assert _settled(kernel, "h3") == "ok"
    [decision] = disk.decisions(kernel.runs / episode)
    assert decision["status"] == "approved" and decision["approver_id"] == "policy:reviewer"
    assert (kernel.mark / "k1").read_text() == "x"


def test_a_scripted_model_waiting_in_an_async_agent_leaves_the_next_cell_served(kernel: Any) -> None:
    """The demo researcher with a slow scripted model: the next cell runs while the model call waits."""
    kernel.run(
        """
        from noesis_nb.scripted import ScriptedModel, researcher
        slow = ScriptedModel(["looked"], latency_ms=2000)
        h4 = noesis_nb.start("look", using=researcher(model=slow, steps=1), runs_dir=RUNS)
        """
    )
    assert kernel.run("print(slow.calls)", timeout=NEXT_CELL_S)["stdout"].strip() == "0"  # served during the wait
    assert _settled(kernel, "h4") == "ok"
    assert kernel.value("[slow.calls, h4.result()['notes']]") == [1, ["looked"]]
