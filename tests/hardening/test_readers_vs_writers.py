"""Readers racing a live writer in another process: no raise, no false damage, nothing going backwards.

A writer process (``livewriter.py``) runs short episodes of every shape into one runs root — model
calls, tools approved by policy, runs paused for a human then approved and continued from disk,
failures, batches — while this process reads the same root in a tight loop with every reader:
the four frames (cache on and ``cache=False``, and strict now and then), ``list_runs``, the inbox,
and ``show`` / ``replay`` / ``export_otel`` of a run being written. Nothing here is broken, so:

- no reader raises, strict or not;
- no problem row, view problem or warning is ever reported: a run in transit (a line being
  appended, a draft renamed in, a summary before its final, a final before its manifest) is live,
  not damaged;
- per run, event, tool and token counts never go backwards, and a run is never shown sealed
  before its ``manifest.json`` exists (nor unsealed again after);
- once the writer is done, every frame loaded warm equals the same frame loaded cold.

Deterministic tests below pin each transit point a race found, by writing or reading a run at
that very moment.
"""

from __future__ import annotations

import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.integrations.otel import TraceIncomplete
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.store import list_runs
from noesis_nb.widgets.inboxview import InboxView

from .report import figures

HERE = Path(__file__).resolve().parent
WRITER_SECONDS = 10.0
FRAMES = {"runs_df": runs_df, "events_df": events_df, "tools_df": tools_df, "usage_df": usage_df}


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_cache()
    yield
    clear_cache()


