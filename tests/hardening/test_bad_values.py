"""Each kind of bad value the readers met quietly, one test each: reported with file and line, read as unknown,
raised when strict.

Runs are written by the engine (``episodes``) and then damaged the way a downloaded or
hand-edited run can be. Non-strict loads must not raise and must say what is wrong where;
strict loads must raise an error naming the file (and line); a bad value must read as
unknown (NaN/None), never as a plausible value.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import tempfile
from pathlib import Path

import pandas as pd
import pytest

from noesis_nb.errors import EventLogIntegrityError
from noesis_nb.frames import RunLoadError, clear_cache, events_df, runs_df, tools_df, usage_df
from noesis_nb.store import read_events, read_summary, verify_manifest
from noesis_nb.store.runfiles import UnreadableRunFile

from .episodes import make_command, make_llm, make_paused, make_tool, tool_records

STRICT = (RunLoadError, EventLogIntegrityError)


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts and ends with an empty frames cache (nothing leaks between tests)."""
    clear_cache()
    yield
    clear_cache()


def lines_of(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]


def rewrite(run: Path, change) -> int:
    """Apply ``change(event)`` to the first event it accepts (returns True); the 1-based line changed."""
    events = lines_of(run)
    for number, event in enumerate(events, start=1):
        if change(event):
            (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
            return number
    raise AssertionError("no event to change")


def errors_of(frame, source, **kw) -> list[dict]:
    clear_cache()
    return frame(source, **kw).attrs["errors"]


def model_call(event: dict) -> bool:
    return event.get("payload", {}).get("event_name") == "model.call"


@pytest.mark.parametrize(
    "field, value, wanted",
    [
        ("timestamp", "yesterday", "not an ISO-8601 time"),
        ("timestamp", 1700000000, "not an ISO-8601 time"),
        ("timestamp", None, "timestamp is missing"),
        ("phase", 5, "phase is 5"),
        ("phase", "__delete__", "phase is missing"),
        ("payload", [1, 2], "payload is [1, 2]"),
        ("payload", "text", "payload is 'text'"),
        ("id", 5, "id is 5"),
        ("caused_by", ["x"], "caused_by is ['x']"),
        ("agent_id", {"a": 1}, "agent_id is {'a': 1}"),
    ],
)
def test_wrong_types_in_valid_event_lines(tmp_path: Path, field: str, value, wanted: str) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 1)

    def change(event: dict) -> bool:
        if model_call(event):
            if value == "__delete__":
                del event[field]
            else:
                event[field] = value
            return True
        return False

    line = rewrite(run, change)
    path = str(run / "events.jsonl")
    for frame in (events_df, usage_df, tools_df):
        errors = errors_of(frame, root)
        assert any(e["path"] == path and e["line"] == line and wanted in e["reason"] for e in errors), (frame.__name__, errors)
        with pytest.raises(STRICT, match=rf"events\.jsonl, line {line}: .*{field}"):
            frame(root, strict=True, cache=False)
    events = events_df(root)
    row = events[events["seq"] == line - 1].iloc[0]
    column = {"id": "event_id"}.get(field, field)
    if column in events and column != "payload":
        assert pd.isna(row[column])  # read as unknown, never as str(value) or an epoch


@pytest.mark.parametrize("value", ["1000", -5, True, 1.5, 1e300])
def test_token_counts_that_are_not_counts_are_reported_and_unknown(tmp_path: Path, value) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)  # one gpt-4o call

    def change(event: dict) -> bool:
        if model_call(event):
            event["payload"]["input_tokens"] = value
            return True
        return False

    line = rewrite(run, change)
    usage = usage_df(root)
    assert pd.isna(usage["input_tokens"][0]) and pd.isna(usage["cost_usd"][0]) and not usage["priced"][0]
    assert any(e["line"] == line and "payload.input_tokens is" in e["reason"] for e in usage.attrs["errors"])
    # runs_df takes this sealed run's totals from its summary; the edited log is reported as changed after sealing
    runs = runs_df(root, cache=False)
    assert any(e["path"] == str(run / "events.jsonl") and "manifest.json lists" in e["reason"] for e in runs.attrs["errors"])


