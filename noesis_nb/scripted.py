"""Offline demo agents: a scripted, deterministic model with realistic token usage, and agents built on it.

Notebooks, the demo command and tests use these so everything runs with no network and no API key.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import EpisodeStateError, InvalidOptionError
from .secrets.quoted import quoted

__all__ = ["ScriptedModel", "note_writer", "researcher", "WRITE_FILE_CODE", "Agent"]

Agent = Callable[[str, Any], Awaitable[dict[str, Any]]]  # agent(task, ctx) -> result, as noesis_nb.start runs it

WRITE_FILE_CODE = (
    "import pathlib, sys; p = pathlib.Path(sys.argv[1]); p.parent.mkdir(parents=True, exist_ok=True); p.write_text(sys.argv[2])"
)


def _tokens(text: str) -> int:
    """About four characters a token, as for English text with common tokenizers."""
    return max(1, (len(text) + 3) // 4)


@dataclass
class ScriptedModel:
    """A stand-in for an LLM: replies come from a script, usage looks like a real provider's.

    The system prompt is ``system_tokens`` long and is cached after the first call (so later
    calls report cached input tokens), and ``reasoning_share`` of each reply counts as reasoning.
    A call's recorded latency is the time it took: none to speak of, unless ``latency_ms`` asks
    it to really wait that long first (``await acomplete`` waits without holding the event loop;
    ``complete`` sleeps its thread).
    """

    replies: list[str]
    model: str = "gpt-4o-mini"
    provider: str = "openai"
    system_tokens: int = 1200
    reasoning_share: float = 0.0
    latency_ms: float = 0.0
    calls: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        # A str is a sequence too: ScriptedModel("Hello") would reply "H", "e", "l", … one call each.
        replies = self.replies
        if isinstance(replies, str) or not isinstance(replies, (list, tuple)) or not replies:
            shown = quoted(replies, 60)  # redacted and cut: a key pasted as the replies is never echoed
            example = f"[{shown}]" if isinstance(replies, str) and replies else '["Plan: …", "Done."]'
            raise InvalidOptionError(f"replies={shown}: pass a non-empty list of reply strings, e.g. ScriptedModel({example})")
        odd = [r for r in replies if not isinstance(r, str)]
        if odd:
            raise InvalidOptionError(f"replies holds {quoted(odd[0], 60)}, not a str: each reply is the text the model answers")
        self.replies = list(replies)
        latency = self.latency_ms
        if isinstance(latency, bool) or not isinstance(latency, (int, float)) or not math.isfinite(latency) or latency < 0:
            raise InvalidOptionError(
                f"latency_ms={quoted(latency, 60)}: pass how long each call waits, in ms from 0 (0: no wait)"
            )

    def complete(self, prompt: str, ctx: Any = None) -> str:
        """The next scripted reply, after ``latency_ms`` (its thread sleeps); records one model call on ``ctx``
        when given, with the time the call took. For a sync agent (it runs on a thread of its own): on a thread
        running an event loop (an async agent, a cell) a call that waits is refused, ``await acomplete`` waits there."""
        began = time.perf_counter()
        if self.latency_ms > 0:
            self._refuse_on_loop(prompt)
            time.sleep(self.latency_ms / 1000)
        return self._reply(prompt, ctx, began)

    async def acomplete(self, prompt: str, ctx: Any = None) -> str:
        """``complete`` for an async agent: the wait of ``latency_ms`` leaves the event loop (the view) running."""
        began = time.perf_counter()
        if self.latency_ms > 0:
            await asyncio.sleep(self.latency_ms / 1000)
        return self._reply(prompt, ctx, began)

    def _refuse_on_loop(self, prompt: str) -> None:
        """A sleep here would freeze the loop: in a notebook the kernel, every episode on it, its live view and buttons."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return  # a sync agent's thread, a script: sleeping blocks only this thread
        raise EpisodeStateError(
            f"ScriptedModel.complete({quoted(prompt, 40)}) would sleep latency_ms={self.latency_ms:g} on the event "
            "loop's thread, freezing it (in a notebook: the kernel, the live view and its buttons) for each call; in an "
            "async agent use `await model.acomplete(prompt, ctx)` (complete is for sync agents, which run on a thread)"
        )

    def _reply(self, prompt: str, ctx: Any, began: float) -> str:
        reply = self.replies[self.calls % len(self.replies)] if self.replies else ""
        self.calls += 1
        output = _tokens(reply)
        reasoning = int(output * self.reasoning_share) if self.reasoning_share else None
        output += reasoning or 0
        input_total = self.system_tokens + _tokens(prompt)
        cached = self.system_tokens if self.calls > 1 else 0
        cache_write = self.system_tokens if self.calls == 1 else 0
        if ctx is not None:
            ctx.model_call(
                self.model,
                provider=self.provider,
                input_tokens=input_total,
                output_tokens=output,
                cached_input_tokens=cached,
                cache_write_input_tokens=cache_write,
                reasoning_tokens=reasoning,
                latency_ms=round((time.perf_counter() - began) * 1000, 3),  # what the call took, its wait included
            )
        return reply


def note_writer(notes_dir: str | Path, *, model: ScriptedModel | None = None, risk: str = "high") -> Agent:
    """An agent that drafts a note with the model and asks to write it to disk (a write tool: needs approval)."""
    notes_dir = Path(notes_dir)

    async def write_note(task: str, ctx: Any) -> dict[str, Any]:
        llm = model or ScriptedModel(
            [
                "Plan: outline the note, then write it.",
                "# Note\n\nThe agent wrote this note after a human approved the write.\n",
                "Saved the note.",
            ]
        )
        plan = await llm.acomplete(f"Plan how to: {task}", ctx)
        ctx.emit("reason", {"text": plan})
        body = await llm.acomplete(f"Write the note for: {task}", ctx)
        path = notes_dir / "note.md"
        await ctx.tool_async(
            "fs.write_file", {"argv": [sys.executable, "-c", WRITE_FILE_CODE, str(path), body]}, effect="write", risk=risk
        )
        summary = await llm.acomplete("Summarise what you did.", ctx)
        return {"path": str(path), "summary": summary}

    return write_note


def researcher(*, model: ScriptedModel | None = None, steps: int = 3, fail: bool = False) -> Agent:
    """A read-only agent: a few model calls and a read tool (no approval needed)."""

    async def research(task: str, ctx: Any) -> dict[str, Any]:
        llm = model or ScriptedModel(
            [f"Step {i + 1}: looked into {task}." for i in range(steps)],
            model="claude-sonnet-4-5",
            provider="anthropic",
            reasoning_share=0.3,
        )
        notes = [await llm.acomplete(f"{task} (step {i + 1})", ctx) for i in range(steps)]
        listing = await ctx.tool_async(
            "fs.list", {"argv": [sys.executable, "-c", "print('a.txt b.txt')"]}, effect="read", risk="low"
        )
        if fail:
            raise RuntimeError(f"could not finish: {task}")
        return {"notes": notes, "files": listing["stdout"].split()}

    return research
