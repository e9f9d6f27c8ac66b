"""A Noeta SDK agent as an episode, offline: ``FakeLLMProvider`` scripts the model.

The high-risk tool call suspends the Noeta task; it shows as a pending draft, and Approve
calls ``client.approve`` (Reject would call ``client.deny`` with the reason).
"""

import asyncio
import tempfile
import warnings

from noeta.sdk import LLMResponse, Options, TextBlock, ToolResult, ToolUseBlock, Usage, tool
from noeta.sdk.testing import FakeLLMProvider

from noesis_nb import usage_df
from noesis_nb.integrations import start
from noesis_nb.integrations.noeta import NoetaAdapter

# Noeta's file tools say when ripgrep is missing; this example uses none of them
warnings.filterwarnings("ignore", message="ripgrep", category=RuntimeWarning)


@tool(
    name="delete_file",
    version="1",
    risk_level="high",
    input_schema={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
)
def delete_file(arguments, ctx):
    return ToolResult(success=True, output=f"deleted {arguments['path']}")


provider = FakeLLMProvider(
    responses=[
        LLMResponse(
            stop_reason="tool_use",
            usage=Usage(uncached=10, cache_read=5, output=3),
            content=[ToolUseBlock(call_id="d1", tool_name="delete_file", arguments={"path": "x.txt"})],
        ),
        LLMResponse(stop_reason="end_turn", content=[TextBlock(text="Deleted x.txt.")], usage=Usage(uncached=12, output=2)),
    ]
)
options = Options(
    system_prompt="You delete files when asked.", name="janitor", allowed_tools=(delete_file,), permission_mode="default"
)  # gated tools suspend the task; no can_use_tool callback


async def main():
    adapter = NoetaAdapter(options, provider=provider, model="claude-sonnet-5", workspace_dir=tempfile.mkdtemp())
    handle = start("delete x.txt", using=adapter, runs_dir="runs", approver="ask")
    await handle
    print(handle.status, [(p.tool, p.redacted_payload["kwargs"]["arguments"]) for p in handle.pending])
    handle.approve()
    await handle.wait()
    print(handle.status, handle.result(), handle.usage)
    return handle


if __name__ == "__main__":
    h = asyncio.run(main())
    try:
        print(usage_df(h.run_dir)[["model", "input_tokens", "cached_input_tokens", "output_tokens", "reported_cost_usd"]])
    except Exception as exc:  # usage_df is being written by another engineer
        print("usage_df not available yet:", exc)