def test_parts_above_their_total_are_reported_and_unknown(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)
    line = rewrite(run, lambda e: model_call(e) and e["payload"].update(cached_input_tokens=5000) is None)
    usage = usage_df(root)
    assert any(e["line"] == line and "exceeds input_tokens" in e["reason"] for e in usage.attrs["errors"])
    assert pd.isna(usage["input_tokens"][0]) and pd.isna(usage["cached_input_tokens"][0]) and not usage["priced"][0]


@pytest.mark.parametrize(
    "name, change, wanted",
    [
        ("summary.json", lambda d: d["metrics"].update(act_count="three"), "metrics.act_count is 'three'"),
        ("summary.json", lambda d: d.update(started_at=5), "started_at is 5"),
        ("summary.json", lambda d: d.update(duration_sec=-1), "duration_sec is -1"),
        ("state.json", lambda d: d["episode"].update(started_at="yesterday"), "episode.started_at is 'yesterday'"),
        ("state.json", lambda d: d["outcomes"].update(actions="none"), "outcomes.actions is 'none'"),
        ("final.json", lambda d: d.update(outcome=["success"]), "outcome is ['success']"),
        ("manifest.json", lambda d: d["files"][0].update(name="../../etc/passwd"), "files[0].name is '../../etc/passwd'"),
        ("manifest.json", lambda d: d["files"].__setitem__(1, "events.jsonl"), "files[1] is 'events.jsonl'"),
        ("manifest.json", lambda d: d["files"][2].update(size_bytes="12"), "files[2].size_bytes is '12'"),
        ("manifest.json", lambda d: d.pop("files"), "files is missing"),
    ],
)
def test_bad_fields_in_run_documents(tmp_path: Path, name: str, change, wanted: str) -> None:
    """Reported against the document that holds them, also when another document would have given the value."""
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)
    doc = json.loads((run / name).read_text())
    change(doc)
    (run / name).write_text(json.dumps(doc))
    errors = errors_of(runs_df, root)
    assert any(e["path"] == str(run / name) and wanted in e["reason"] for e in errors), errors
    with pytest.raises(RunLoadError, match=rf"{name}: "):
        runs_df(root, strict=True, cache=False)
    row = runs_df(root).iloc[0]
    if "act_count" in wanted:
        assert pd.isna(row["act_count"])
    if "started_at is 5" in wanted:  # never 1970-01-01: the state's start time stands in
        assert row["started_at"] == pd.Timestamp(json.loads((run / "state.json").read_text())["episode"]["started_at"])
    if "manifest" in name:
        assert not row["manifest_ok"]


@pytest.mark.parametrize(
    "kind, change, wanted",
    [
        ("prepared", lambda d: d["governance"].update(requires_approval="yes"), "governance.requires_approval is 'yes'"),
        ("prepared", lambda d: d.update(tool=5), "tool is 5"),
        ("approvals", lambda d: d.update(decided_at=7), "decided_at is 7"),
        ("approvals", lambda d: d.update(approver_id=["ops"]), "approver_id is ['ops']"),
        ("executions", lambda d: d.update(duration_ms=-3), "duration_ms is -3"),
    ],
)
@pytest.mark.parametrize("maker", [make_tool, make_command], ids=["python tool", "subprocess tool"])
def test_bad_fields_in_tool_records(tmp_path: Path, maker, kind: str, change, wanted: str) -> None:
    root = tmp_path / "runs"
    run = root / maker(root, 0)
    [path] = tool_records(run, kind)
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))
    errors = errors_of(tools_df, root)
    assert any(e["path"] == str(path) and wanted in e["reason"] for e in errors), errors
    with pytest.raises(RunLoadError, match=rf"{kind}/draft:"):
        tools_df(root, strict=True, cache=False)


