"""A draft reference holding a control, invisible or filler character (a NUL, a zero-width space, a Hangul filler:
pasted with the id, or forged) is refused as such, shown inert, and nothing is decided. It was called "too short to
name a draft", which sent the person to type more of an id they had typed whole."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError


def _asks(task: str, ctx: Any) -> Any:
    return ctx.tool("fs.touch", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")


@pytest.mark.parametrize("where", ["end", "middle"])
@pytest.mark.parametrize("hidden", ["\x00", "\u200b", "\uffa0", "\u3164", "\x1b"])
@pytest.mark.parametrize("decide", [noesis_nb.approve_draft, noesis_nb.reject_draft])
def test_a_reference_with_a_hidden_character_is_refused_as_such(runs_dir: Path, hidden: str, where: str, decide: Any) -> None:
    ep = noesis_nb.solve("touch it", using=_asks, runs_dir=runs_dir, approver="ask")
    (draft,) = [p.stem for p in (runs_dir / ep / "tool_invocations" / "prepared").glob("*.json")]
    request = draft.rsplit("__", 1)[-1] if "__" in draft else draft.split(":")[-1]
    ref = f"draft:{ep}:req_{hidden}" if where == "end" else f"draft:{ep}:{request[:8]}{hidden}{request[8:]}"
    with pytest.raises(InvalidIdError, match="which no draft id has") as caught:
        decide(runs_dir / ep, draft_id=ref, approver_id="ana")
    assert hidden not in str(caught.value) and "\ufffd" in str(caught.value)
    assert not list((runs_dir / ep / "tool_invocations" / "approvals").glob("*.json"))  # nothing decided
