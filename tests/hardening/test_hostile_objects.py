"""Hostile Python objects handed to the engine by an adapter, a scorer, a tool or the caller.

Results and exceptions whose ``__str__``/``__repr__`` (or any other dunder) raise, values that refer
to themselves or hold hundreds of megabytes, generators returned instead of values, exits raised by
adapter code. Each run must be sealed and pass the Noēsis checker, the caller gets the original
error (named once), the loop goes on, and no secret reaches the disk.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.runtime.outcomes import ANSWER_LIMIT
from noesis_nb.store import is_sealed

from ..compat.checker import check_run

SECRET = "sk-proj-" + "Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Jh1Gf0EdCbA"


class BadText:
    """A result whose ``__str__`` and ``__repr__`` raise."""

    def __str__(self) -> str:
        raise RuntimeError("str exploded")

    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")


class BadTextError(Exception):
    """An exception whose ``__str__`` and ``__repr__`` raise."""

    def __str__(self) -> str:
        raise RuntimeError("str exploded")

    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")


class OwnStop(BaseException):
    """A BaseException of the adapter's own, not an Exception."""


def run_started(runs_dir: Path, using: Any, **opts: Any) -> Any:
    """Run one episode with ``start`` on a fresh loop; the loop must still run a coroutine afterwards."""

    async def main() -> Any:
        handle = noesis_nb.start("hostile", using=using, runs_dir=runs_dir, **opts)
        await asyncio.wait_for(handle.wait(), 60)
        await asyncio.sleep(0)  # the loop is alive and schedules work
        return handle

    return asyncio.run(main())


def assert_sound(run_dir: Path) -> dict[str, Any]:
    """Sealed, accepted by the checker, no secret in any file; returns the terminate payload."""
    assert is_sealed(run_dir)
    assert check_run(run_dir) == []
    for path in run_dir.rglob("*"):
        if path.is_file():
            assert SECRET[:16].encode() not in path.read_bytes(), path
    lines = (run_dir / "events.jsonl").read_text().splitlines()
    [terminate] = [json.loads(line) for line in lines if '"phase":"terminate"' in line]
    return dict(terminate["payload"])


# -- results ---------------------------------------------------------------------------------------
def test_a_result_whose_str_and_repr_raise_is_still_the_result(runs_dir: Path) -> None:
    value = BadText()

    async def agent(task, ctx):
        return value

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok" and handle.result() is value
    terminate = assert_sound(handle.run_dir)
    assert terminate["message"] == "<BadText object; its __str__ raised RuntimeError>"


def test_a_self_referencing_result_is_stored(runs_dir: Path) -> None:
    loop_list: list[Any] = []
    loop_list.append(loop_list)
    value = {"name": "me", "list": loop_list}
    value["self"] = value

    async def agent(task, ctx):
        return value

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok"
    answer = assert_sound(handle.run_dir)["x-noesis_nb"]["answer"]
    assert answer["self"] == "<cycle>" and answer["list"] == ["<cycle>"]


_DUNDERS = ["__str__", "__repr__", "__format__", "__eq__", "__hash__", "__bool__", "__len__", "__iter__", "__getattr__"]


def _hostile(raising: frozenset[str], lying: bool) -> Any:
    def boom(self, *args):
        raise RuntimeError("dunder exploded")

    def lie(name: str):
        return {"__len__": lambda self: -1, "__bool__": lambda self: "yes", "__hash__": lambda self: "h"}.get(name, boom)

    body = {name: (lie(name) if lying else boom) for name in raising}
    return type("Hostile", (), body)()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raising=st.frozensets(st.sampled_from(_DUNDERS), min_size=1), lying=st.booleans())
def test_results_with_raising_or_lying_dunders_seal_ok(runs_dir: Path, raising: frozenset[str], lying: bool) -> None:
    value = _hostile(raising, lying)

    async def agent(task, ctx):
        return value

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok" and handle.result() is value
    assert_sound(handle.run_dir)


