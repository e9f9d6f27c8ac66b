"""solve / solve_async: phases, outcomes, files, sealing, bad input."""

import asyncio
import json
import os

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import RunsDirError, RunSealedError
from noesis_nb.store import EventWriter, read_events, read_json, verify_manifest


def _phases(run_dir):
    return [e["phase"] for e in read_events(run_dir / "events.jsonl")]


def test_success_writes_a_sealed_noesis_run_in_order(runs_dir):
    ep = noesis_nb.solve("say hi", using=lambda task: {"answer": task.upper()}, runs_dir=runs_dir, tags={"team": "a"})
    run_dir = runs_dir / ep
    assert ep.startswith("ep_") and len(ep) == 29
    assert _phases(run_dir) == [
        "start",
        "observe",
        "interpret",
        "plan",
        "action_candidate",
        "act",
        "reflect",
        "learn",
        "terminate",
        "runtime",
        "insight",
        "memory",
    ]
    events = read_events(run_dir / "events.jsonl")
    for event in events:  # Noēsis' required fields
        assert {"id", "timestamp", "episode_id", "phase", "payload", "evidence_ids"} <= set(event)
        assert event["episode_id"] == ep
    by_id = {e["id"]: e for e in events}
    act = next(e for e in events if e["phase"] == "act")
    candidate = by_id[act["caused_by"]]  # governance off: the act is caused by its action candidate
    assert candidate["phase"] == "action_candidate" and by_id[candidate["caused_by"]]["phase"] == "plan"
    assert act["payload"]["action_candidate_id"] == candidate["payload"]["action_candidate_id"]
    assert act["payload"]["outcome"] == "ok" and act["payload"]["tool"] == "adapter:<lambda>"
    assert act["metrics"]["duration_ms"] >= 0
    summary = read_json(run_dir / "summary.json")
    assert summary["metrics"]["success"] is True and summary["metrics"]["act_count"] == 1
    assert summary["tags"] == {"team": "a"} and summary["flags"]["using"] == "<lambda>"
    assert summary["answer"] == {"result": {"answer": "SAY HI"}}
    final = read_json(run_dir / "final.json")
    assert final["outcome"] == "success" and final["schema_version"] == "final/2.0.0"
    manifest = read_json(run_dir / "manifest.json")
    assert {f["name"] for f in manifest["files"]} >= {"events.jsonl", "summary.json", "state.json", "final.json", "learn.jsonl"}
    assert verify_manifest(run_dir).ok
    state = read_json(run_dir / "state.json")
    assert state["outcomes"]["status"] == "ok" and state["links"]["manifest"] == "manifest.json"
    with pytest.raises(RunSealedError):
        EventWriter(run_dir / "events.jsonl").append({"phase": "act", "payload": {}})


def test_adapter_exception_is_a_failure_with_adapter_error(runs_dir):
    def boom(task):
        raise ValueError("empty result")

    ep = noesis_nb.solve("risky", using=boom, runs_dir=runs_dir)
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["metrics"]["success"] is False and summary["status"] == "error"
    reflect = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "reflect")
    assert reflect["payload"]["reasons"] == ["adapter_error"]
    terminate = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "terminate")
    assert (terminate["payload"]["status"], terminate["payload"]["message"]) == ("error", "empty result")
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "error"


def test_awaitable_results_are_awaited(runs_dir):
    async def async_agent(task):
        await asyncio.sleep(0)
        return "async:" + task

    def returns_coroutine(task):
        return async_agent(task)

    for using, expected in ((async_agent, "async:x"), (returns_coroutine, "async:x")):
        ep = noesis_nb.solve("x", using=using, runs_dir=runs_dir)
        assert read_json(runs_dir / ep / "summary.json")["answer"]["result"] == expected


