"""A LangGraph graph whose node asks for human review with ``interrupt()``; no LLM.

The interrupt becomes a pending approval; the decision resumes the graph with
``Command(resume={"approved": ...})`` on the same thread (the checkpointer keeps it).
"""

import asyncio
from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from noesis_nb.integrations import start
from noesis_nb.integrations.langgraph import LangGraphAdapter


class State(TypedDict, total=False):
    task: str
    draft: str
    outcome: str


def write(state):
    return {"draft": f"Dear customer, about '{state['task']}': refund approved."}


def review(state):
    decision = interrupt({"action": "send_email", "draft": state["draft"]})
    return {"outcome": "sent" if decision["approved"] else f"held: {decision.get('reason')}"}


builder = StateGraph(State)
builder.add_node("write", write)
builder.add_node("review", review)
builder.add_edge(START, "write")
builder.add_edge("write", "review")
builder.add_edge("review", END)
graph = builder.compile(checkpointer=InMemorySaver())


async def main():
    handle = start(
        "order 1042 refund", using=LangGraphAdapter(graph, input_mapper=lambda t: {"task": t}), runs_dir="runs", approver="ask"
    )
    await handle
    print(handle.status, handle.pending[0].tool, handle.pending[0].redacted_payload["kwargs"]["value"]["draft"])
    handle.reject(reason="check the amount first")
    await handle.wait()
    print(handle.status, handle.result())


if __name__ == "__main__":
    asyncio.run(main())
