"""A stored time with no offset (another tool's run, a hand-edited log) is UTC in every reader, whatever the machine's zone.

The frames read ``2026-12-05T03:00:07.45`` as UTC; the view's clock, its step durations, the replay's
clock and the OTLP export read it in the kernel's local zone. Under TZ=Asia/Tokyo a run paused seconds
ago showed nine hours of waiting for people; under New York the wait was dropped; the OTLP root span
moved by the zone's offset. Each reader runs here in a subprocess with ``TZ`` set (POSIX zone strings:
no tz database needed), against real run directories written by the engine and then edited on disk.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import noesis_nb

ZONES = ("UTC0", "JST-9", "EST5", "LINT-14")  # UTC, Tokyo, New York (winter), Kiritimati: +14 h

_READ = r"""
import json, re, sys, warnings
warnings.simplefilter("ignore")
import noesis_nb
run, out = sys.argv[1], sys.argv[2]

def text(html):
    html = re.sub(r"<style.*?</style>", "", html, flags=re.S)
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()

shown = text(noesis_nb.show(run)._repr_mimebundle_()["text/html"])
clock = text(noesis_nb.replay(run).clock.value)
noesis_nb.export_otel(run, path=out)
spans = json.load(open(out))["resourceSpans"][0]["scopeSpans"][0]["spans"]
print(json.dumps({
    "shown": shown,
    "clock": clock,
    "spans": [[s["name"], s["startTimeUnixNano"], s["endTimeUnixNano"]] for s in spans],
}))
"""


def _read_in_zone(run: Path, zone: str, out: Path) -> dict[str, Any]:
    env = {**os.environ, "TZ": zone}
    done = subprocess.run([sys.executable, "-c", _READ, str(run), str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])  # show() also prints the run's line outside IPython


def _strip_offsets(log: Path, which: Any) -> None:
    """Drop the ``+00:00`` of the timestamps (and step times) of the events ``which(i, n)`` picks (of ``n``), in place."""
    lines = log.read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines):
        event = json.loads(line)
        if which(i, len(lines)):
            event["timestamp"] = event["timestamp"].replace("+00:00", "")
            metrics = event.get("metrics")
            if isinstance(metrics, dict):
                for key in ("started_at", "completed_at"):
                    if isinstance(metrics.get(key), str):
                        metrics[key] = metrics[key].replace("+00:00", "")
        out.append(json.dumps(event))
    log.write_text("\n".join(out) + "\n", encoding="utf-8")


def _waiting_seconds(shown: str) -> float | None:
    """The header's ``(+ 1 min 03.5 s waiting for people)`` in seconds; None when no wait is shown."""
    m = re.search(r"\(\+ ([^)]*) waiting for people\)", shown)
    if m is None:
        return None
    units = {"d": 86400.0, "h": 3600.0, "min": 60.0, "s": 1.0}
    return sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+) (d|h|min|s)\b", m[1]))


def _paused_agent(task: str, ctx: Any) -> int:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=5)
    ctx.tool("fs.write", {"argv": ["sh", "-c", "echo ran"]}, effect="write", risk="high")
    return 0


def test_a_paused_run_without_offsets_waits_as_long_in_every_zone(tmp_path: Path) -> None:
    before = time.time()
    episode = noesis_nb.solve("t", using=_paused_agent, runs_dir=tmp_path / "runs")
    run = tmp_path / "runs" / episode
    _strip_offsets(run / "events.jsonl", lambda i, n: True)
    for zone in ZONES:
        got = _read_in_zone(run, zone, tmp_path / f"{zone}.json")
        waited = _waiting_seconds(got["shown"])
        # the run paused after ``before``: the wait shown is at most the time since then (Tokyo said 9 h, New York none)
        assert waited is not None, (zone, got["shown"][:300])
        assert 0 <= waited <= time.time() - before, (zone, got["shown"][:300])


def _finished_agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=10, output_tokens=5, latency_ms=20)
    ctx.tool("fs.read", {"path": "notes.txt"}, effect="read", risk="low")
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=12, output_tokens=6, latency_ms=30)
    return "done"


_CLOCK_TIME = re.compile(r"\b[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}\b")  # the events' times, shown in the local zone


def test_a_run_half_without_offsets_reads_the_same_in_every_zone(tmp_path: Path) -> None:
    episode = noesis_nb.solve("t", using=_finished_agent, runs_dir=tmp_path / "runs")
    run = tmp_path / "runs" / episode
    # every other event of the log, and its second half, as another tool writes them: the first event has an offset,
    # the last has none, and steps and the run span both kinds
    _strip_offsets(run / "events.jsonl", lambda i, n: i % 2 == 1 or i >= n // 2)
    utc = _read_in_zone(run, "UTC0", tmp_path / "utc.json")
    first_ns = int(noesis_nb.events_df(run)["timestamp"].min().value)  # the frames' reading of the same file
    assert int(utc["spans"][0][1]) == first_ns
    for zone in ZONES[1:]:
        got = _read_in_zone(run, zone, tmp_path / f"{zone}.json")
        assert got["spans"] == utc["spans"], zone  # the OTLP root span moved by the zone's offset
        assert got["clock"] == utc["clock"], zone  # the replay's "+ … into the run"
        # running time, step durations, waits: everything but the clock times, which are local by design
        assert _CLOCK_TIME.sub("T", got["shown"]) == _CLOCK_TIME.sub("T", utc["shown"]), zone
