"""An in-process AG-UI agent as a Noēsis episode; its interrupt becomes a pending approval."""

import asyncio

from noesis_nb import events_df
from noesis_nb.integrations import start
from noesis_nb.integrations.agui import AGUIAdapter


async def agent(run_input):
    """A scripted AG-UI agent: asks to delete a file, then reports what the human decided."""
    ids = {"threadId": run_input.thread_id, "runId": run_input.run_id}
    yield {"type": "RUN_STARTED", **ids}
    if not run_input.resume:
        yield {"type": "TOOL_CALL_START", "toolCallId": "tc1", "toolCallName": "delete_file"}
        yield {"type": "TOOL_CALL_ARGS", "toolCallId": "tc1", "delta": '{"path": "old.log"}'}
        yield {"type": "TOOL_CALL_END", "toolCallId": "tc1"}
        yield {
            "type": "RUN_FINISHED",
            **ids,
            "usage": [{"model": "gpt-4o-mini", "inputTokens": 120, "outputTokens": 20, "cachedInputTokens": 100}],
            "outcome": {"type": "interrupt", "interrupts": [{"id": "i1", "reason": "tool_call", "toolCallId": "tc1"}]},
        }
        return
    approved = run_input.resume[0].payload["approved"]
    yield {
        "type": "TEXT_MESSAGE_CHUNK",
        "messageId": "m1",
        "role": "assistant",
        "delta": "Deleted old.log." if approved else "Kept old.log.",
    }
    yield {"type": "RUN_FINISHED", **ids}


async def main():
    handle = start("clean up the logs", using=AGUIAdapter(agent), runs_dir="runs", approver="ask")
    await handle  # returns at the pause: the view shows Approve/Reject here
    print(handle.status, [p.tool for p in handle.pending])
    handle.approve(reason="fine")  # what the Approve button does
    await handle.wait()
    print(handle.status, handle.result())
    return handle


if __name__ == "__main__":
    h = asyncio.run(main())
    df = events_df(h.run_dir)
    print(df[df["event_name"].astype(str).str.startswith("agui.")][["phase", "event_name"]].to_string())
