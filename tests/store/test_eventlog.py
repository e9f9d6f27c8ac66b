import json
import threading

import pytest

from noesis_nb.errors import EventLogIntegrityError, RunGoneError, RunSealedError
from noesis_nb.store import EventWriter, iter_events, read_events


def _line(i: int, *, compact: bool) -> str:
    record = {
        "id": f"e{i}",
        "timestamp": f"2025-01-01T00:00:0{i}.000000+00:00",
        "episode_id": "ep_x",
        "phase": "act",
        "payload": {"n": i, "text": "→ naïve"},
        "evidence_ids": [],
    }
    if compact:
        return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(record)  # older writers: spaced, insertion order, ASCII escapes


def test_reads_both_serialisations_and_lines_without_id(tmp_path):
    path = tmp_path / "events.jsonl"
    lines = [_line(1, compact=False), _line(2, compact=True), json.dumps({"timestamp": "t", "phase": "insight", "payload": {}})]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    events = read_events(path)
    assert [e.get("id") for e in events] == ["e1", "e2", None]
    assert events[0]["payload"]["text"] == events[1]["payload"]["text"] == "→ naïve"


def test_torn_last_line_is_not_an_error_but_a_torn_middle_line_is(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(_line(1, compact=True) + "\n" + '{"id": "e2", "phas', encoding="utf-8")
    assert [e["id"] for e in read_events(path, strict=True)] == ["e1"]
    assert [e["id"] for e in iter_events(path, strict=True)] == ["e1"]
    path.write_text(_line(1, compact=True) + "\n" + '{"id": "e2", "phas\n' + _line(3, compact=True) + "\n", encoding="utf-8")
    with pytest.raises(EventLogIntegrityError) as info:
        read_events(path, strict=True)
    assert info.value.corruption.line_number == 2 and str(path) in str(info.value)
    errors = []
    assert [e["id"] for e in read_events(path, strict=False, errors=errors)] == ["e1", "e3"]
    assert [(c.line_number, c.path) for c in errors] == [(2, str(path))]


def test_non_object_line_and_invalid_utf8_are_reported(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(b"[1, 2]\n\xff\xfe\n" + _line(1, compact=True).encode() + b"\n")
    errors = []
    assert len(read_events(path, strict=False, errors=errors)) == 1
    assert [c.reason.split(" ")[0] for c in errors] == ["a", "invalid"]
    assert "not an object" in errors[0].reason and "UTF-8" in errors[1].reason


def test_writer_appends_whole_lines_with_monotonic_timestamps_from_many_threads(tmp_path):
    writer = EventWriter(tmp_path / "events.jsonl")

    def work(k: int) -> None:
        for i in range(200):
            writer.append({"id": f"{k}-{i}", "phase": "act", "payload": {"k": k, "i": i, "blob": "x" * 50}})

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    raw = (tmp_path / "events.jsonl").read_bytes().split(b"\n")
    assert raw[-1] == b"" and len(raw) == 801
    events = [json.loads(line) for line in raw[:-1]]  # every line whole
    stamps = [e["timestamp"] for e in events]
    assert stamps == sorted(stamps)
    assert {e["id"] for e in events} == {f"{k}-{i}" for k in range(4) for i in range(200)}


def test_writer_refuses_appends_after_sealing_and_on_a_sealed_dir(tmp_path):
    writer = EventWriter(tmp_path / "events.jsonl")
    writer.append({"id": "a", "phase": "start", "payload": {}})
    writer.seal()
    with pytest.raises(RunSealedError):
        writer.append({"id": "b", "phase": "act", "payload": {}})
    (tmp_path / "manifest.json").write_text("{}")
    with pytest.raises(RunSealedError):
        EventWriter(tmp_path / "events.jsonl").append({"id": "c", "phase": "act", "payload": {}})
    assert [e["id"] for e in read_events(tmp_path / "events.jsonl")] == ["a"]


def test_writer_clamps_an_earlier_timestamp_to_the_last_one(tmp_path):
    writer = EventWriter(tmp_path / "events.jsonl")
    writer.append({"id": "a", "timestamp": "2030-01-01T00:00:00.000000+00:00", "phase": "x", "payload": {}})
    second = writer.append({"id": "b", "timestamp": "2020-01-01T00:00:00.000000+00:00", "phase": "x", "payload": {}})
    assert second["timestamp"] == "2030-01-01T00:00:00.000000+00:00"
    reopened = EventWriter(tmp_path / "events.jsonl")
    assert reopened.count == 2 and reopened.last_event_id == "b"


def test_reopening_a_log_with_a_torn_last_line_cuts_the_fragment_first(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text(_line(1, compact=True) + "\n" + '{"id": "e2", "phas', encoding="utf-8")
    writer = EventWriter(path)
    writer.append({"id": "e3", "phase": "act", "payload": {}})
    assert [e["id"] for e in read_events(path, strict=True)] == ["e1", "e3"]
    assert writer.count == 2


def test_event_ids_do_not_follow_the_users_random_seed():
    import random

    from noesis_nb.ids import new_event_id

    random.seed(7)
    first = [new_event_id() for _ in range(3)]
    random.seed(7)
    assert [new_event_id() for _ in range(3)] != first


@pytest.mark.parametrize("newline", [True, False])
def test_streaming_never_holds_a_line_past_its_limit_and_says_which_line_it_skipped(tmp_path, monkeypatch, newline):
    from noesis_nb.store import eventlog

    monkeypatch.setattr(eventlog, "STREAM_LINE_LIMIT", 3 << 20)
    monkeypatch.setattr(eventlog, "_CHUNK", 1 << 20)
    path = tmp_path / "events.jsonl"
    near = json.dumps({"id": "e2", "payload": {"text": "x" * ((3 << 20) - 100)}})  # under the limit: read whole
    with open(path, "w", encoding="utf-8") as log:
        log.write(_line(1, compact=True) + "\n" + near + "\n")
        log.write('{"id": "big", "payload": {"text": "' + "y" * (5 << 20) + '"}}' + ("\n" if newline else ""))
        if newline:
            log.write(_line(4, compact=True) + "\n")
    seen = []
    real_readline = None

    class Spy:  # the longest bytes object the reader is handed at once
        def __init__(self, fh):
            self.fh = fh

        def readline(self, size=-1):
            chunk = real_readline(size)
            seen.append(len(chunk))
            return chunk

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

    real_open = eventlog.open_file

    def spying_open(*args):
        nonlocal real_readline
        fh = real_open(*args)
        real_readline = fh.readline
        return Spy(fh)

    monkeypatch.setattr(eventlog, "open_file", spying_open)
    errors = []
    ids = [e["id"] for e in iter_events(path, strict=False, errors=errors)]
    assert ids == (["e1", "e2", "e4"] if newline else ["e1", "e2"])
    assert [c.line_number for c in errors] == [3] and "more than a streamed line is read at" in errors[0].reason
    assert max(seen) <= (1 << 20) + 1, "a chunk larger than asked"
    with pytest.raises(EventLogIntegrityError, match="line 3"):
        list(iter_events(path, strict=True))


_FILE_SIZE_LIMIT = """
import errno, json, resource, signal, sys
from noesis_nb.errors import RunWriteError
from noesis_nb.store import EventWriter
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # past the limit a write fails (EFBIG) instead of killing the process
writer = EventWriter(sys.argv[1])
writer.append({"id": "a", "phase": "note", "payload": {"text": "first"}})
size = writer._size
soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 40, hard))  # the next line fits only in part
try:
    writer.append({"id": "b", "phase": "note", "payload": {"text": "x" * 400}})
except RunWriteError as exc:
    print(json.dumps({"errno": exc.errno, "message": str(exc), "size": writer._size}))
resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))  # room again: the same writer goes on
writer.append({"id": "c", "phase": "note", "payload": {"text": "third"}})
writer.close()
"""


def test_a_line_the_disk_takes_only_in_part_is_taken_back_and_the_log_goes_on_whole(tmp_path):
    """A write that crosses the file size limit is short (the kernel takes what fits); the writer must not leave
    that part-line for the next event to glue onto, and the error says what happened and what to do."""
    import errno
    import subprocess
    import sys

    log = tmp_path / "events.jsonl"
    out = subprocess.run([sys.executable, "-c", _FILE_SIZE_LIMIT, str(log)], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    refused = json.loads(out.stdout)
    assert refused["errno"] == errno.EFBIG
    assert refused["message"].startswith(f"could not write {log}: File too large (EFBIG);") and "ulimit -f" in refused["message"]
    events = read_events(log, strict=True)  # every line whole: no part of "b" is left between "a" and "c"
    assert [e["id"] for e in events] == ["a", "c"]


def test_a_run_folder_removed_before_its_log_is_opened_is_said_gone(tmp_path):
    run_dir = tmp_path / "ep_gone"  # a resume found it, then someone removed it: one clear error, no folder made again
    with pytest.raises(RunGoneError, match="ep_gone"):
        EventWriter(run_dir / "events.jsonl")
    assert not run_dir.exists()
