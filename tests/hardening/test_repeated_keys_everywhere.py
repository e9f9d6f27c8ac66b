"""A key written twice in one JSON object, in each file a reader of noesis_nb takes a figure, a decision, a status
or an id from: each reader reports it once (the file, the line, the key) and reads the key as unknown, never the
first nor the last value (orjson, which reads every run file, keeps the last without a word). Real runs written by
the engine, edited on disk; and the check itself, deep nesting and all, run in two threads at once."""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import ns
from noesis_nb._jsonkeys import RepeatedKeyWarning, loads_checked, walked, without_repeats
from noesis_nb.errors import InvalidOptionError
from noesis_nb.frames import events_df, runs_df, tools_df
from noesis_nb.integrations.otel_spans import run_spans
from noesis_nb.store import list_runs

from .episodes import add_one, make_paused, tool_records

pytestmark = pytest.mark.timeout(60)


def _doubled(path: Path, once: str, twice: str) -> int:
    """``path``'s JSON written again indented, its text ``once`` replaced by ``twice`` (a key written twice);
    the line (1-based) where that key comes again."""
    text = json.dumps(json.loads(path.read_text()), indent=2)
    assert text.count(once) == 1, (once, text)
    text = text.replace(once, twice)
    path.write_text(text)
    return text[: text.index(twice)].count("\n") + 1


def _said(problems: list[dict[str, Any]], path: Path) -> list[dict[str, Any]]:
    return [p for p in problems if p["path"] == str(path) and "comes twice" in p["reason"]]


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100, output_tokens=10)
    return "ok"


def test_the_check_of_deep_nesting_in_two_threads_at_once_leaves_the_recursion_limit_alone() -> None:
    """A repeated key beside 1,000 levels of lists is past Python's own parser: the check read it by raising the
    process-wide recursion limit for a moment, so a reader in a background thread and the kernel's at once could
    leave it raised for good, or lowered under the other mid-parse (its RecursionError escaping)."""
    deep = b'{"input_tokens":100,"input_tokens":999999999,"pad":' + b"[" * 1015 + b"]" * 1015 + b"}"
    limit = sys.getrecursionlimit()
    seen: set[int] = set()
    failures: list[BaseException] = []
    results: list[tuple[Any, list[str]]] = []
    done = threading.Event()
    start = threading.Barrier(3)

    def watch() -> None:
        start.wait()
        while not done.is_set():
            seen.add(sys.getrecursionlimit())

    def check() -> None:
        start.wait()
        try:
            for _ in range(40):
                results.append(without_repeats(deep))
        except BaseException as exc:  # whatever escaped a thread is reported by the test
            failures.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns as often as they can: the two checks interleave
    try:
        threads = [threading.Thread(target=check) for _ in range(2)]
        watcher = threading.Thread(target=watch)
        for thread in [*threads, watcher]:
            thread.start()
        for thread in threads:
            thread.join()
        done.set()
        watcher.join()
    finally:
        sys.setswitchinterval(interval)
        final = sys.getrecursionlimit()
        sys.setrecursionlimit(limit)
    assert failures == []
    assert final == limit and seen <= {limit}, f"the recursion limit was changed: {sorted(seen)}, {final} after"
    assert len(results) == 80
    for value, keys in results:
        assert keys == ["input_tokens"] and value["input_tokens"] is None and len(value["pad"]) == 1


def test_the_walk_reads_as_pythons_parser_and_names_the_line() -> None:
    texts = [
        b'{"a":1,"a":2}',
        b'[1,{"x":"a\\"b:","x":[1,2,{}],"y":{"z":1,"z":{"q":[]}}},true,null,-1.5e3,"\\u00e9"]',
        b'{\n  "a": {"b": 1},\n  "c": "\\u003a",\n  "a": 2\n}',
        '{"é":1,"é":"ü\\ud83d\\ude00","e":{}}'.encode(),
        b'{"k":[{"a":1},{"a":1,"b":2}]}',
    ]
    for text in texts:
        value, keys, _ = walked(text)
        assert (value, keys) == without_repeats(text), text
    assert loads_checked(texts[2])[1].line == 4  # type: ignore[union-attr]
    assert loads_checked(texts[4]) == (json.loads(texts[4]), None)


