"""Special files planted in a run never hang, crash or leak a reader: each is reported or refused by name.

A shared run can hold anything in place of a file: a FIFO (a blocking read waits forever), a
socket, a device, a link to itself or out of the run, a folder. Every case plants one such file
where a reader looks (a tool record, the lock file, a checkpoint, a run document),
then opens the run every way a person can. Each test has a timeout, so a hang fails it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import ns
from noesis_nb.errors import EpisodeStateError, NoesisNbError, RunNotFoundError
from noesis_nb.frames import events_df, runs_df, tools_df, usage_df
from noesis_nb.frames.fs import RACY_NS
from noesis_nb.integrations.otel import TraceIncomplete
from noesis_nb.runtime.resume import CheckpointNotFoundError
from noesis_nb.store import list_runs
from noesis_nb.store.ownership import OWNER_FILE, holder
from noesis_nb.store.paths import UnsafeRunPathError
from noesis_nb.widgets import InboxView
from tests.ipshell import run_magic

from .crashkit import tool_agent
from .episodes import make_paused, make_tool, tool_records

pytestmark = pytest.mark.timeout(30)


@pytest.fixture(scope="module")
def paused_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A run paused on a pending draft of Noēsis' own protocol (``tool_invocations/prepared``)."""
    root = tmp_path_factory.mktemp("special-paused")
    ep = noesis_nb.solve("append the note", using=tool_agent(str(root / "marker.txt")), runs_dir=root / "runs", approver="ask")
    return root / "runs" / ep