@pytest.mark.parametrize("kind", ["str", "list"])
def test_a_huge_result_is_cut_before_it_is_scanned_and_written(runs_dir: Path, kind: str) -> None:
    value: Any = "x" * 200_000_000 if kind == "str" else list(range(10_000_000))
    returned: list[float] = []

    async def agent(task, ctx):
        returned.append(time.process_time())
        return value

    handle = run_started(runs_dir, agent)
    sealed_in = time.process_time() - returned[0]  # CPU time: the work done, whatever the load
    assert handle.status == "ok" and handle.result() is value
    answer = assert_sound(handle.run_dir)["x-noesis_nb"]["answer"]
    assert isinstance(answer, str) and len(answer) < ANSWER_LIMIT + 200 and "[cut:" in answer
    assert sealed_in < 5, f"sealing took {sealed_in:.1f} s"
    summary = json.loads((handle.run_dir / "summary.json").read_text())
    assert len(json.dumps(summary)) < 2 * ANSWER_LIMIT


@pytest.mark.parametrize("how", ["async generator adapter", "sync generator adapter", "generator returned"])
def test_a_generator_instead_of_a_value_is_one_clear_error(runs_dir: Path, how: str) -> None:
    if how == "async generator adapter":

        async def agent(task, ctx):
            yield "part"

    elif how == "sync generator adapter":

        def agent(task, ctx):  # type: ignore[misc]
            yield "part"

    else:

        async def agent(task, ctx):  # type: ignore[misc]
            return (part for part in ["a", "b"])

    handle = run_started(runs_dir, agent)
    assert handle.status == "error"
    with pytest.raises(TypeError, match="generator .* instead of a value"):
        handle.result()
    assert "instead of a value" in assert_sound(handle.run_dir)["message"]


def test_a_future_of_another_loop_is_one_clear_error(runs_dir: Path) -> None:
    other = asyncio.new_event_loop()

    async def agent(task, ctx):
        return other.create_future()

    try:
        handle = run_started(runs_dir, agent)
    finally:
        other.close()
    with pytest.raises(TypeError, match="another event loop"):
        handle.result()
    assert_sound(handle.run_dir)


def test_a_secret_in_a_result_repr_is_not_written(runs_dir: Path) -> None:
    class Holder:
        def __repr__(self) -> str:
            return f"Holder(key={SECRET})"

    async def agent(task, ctx):
        return Holder()

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok"
    assert "[REDACTED]" in assert_sound(handle.run_dir)["message"]


# -- exceptions ------------------------------------------------------------------------------------
def test_an_exception_whose_str_raises_is_the_error_raised(runs_dir: Path) -> None:
    async def agent(task, ctx):
        raise BadTextError("the real reason")

    handle = run_started(runs_dir, agent)
    assert handle.status == "error"
    with pytest.raises(BadTextError):
        handle.result()
    assert assert_sound(handle.run_dir)["message"] == "the real reason"


def test_an_exception_with_a_huge_secret_message_is_bounded_and_redacted(runs_dir: Path) -> None:
    async def agent(task, ctx):
        raise ValueError(f"token {SECRET} " + "y" * 50_000_000)

    started = time.process_time()
    handle = run_started(runs_dir, agent)
    assert time.process_time() - started < 10
    terminate = assert_sound(handle.run_dir)
    assert terminate["message"].startswith("token [REDACTED]") and len(terminate["message"]) <= 400
    assert (handle.run_dir / "events.jsonl").stat().st_size < 200_000


def test_an_exception_with_a_cause_cycle_seals(runs_dir: Path) -> None:
    first, second = ValueError("first"), KeyError("second")
    first.__cause__, second.__cause__ = second, first
    first.__context__, second.__context__ = second, first

    async def agent(task, ctx):
        raise first

    handle = run_started(runs_dir, agent)
    with pytest.raises(ValueError, match="first"):
        handle.result()
    assert_sound(handle.run_dir)