def test_unserialisable_result_is_stored_as_repr(runs_dir):
    class Opaque:
        def __repr__(self):
            return "<Opaque 42>"

    ep = noesis_nb.solve("x", using=lambda task: {"obj": Opaque(), "n": {1, 2}} and Opaque(), runs_dir=runs_dir)
    assert read_json(runs_dir / ep / "summary.json")["answer"]["result"] == "<Opaque 42>"
    assert read_json(runs_dir / ep / "summary.json")["metrics"]["success"] is True


def test_what_json_cannot_hold_is_replaced_where_it_is_and_every_payload_stays_an_object(runs_dir):
    class Opaque:
        def __repr__(self):
            return "<Opaque 42>"

    looped: dict = {"name": "loop"}
    looped["self"] = looped

    def agent(task, ctx):
        ctx.emit("reason", {"big": 10**30, "fine": 1, "deep": [{"opaque": Opaque()}], "loop": looped})
        return {"big": -(10**40), "ok": True}

    ep = noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    events = read_events(runs_dir / ep / "events.jsonl", strict=True)
    assert all(isinstance(e["payload"], dict) for e in events)  # Noēsis refuses a payload that is not an object
    (reason,) = [e["payload"] for e in events if e["phase"] == "reason"]
    assert reason["big"] == str(10**30) and reason["fine"] == 1 and reason["deep"] == [{"opaque": "<Opaque 42>"}]
    assert reason["loop"] == {"name": "loop", "self": "<cycle>"}
    summary = read_json(runs_dir / ep / "summary.json")
    assert summary["status"] == "ok" and summary["answer"]["result"] == {"big": str(-(10**40)), "ok": True}


def test_values_json_lacks_are_stored_as_their_plain_text_and_any_depth_of_nesting_is_written(runs_dir):
    """Decimals as their exact text, date and time subclasses (pandas.Timestamp) in ISO-8601, and a payload
    nested past what even ``repr`` can walk still written (the deep part named), never a RecursionError."""
    import datetime
    import decimal

    import pandas as pd

    deep: dict = {"leaf": 1}
    for _ in range(5000):
        deep = {"k": deep}

    def agent(task, ctx):
        ctx.emit("reason", {"price": decimal.Decimal("1.10"), "at": pd.Timestamp("2024-01-01", tz="UTC")})
        ctx.emit("reason", {"day": datetime.date(2024, 1, 2), "deep": deep})
        return "done"

    ep = noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    events = read_events(runs_dir / ep / "events.jsonl", strict=True)
    first, second = [e["payload"] for e in events if e["phase"] == "reason"]
    assert first == {"price": "1.10", "at": "2024-01-01T00:00:00+00:00"}
    assert second["day"] == "2024-01-02"
    inner = second["deep"]
    while isinstance(inner, dict):
        inner = inner["k"]
    assert inner.startswith("<dict nested too deeply to store")
    assert read_json(runs_dir / ep / "summary.json")["status"] == "ok"


def test_solve_inside_a_running_loop_uses_a_worker_thread(runs_dir):
    async def main():
        loop_thread = __import__("threading").get_ident()
        seen = {}

        def agent(task):
            seen["thread"] = __import__("threading").get_ident()
            return "ok"

        ep = noesis_nb.solve("in loop", using=agent, runs_dir=runs_dir)
        return ep, seen["thread"] != loop_thread

    ep, other_thread = asyncio.run(main())
    assert other_thread and read_json(runs_dir / ep / "summary.json")["status"] == "ok"


