"""LangChain callbacks that put a graph's node steps and model usage on the timeline, live.

Passed in ``config["callbacks"]``, so they work with ``invoke`` and ``ainvoke`` alike. Node
runs are the chain runs whose name is their own ``langgraph_node``; a model call's usage comes
from the chat message's ``usage_metadata`` (LangChain's: ``input_tokens`` total with
``input_token_details.cache_read`` / ``cache_creation`` parts, ``output_tokens`` total with
``output_token_details.reasoning``; langchain-anthropic adds ``ephemeral_1h_input_tokens``, the hour-long writes).
"""

from __future__ import annotations

import logging
from typing import Any

from ...errors import EpisodeStateError
from ...runtime.drain import call_ended, call_started, draining, refuse_while_draining
from .._emit import PHASE, as_object, emit_row, row, token_count, usage_row
from ._interrupts import brief

__all__ = ["make_handler", "make_watch", "usage_from_langchain"]


def usage_from_langchain(
    meta: Any, *, model: str | None, provider: str | None, **extra: Any
) -> tuple[str, dict[str, Any]] | None:
    """A usage row from LangChain ``usage_metadata`` (None when the model reported none)."""
    if not isinstance(meta, dict):
        return None
    inp = as_object(meta.get("input_token_details"))
    out = as_object(meta.get("output_token_details"))
    return usage_row(
        "langgraph",
        model=model,
        provider=provider,
        input_tokens=meta.get("input_tokens"),
        output_tokens=meta.get("output_tokens"),
        cached_input_tokens=inp.get("cache_read"),
        cache_write_input_tokens=inp.get("cache_creation"),
        reasoning_tokens=out.get("reasoning"),
        # langchain-anthropic's split of the writes: the hour-long part has its own rate (``store.vocab.BILLED_COUNTS``)
        cache_write_1h_input_tokens=token_count(inp.get("ephemeral_1h_input_tokens")),
        **extra,
    )


def make_handler(ctx: Any) -> Any:
    """A ``BaseCallbackHandler`` writing to ``ctx`` (built here so langchain_core is imported only when used)."""
    from langchain_core.callbacks import BaseCallbackHandler

    class NoesisGraphCallbacks(BaseCallbackHandler):
        raise_error = False

        def __init__(self) -> None:
            self.nodes: dict[Any, str] = {}
            self.models: dict[Any, tuple[str | None, str | None]] = {}

        def _emit(self, item: Any) -> None:
            try:
                emit_row(ctx, item)
            except EpisodeStateError:
                pass  # the episode ended while a worker thread was still running the graph

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, metadata: Any = None, **kw: Any) -> None:
            node = (metadata or {}).get("langgraph_node")
            if node and kw.get("name") == node:
                self.nodes[run_id] = node
                self._emit(
                    row(PHASE, "langgraph", "node_start", "step_started", node=node, step=(metadata or {}).get("langgraph_step"))
                )

        def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
            node = self.nodes.pop(run_id, None)
            if node:
                self._emit(row(PHASE, "langgraph", "node_end", "step_finished", node=node, update=brief(outputs, 300)))

        def on_chain_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
            node = self.nodes.pop(run_id, None)
            if node and type(error).__name__ not in ("GraphInterrupt", "NodeInterrupt", "ParentCommand"):
                self._emit(row(PHASE, "langgraph", "node_error", "step_error", node=node, error=_describe(error)))

        def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: Any, metadata: Any = None, **kw: Any) -> None:
            meta = metadata or {}
            self.models[run_id] = (meta.get("ls_model_name"), meta.get("ls_provider"))

        def on_llm_start(self, serialized: Any, prompts: Any, *, run_id: Any, metadata: Any = None, **kw: Any) -> None:
            self.on_chat_model_start(serialized, prompts, run_id=run_id, metadata=metadata)

        def on_llm_end(self, response: Any, *, run_id: Any, **kw: Any) -> None:
            model, provider = self.models.pop(run_id, (None, None))
            for generations in getattr(response, "generations", None) or []:
                for generation in generations:
                    message = getattr(generation, "message", None)
                    meta = getattr(message, "usage_metadata", None)
                    name = (getattr(message, "response_metadata", None) or {}).get("model_name") or model
                    item = usage_from_langchain(meta, model=name, provider=provider)
                    if item is not None:
                        self._emit(item)

    return NoesisGraphCallbacks()


def _describe(error: BaseException) -> str:
    """``"Type: message"``; an exception whose ``__str__`` itself raises is still named (its step error is kept)."""
    try:
        return f"{type(error).__name__}: {error}"
    except Exception as exc:
        return f"{type(error).__name__} (its message could not be read: {type(exc).__name__})"