def test_ns_summary_read_reports_a_key_written_twice_and_reads_it_as_unknown(runs_dir: Path) -> None:
    ns.set(runs_dir=str(runs_dir))
    episode = noesis_nb.solve("the task", using=_agent, runs_dir=runs_dir)
    path = runs_dir / episode / "summary.json"
    line = _doubled(path, '"task": "the task"', '"task": "the task", "task": "another task"')
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        summary = ns.summary.read(episode)
    assert summary["task"] is None
    (warning,) = [w for w in said if w.category is RepeatedKeyWarning]
    assert f"{path}, line {line}:" in str(warning.message) and "'task'" in str(warning.message)


def test_a_source_tag_written_twice_names_no_system(runs_dir: Path) -> None:
    """``tags.source`` decides which system a run came from (and so whether its events were screened as written)."""
    episode = noesis_nb.solve("t", using=_agent, runs_dir=runs_dir, tags={"source": "langgraph"})
    path = runs_dir / episode / "summary.json"
    _doubled(path, '"source": "langgraph"', '"source": "crewai", "source": "langgraph"')
    events = events_df(runs_dir, cache=False)
    assert not set(events["source"].astype(str)) & {"crewai", "langgraph"}
    runs = runs_df(runs_dir, cache=False)
    assert not set(runs["source"].astype(str)) & {"crewai", "langgraph"}
    assert len(_said(runs.attrs["errors"], path)) == 1


def test_a_pending_draft_whose_status_comes_twice_is_not_counted_as_waiting(runs_dir: Path) -> None:
    episode = make_paused(runs_dir, 1)
    (record,) = tool_records(runs_dir / episode, "prepared")
    line = _doubled(record, '"status": "pending_approval"', '"status": "executed", "status": "pending_approval"')
    runs = runs_df(runs_dir, cache=False)
    assert runs["pending_approvals"].tolist() == [0]  # the last value would say 1
    said = _said(tools_df(runs_dir, cache=False).attrs["errors"], record)
    assert len(said) == 1 and "'status'" in said[0]["reason"], line


def test_a_decision_whose_status_comes_twice_decides_nothing(runs_dir: Path) -> None:
    """``{"status": "rejected", "status": "approved"}`` in a decision file: the last value would run the tool."""
    episode = make_paused(runs_dir, 2)
    noesis_nb.approve_draft(episode, approver_id="ops", reason="ok", runs_dir=runs_dir)
    (decision,) = tool_records(runs_dir / episode, "approvals")
    line = _doubled(decision, '"status": "approved"', '"status": "rejected", "status": "approved"')
    with pytest.raises(Exception, match="comes twice") as raised:
        noesis_nb.resume_run(episode, runs_dir=runs_dir)
    assert str(decision) in str(raised.value) and f"line {line}" in str(raised.value) and "'status'" in str(raised.value)
    assert tool_records(runs_dir / episode, "executions") == []


def test_list_runs_reports_each_key_written_twice_at_its_line(runs_dir: Path) -> None:
    episode = noesis_nb.solve("the task", using=_agent, runs_dir=runs_dir)
    run = runs_dir / episode
    summary_line = _doubled(run / "summary.json", '"task": "the task"', '"task": "first", "task": "last"')
    state = run / "state.json"
    state_line = _doubled(state, f'"id": "{episode}"', f'"id": "ep_another", "id": "{episode}"')
    events = run / "events.jsonl"
    lines = events.read_text().splitlines()
    last = len(lines)
    lines[-1] = lines[-1].replace('"phase":', '"phase":"act","phase":', 1)
    events.write_text("\n".join(lines) + "\n")
    (row,) = rows = list_runs(runs_dir=runs_dir)
    assert row["task"] not in ("first", "last")  # the state's task, or none
    problems = rows.problems  # type: ignore[attr-defined]
    assert [(p["line"], "'task'" in p["reason"]) for p in _said(problems, run / "summary.json")] == [(summary_line, True)]
    assert [(p["line"], "'id'" in p["reason"]) for p in _said(problems, state)] == [(state_line, True)]
    assert [(p["line"], "'phase'" in p["reason"]) for p in _said(problems, events)] == [(last, True)]