@pytest.mark.parametrize("exc", [GeneratorExit("closed"), OwnStop("own stop")], ids=["GeneratorExit", "own BaseException"])
def test_a_base_exception_that_is_not_an_exception_is_recorded_as_the_adapters_error(runs_dir: Path, exc) -> None:
    async def agent(task, ctx):
        raise exc

    handle = run_started(runs_dir, agent)
    assert handle.status == "error"
    with pytest.raises(type(exc)):
        handle.result()
    terminate = assert_sound(handle.run_dir)
    assert terminate["message"].startswith(type(exc).__name__) and terminate["x-noesis_nb"]["reasons"] == ["adapter_error"]


@pytest.mark.parametrize("exit_", [KeyboardInterrupt, lambda: SystemExit(3)], ids=["KeyboardInterrupt", "SystemExit"])
@pytest.mark.parametrize("sync", [False, True], ids=["async", "sync"])
def test_an_exit_raised_by_a_background_adapter_seals_and_the_loop_lives(runs_dir: Path, exit_, sync: bool) -> None:
    """start(): nobody awaits the task, so the exit stays on the handle; raised out of the loop it would end the kernel's."""

    if sync:

        def agent(task, ctx):
            raise exit_()

    else:

        async def agent(task, ctx):  # type: ignore[misc]
            raise exit_()

    handle = run_started(runs_dir, agent)  # returns: the loop was not stopped
    assert handle.status == "error"
    with pytest.raises((KeyboardInterrupt, SystemExit)):
        handle.result()
    assert assert_sound(handle.run_dir)["x-noesis_nb"]["reasons"] == ["adapter_error"]


def test_an_exit_raised_under_solve_is_raised_after_the_seal(runs_dir: Path) -> None:
    """solve(): the caller's own stop (Ctrl-C, sys.exit) reaches the caller, with the run sealed first."""

    def agent(task, ctx):
        raise SystemExit(4)

    with pytest.raises(SystemExit):
        noesis_nb.solve("hostile", using=agent, runs_dir=runs_dir)
    [run] = [p for p in runs_dir.iterdir() if not p.name.startswith(".")]
    assert assert_sound(run)["message"] == "SystemExit: 4"


# -- scorers, tags, events, model calls, tools -----------------------------------------------------
class _Unscorable:
    def __repr__(self) -> str:
        raise RuntimeError("repr exploded")

    def __float__(self) -> float:
        raise RuntimeError("float exploded")


def _score_returns_hostile(task, result):
    return _Unscorable()


def _score_raises_bad_text(task, result):
    raise BadTextError("scorer broke")


def _score_raises_base(task, result):
    raise OwnStop("scorer stopped")


@pytest.mark.parametrize("scorer", [_score_returns_hostile, _score_raises_bad_text, _score_raises_base])
def test_a_hostile_scorer_is_reported_never_fatal(runs_dir: Path, scorer) -> None:
    async def agent(task, ctx):
        return 1

    handle = run_started(runs_dir, agent, score=scorer)
    assert handle.status == "ok" and handle.result() == 1
    assert len(handle.problems) == 1 and "no score recorded" in handle.problems[0]
    assert_sound(handle.run_dir)


def test_hostile_tags_are_refused_in_one_line_naming_the_key(runs_dir: Path) -> None:
    """A tag is written as JSON and read back: an object (whose repr raises, here) or a dict holding itself would
    come back as a stand-in text, so it is refused, the message naming the key and surviving the hostile repr."""
    tags: dict[str, Any] = {"who": BadText()}
    tags["me"] = tags

    async def agent(task, ctx):
        return 1

    for hostile, key in ((tags, "who"), ({"me": tags}, "me")):
        with pytest.raises(InvalidOptionError, match=rf"^tags\['{key}'\]=.* is of type (BadText|dict); a tag is a str") as caught:
            run_started(runs_dir, agent, tags=hostile)
        assert "\n" not in str(caught.value)
    assert list(runs_dir.iterdir()) == []  # nothing written, no staging folder left behind


def test_an_event_value_whose_repr_raises_is_written_as_a_stand_in(runs_dir: Path) -> None:
    async def agent(task, ctx):
        ctx.emit("reason", {"value": BadText(), "text": "fine"})
        return "done"

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok"
    assert_sound(handle.run_dir)
    events = [json.loads(line) for line in (handle.run_dir / "events.jsonl").read_text().splitlines()]
    [reason] = [e for e in events if e["phase"] == "reason"]
    assert reason["payload"] == {"value": "<BadText object; its __repr__ raised RuntimeError>", "text": "fine"}