class _OwnRefusals(logging.Filter):
    """Drops LangChain's "Error in NoesisCallWatch.… callback" line for a refusal of ours (the graph stopping at a
    boundary, as asked): the run records it, and a warning on every graceful stop would read as a fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args if isinstance(record.args, tuple) else ()
        return not (len(args) == 3 and args[0] == "NoesisCallWatch" and str(args[2]).startswith(_REFUSALS))


_REFUSALS = ("EpisodeStopping(", "GraphStopped(")
logging.getLogger("langchain_core.callbacks.manager").addFilter(_OwnRefusals())


def make_watch(ctx: Any, stopped: Any = None) -> Any:
    """A handler that keeps the graph's node and tool runs in flight for a drain, and refuses what may not start.

    A graceful stop (``handle.cancel(drain_s=…)``) lets the node and tool runs in flight finish (each is one of the
    episode's calls in flight, ``drain.call_started``); while it drains, the next node, tool or model call is refused
    (``EpisodeStopping``, recorded as ``drain.refused``), so the graph stops at that boundary. ``stopped``: set when
    the episode is cancelled (a ``threading.Event``, for a sync graph in a worker thread that a cancel cannot
    interrupt): then every node, tool and model call is refused. LangChain calls the handler where the call starts
    (``run_inline``: in the graph's own task or thread), and (``raise_error``) its error ends the graph there; the
    call already running finishes."""
    from langchain_core.callbacks import BaseCallbackHandler

    class NoesisCallWatch(BaseCallbackHandler):
        raise_error = True  # the refusal must reach the graph, not be logged and passed over
        run_inline = True  # in the graph's task: a refusal comes before the call, not from an executor after it

        def __init__(self) -> None:
            self.calls: dict[Any, Any] = {}
            self.held: list[tuple[Any, str]] = []  # calls that ended while draining, told once the graph moves on
            self.root: Any = None  # the graph's own run

        def _stop(self, what: str) -> None:
            if stopped is not None and stopped.is_set():
                raise GraphStopped(f"the episode was cancelled: {what} does not start")

        def _start(self, run_id: Any, kind: str, name: str) -> None:
            try:
                refuse_while_draining(ctx, kind, name)  # first: a refusal after a drain is recorded as one
                self._stop(f"{kind} {name!r}")
                call = call_started(ctx, kind, name)  # EpisodeStopping when a drain began meanwhile
            except BaseException:
                self._release()  # the graph reached its next step, refused: the drain may settle now
                raise
            if call is not None:
                self.calls[run_id] = call

        def _end(self, run_id: Any, status: str) -> None:
            call = self.calls.pop(run_id, None)
            if call is not None and draining(ctx):
                # held until the graph reaches its next step (refused, and so recorded in the drain's report) or ends:
                # told at once, the drain would settle and cancel the episode before the graph got there
                self.held.append((call, status))
            else:
                call_ended(ctx, call, status)

        def _release(self) -> None:
            held, self.held = self.held, []
            for call, status in held:
                call_ended(ctx, call, status)

        def _failed(self, run_id: Any, error: BaseException) -> None:
            interrupted = type(error).__name__ in ("GraphInterrupt", "NodeInterrupt", "ParentCommand")
            self._end(run_id, "interrupted" if interrupted else "error")

        def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: Any, metadata: Any = None, **kw: Any) -> None:
            if self.root is None and kw.get("parent_run_id") is None:
                self.root = run_id
            node = (metadata or {}).get("langgraph_node")
            if node and kw.get("name") == node:
                self._start(run_id, "node", str(node))
            else:
                self._stop(f"node {node!r}" if node else "the next step")

        def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
            self._end(run_id, "ok")
            if run_id == self.root:
                self._release()

        def on_chain_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
            self._failed(run_id, error)
            if run_id == self.root:
                self._release()

        def on_tool_start(self, serialized: Any, input_str: Any, *, run_id: Any, **kw: Any) -> None:
            self._start(run_id, "tool", str((serialized or {}).get("name") or kw.get("name") or "tool"))

        def on_tool_end(self, output: Any, *, run_id: Any, **kw: Any) -> None:
            self._end(run_id, "ok")

        def on_tool_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
            self._failed(run_id, error)

        def on_chat_model_start(self, serialized: Any, messages: Any, *, metadata: Any = None, **kw: Any) -> None:
            # a captured SDK watches the model call itself; an uncaptured one is part of the node in flight
            refuse_while_draining(ctx, "model", str((metadata or {}).get("ls_model_name") or "model"))
            self._stop("the model call")

        def on_llm_start(self, serialized: Any, prompts: Any, *, metadata: Any = None, **kw: Any) -> None:
            self.on_chat_model_start(serialized, prompts, metadata=metadata)

    return NoesisCallWatch()


class GraphStopped(Exception):
    """Raised in a sync graph's worker thread at its next node, tool or model call once its episode was cancelled."""