def test_solve_async_and_context_events_and_model_calls(runs_dir):
    async def agent(task, ctx):
        ctx.emit("reason", {"text": "thinking <b>"})
        ctx.model_call(
            "claude-sonnet-4",
            provider="anthropic",
            input_tokens=900,
            output_tokens=120,
            cached_input_tokens=800,
            reasoning_tokens=40,
            latency_ms=321.5,
        )
        ctx.model_call("mystery-model")
        return "done"

    ep = asyncio.run(noesis_nb.solve_async("think", using=agent, runs_dir=runs_dir))
    events = read_events(runs_dir / ep / "events.jsonl")
    reason = next(e for e in events if e["phase"] == "reason")
    assert reason["payload"] == {"text": "thinking <b>"} and reason["agent_id"] == "adapter:agent"
    calls = [e["payload"] for e in events if e["phase"] == "model"]
    assert calls[0]["input_tokens"] == 900 and calls[0]["cached_input_tokens"] == 800 and calls[0]["reasoning_tokens"] == 40
    assert calls[1]["input_tokens"] is None and calls[1]["output_tokens"] is None  # unknown stays null, never 0
    usage = read_json(runs_dir / ep / "summary.json")["x-noesis_nb"]["usage"]
    assert usage["input_tokens"] is None  # mystery-model reported nothing
    assert {r["model"]: r["input_tokens"] for r in usage["by_model"]} == {"claude-sonnet-4": 900, "mystery-model": None}


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"input_tokens": 10, "cached_input_tokens": 11}, "exceeds input_tokens"),
        ({"output_tokens": 5, "reasoning_tokens": 6}, "exceeds output_tokens"),
        ({"input_tokens": -1}, "non-negative"),
        ({"input_tokens": 1.5}, "non-negative"),
    ],
)
def test_model_call_rejects_inconsistent_usage(runs_dir, kwargs, fragment):
    def agent(task, ctx):
        ctx.model_call("m", **kwargs)

    ep = noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    act = next(e for e in read_events(runs_dir / ep / "events.jsonl") if e["phase"] == "act")
    assert fragment in act["payload"]["error"]["message"]


def test_bad_options_fail_with_one_clear_message(tmp_path, runs_dir):
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(RunsDirError, match="is a file, not a folder"):
        noesis_nb.solve("x", using=lambda t: t, runs_dir=blocker / "runs")
    with pytest.raises(ValueError, match="governance='strict'"):
        noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, governance="strict")
    with pytest.raises(ValueError, match="approver='sometimes'"):
        noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, approver="sometimes")
    with pytest.raises(TypeError, match="unknown option"):
        noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, colour="red")
    with pytest.raises(ValueError, match="task must be a non-empty string"):
        noesis_nb.solve("", using=lambda t: t, runs_dir=runs_dir)
    with pytest.raises(TypeError, match=r"unknown option\(s\) 'sed' \(did you mean 'seed'\?\)"):
        noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, sed=3)
    for seed in ("x", 1.5, True, 2**63, None):  # a str raised int()'s ValueError, 2**63 orjson's TypeError, 1.5 ran as 1
        with pytest.raises(ValueError, match=r"seed=.*: pass a whole number \(within 64 bits\)"):
            noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, seed=seed)
    for limit in (True, float("nan"), float("inf"), 0, "5"):
        with pytest.raises(ValueError, match="idle_timeout_s=.*: pass a positive number of seconds"):
            noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, idle_timeout_s=limit)
    assert list(runs_dir.iterdir()) == []  # nothing half-created
    import numpy as np

    ep = noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, seed=np.int64(7))  # numpy's integers are whole numbers
    assert read_json(runs_dir / ep / "state.json")["episode"]["seed"] == 7


