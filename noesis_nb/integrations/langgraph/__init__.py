"""LangGraph (extra ``langgraph``): compiled graphs as episodes; ``interrupt()`` as approvals.

from noesis_nb.integrations import start
from noesis_nb.integrations.langgraph import LangGraphAdapter
handle = start("triage the ticket", using=LangGraphAdapter(graph, input_mapper=lambda t: {"task": t}))
"""

from ._adapter import LangGraphAdapter, LangGraphResumeError, LangGraphRunError, default_answer
from ._callbacks import usage_from_langchain

__all__ = ["LangGraphAdapter", "LangGraphResumeError", "LangGraphRunError", "default_answer", "usage_from_langchain"]
