"""A ``StopIteration`` user code raises (``next()`` on an empty iterator) is that code's error like any other.

Raised on a worker thread (a sync adapter, python tool, approver policy or scorer), asyncio's Future refuses it
(TypeError in the loop's callback) and the episode used to wait for it forever. Each place, sync and async, under
``start()``, ``solve()`` and ``batch()``: the adapter's error seals the run ``error``; a python tool's fails that call;
a policy's fails the episode; a scorer's is its score error. Each named StopIteration. ``StopAsyncIteration`` too.
Every run goes on a daemon thread with a bound, so a hang fails the test instead of holding the suite.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import noesis_nb

BOUND_S = 60.0  # each run takes well under a second; a hang is forever


def _first(rules: list[str]) -> str:
    return next(r for r in rules if r.startswith("x"))  # the everyday StopIteration: nothing matched


def _raise(kind: type[BaseException]) -> Any:
    if kind is StopIteration:
        return _first([])
    raise kind("none left")


def _sync(kind: type[BaseException]) -> Any:
    def user_code(*_: Any) -> Any:
        return _raise(kind)

    return user_code


def _async(kind: type[BaseException]) -> Any:
    async def user_code(*_: Any) -> Any:
        await asyncio.sleep(0)
        return _raise(kind)

    return user_code


def _within_bound(run: Any) -> Any:
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = run()
        except BaseException as exc:
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(BOUND_S)
    assert not thread.is_alive(), f"still running after {BOUND_S:g} s: the StopIteration was never delivered"
    if "error" in box:
        raise box["error"]
    return box.get("value")


def _summary(run_dir: Path) -> dict[str, Any]:
    return json.loads((run_dir / "summary.json").read_text())  # type: ignore[no-any-return]


def _events(run_dir: Path) -> str:
    return (run_dir / "events.jsonl").read_text()


def _tool_adapter(fn: Any) -> Any:
    async def adapter(task: str, ctx: Any) -> str:
        try:
            await ctx.tool_async("py.find", {"args": [], "kwargs": {}}, fn=fn, effect="read", risk="low")
        except Exception as exc:
            return f"tool failed: {exc}"
        return "tool returned"

    return adapter


async def _ok_adapter(task: str, ctx: Any) -> str:
    return "done"


async def _gated_adapter(task: str, ctx: Any) -> int:
    done = await ctx.tool_async("fs.x", {"argv": [sys.executable, "-c", "pass"]}, effect="write", risk="high")
    return int(done["returncode"])


PLACES = ["adapter", "python tool", "approver", "scorer"]
KINDS = [StopIteration, StopAsyncIteration]


def _options(place: str, code: Any) -> dict[str, Any]:
    if place == "adapter":
        return {"using": code}
    if place == "python tool":
        return {"using": _tool_adapter(code)}
    if place == "approver":
        return {"using": _gated_adapter, "approver": code}
    return {"using": _ok_adapter, "score": code}


def _check_run(place: str, kind: type[BaseException], run_dir: Path) -> None:
    summary, events = _summary(run_dir), _events(run_dir)
    if place in ("adapter", "approver"):
        assert summary["status"] == "error"
        assert kind.__name__ in events
    elif place == "python tool":
        assert summary["status"] == "ok"  # the adapter caught its tool's failure and went on
        assert "tool failed" in events and kind.__name__ in events
    else:
        assert summary["status"] == "ok"
        assert kind.__name__ in summary["x-noesis_nb"]["score_error"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("make", [_sync, _async], ids=["sync", "async"])
@pytest.mark.parametrize("place", PLACES)
def test_start(tmp_path: Path, place: str, make: Any, kind: type[BaseException]) -> None:
    async def main() -> Any:
        handle = noesis_nb.start("t", runs_dir=tmp_path, **_options(place, make(kind)))
        await handle.wait()
        return handle

    handle = _within_bound(lambda: asyncio.run(main()))
    _check_run(place, kind, handle.run_dir)
    if place in ("adapter", "approver"):
        assert handle.status == "error"
        with pytest.raises(Exception) as raised:
            handle.result()
        assert kind.__name__ in f"{type(raised.value).__name__}: {raised.value}"
    if place == "python tool":
        assert "tool failed" in handle.result() and kind.__name__ in handle.result()
    if place == "scorer":
        assert handle.score_error is not None and kind.__name__ in handle.score_error


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("make", [_sync, _async], ids=["sync", "async"])
@pytest.mark.parametrize("place", PLACES)
def test_solve(tmp_path: Path, place: str, make: Any, kind: type[BaseException]) -> None:
    episode_id = _within_bound(lambda: noesis_nb.solve("t", runs_dir=tmp_path, **_options(place, make(kind))))
    _check_run(place, kind, tmp_path / episode_id)


@pytest.mark.parametrize("make", [_sync, _async], ids=["sync", "async"])
@pytest.mark.parametrize("place", PLACES)
def test_batch(tmp_path: Path, place: str, make: Any) -> None:
    options = _options(place, make(StopIteration))
    using = options.pop("using")

    async def main() -> Any:
        batch = noesis_nb.batch(["a", "b"], using=using, batch_id="b", root=tmp_path, score_timeout_s=None, **options)
        await batch.wait()
        return batch

    batch = _within_bound(lambda: asyncio.run(main()))
    statuses = [entry.status for entry in batch.entries]
    assert statuses == (["error", "error"] if place in ("adapter", "approver") else ["ok", "ok"])
    for entry in batch.entries:
        _check_run(place, StopIteration, entry.run_dir)
