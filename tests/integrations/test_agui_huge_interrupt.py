"""An AG-UI interrupt holding megabytes: the approval shows a preview read from its head, so the event loop's work
is the same for 12 MB as for 1.2 MB (the draft's secret screening of all of it held the loop 1 s per MB), and the
agent's ``answer`` still gets the interrupt whole."""

from __future__ import annotations

import asyncio
import gc
import json
from typing import Any

import pytest

pytest.importorskip("ag_ui.core")

from noesis_nb.errors import InvalidOptionError
from noesis_nb.integrations.agui import AGUIAdapter
from tests.compat.checker import check_run

from .helpers import disk_events, drive
from .loop_cpu import loop_cpu
from .test_agui_outcomes import Agent, _done, _interrupting

OPENAI = "sk-" + "Qw8" * 13 + "y"  # sk- + 40 alnum
LIMIT = 20_000


def _answer(interrupt: dict[str, Any], approved: bool, reason: str | None) -> dict[str, Any]:
    return {"approved": approved, "blob_chars": len(interrupt["payload"]["blob"])}


def _decided(words: int, runs_dir: Any) -> tuple[Any, Any, Agent, float, int]:
    blob = "word " * (LIMIT // 5 - 10) + OPENAI + " tail " * words  # the secret straddles the preview's end
    agent = Agent(_interrupting({"id": "i1", "reason": "upload", "payload": {"blob": blob}}), _done)
    gc.freeze()  # the suite's heap aside: a full collection of it is no work of the episode's
    try:
        with loop_cpu() as spent:
            handle, pending = asyncio.run(drive("x", AGUIAdapter(agent, answer=_answer), runs_dir, decide="approve", timeout=300))
    finally:
        gc.unfreeze()
    assert handle.status == "ok" and check_run(handle.run_dir) == []
    assert agent.inputs[1]["resume"] == [
        {"interruptId": "i1", "status": "resolved", "payload": {"approved": True, "blob_chars": len(blob)}}
    ]
    files = b"".join(p.read_bytes() for p in handle.run_dir.rglob("*") if p.is_file())
    assert OPENAI[:12].encode() not in files and OPENAI[-12:].encode() not in files
    [shown] = [p.redacted_payload["kwargs"]["interrupt"] for p in pending]
    return shown, disk_events(handle), agent, max(spent), len(blob)


def test_a_huge_interrupt_is_shown_as_a_preview_and_the_loop_work_does_not_grow_with_it(runs_dir):
    _decided(0, runs_dir)  # imports and first calls
    shown, _, _, small, _ = _decided(200_000, runs_dir)  # 1.2 MB
    small = min(small, _decided(200_000, runs_dir)[3])  # a busy machine only adds to one run's longest callback
    assert len(shown["preview"]) <= LIMIT and shown["preview"].startswith('{"id":"i1","reason":"upload","payload":{"blob":"word')
    assert shown["truncated"] == (
        f"more than {LIMIT} characters of JSON, the first {LIMIT} kept; pass max_value_chars= a larger number for more"
    )
    big, _, _, most, _ = _decided(2_000_000, runs_dir)  # 12 MB
    assert big == shown
    most = min(most, _decided(2_000_000, runs_dir)[3])
    # The same work for ten times the data: screening it all on the loop took 1.6 s at 1.2 MB and 14 s at 12 MB.
    assert most < 1.5 * small + 0.05, f"a loop callback took {most:.3f} s CPU with a 12 MB interrupt, {small:.3f} s with 1.2 MB"


def test_an_interrupt_under_max_value_chars_is_shown_whole(runs_dir):
    interrupt = {"id": "i1", "reason": "upload", "payload": {"blob": "word " * 30, "n": [1, 2.5, None]}}
    text = json.dumps(interrupt, separators=(",", ":"))
    agent = Agent(_interrupting(interrupt), _done)
    handle, pending = asyncio.run(drive("x", AGUIAdapter(agent, max_value_chars=len(text)), runs_dir, decide="approve"))
    assert handle.status == "ok" and [p.redacted_payload["kwargs"]["interrupt"] for p in pending] == [interrupt]
    agent = Agent(_interrupting(interrupt), _done)
    handle, pending = asyncio.run(drive("x", AGUIAdapter(agent, max_value_chars=len(text) - 1), runs_dir, decide="approve"))
    [shown] = [p.redacted_payload["kwargs"]["interrupt"] for p in pending]
    assert shown["preview"] == text[: len(text) - 1] and shown["truncated"].startswith(f"{len(text)} characters of JSON")


@pytest.mark.parametrize("given", [0, -5, 2.5, "100", True, None])
def test_max_value_chars_must_be_a_positive_int(given):
    with pytest.raises(InvalidOptionError, match=rf"max_value_chars={given!r}: pass an int of at least 1"):
        AGUIAdapter(Agent(_done), max_value_chars=given)