@pytest.mark.parametrize(
    ("option", "fragment"),
    [
        ({"seed": "abc"}, r"seed='abc': pass a whole number"),
        ({"seed": "5"}, r"seed='5': pass a whole number"),  # was recorded as 5
        ({"seed": 1.7}, r"seed=1\.7: pass a whole number"),  # was recorded as 1
        ({"seed": None}, r"seed=None: pass a whole number"),
        ({"seed": True}, r"seed=True: pass a whole number"),
        ({"pause_on_veto": "no"}, r"pause_on_veto='no': pass True or False"),  # bool('no') is True
        ({"idle_timeout_s": True}, r"idle_timeout_s=True: pass a positive number"),  # was one second
        ({"runs_dir": 5}, r"runs_dir=5 is no path: pass a folder as a str or pathlib.Path"),
        ({"runs_dir": ["a", "b"]}, r"runs_dir=\['a', 'b'\] is no path: .*one folder"),
    ],
)
def test_options_of_the_wrong_kind_are_one_error_naming_them(runs_dir, option, fragment):
    from noesis_nb.errors import InvalidOptionError

    with pytest.raises(InvalidOptionError, match=fragment):
        noesis_nb.solve("x", using=lambda t: t, **{"runs_dir": runs_dir, **option})
    assert list(runs_dir.iterdir()) == []
    ep = noesis_nb.solve("x", using=lambda t: t, runs_dir=runs_dir, seed=7, pause_on_veto=False, idle_timeout_s=30)
    assert read_events(runs_dir / ep / "events.jsonl")[0]["payload"]["seed"] == 7


def test_default_runs_dir_env_and_ns_set(tmp_path, monkeypatch):
    ep = noesis_nb.solve("x", using=lambda t: t)
    assert (tmp_path / ".noesis" / "episodes" / ep / "final.json").exists()
    monkeypatch.setenv("NOESIS_RUNS_DIR", str(tmp_path / "env-runs"))
    ep = noesis_nb.solve("x", using=lambda t: t)
    assert (tmp_path / "env-runs" / ep / "final.json").exists()
    ns.set(runs_dir=str(tmp_path / "set-runs"))
    ep = ns.solve("x", using=lambda t: t)
    assert (tmp_path / "set-runs" / ep).is_dir() and ns.last() == ep
    assert ns.paths(ep)["events"].endswith(f"{ep}/events.jsonl")
    assert ns.summary.read(ep)["episode_id"] == ep and ns.events.read(ep)[0]["phase"] == "start"
    with pytest.raises(ValueError, match="unknown setting"):
        ns.set(colour="red")
    with pytest.raises(ValueError, match=r"runs_dir=5 is no path"):
        ns.set(runs_dir=5)  # refused when set, not at the next run
    assert ns.get()["runs_dir"] == str(tmp_path / "set-runs")


def test_ns_run_uses_core_minimal(runs_dir):
    ns.set(runs_dir=str(runs_dir))
    ep = ns.run("smoke")
    summary = ns.summary.read(ep)
    assert summary["flags"]["using"] == "core.minimal" and summary["metrics"]["success"] is True
    assert json.loads((runs_dir / ep / "state.json").read_text())["episode"]["using"] == "adapter:core.minimal"


def test_summary_usage_keeps_unknown_tokens_unknown_and_splits_by_model(runs_dir):
    def agent(task, ctx):
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10, cached_input_tokens=60)
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=50, output_tokens=5, cached_input_tokens=None)
        ctx.model_call("claude-sonnet-4", provider="anthropic", input_tokens=70, output_tokens=7, reasoning_tokens=3)

    ep = noesis_nb.solve("x", using=agent, runs_dir=runs_dir)
    usage = read_json(runs_dir / ep / "summary.json")["x-noesis_nb"]["usage"]
    assert usage["model_calls"] == 3 and usage["input_tokens"] == 220 and usage["output_tokens"] == 22
    assert usage["cached_input_tokens"] is None  # one call did not say: the total is unknown, not 60
    by_model = {row["model"]: row for row in usage["by_model"]}
    assert by_model["gpt-4o-mini"]["model_calls"] == 2 and by_model["gpt-4o-mini"]["input_tokens"] == 150
    assert by_model["claude-sonnet-4"]["reasoning_tokens"] == 3 and by_model["claude-sonnet-4"]["cached_input_tokens"] is None