def test_a_batch_record_with_a_key_written_twice_is_refused_naming_it(runs_dir: Path) -> None:
    def echo(task: str) -> str:
        return task

    async def main(**kwargs: Any) -> Any:
        return await noesis_nb.batch(["a", "b"], using=echo, root=runs_dir, batch_id="twice", **kwargs)

    asyncio.run(main())
    record = runs_dir / "batches" / "twice.json"
    doc = json.loads(record.read_text())
    first, second = (entry["episode_id"] for entry in doc["entries"])
    line = _doubled(record, f'"episode_id": "{first}"', f'"episode_id": "{second}", "episode_id": "{first}"')
    with pytest.raises(InvalidOptionError, match="comes twice") as raised:
        asyncio.run(main())
    assert str(record) in str(raised.value) and f"line {line}" in str(raised.value) and "'episode_id'" in str(raised.value)


def test_the_trace_export_reports_a_tool_record_written_twice(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> Any:
        return ctx.tool("calc.add", {"kwargs": {"x": 1}}, protocol="python", fn=add_one, effect="write", risk="high")

    episode = noesis_nb.solve("t", using=agent, runs_dir=runs_dir, approver="auto")
    run = runs_dir / episode
    (draft,) = tool_records(run, "prepared")
    line = _doubled(draft, '"risk_tier": "high"', '"risk_tier": "low", "risk_tier": "high"')
    problems: list[str] = []
    spans = run_spans(run, problems=problems)
    said = [p for p in problems if "comes twice" in p]
    assert len(said) == 1 and said[0].startswith(f"{draft}: line {line}:") and "'risk_tier'" in said[0]
    risks = [s["attributes"].get("noesis.tool.risk") for s in spans]
    assert not set(risks) & {"low", "high"}, risks


def test_a_trace_digest_written_twice_stands_for_no_earlier_import(runs_dir: Path) -> None:
    """The ``trace_digest`` tag decides that a trace was imported before (and the run it is): a tag written twice
    names no import, so the trace is imported again rather than answered with a run it may not be."""
    from noesis_nb.integrations.replay import TraceAlreadyImported
    from noesis_nb.integrations.taisce import import_taisce

    transcript = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]
    first = import_taisce(transcript, runs_dir=runs_dir)
    state = runs_dir / first / "state.json"
    tag = json.loads(state.read_text())["episode"]["tags"]["trace_digest"]
    _doubled(state, f'"trace_digest": "{tag}"', f'"trace_digest": "hmac-sha256:{"0" * 64}", "trace_digest": "{tag}"')
    with warnings.catch_warnings():
        warnings.simplefilter("error", TraceAlreadyImported)
        again = import_taisce(transcript, runs_dir=runs_dir)
    assert again != first


def test_the_secrets_sweep_leaves_a_key_written_twice_for_its_readers_to_report(tmp_path: Path) -> None:
    """A value learned late is swept out of the run's files at the seal. A file writing a key twice was rewritten
    from orjson's reading: ``"status": "rejected", "status": "approved"`` became ``"status": "approved"``, which
    every reader then took without a word. Its text is swept instead, both keys left as written."""
    from noesis_nb.secrets.guard import for_run

    guard = for_run(tmp_path)
    guard.screen({"text": "warming up"})  # something was written before the value was learned
    decision = tmp_path / "decision.json"
    decision.write_text('{\n  "status": "rejected",\n  "status": "approved",\n  "reason": "the word is swordfish-77"\n}\n')
    log = tmp_path / "events.jsonl"
    log.write_text('{"id":"e1","phase":"act","phase":"model","payload":{"text":"the word is swordfish-77"}}\n')
    guard.screen({"password": "swordfish-77"})
    assert sorted(p.name for p in guard.sweep(tmp_path)) == ["decision.json", "events.jsonl"]
    for path, key in ((decision, "status"), (log, "phase")):
        text = path.read_bytes()
        assert b"swordfish" not in text
        assert without_repeats(text)[1] == [key], text
    assert loads_checked(decision.read_bytes())[1].line == 3  # type: ignore[union-attr]