@pytest.fixture(scope="module")
def finished_base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A sealed run whose python tool was approved and executed (draft, decision and result on disk)."""
    root = tmp_path_factory.mktemp("special-finished") / "runs"
    return root / make_tool(root, 0)


def _copy(base: Path, tmp_path: Path) -> Path:
    run = tmp_path / "runs" / base.name
    shutil.copytree(base, run, symlinks=True)
    return run


def _draft(run: Path) -> Path:
    (path,) = tool_records(run, "prepared")
    return path


def _replace(path: Path, what: str, outside: Path | None = None) -> None:
    """Put ``what`` where the regular file ``path`` was."""
    path.unlink()
    if what == "fifo":
        os.mkfifo(path)
    elif what == "folder":
        path.mkdir()
    elif what == "loop":
        path.symlink_to(path.name)
    elif what == "outside":
        assert outside is not None
        path.symlink_to(outside)
    else:
        raise AssertionError(what)


def _bundle(view: Any) -> dict[str, Any]:
    return view.mimebundle() if hasattr(view, "mimebundle") else view._repr_mimebundle_()


def _magic_show_text(run: Path) -> str:
    return run_magic(f"show {run} --text")[1]


def _every_view(run: Path, tmp_path: Path) -> Any:
    """Open ``run`` every way a person can; the ``show`` view is returned to look at its problems."""
    view = noesis_nb.show(run)
    _bundle(view)
    _bundle(noesis_nb.replay(run))
    inbox = noesis_nb.inbox(run.parent)
    _bundle(inbox)
    inbox.close()
    assert noesis_nb.export_otel(run, path=tmp_path / "trace.json") > 0
    assert "task=" in _magic_show_text(run)  # the timeline, from its first event on
    return view


@pytest.mark.parametrize("record", ["draft", "decision"])
def test_a_fifo_in_place_of_a_tool_record_of_a_paused_run_is_reported_never_waited_on(
    paused_base: Path, tmp_path: Path, record: str
) -> None:
    run = _copy(paused_base, tmp_path)
    draft = _draft(run)
    path = draft if record == "draft" else run / "tool_invocations" / "approvals" / draft.name
    path.parent.mkdir(exist_ok=True)
    if record == "decision":
        path.touch()
    _replace(path, "fifo")

    view = _every_view(run, tmp_path)

    assert any(path.name in p and "FIFO" in p for p in view.source.problems), view.source.problems
    if record == "draft":
        with pytest.raises(NoesisNbError, match="FIFO"):
            noesis_nb.approve_draft(run, approver_id="ops")
    else:  # named, left in place (not set aside inside the run, where every seal would refuse it); moved out, decided
        with pytest.raises(UnsafeRunPathError, match=f"{re.escape(str(path))} is a FIFO.*move it out of the run folder"):
            noesis_nb.approve_draft(run, approver_id="ops")
        assert path.is_fifo() and [p.name for p in path.parent.iterdir()] == [path.name]
        path.unlink()
        assert noesis_nb.approve_draft(run, approver_id="ops").status == "approved"


def test_a_fifo_in_place_of_a_veto_decision_is_never_waited_on(tmp_path: Path) -> None:
    ns.set(governance_pause_on_veto=True)
    ep = noesis_nb.solve("destroy the staging copy", using=lambda task: "done", runs_dir=tmp_path / "runs", governance="enforce")
    run = tmp_path / "runs" / ep
    (checkpoint,) = (run / "checkpoints").iterdir()
    os.mkfifo(checkpoint / "decision.json")

    _every_view(run, tmp_path)
    with pytest.raises(UnsafeRunPathError, match="decision.json is a FIFO.*move it out of the run folder"):
        noesis_nb.approve_draft(run, approver_id="ops")  # named, left in place: a seal would refuse it set aside
    assert (checkpoint / "decision.json").is_fifo()
    (checkpoint / "decision.json").unlink()
    assert noesis_nb.approve_draft(run, approver_id="ops").status == "approved"


@pytest.mark.parametrize("folder", ["x-python/prepared", "approvals", "executions"])
def test_a_fifo_in_place_of_a_tool_record_of_a_finished_run_is_never_waited_on(
    finished_base: Path, tmp_path: Path, folder: str
) -> None:
    run = _copy(finished_base, tmp_path)
    (path,) = (run / "tool_invocations" / folder).glob("*.json")
    _replace(path, "fifo")

    _every_view(run, tmp_path)
    tools = tools_df(run.parent, cache=False)
    assert any(e["path"] == str(path) and "FIFO" in e["reason"] for e in tools.attrs["errors"]), tools.attrs["errors"]


@pytest.mark.parametrize("folder", ["x-python/prepared", "approvals"])
def test_a_tool_record_nested_too_deeply_is_left_out_of_the_trace(finished_base: Path, tmp_path: Path, folder: str) -> None:
    run = _copy(finished_base, tmp_path)
    (path,) = (run / "tool_invocations" / folder).glob("*.json")
    path.write_bytes(b"[" * 100_000 + b"]" * 100_000)

    assert noesis_nb.export_otel(run, path=tmp_path / "trace.json") > 0


@pytest.mark.parametrize("name", [".json", "a..b.json", "d" * 230 + ".json"])
@pytest.mark.parametrize("base", ["paused", "finished"])
def test_a_tool_record_not_named_after_a_draft_id_is_reported_and_the_root_still_shows(
    paused_base: Path, finished_base: Path, tmp_path: Path, name: str, base: str
) -> None:
    run = _copy(paused_base if base == "paused" else finished_base, tmp_path)
    record = _draft(run) if base == "paused" else next((run / "tool_invocations" / "approvals").glob("*.json"))
    (record.parent / name).write_bytes(record.read_bytes())

    view = _every_view(run, tmp_path)

    named = repr(name) if len(name) <= 200 else repr(name)[:150]  # a long name is quoted by its head and length
    assert any(named in p and "not named after a draft id" in p for p in view.source.problems), view.source.problems
    assert len(name) <= 200 or any(f"({len(name)} characters)" in p for p in view.source.problems), view.source.problems
    assert bool(view.source.pending) == (base == "paused")


@pytest.mark.parametrize("name", ["events.jsonl", "summary.json", "state.json", "final.json", "manifest.json", "approvals"])
def test_a_link_to_itself_is_reported_by_every_frame(finished_base: Path, tmp_path: Path, name: str) -> None:
    run = _copy(finished_base, tmp_path)
    (other,) = (run / "tool_invocations" / "approvals").glob("*.json")
    path = other if name == "approvals" else run / name
    _replace(path, "loop")

    errors = [e for frame in (runs_df, events_df, tools_df, usage_df) for e in frame(run.parent, cache=False).attrs["errors"]]

    assert any(e["path"] == str(path) and "symbolic links" in e["reason"] for e in errors), errors
    time.sleep(RACY_NS / 1e9 * 2)  # old enough to be cached: the second load checks the cached stamps
    warm_errors = []
    for frame in (runs_df, events_df, tools_df, usage_df):
        cold, warm = frame(run.parent).attrs["errors"], frame(run.parent).attrs["errors"]
        assert warm == cold, (frame.__name__, cold, warm)
        warm_errors += warm
    assert any(e["path"] == str(path) for e in warm_errors), warm_errors


@pytest.mark.parametrize("what", ["loop", "outside"])
def test_a_draft_replaced_by_a_link_is_reported_by_the_views_and_refused_by_a_decision(
    paused_base: Path, tmp_path: Path, what: str
) -> None:
    run = _copy(paused_base, tmp_path)
    draft = _draft(run)
    secret = tmp_path / "elsewhere.json"
    secret.write_text(draft.read_text())
    _replace(draft, what, secret)

    view = _every_view(run, tmp_path)

    assert any(draft.name in p and "symbolic link" in p for p in view.source.problems), view.source.problems
    assert not view.source.pending
    with pytest.raises(UnsafeRunPathError, match="symbolic link"):
        noesis_nb.approve_draft(run, approver_id="ops")


@pytest.mark.parametrize("linked", ["file", "folder"])
def test_a_checkpoint_outside_the_run_is_never_read(paused_base: Path, tmp_path: Path, linked: str) -> None:
    run = _copy(paused_base, tmp_path)
    noesis_nb.approve_draft(run, approver_id="ops")
    (checkpoint,) = (run / "checkpoints").glob("*/checkpoint.json")
    outside = tmp_path / "outside" / checkpoint.parent.name
    outside.parent.mkdir()
    shutil.move(checkpoint.parent, outside)  # the very checkpoint, moved out and linked back
    if linked == "file":
        checkpoint.parent.mkdir()
        checkpoint.symlink_to(outside / "checkpoint.json")
    else:
        checkpoint.parent.symlink_to(outside, target_is_directory=True)

    with pytest.raises(CheckpointNotFoundError, match="checkpoint"):
        noesis_nb.resume_run(run, using=tool_agent(str(tmp_path / "marker.txt")))
    assert not (tmp_path / "marker.txt").exists()
    assert not noesis_nb.store.is_sealed(run)


@pytest.mark.parametrize("what", ["fifo", "socket"])
def test_a_lock_file_that_is_not_a_file_is_refused_by_name_and_never_waited_on(
    paused_base: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, what: str
) -> None:
    run = _copy(paused_base, tmp_path)
    noesis_nb.approve_draft(run, approver_id="ops")
    lock = run / OWNER_FILE
    lock.unlink(missing_ok=True)
    if what == "fifo":
        os.mkfifo(lock)
    else:
        monkeypatch.chdir(run)  # a socket's path is limited to about a hundred bytes
        server = socket.socket(socket.AF_UNIX)
        server.bind(OWNER_FILE)
        monkeypatch.chdir(tmp_path)

    assert holder(run) is None  # asked by batches and views following a run: nobody holds such a file
    with pytest.raises(EpisodeStateError, match=f"{OWNER_FILE} is a {'FIFO' if what == 'fifo' else 'socket'}"):
        noesis_nb.resume_run(run, using=tool_agent(str(tmp_path / "marker.txt")))
    assert not (tmp_path / "marker.txt").exists()
    if what == "socket":
        server.close()


@pytest.mark.timeout(120)  # the views cut the line; events_df screens its 30 MB whole (a copied run is not one noesis_nb sealed)
def test_an_enormous_line_is_shown_cut_and_redacted_without_being_searched_whole(paused_base: Path, tmp_path: Path) -> None:
    run = _copy(paused_base, tmp_path)
    token = "ghp_" + "A1b2" * 9
    filler = "x" * 30_000_000  # searched whole for secrets, one view took about a minute
    with open(run / "events.jsonl", "a", encoding="utf-8") as log:
        log.write(json.dumps({"id": "huge", "phase": "act", "payload": {"text": f"{token} {filler}"}}) + "\n")

    html = _bundle(noesis_nb.show(run))["text/html"]
    assert "more characters; the whole event is in events.jsonl" in html and token not in html
    assert token not in _bundle(noesis_nb.replay(run))["text/html"]
    noesis_nb.export_otel(run, path=tmp_path / "trace.json")
    assert token not in (tmp_path / "trace.json").read_text()
    assert "huge" in set(events_df(run.parent, cache=False)["event_id"])


@pytest.mark.parametrize("what", ["file", "fifo", "device", "loop"])
def test_a_source_or_root_that_is_not_a_folder_is_one_clear_error(tmp_path: Path, what: str) -> None:
    source = tmp_path / "runs"
    if what == "file":
        source.write_text("")
    elif what == "fifo":
        os.mkfifo(source)
    elif what == "device":
        source.symlink_to(os.devnull)
    else:
        source.symlink_to(source.name)
    wanted = {"file": "is a file, not a folder", "fifo": "is a FIFO", "device": "is a device", "loop": "leads nowhere"}[what]
    for frame in (runs_df, events_df, tools_df, usage_df):
        with pytest.raises(RunNotFoundError, match=f"{source}.* {wanted}"):
            frame(source, cache=False)
    root_error = f"runs root '{source}' is .*{wanted.split(',')[0].removeprefix('is ')}"
    for listing in (lambda: list_runs(runs_dir=source), lambda: InboxView(source)):  # they said "no runs"
        with pytest.raises(RunNotFoundError, match=root_error):
            listing()
    before = noesis_nb.config.runs_dir()
    for line in (f"list --runs-dir {source}", f"runs-dir {source}"):  # the second set it without a word
        with pytest.raises(UsageError, match=root_error):  # IPython's one-line error, no traceback
            run_magic(line)
    assert noesis_nb.config.runs_dir() == before


@pytest.mark.parametrize(
    ("what", "wanted"),
    [
        ("folder", "a directory, not a file"),
        ("fifo", "a FIFO"),
        ("device", "a device"),
        ("latin-1", "not UTF-8 text"),
        ("broken", "not YAML"),
        ("deep", "not YAML .nested too deeply"),
    ],
)
def test_a_price_table_that_is_no_file_or_no_yaml_is_one_clear_error(tmp_path: Path, what: str, wanted: str) -> None:
    table = tmp_path / "prices.yaml"
    if what == "folder":
        table.mkdir()
    elif what == "fifo":
        os.mkfifo(table)
    elif what == "device":
        table.symlink_to(os.devnull)
    else:
        latin = "gpt-4o: {input: 2.5, note: caf\xe9}".encode("latin-1")
        contents = {"latin-1": latin, "broken": b"gpt-4o: {", "deep": b"[" * 100_000}
        table.write_bytes(contents[what])
    (tmp_path / "runs").mkdir()
    with pytest.raises(ValueError, match=f"price table {table}: .*{wanted}"):
        usage_df(tmp_path / "runs", prices=table)


def _sparse(path: Path, size: int) -> None:
    """Put a sparse file claiming ``size`` bytes (it holds none) where ``path`` was."""
    path.unlink()
    with path.open("wb") as fh:
        fh.truncate(size)


_READERS = {  # the frames that read each file for a sealed run (its row needs neither events nor record contents)
    "events.jsonl": (events_df, tools_df, usage_df),
    "summary.json": (runs_df,),
    "state.json": (runs_df,),
    "draft": (tools_df,),
}


@pytest.mark.parametrize("name", list(_READERS))
def test_a_sparse_file_claiming_more_than_memory_is_reported_never_read(finished_base: Path, tmp_path: Path, name: str) -> None:
    """A crafted file whose size is a lie (holes) would take a reader's memory: each reader names it instead."""
    run = _copy(finished_base, tmp_path)
    path = _draft(run) if name == "draft" else run / name
    memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    _sparse(path, 2 * memory if name == "events.jsonl" else 600 << 20)

    for frame in (runs_df, events_df, tools_df, usage_df):
        errors = frame(run.parent, cache=False).attrs["errors"]
        if frame in _READERS[name]:
            assert any(e["path"] == str(path) and "not read" in e["reason"] for e in errors), (frame.__name__, errors)
    view = _every_view(run, tmp_path) if name == "draft" else noesis_nb.show(run)
    if name in ("events.jsonl", "draft"):
        assert any(path.name in p and "not read" in p for p in view.source.problems), view.source.problems
    assert list_runs(runs_dir=run.parent)[0]["episode_id"] == run.name


