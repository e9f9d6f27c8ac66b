"""A path named by a write or read error is shown with its secrets redacted: a run root or a run folder can hold a
key (a root named after a deployment's token, a task's text with one in a folder name) and the message is printed
into a notebook that is saved and shared. The message still names the file and says what to do."""

import pytest

from noesis_nb._jsonio import atomic_write_bytes, atomic_write_json
from noesis_nb.errors import EventLogIntegrityError, RunGoneError, RunWriteError
from noesis_nb.secrets.hiddenparts import unmarked  # a hidden folder is shown [REDACTED:<mark>]
from noesis_nb.store import read_events

KEY = "sk-proj-" + "Qm7vR2xK9pL4wT8nB3cF6hJ1dS5gZ0aY"


def _root(tmp_path):
    root = tmp_path / f"runs-{KEY}" / "ep_01M90802TAZB1PJ1XQQ3SMC5DH"
    root.mkdir(parents=True)
    return root


@pytest.mark.parametrize("write", [lambda p: atomic_write_json(p, {"a": 1}), lambda p: atomic_write_bytes(p, b"{}\n")])
def test_a_folder_in_a_documents_place_is_named_without_the_key_in_its_path(tmp_path, write):
    run = _root(tmp_path)
    (run / "summary.json").mkdir()  # a crafted run: a folder where the document goes
    with pytest.raises(RunWriteError) as info:
        write(run / "summary.json")
    message = unmarked(str(info.value))
    assert KEY not in message and KEY[:20] not in message
    assert "[REDACTED]" in message
    assert "ep_01M90802TAZB1PJ1XQQ3SMC5DH/summary.json" in message  # the file is still named
    assert "move that folder out of the run" in message  # and the fix
    assert KEY not in repr(info.value)
    assert info.value.filename == str(run / "summary.json")  # a program that catches it still gets the real path


def test_a_corrupt_event_line_is_named_without_the_key_in_its_path(tmp_path):
    run = _root(tmp_path)
    log = run / "events.jsonl"
    log.write_bytes(b'{"id": "a", "phase": "act"}\n[1, 2]\n{"id": "b", "phase": "act"}\n')
    with pytest.raises(EventLogIntegrityError) as info:
        read_events(log, strict=True)
    message = unmarked(str(info.value))
    assert KEY not in message and "[REDACTED]" in message
    assert "events.jsonl, line 2" in message


def test_a_run_moved_away_names_both_places_without_the_key(tmp_path):
    run = _root(tmp_path)
    moved = tmp_path / f"elsewhere-{KEY}"
    run.rename(moved)
    message = unmarked(str(RunGoneError(run, str(moved))))
    assert KEY not in message
    assert f"moved to {tmp_path}/[REDACTED] " in message and f"resume_run('{tmp_path}/[REDACTED]')" in message
    log_only = unmarked(str(RunGoneError(moved, str(tmp_path / f"log-{KEY}.jsonl"), log_only=True)))
    assert KEY not in log_only and f"is now {tmp_path}/[REDACTED]" in log_only
    assert f"move it back to {tmp_path}/[REDACTED]/events.jsonl" in log_only


def test_a_frame_load_refused_under_strict_names_the_file_without_the_key(tmp_path):
    from noesis_nb.frames import RunLoadError, runs_df

    run = _root(tmp_path)
    (run / "events.jsonl").write_bytes(b'{"id": "a", "phase": "act"}\n[1, 2]\n{"id": "b", "phase": "act"}\n')
    (run / "summary.json").write_bytes(b'{"episode_id": "ep_01M90802TAZB1PJ1XQQ3SMC5DH", "metrics": ')  # cut short
    with pytest.raises(RunLoadError) as info:
        runs_df(run.parent, strict=True)
    message = unmarked(str(info.value))
    assert KEY not in message and "[REDACTED]/ep_01M90802TAZB1PJ1XQQ3SMC5DH/" in message
    assert "strict=False" in message


def test_a_run_file_read_or_written_in_a_crafted_run_is_named_without_the_key(tmp_path):
    import os

    from noesis_nb.store import EventWriter
    from noesis_nb.store.paths import UnsafeRunPathError, run_path
    from noesis_nb.store.runfiles import UnreadableRunFile

    run = _root(tmp_path)
    os.mkfifo(run / "events.jsonl")  # a FIFO where the log goes: never read, never written
    with pytest.raises(UnreadableRunFile) as read:
        read_events(run / "events.jsonl", strict=True)
    (run / "events.jsonl").unlink()
    (run / "events.jsonl").mkdir()
    with pytest.raises(UnsafeRunPathError) as written:
        EventWriter(run / "events.jsonl").append({"phase": "act", "payload": {}})
    (run / "tool_invocations").symlink_to(tmp_path)
    with pytest.raises(UnsafeRunPathError) as linked:
        run_path(run, "tool_invocations", "approvals", "x.json", mkdir=True)
    for info in (read, written, linked):
        message = unmarked(str(info.value))
        assert KEY not in message and "[REDACTED]/ep_01M90802TAZB1PJ1XQQ3SMC5DH/" in message