@pytest.mark.parametrize("field", ["provider", "request_id", "latency_ms", "cost_usd"])
def test_a_model_call_field_of_the_wrong_type_is_named(runs_dir: Path, field: str) -> None:
    async def agent(task, ctx):
        # a text names what it must be and the type given; a number the value (its type, when its repr raises) and the fix
        named = (
            f"{field} must be a .* got a BadText"
            if field in ("provider", "request_id")
            else f"{field}=<BadText object.*pass a number"
        )
        with pytest.raises(ValueError, match=named):
            ctx.model_call("gpt-4o-mini", input_tokens=3, **{field: BadText()})
        return "checked"

    handle = run_started(runs_dir, agent)
    assert handle.result() == "checked"
    assert_sound(handle.run_dir)


def _tool_exits() -> None:
    raise SystemExit(2)


def _tool_bad_text() -> None:
    raise BadTextError("the tool's reason")


@pytest.mark.parametrize("fn, wanted", [(_tool_exits, "SystemExit: 2"), (_tool_bad_text, "BadTextError: the tool's reason")])
@pytest.mark.parametrize("sync", [False, True], ids=["async adapter", "sync adapter"])
def test_a_python_tool_raising_an_exit_or_bad_text_fails_the_tool_only(runs_dir: Path, fn, wanted: str, sync: bool) -> None:
    if sync:

        def agent(task, ctx):
            try:
                ctx.tool("local.hostile", {"args": []}, fn=fn)
            except noesis_nb.tools.ToolExecutionFailedError as exc:
                return str(exc)
            return "no error"

    else:

        async def agent(task, ctx):  # type: ignore[misc]
            try:
                await ctx.tool_async("local.hostile", {"args": []}, fn=fn)
            except noesis_nb.tools.ToolExecutionFailedError as exc:
                return str(exc)
            return "no error"

    handle = run_started(runs_dir, agent)
    assert handle.status == "ok" and wanted in handle.result()
    assert_sound(handle.run_dir)


def test_an_exception_holding_a_huge_argument_is_read_bounded(runs_dir: Path) -> None:
    raised: list[float] = []

    async def agent(task, ctx):
        error = ValueError(list(range(10_000_000)))
        raised.append(time.process_time())
        raise error

    handle = run_started(runs_dir, agent)
    assert time.process_time() - raised[0] < 2  # str() of it alone takes about a second, its scan many more
    with pytest.raises(ValueError):
        handle.result()
    assert assert_sound(handle.run_dir)["message"].startswith("[0, 1, 2, 3")


class _Unreadable(dict):
    def items(self):
        raise RuntimeError("items exploded")

    def __len__(self) -> int:
        raise RuntimeError("len exploded")


def test_an_event_payload_or_phase_that_raises_when_read_is_named(runs_dir: Path) -> None:
    async def agent(task, ctx):
        with pytest.raises(TypeError, match="the payload, a _Unreadable, raised RuntimeError .* pass a plain dict"):
            ctx.emit("reason", _Unreadable(a=1))
        with pytest.raises(ValueError, match="phase must be .* got <BadText object; its __repr__ raised"):
            ctx.emit(BadText(), {})
        return "checked"

    handle = run_started(runs_dir, agent)
    assert handle.result() == "checked"
    assert_sound(handle.run_dir)


def test_an_approver_returning_a_hostile_object_is_named(runs_dir: Path) -> None:
    async def agent(task, ctx):
        with pytest.raises(ValueError, match="approver returned <BadText object; its __repr__ raised RuntimeError>"):
            await ctx.tool_async("local.noop", {"args": []}, fn=lambda: 1, effect="write", risk="high")
        return "checked"

    handle = run_started(runs_dir, agent, approver=lambda pending: BadText())
    assert handle.result() == "checked"
    assert_sound(handle.run_dir)
