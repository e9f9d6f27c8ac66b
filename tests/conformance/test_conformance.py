"""One conformance suite for every adapter: (adapter kind × case) from ``cases.json``.

A case names a behaviour; ``agents.build`` makes each kind's agent show it; the episode runs
through ``noesis_nb.integrations.start`` and must meet the case's ``expect``. Every kind also
has to leave a sealed run whose every line passes Noēsis' event guard (verb phases keep their
payload minimum) and whose lifecycle Noēsis accepts (nothing acts or ends while paused, a resume only
from a pause), and (integrations) tag the run and every event it writes with its ``source``.
"""

from __future__ import annotations

import asyncio
import html
import importlib.util
import inspect
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from noesis_nb.integrations import start
from noesis_nb.store import read_json, verify_manifest
from tests.compat import rules_events, rules_lifecycle
from tests.compat.rundata import load_run

from .agents import KINDS, build

SUITE = json.loads((Path(__file__).with_name("cases.json")).read_text())
CASES = {case["id"]: case for case in SUITE["cases"]}
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def server():
    if importlib.util.find_spec("httpx") is None:
        yield None
        return
    from tests.integrations.scripted_agui import AGUITestServer

    with AGUITestServer() as srv:
        yield srv


async def _drive(case: dict[str, Any], built: Any, runs_dir: Path) -> tuple[Any, int, float]:
    started = time.monotonic()
    handle = start(case["task"], using=built.using, runs_dir=runs_dir, **case.get("options", {}))
    limit = case["expect"].get("within_s", 30)
    pending = 0
    try:
        if case.get("cancel_after_s"):
            await asyncio.sleep(case["cancel_after_s"])
            assert handle.status == "running", f"the agent was meant to still run, status is {handle.status}"
            handle.cancel()
        else:
            await asyncio.wait_for(_settled(handle), limit)
            if case.get("decision") and handle.status == "paused":
                pending = len(handle.pending)
                if case["decision"] == "approve":
                    handle.approve(approver_id="conformance")
                else:
                    handle.reject(reason=case.get("reason"), approver_id="conformance")
        await asyncio.wait_for(handle.wait(), limit)
    finally:
        built.release()  # unblock a hanging agent's thread before the loop closes
    return handle, pending, time.monotonic() - started


def _view_html(handle: Any) -> tuple[str, str]:
    """What the notebook shows: the handle's ``text/html`` snapshot, and every live timeline row."""
    from noesis_nb.widgets.display import view_for
    from noesis_nb.widgets.render import row_html

    snapshot = view_for(handle).mimebundle().get("text/html", "")  # what any display of the handle carries
    assert snapshot, "the handle's display bundle has no text/html snapshot"
    return snapshot, "".join(row_html(e) for e in handle.events)


def _check(case: dict[str, Any], built: Any, handle: Any, pending: int, elapsed: float) -> None:
    expect, events = case["expect"], handle.events
    tail = [(e["phase"], (e.get("payload") or {}).get("event_name")) for e in events[-8:]]
    assert handle.status == expect["status"], f"status {handle.status}, last events {tail}"
    assert elapsed < expect.get("within_s", 30)
    if "result_contains" in expect:
        result = handle.result()
        assert not inspect.isawaitable(result)
        for text in expect["result_contains"]:
            assert text in str(result), f"{text!r} not in result {result!r}"
    if "error_contains" in expect:
        with pytest.raises(BaseException) as caught:
            handle.result()
        assert expect["error_contains"] in str(caught.value)
    if "reasons" in expect:
        act = [e for e in events if e["phase"] == "act" and e["payload"].get("kind") == "adapter"][-1]
        assert set(expect["reasons"]) <= set(act["payload"]["reasons"])
    if "pending" in expect:
        assert pending == expect["pending"]
    names = [(e.get("payload") or {}).get("event_name") for e in events]
    for name in expect.get("event_names", []):
        assert name in names, f"{name} missing"
    for name in expect.get("event_names_absent", []):
        assert name not in names, f"{name} present"
    if "usage" in expect:
        calls = [e["payload"] for e in events if e["phase"] == "model"]
        assert any(all(c.get(k) == v for k, v in expect["usage"].items()) for c in calls), calls
    if expect.get("escaped_in_view"):
        snapshot, rows = _view_html(handle)
        for page in (snapshot, rows):
            assert "<script" not in page.lower() and "<img" not in page.lower()
        for text in SUITE["hostile"]:
            assert html.escape(text, quote=True) in snapshot, f"{text!r} is not in the snapshot, escaped"
    # every kind: a sealed run; integrations: the source on the run and on each event they wrote
    assert (handle.run_dir / "final.json").exists() and verify_manifest(handle.run_dir).ok
    run = load_run(handle.run_dir)  # the event guard, and the lifecycle (no step while paused, resumes as Noēsis')
    broken = [str(v) for v in (*rules_events.check(run), *rules_lifecycle.check(run))]
    assert not broken, broken
    if built.source:
        assert read_json(handle.run_dir / "state.json")["episode"]["tags"].get("source") == built.source
        own = [
            e
            for e in events
            if e["phase"] not in ("act", "action_candidate") and str(e.get("agent_id", "")).startswith(("adapter:", "model:"))
        ]
        assert all(e["payload"].get("source") == built.source for e in own), [
            e["payload"] for e in own if not e["payload"].get("source")
        ]


@pytest.mark.parametrize("case_id", list(CASES))
@pytest.mark.parametrize("kind", list(KINDS))
def test_adapter_conformance(kind: str, case_id: str, runs_dir: Path, tmp_path: Path, server: Any) -> None:
    reason = SUITE["not_applicable"].get(kind, {}).get(case_id)
    if reason:
        pytest.skip(f"not applicable to {kind}: {reason}")
    for module in KINDS[kind][0]:
        pytest.importorskip(module)
    case = CASES[case_id]
    built = build(kind, case["agent"], SimpleNamespace(server=server, tmp_path=tmp_path))
    handle, pending, elapsed = asyncio.run(_drive(case, built, runs_dir))
    _check(case, built, handle, pending, elapsed)


def test_every_case_is_listed_once_and_every_exemption_names_a_real_case() -> None:
    assert len(CASES) == len(SUITE["cases"]) == 10
    for kind, exempt in SUITE["not_applicable"].items():
        assert kind in KINDS and set(exempt) <= set(CASES)


async def _settled(handle):
    """``await handle``: returns when the episode ends or waits for a human."""
    return await handle