@pytest.mark.parametrize("name", ["events.jsonl", "summary.json", "state.json", "final.json", "manifest.json", "prepared"])
@pytest.mark.parametrize("what", ["directory", "fifo", "symlink"])
def test_what_is_not_a_file_of_the_run_is_reported_never_read(tmp_path: Path, name: str, what: str) -> None:
    root = tmp_path / "runs"
    run = root / make_tool(root, 0)
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({"task": "LEAKED", "status": "LEAKED", "episode_id": "LEAKED", "draft_id": "LEAKED"}))
    path = tool_records(run, "prepared")[0] if name == "prepared" else run / name
    path.unlink()
    if what == "directory":
        path.mkdir()
    elif what == "fifo":
        os.mkfifo(path)  # a blocking read would hang the load forever
    else:
        path.symlink_to(outside)
    frames = {
        name: frame(root, cache=False)
        for name, frame in (("runs", runs_df), ("events", events_df), ("tools", tools_df), ("usage", usage_df))
    }
    errors = [e for df in frames.values() for e in df.attrs["errors"]]
    wanted = {"directory": "a directory", "fifo": "FIFO", "symlink": "outside the run"}[what]
    assert any(e["path"] == str(path) and wanted in e["reason"] for e in errors), errors
    for df in frames.values():
        assert not df.astype(str).apply(lambda col: col.str.contains("LEAKED")).to_numpy().any()
    frame = events_df if name == "events.jsonl" else tools_df if name == "prepared" else runs_df
    with pytest.raises(RunLoadError, match=str(path).replace("+", r"\+")):
        frame(root, strict=True, cache=False)


def test_a_symlinked_tool_folder_out_of_the_run_is_not_listed(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / make_tool(root, 0)
    folder = tool_records(run, "prepared")[0].parent
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere)
    df = tools_df(root, cache=False)
    assert any("outside the run" in e["reason"] and e["path"] == str(folder) for e in df.attrs["errors"]), df.attrs["errors"]
    runs = runs_df(root, cache=False)
    # the drafts out there are not this run's, and its seal lists drafts no longer here: how many it made is unknown
    assert pd.isna(runs["tool_calls"][0]) and pd.isna(runs["pending_approvals"][0])
    assert any("missing" in e["reason"] and "/prepared/" in e["path"] for e in runs.attrs["errors"]), runs.attrs["errors"]


def test_a_symlink_inside_the_run_is_followed(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)
    (run / "summary.json").rename(run / "summary.copy.json")
    (run / "summary.json").symlink_to("summary.copy.json")
    clear_cache()
    df = runs_df(root)
    assert df["task"][0] == "ask 0" and not [e for e in df.attrs["errors"] if "symlink" in e["reason"]]


