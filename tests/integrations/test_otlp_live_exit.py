"""A live OTLP export when the interpreter exits: its last look sends what is final, bounded, and says what it left.

The export's thread is a daemon that looks once per ``interval``: a script ending with ``await handle`` (no ``await
live``) exited between two looks, and the collector got nothing, the ``path=`` file was never written, nothing said.
Each test runs a real script in a subprocess against a real collector on 127.0.0.1.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.integrations.otel import run_spans

from ..otlp_collector import Collector, closed_port, take_all

pytest.importorskip("opentelemetry.exporter.otlp.proto.http.trace_exporter")

_SCRIPT = """
import asyncio, os, signal, sys, threading, time
import noesis_nb

endpoint, runs_dir, path, mode, interval, timeout = sys.argv[1:7]
box = {}

async def agent(task, ctx):
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=12, output_tokens=5)
    if mode == "running":
        await asyncio.sleep(3600)
    while mode == "kill" and box["live"].sent < 1:  # the model call's span was taken live
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    return "done"

async def begin():
    handle = noesis_nb.start("exit", using=agent, runs_dir=runs_dir)
    box["live"] = noesis_nb.export_otel(
        handle, endpoint=endpoint, path=None if path == "-" else path, live=True,
        interval=float(interval), timeout=float(timeout),
    )
    return handle

if mode == "running":  # the loop runs on a daemon thread: the episode is still running when the script ends
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    handle = asyncio.run_coroutine_threadsafe(begin(), loop).result()
    while not handle.usage["model_calls"]:
        time.sleep(0.01)
else:
    async def main():
        handle = await begin()
        await handle
        return handle
    handle = asyncio.run(main())
print(handle.run_dir, flush=True)
if mode == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
"""


def _script(
    tmp_path: Path,
    endpoint: str,
    runs_dir: Path,
    *,
    path: Path | None = None,
    mode: str = "ended",
    interval: float = 60.0,
    timeout: float = 5.0,
) -> tuple[subprocess.CompletedProcess[str], Path, float]:
    """Run the script; its result, the run's folder, and the seconds it took."""
    script = tmp_path / "script.py"
    script.write_text(_SCRIPT)
    root = str(Path(noesis_nb.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    args = [endpoint, str(runs_dir), str(path) if path else "-", mode, str(interval), str(timeout)]
    started = time.monotonic()
    done = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, env=env, timeout=120)
    took = time.monotonic() - started
    assert done.stdout.strip(), done.stderr
    return done, Path(done.stdout.strip().splitlines()[-1]), took


def _ids(spans: list[Any]) -> list[int]:
    return [int.from_bytes(s.span_id, "big") for s in spans]


def test_a_script_ending_after_await_handle_sends_every_span_once(
    tmp_path: Path, runs_dir: Path, otlp_collector: Collector
) -> None:
    done, run_dir, took = _script(tmp_path, otlp_collector.url, runs_dir)
    assert done.returncode == 0, done.stderr
    got = _ids(otlp_collector.spans)
    run = {s["span_id"]: s["name"] for s in run_spans(run_dir)}  # what a later export of the sealed run sends
    assert sorted(got) == sorted(run), (otlp_collector.spans, run)  # each once, the root span and the model call too
    assert any(name.startswith("invoke_agent") for name in run.values())
    assert "TraceIncomplete" not in done.stderr, done.stderr
    assert took < 40  # the exit did not wait for the next look (a minute away)


def test_a_script_ending_after_await_handle_writes_the_file(tmp_path: Path, runs_dir: Path, otlp_collector: Collector) -> None:
    out = tmp_path / "trace.json"
    done, run_dir, _took = _script(tmp_path, otlp_collector.url, runs_dir, path=out)
    assert done.returncode == 0, done.stderr
    import json

    written = [s for rs in json.loads(out.read_text())["resourceSpans"] for ss in rs["scopeSpans"] for s in ss["spans"]]
    want = {f"{s['span_id']:016x}" for s in run_spans(run_dir)}
    assert {s["spanId"] for s in written} == want and len(written) == len(want)


def test_a_collector_down_at_exit_is_said_with_its_endpoint_and_the_spans_left(tmp_path: Path, runs_dir: Path) -> None:
    port = closed_port()
    done, run_dir, took = _script(tmp_path, f"http://127.0.0.1:{port}", runs_dir)
    assert done.returncode == 0, done.stderr
    spans = len(run_spans(run_dir))
    assert "TraceIncomplete" in done.stderr and f"127.0.0.1:{port}" in done.stderr, done.stderr
    assert f"{spans} finished span(s) were not taken" in done.stderr, done.stderr
    assert took < 40


def test_a_collector_that_never_answers_holds_the_exit_only_its_timeout(
    tmp_path: Path, runs_dir: Path, otlp_collectors: Any
) -> None:
    release = threading.Event()

    def hang(handler: Any) -> None:
        release.wait(60)
        take_all(handler)

    collector = otlp_collectors(hang)
    try:
        started = time.monotonic()
        done, run_dir, took = _script(tmp_path, collector.url, runs_dir, timeout=2.0)
    finally:
        release.set()
    assert done.returncode == 0, done.stderr
    assert collector.requests and collector.requests[-1].at - started < took  # the last look asked it
    assert "not done within 2 s" in done.stderr and f"{len(run_spans(run_dir))} finished span(s)" in done.stderr
    assert took < 30, took  # the exit waited for the collector at most its timeout, not the 60 s it hangs


def test_an_episode_still_running_at_exit_sends_its_finished_spans_only(
    tmp_path: Path, runs_dir: Path, otlp_collector: Collector
) -> None:
    out = tmp_path / "trace.json"
    done, run_dir, took = _script(tmp_path, otlp_collector.url, runs_dir, path=out, mode="running")
    assert done.returncode == 0, done.stderr
    names = [s.name for s in otlp_collector.spans]
    assert "chat gpt-4o-mini" in names, names  # the model call, final at once
    assert not any(name.startswith("invoke_agent") for name in names), names  # the root span waits for the end
    run = {s["span_id"] for s in run_spans(run_dir)}  # the same ids a later export of the run gives
    assert len(set(_ids(otlp_collector.spans))) == len(names) and set(_ids(otlp_collector.spans)) <= run
    assert "still running" in done.stderr and "root span" in done.stderr, done.stderr
    assert out.exists() and "chat" in out.read_text()  # the file as far as the episode got
    assert took < 40


def test_a_kill_after_the_seal_leaves_a_later_export_with_the_same_ids(
    tmp_path: Path, runs_dir: Path, otlp_collectors: Any
) -> None:
    live, later = otlp_collectors(), otlp_collectors()
    done, run_dir, _took = _script(tmp_path, live.url, runs_dir, mode="kill", interval=0.05)
    assert done.returncode == -9, done.stderr
    assert live.spans  # some spans were taken live before the kill
    assert noesis_nb.export_otel(run_dir, endpoint=later.url) == len(later.spans) > len(live.spans) - 1
    by_id = {int.from_bytes(s.span_id, "big"): s for s in later.spans}
    assert len(by_id) == len(later.spans)
    for span in live.spans:  # the same span, by the same ids: a collector keeps one copy
        again = by_id[int.from_bytes(span.span_id, "big")]
        assert (again.trace_id, again.name, again.start_time_unix_nano) == (span.trace_id, span.name, span.start_time_unix_nano)