def test_the_view_names_an_events_file_it_cannot_read_or_lines_it_left_out(finished_base: Path, tmp_path: Path) -> None:
    """An events file that is a link to itself, or holds lines that are no JSON, is named by the view: a
    timeline missing events never looks whole."""
    run = _copy(finished_base, tmp_path)
    log = run / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([lines[0], b"{not json\n", *lines[1:3], b"[1, 2]\n", *lines[3:]]))

    problems = [p for p in noesis_nb.show(run).source.problems if "events.jsonl" in p]
    assert [p.split(": ", 1)[0] for p in problems] == [f"{log}, line 2", f"{log}, line 5"], problems
    assert "invalid JSON" in problems[0] and "not an object" in problems[1], problems
    assert all(p.endswith("the line is left out") for p in problems), problems

    _replace(log, "loop")
    problems = noesis_nb.show(run).source.problems
    assert any(str(log) in p and "symbolic links" in p and "timeline" in p for p in problems), problems


def test_an_exported_trace_names_the_event_lines_and_tool_records_it_left_out(finished_base: Path, tmp_path: Path) -> None:
    """A trace that misses events or a decision says so (a warning naming the file, a count on the root span),
    and the tool span's decision comes from the events instead of reading "pending"."""
    run = _copy(finished_base, tmp_path)
    log = run / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([lines[0], b"{not json\n", *lines[1:]]))
    (decision,) = (run / "tool_invocations" / "approvals").glob("*.json")
    _replace(decision, "fifo")
    trace = tmp_path / "trace.json"

    with pytest.warns(TraceIncomplete) as caught:
        assert noesis_nb.export_otel(run, path=trace) > 0

    messages = [str(w.message) for w in caught]
    assert any(m.startswith(f"{log}: 1 line not read, ") and "(line 2: invalid JSON" in m for m in messages), messages
    assert any(m.startswith(f"{decision}: a FIFO") and "decision is taken from the events" in m for m in messages), messages
    spans = json.loads(trace.read_text())["resourceSpans"][0]["scopeSpans"][0]["spans"]
    assert {"key": "noesis.events_left_out", "value": {"intValue": "1"}} in spans[0]["attributes"]
    (tool,) = [s for s in spans if s["name"].startswith("execute_tool")]
    assert {"key": "noesis.tool.decision", "value": {"stringValue": "approved"}} in tool["attributes"]

    _replace(log, "loop")
    with pytest.warns(TraceIncomplete, match=f"^{re.escape(str(log))}: .*symbolic links.*; the run is left out of the trace$"):
        assert noesis_nb.export_otel(run, path=trace) == 0