def test_a_torn_last_line_is_reported_in_a_sealed_run_only(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    sealed, paused = root / make_llm(root, 0), root / make_paused(root, 1)
    n = len(lines_of(sealed)) + 1
    for run in (sealed, paused):
        with open(run / "events.jsonl", "ab") as fh:
            fh.write(b'{"phase": "mod')
    errors = errors_of(events_df, root)
    assert [e for e in errors if e["path"] == str(sealed / "events.jsonl") and e["line"] == n and "cut off" in e["reason"]]
    assert not [e for e in errors if e["path"] == str(paused / "events.jsonl")]  # a live run's last line may be half written


def test_manifest_mismatch_names_the_file(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)
    with open(run / "state.json", "a") as fh:
        fh.write(" ")
    (run / "learn.jsonl").unlink()
    errors = errors_of(runs_df, root)
    assert any(e["path"] == str(run / "state.json") and "manifest.json lists" in e["reason"] for e in errors), errors
    assert any(e["path"] == str(run / "learn.jsonl") and "missing" in e["reason"] for e in errors), errors


def test_a_strict_load_that_raises_leaves_a_usable_cache(tmp_path: Path) -> None:
    """A strict load stops at the first bad run; the runs it had read must still load afterwards."""
    root = tmp_path / "runs"
    make_llm(root, 0)
    bad = root / make_llm(root, 1)
    with open(bad / "events.jsonl", "ab") as fh:
        fh.write(b"not json\n" + json.dumps(lines_of(bad)[0]).encode() + b"\n")
    clear_cache()
    with pytest.raises(EventLogIntegrityError):
        events_df(root, strict=True)
    warm = events_df(root)
    clear_cache()
    pd.testing.assert_frame_equal(warm, events_df(root))


def test_store_readers_refuse_what_is_not_a_file_of_the_run(tmp_path: Path) -> None:
    root = tmp_path / "runs"
    run = root / make_llm(root, 0)
    (run / "events.jsonl").unlink()
    (run / "events.jsonl").mkdir()
    with pytest.raises(UnreadableRunFile, match="events.jsonl: a directory"):
        read_events(run / "events.jsonl")
    errors: list = []
    assert read_events(run / "events.jsonl", strict=False, errors=errors) == [] and "a directory" in errors[0].reason
    secret = tmp_path / "secret.json"
    secret.write_text('{"task": "LEAKED"}')
    (run / "summary.json").unlink()
    (run / "summary.json").symlink_to(secret)
    assert read_summary(run) is None  # never read from outside the run
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["files"] += ["not an entry", {"name": "../../etc/hostname"}, {"name": "summary.json", "size_bytes": 18}]
    (run / "manifest.json").write_text(json.dumps(manifest))
    check = verify_manifest(run)
    assert check.status == "mismatch"
    reasons = " | ".join(r for _, r in check.details)
    assert "not an object" in reasons and "not a relative path" in reasons and "summary.json: not a regular file" in reasons


def _as_nobody(fn):
    """Run ``fn()`` in a child process without root's file permissions; returns its result (JSON-able)."""
    if os.geteuid() != 0:
        return fn()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to nobody, answer through the pipe, never return into pytest
        try:
            os.setgid(65534)
            os.setuid(65534)
            payload = json.dumps({"ok": fn()})
        except BaseException as exc:
            payload = json.dumps({"error": f"{type(exc).__name__}: {exc}"})
        os.write(write, payload.encode())
        os._exit(0)
    os.close(write)
    chunks = []
    while chunk := os.read(read, 1 << 16):
        chunks.append(chunk)
    os.close(read)
    os.waitpid(pid, 0)
    answer = json.loads(b"".join(chunks))
    assert "error" not in answer, answer["error"]
    return answer["ok"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unreadable_files_are_reported(tmp_path: Path) -> None:
    base = Path(tempfile.mkdtemp(prefix="noesis-perm-"))  # a place the unprivileged child can walk to
    try:
        root = base / "runs"
        run = root / make_tool(root, 0)
        for path in [base, root, *run.rglob("*"), run]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        (run / "summary.json").chmod(0)
        (run / "events.jsonl").chmod(0)
        (run / "tool_invocations" / "approvals").chmod(0)
        for frame in (runs_df, events_df, tools_df, usage_df):  # import everything before the child drops privileges
            frame(str(run), cache=False)

        def load() -> dict:
            out = {}
            for frame in (runs_df, events_df, tools_df, usage_df):
                df = frame(str(root), cache=False)
                out[frame.__name__] = df.attrs["errors"]
            return out

        found = _as_nobody(load)
        # runs_df reads both files: one problem for the run, naming each file and why
        said = [e for e in found["runs_df"] if e["path"] == str(run)]
        assert len(said) == 1, found
        for name in ("summary.json", "events.jsonl"):
            assert f"{name}: not readable (permission denied)" in said[0]["reason"], found
        assert any(e["path"] == str(run / "events.jsonl") and "permission denied" in e["reason"] for e in found["events_df"]), (
            found
        )
        assert any(
            e["path"] == str(run / "tool_invocations" / "approvals") and "permission denied" in e["reason"]
            for e in found["tools_df"]
        ), found
    finally:
        for path in base.rglob("*"):
            if not path.is_symlink():
                path.chmod(stat.S_IRWXU)
        import shutil

        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.parametrize("times", [(None, "garbage"), ("__delete__", "now"), ("today", None), (5, "2025-13-45T00:00:00")])
def test_unreadable_call_times_in_an_unsealed_run_price_as_usage_df_does(tmp_path: Path, times) -> None:
    """An unsealed run's cost comes from its calls: a call's time that is missing, a word, a number or an impossible
    date is read as unknown whatever the call before it held (it never stops ``runs_df`` or means the moment of the load)."""
    root = tmp_path / "runs"
    run = root / make_llm(root, 1)  # two calls: gpt-4o and a model without a price
    for name in ("summary.json", "final.json", "manifest.json"):  # killed before it was sealed
        (run / name).unlink()
    events = lines_of(run)
    calls = [e for e in events if model_call(e)]
    for call, value in zip(calls, times, strict=True):
        if value == "__delete__":
            del call["timestamp"]
        else:
            call["timestamp"] = value
        # both priced, so a wrong day would show in the cost (a provider genai-prices does not know leaves it unpriced)
        call["payload"].update(model="gpt-4o", provider="openai")
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    first = runs_df(root, cache=False)
    usage = usage_df(root, cache=False)
    assert usage["timestamp"].isna().all()  # none of these is a time
    assert first["model_calls"][0] == 2
    assert first["cost_usd"][0] == pytest.approx(usage["cost_usd"].sum())
    again = runs_df(root)
    pd.testing.assert_frame_equal(first, again)