class Watch:
    """What the readers saw so far, per run: the largest counts, whether it was seen sealed; and every complaint."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.most: dict[tuple[str, str], float] = {}
        self.sealed: set[str] = set()
        self.failures: list[str] = []
        self.passes = 0
        self.live_views = 0
        self.transit = 0  # rows of runs not sealed yet, over all loads
        self.final_status: dict[str, str] = {}

    def fail(self, what: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(what)

    def grow(self, reader: str, counts: dict[str, float]) -> None:
        """``counts`` (per episode) must be at least what ``reader`` saw before."""
        for episode, value in counts.items():
            if pd.isna(value):
                continue
            before = self.most.get((reader, episode), 0)
            if value < before:
                self.fail(f"{reader}: {episode} went back from {before} to {value}")
            self.most[(reader, episode)] = max(before, value)

    def problems(self, reader: str, df: pd.DataFrame) -> None:
        for problem in df.attrs.get("errors", []):
            self.fail(f"{reader} reported a healthy run: {problem}")

    def seal(self, reader: str, episode: str, sealed: bool) -> None:
        if sealed:
            if not (self.root / episode / "manifest.json").exists():
                self.fail(f"{reader}: {episode} shown sealed before its manifest.json exists")
            self.sealed.add(episode)
        elif episode in self.sealed:
            self.fail(f"{reader}: {episode} shown unsealed after it was shown sealed")


def _frames(watch: Watch, cache: bool) -> pd.DataFrame:
    root = watch.root
    runs = runs_df(root, cache=cache)
    watch.problems(f"runs_df(cache={cache})", runs)
    for episode, sealed, verdict in zip(runs["episode_id"], runs["sealed"], runs["manifest_ok"], strict=True):
        watch.seal("runs_df", episode, bool(sealed))
        if sealed and pd.isna(verdict):  # the same load read no manifest: final.json alone is no seal
            watch.fail(f"runs_df: {episode} shown sealed by a load that found no manifest.json")
        watch.transit += not sealed
    watch.grow("runs_df tool_calls", dict(zip(runs["episode_id"], runs["tool_calls"].astype("float"), strict=True)))
    for episode, status in zip(runs["episode_id"][runs["sealed"]], runs["status"][runs["sealed"]].astype(str), strict=True):
        if watch.final_status.setdefault(episode, status) != status:
            watch.fail(f"runs_df: sealed {episode} went from {watch.final_status[episode]} to {status}")
    tokens = runs.set_index("episode_id")[["input_tokens", "output_tokens"]].astype("float").sum(axis=1, min_count=2)
    watch.grow("runs_df tokens", tokens.to_dict())
    events = events_df(root, cache=cache)
    watch.problems(f"events_df(cache={cache})", events)
    watch.grow("events_df rows", events.groupby("episode_id", observed=True).size().to_dict())
    tools = tools_df(root, cache=cache)
    watch.problems(f"tools_df(cache={cache})", tools)
    watch.grow("tools_df rows", tools.groupby("episode_id", observed=True).size().to_dict())
    usage = usage_df(root, cache=cache)
    watch.problems(f"usage_df(cache={cache})", usage)
    if len(usage):
        sums = usage.groupby("episode_id", observed=True)[["input_tokens", "output_tokens"]].sum(min_count=1)
        watch.grow("usage_df tokens", sums.astype("float").sum(axis=1).to_dict())
    return runs


def _views(watch: Watch, runs: pd.DataFrame, inbox: InboxView, out: Path) -> None:
    """The inbox, and ``show`` / ``replay`` / ``export_otel`` of the newest run not sealed yet."""
    inbox.scan.poll()
    for problem in inbox.scan.problems:
        watch.fail(f"inbox reported a healthy run: {problem}")
    for row in list_runs(limit=None, runs_dir=watch.root):
        watch.seal("list_runs", row["episode_id"], row["sealed"])
    live = runs[~runs["sealed"].astype(bool)]
    if live.empty:
        return
    run = watch.root / str(live["episode_id"].iloc[-1])
    watch.live_views += 1
    view = noesis_nb.show(run)
    view.source.refresh()
    for problem in view.source.problems:
        watch.fail(f"show({run.name}) reported: {problem}")
    for problem in noesis_nb.replay(run).run.problems:
        watch.fail(f"replay({run.name}) reported: {problem}")
    for problem in DiskRun(run).problems:
        watch.fail(f"DiskRun({run.name}) reported: {problem}")
    noesis_nb.export_otel(run, path=out / "trace.json")


def _strict(watch: Watch) -> None:
    for name, frame in FRAMES.items():
        try:
            frame(watch.root, strict=True, cache=False)
        except Exception as exc:  # reported with the others: the race goes on
            watch.fail(f"{name}(strict=True) raised on a healthy root: {type(exc).__name__}: {exc}")


def _one_pass(watch: Watch, inbox: InboxView, out: Path) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            runs = _frames(watch, cache=watch.passes % 2 == 0)
            _views(watch, runs, inbox, out)
            if watch.passes % 4 == 3:
                _strict(watch)
        except Exception as exc:
            watch.fail(f"a reader raised: {type(exc).__name__}: {exc}")
    for w in caught:
        if "noesis_nb" in str(w.filename) or issubclass(w.category, TraceIncomplete):
            watch.fail(f"warning while reading a healthy root: {w.category.__name__}: {w.message}")
    watch.passes += 1


def _same(name: str, warm: pd.DataFrame, cold: pd.DataFrame) -> None:
    pd.testing.assert_frame_equal(warm, cold, check_dtype=True, check_categorical=True, obj=name)
    assert warm.attrs.get("errors") == cold.attrs.get("errors"), name


def test_readers_in_a_tight_loop_never_see_a_healthy_run_as_damaged(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    root.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    writer = subprocess.Popen(
        [sys.executable, str(HERE / "livewriter.py"), str(root), str(WRITER_SECONDS)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watch = Watch(root)
    inbox = InboxView(root)
    try:
        deadline = time.monotonic() + WRITER_SECONDS + 30
        while writer.poll() is None and time.monotonic() < deadline:
            _one_pass(watch, inbox, out)
    finally:
        inbox.close()
        if writer.poll() is None:
            writer.kill()
        stdout, stderr = writer.communicate(timeout=30)
    assert writer.returncode == 0 and stdout.endswith("done\n"), f"the writer failed: {stderr[-2000:]}"
    assert not watch.failures, "\n".join(watch.failures)
    assert watch.passes >= 5 and watch.live_views >= 1, f"too few reads to race: {watch.passes} passes"
    figures(
        "readers racing a writer process",
        {
            "runs written": len(stdout.splitlines()) - 1,
            "reader passes": watch.passes,
            "rows of runs in transit": watch.transit,
            "views of live runs": watch.live_views,
            "false reports": 0,
        },
    )

    _one_pass(watch, InboxView(root), out)  # the finished root: still nothing to report
    assert not watch.failures, "\n".join(watch.failures)
    written = [line.split()[0] for line in stdout.splitlines() if line.startswith("ep_")]
    runs = runs_df(root, strict=True, cache=False)
    assert sorted(runs["episode_id"]) == sorted(written)
    assert runs["sealed"].all() and runs["manifest_ok"].all()
    warm = {name: frame(root) for name, frame in FRAMES.items()}
    uncached = {name: frame(root, cache=False) for name, frame in FRAMES.items()}
    clear_cache()
    for name, frame in FRAMES.items():
        cold = frame(root)
        _same(f"{name}: warm after the race vs cold", warm[name], cold)
        _same(f"{name}: cache=False vs cold", uncached[name], cold)


def _sealed_run(root: Path) -> Path:
    """A sealed run whose summary says everything ``runs_df`` needs (its events are not read)."""

    def adapter(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=100, output_tokens=10, cached_input_tokens=0)
        return "done"

    return root / noesis_nb.solve("sealed while listed", using=adapter, runs_dir=root)


def test_a_run_sealed_after_the_root_was_listed_is_not_reported_changed(tmp_path: Path, monkeypatch) -> None:
    """The root is listed (each run's events.jsonl stat taken) while the run is live; it is sealed before its
    documents are read. The listing's size of events.jsonl is older than the manifest: the file is not changed."""
    root = tmp_path / "runs"
    run = _sealed_run(root)
    whole = (run / "events.jsonl").read_bytes()
    manifest = (run / "manifest.json").read_bytes()
    (run / "manifest.json").unlink()
    (run / "events.jsonl").write_bytes(whole[: whole.index(b"\n") + 1])  # a live run: its first event so far
    import noesis_nb.frames.runs as runs_module

    listed = runs_module.resolve_source

    def list_then_seal(*args: Any, **kwargs: Any) -> Any:
        refs = listed(*args, **kwargs)
        (run / "events.jsonl").write_bytes(whole)  # the writer finishes and seals
        (run / "manifest.json").write_bytes(manifest)
        return refs

    monkeypatch.setattr(runs_module, "resolve_source", list_then_seal)
    for verify in ("quick", "size"):
        frame = runs_df(root, strict=True, cache=False, verify=verify)
        assert frame.attrs["errors"] == [] and bool(frame["manifest_ok"].iloc[0]), verify


def test_a_run_with_final_json_but_no_manifest_yet_is_not_shown_sealed(tmp_path: Path) -> None:
    """Between final.json and manifest.json the seal is not written whole: every reader says so alike. Here no
    writer holds the run (its seal was cut): lost, in runs_df as in list_runs, until resume_run completes it."""
    root = tmp_path / "runs"
    run = _sealed_run(root)
    (run / "manifest.json").unlink()
    row = runs_df(root, strict=True, cache=False).iloc[0]
    assert not row["sealed"] and pd.isna(row["manifest_ok"]) and row["status"] == "lost"
    assert [(r["sealed"], r["status"]) for r in list_runs(runs_dir=root)] == [(False, "lost")]


class _SealedWhileRead:
    """A run caught with its last event line half appended, whose writer completes the line and seals the run
    right after a reader has read the events file (``after_read`` wraps the reader's read function)."""

    def __init__(self, root: Path) -> None:
        self.run = _sealed_run(root)
        self.whole = (self.run / "events.jsonl").read_bytes()
        self.sealing = {name: (self.run / name).read_bytes() for name in ("final.json", "manifest.json")}
        for name in self.sealing:
            (self.run / name).unlink()
        (self.run / "events.jsonl").write_bytes(self.whole[:-20])  # the last line is being written

    def finish(self) -> None:
        (self.run / "events.jsonl").write_bytes(self.whole)
        for name, data in self.sealing.items():
            (self.run / name).write_bytes(data)

    def after_read(self, read: Any) -> Any:
        def read_then_seal(*args: Any, **kwargs: Any) -> Any:
            got = read(*args, **kwargs)
            if "events.jsonl" in str(args[-1] if args else "") or "events.jsonl" in str(args):
                if not (self.run / "manifest.json").exists():
                    self.finish()
            return got

        return read_then_seal


def test_events_df_does_not_report_a_line_cut_while_the_run_was_being_sealed(tmp_path: Path, monkeypatch) -> None:
    import noesis_nb.frames.eventblocks as blocks

    race = _SealedWhileRead(tmp_path / "runs")
    monkeypatch.setattr(blocks, "_read_events", race.after_read(blocks._read_events))
    events = events_df(race.run, strict=True, cache=False)
    assert events.attrs["errors"] == []
    assert (race.run / "manifest.json").exists(), "the seal happened while the reader ran"


@pytest.mark.parametrize("reader", ["show", "replay", "export_otel"])
def test_views_do_not_report_a_line_cut_while_the_run_was_being_sealed(tmp_path: Path, monkeypatch, reader: str) -> None:
    import noesis_nb.store.eventlog as eventlog

    race = _SealedWhileRead(tmp_path / "runs")
    monkeypatch.setattr(eventlog, "read_file", race.after_read(eventlog.read_file))
    if reader == "export_otel":
        with warnings.catch_warnings():
            warnings.simplefilter("error", TraceIncomplete)
            noesis_nb.export_otel(race.run, path=tmp_path / "trace.json")
    else:
        view = noesis_nb.show(race.run) if reader == "show" else noesis_nb.replay(race.run)
        source = view.source if reader == "show" else view.run
        assert source.problems == []
    assert (race.run / "manifest.json").exists(), "the seal happened while the reader ran"