def test_the_saved_view_the_replay_and_the_text_timeline_name_the_lines_left_out(finished_base: Path, tmp_path: Path) -> None:
    """What a notebook keeps (the static HTML of show and replay) and what a terminal prints (show --text) name
    the lines of the log they left out, as the live view does."""
    run = _copy(finished_base, tmp_path)
    log = run / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([lines[0], b"{not json\n", *lines[1:]]))
    named = f"{log}, line 2: invalid JSON"

    assert named in _bundle(noesis_nb.show(run))["text/html"]
    replay = noesis_nb.replay(run)
    assert named in _bundle(replay)["text/html"] and named in replay.view.message.value
    assert named in replay.seek(3).view.snapshot_html()  # every moment of it: the log is the same
    text = _magic_show_text(run)
    said = [line for line in text.splitlines() if line.startswith(named)]  # after the events, before the status line
    assert "task=" in text and len(said) == 1 and said[0].endswith("; the line is left out"), text


@pytest.mark.parametrize("what", ["fifo", "folder"])
def test_a_python_draft_a_run_waits_on_that_is_no_file_is_named_never_taken_for_absent(tmp_path: Path, what: str) -> None:
    """A draft of the python protocol (``x-python/prepared``) that is a FIFO or a folder was taken for no draft:
    the paused run showed no card and no problem, and deciding it said no draft was pending."""
    run = tmp_path / "runs" / make_paused(tmp_path / "runs", 0)
    (draft,) = tool_records(run, "x-python/prepared")
    _replace(draft, what)

    view = noesis_nb.show(run)
    assert view.source.status == "paused" and not view.source.pending
    assert any(draft.name in p and ("FIFO" if what == "fifo" else "directory") in p for p in view.source.problems), (
        view.source.problems
    )
    with pytest.raises(NoesisNbError, match=re.escape(draft.name)):
        noesis_nb.approve_draft(run, approver_id="ops")