def test_a_tool_call_with_a_payload_that_is_no_dict_or_a_timeout_below_one_ms_is_refused_by_name(runs_dir):
    """Before anything is prepared: a list payload raised pydantic's ValidationError, and timeout_ms=0 or -1 ran."""
    from noesis_nb.errors import InvalidOptionError
    from noesis_nb.tools import InvalidToolPayloadError

    def add(x: int) -> int:
        return x + 1

    seen: dict = {}

    def agent(task, ctx):
        for key, call in {
            "list": lambda: ctx.tool("calc.add", [1, 2], fn=add),
            "argv": lambda: ctx.tool("sh.ls", "ls -l"),
            "zero": lambda: ctx.tool("calc.add", {"kwargs": {"x": 1}}, fn=add, timeout_ms=0),
            "negative": lambda: ctx.tool("calc.add", {"kwargs": {"x": 1}}, fn=add, timeout_ms=-5),
            "text": lambda: ctx.tool("calc.add", {"kwargs": {"x": 1}}, fn=add, timeout_ms="100"),
        }.items():
            try:
                call()
            except (InvalidToolPayloadError, InvalidOptionError) as exc:
                seen[key] = f"{type(exc).__name__}: {exc}"
        return ctx.tool("calc.add", {"kwargs": {"x": 1}}, fn=add, timeout_ms=5_000)

    ep = noesis_nb.solve("x", using=agent, runs_dir=runs_dir, approver="auto")
    assert seen["list"] == (
        "InvalidToolPayloadError: tool 'calc.add': the payload must be a dict such as {'args': [...], 'kwargs': {...}}, not list"
    )
    assert seen["argv"].endswith("the payload must be a dict such as {'argv': [...]}, not str")
    for key, shown in (("zero", "0"), ("negative", "-5"), ("text", "'100'")):
        assert seen[key] == f"InvalidOptionError: tool 'calc.add': timeout_ms={shown}; pass a whole number of milliseconds ≥ 1"
    events = read_events(runs_dir / ep / "events.jsonl", strict=True)
    assert sum(e["payload"].get("event_name") == "tool.requested" for e in events) == 1  # only the good call was prepared
    assert read_json(runs_dir / ep / "summary.json")["answer"]["result"] == {"result": 2}


def test_the_adapter_may_be_given_by_position_as_for_start_while_ns_solve_keeps_noesis_keyword(runs_dir):
    ep = noesis_nb.solve("say hi", lambda task: task.upper(), runs_dir=runs_dir)
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "success"
    ep = asyncio.run(noesis_nb.solve_async("say hi", lambda task: task.upper(), runs_dir=runs_dir))
    assert read_json(runs_dir / ep / "final.json")["outcome"] == "success"
    with pytest.raises(TypeError):
        ns.solve("say hi", lambda task: task.upper())  # Noēsis' signature: using= is keyword-only


@pytest.mark.parametrize("kind", ["dangling link", "link loop", "fifo"])
def test_a_runs_dir_that_is_no_folder_is_named_as_ns_set_names_it(tmp_path, kind):
    """``solve(runs_dir=<a link leading nowhere>)`` said "not writable (File exists, EEXIST)", while
    ``ns.set(runs_dir=…)`` said what was there; both now say it alike, and nothing is written."""
    runs = tmp_path / "runs"
    if kind == "dangling link":
        runs.symlink_to(tmp_path / "nowhere")
    elif kind == "link loop":
        runs.symlink_to(runs)
    else:
        os.mkfifo(runs)
    with pytest.raises(RunsDirError) as by_solve:
        noesis_nb.solve("x", using=lambda t: t, runs_dir=runs)
    with pytest.raises(RunsDirError) as by_set:
        noesis_nb.ns.set(runs_dir=str(runs))
    what = str(by_set.value).split(" is ", 1)[1].split(", not a folder", 1)[0]
    assert f"is {what}, not a folder" in str(by_solve.value) and "EEXIST" not in str(by_solve.value), by_solve.value
    assert sorted(p.name for p in tmp_path.iterdir()) == ["runs"]  # nothing was written beside it
