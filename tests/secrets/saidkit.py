"""Secrets said in texts: a random password, the texts written by a live run or in a run from elsewhere and read back,
and the CPU time the text scan takes."""

from __future__ import annotations

import secrets as stdlib_secrets
import string
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.secrets.text import find_in_text
from tests.frames.runkit import unsealed_run

Saying = Callable[[str], str]  # a password -> a text saying it


def password(middle: int = 9) -> str:
    """An upper-case letter, ``middle`` random letters and digits, then ``7q``: a password no English word is."""
    rnd = stdlib_secrets.SystemRandom()
    alnum = string.ascii_letters + string.digits
    return rnd.choice(string.ascii_uppercase) + "".join(rnd.choice(alnum) for _ in range(middle)) + "7q"


def written_by_live_run(runs_dir: Path, texts: list[str], phase: str) -> str:
    """The event log a live run writes emitting each text as ``{"text": …}`` in a ``phase`` event."""

    def agent(task: str, ctx: Any) -> str:
        for text in texts:
            ctx.emit(phase, {"text": text})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=runs_dir)
    return (runs_dir / ep / "events.jsonl").read_text("utf-8")


def text_run(root: Path, ep: str, texts: list[str], *, raw_utf8: bool = False) -> Path:
    """A run from elsewhere (unsealed) holding each text as a ``model`` event's ``text``; ``raw_utf8`` writes its
    lines in UTF-8 rather than ``\\u`` escapes."""
    return unsealed_run(root, ep, [{"text": t} for t in texts], style="new" if raw_utf8 else "old")


def shown_per_run(root: Path, said: Mapping[str, str], *, raw_utf8: bool = False) -> dict[str, str]:
    """Each text of ``said`` written alone in a run from elsewhere (``ep_<name>``) and read back: name -> the repr of
    that run's payloads in ``events_df``."""
    for name, text in said.items():
        text_run(root, f"ep_{name}", [text], raw_utf8=raw_utf8)
    frame = noesis_nb.events_df(root)
    return {name: repr(frame[frame.episode_id == f"ep_{name}"].payload.tolist()) for name in said}


def texts_read_back(root: Path) -> list[str]:
    """The ``text`` of every payload ``events_df`` reads under ``root``."""
    frame = noesis_nb.events_df(root)
    return [p["text"] for p in frame.payload if isinstance(p, dict) and "text" in p]


def scan_costs(texts: list[str]) -> list[float]:
    """CPU seconds ``find_in_text`` takes on each text (CPU time, not the clock)."""
    costs = []
    for text in texts:
        start = time.process_time()
        find_in_text(text)
        costs.append(time.process_time() - start)
    return costs