def test_the_inbox_names_a_run_paused_on_a_draft_it_cannot_read(paused_base: Path, tmp_path: Path) -> None:
    """A run waits for a decision on a draft that is a FIFO: the inbox said "nothing waits for a decision"."""
    run = _copy(paused_base, tmp_path)
    draft = _draft(run)
    _replace(draft, "fifo")

    inbox = InboxView(run.parent)
    try:
        assert not inbox.pending
        assert inbox.text_summary().endswith("1 problem reading the runs (named below)"), inbox.text_summary()
        for html in (inbox.snapshot_html(), inbox.problems.value):
            assert f"{draft}: a FIFO" in html, html
    finally:
        inbox.close()


def test_deciding_a_run_paused_on_a_line_it_cannot_read_names_the_line(tmp_path: Path) -> None:
    """A veto pause on a damaged line of the log: the decision said only "no draft is pending … pass a draft id"."""
    ns.set(governance_pause_on_veto=True)
    ep = noesis_nb.solve("destroy the staging copy", using=lambda task: "done", runs_dir=tmp_path / "runs", governance="enforce")
    log = tmp_path / "runs" / ep / "events.jsonl"
    lines = log.read_bytes().splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if json.loads(line).get("phase") == "governance")
    log.write_bytes(b"".join([*lines[:at], b"{torn\n", *lines[at + 1 :]]))

    for decide in (noesis_nb.approve_draft, noesis_nb.reject_draft):
        with pytest.raises(NoesisNbError, match=f"{re.escape(str(log))}, line {at + 1}: invalid JSON.*restore the file"):
            decide(log.parent, approver_id="ops")


def test_a_sealed_run_whose_log_is_cut_mid_line_is_named_by_the_view_and_the_trace(finished_base: Path, tmp_path: Path) -> None:
    """A torn last line is a line still being written, except in a sealed run: there it is an event lost (a copy
    cut short), which show, replay and export_otel left out without a word."""
    run = _copy(finished_base, tmp_path)
    log = run / "events.jsonl"
    data = log.read_bytes()
    last = data.count(b"\n")
    log.write_bytes(data[:-20])  # the last line loses its end and its newline

    wanted = f"{log}, line {last}: the last line is cut off (no newline) although the run is sealed; the line is left out"
    assert wanted in noesis_nb.show(run).source.problems
    assert wanted in noesis_nb.replay(run).view.snapshot_html()
    with pytest.warns(TraceIncomplete, match=f"^{re.escape(str(log))}: 1 line not read.*line {last}: the last line is cut off"):
        noesis_nb.export_otel(run, path=tmp_path / "trace.json")
