"""Sealing lists ``events.jsonl`` from the hash its writer kept, and falls back to reading it whenever that could be wrong."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path

import orjson

import noesis_nb
from noesis_nb.store import EventWriter, artifacts, read_json, verify_manifest
from noesis_nb.store.artifacts import write_manifest


def _sha(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def _listed(run: Path, name: str) -> dict:
    return next(f for f in read_json(run / "manifest.json")["files"] if f["name"] == name)


def test_a_long_episode_is_sealed_without_reading_its_events_again(runs_dir: Path, monkeypatch):
    hashed: list[str] = []
    real = artifacts.sha256_file
    monkeypatch.setattr(artifacts, "sha256_file", lambda p: hashed.append(Path(p).name) or real(p))

    async def chatty(task, ctx):
        for i in range(3000):
            ctx.emit("reason", {"step": i, "text": f"thought {i}"})
        return "done"

    ep = asyncio.run(noesis_nb.solve_async("long", using=chatty, runs_dir=runs_dir))
    run = runs_dir / ep
    assert "events.jsonl" not in hashed and "summary.json" in hashed  # the small documents are still hashed
    entry = _listed(run, "events.jsonl")
    assert entry["sha256"] == _sha(run / "events.jsonl") and entry["size_bytes"] == (run / "events.jsonl").stat().st_size
    assert verify_manifest(run).ok
    events = [orjson.loads(line) for line in (run / "events.jsonl").read_bytes().splitlines()]
    before_insight = events[: next(i for i, e in enumerate(events) if e["phase"] == "insight")]
    metrics = read_json(run / "summary.json")["metrics"]
    for phase in ("plan", "act", "reflect", "interpret"):  # counted while recording, equal to a count of the file
        assert metrics[f"{phase}_count"] == sum(e["phase"] == phase for e in before_insight), phase


def _writer_with(run: Path, n: int, start: int = 0) -> EventWriter:
    writer = EventWriter(run / "events.jsonl")
    for i in range(start, start + n):
        writer.append({"id": f"e{i}", "phase": "reason", "payload": {"i": i}})
    return writer


def test_a_reopened_log_is_hashed_from_its_first_byte(tmp_path: Path):
    run = tmp_path / "ep_x"
    run.mkdir()
    _writer_with(run, 700).close()  # another process wrote these, then stopped (a pause)
    second = _writer_with(run, 300, start=700)
    second.close()
    assert second.closed_as is not None and "sha256:" + second.closed_as.sha256 == _sha(run / "events.jsonl")


def test_a_log_changed_after_its_writer_closed_is_read_again(tmp_path: Path):
    run = tmp_path / "ep_y"
    run.mkdir()
    writer = _writer_with(run, 50)
    writer.close()
    path = run / "events.jsonl"
    data = bytearray(path.read_bytes())
    data[data.index(b'"i":7')] = ord(b" ")  # the same size, edited in place
    with open(path, "r+b") as fh:
        fh.write(bytes(data))
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000))
    write_manifest(run, "ep_y", known={"events.jsonl": writer.closed_as})
    assert _listed(run, "events.jsonl")["sha256"] == _sha(path)


def test_a_replaced_log_is_read_again(tmp_path: Path):
    run = tmp_path / "ep_z"
    run.mkdir()
    writer = _writer_with(run, 20)
    writer.close()
    path = run / "events.jsonl"
    replacement = path.read_bytes().replace(b'"i":3', b'"i":4')
    tmp = run / "events.jsonl.new"
    tmp.write_bytes(replacement)
    st = path.stat()
    os.utime(tmp, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size and time, another file (a rewrite by rename)
    os.replace(tmp, path)
    write_manifest(run, "ep_z", known={"events.jsonl": writer.closed_as})
    assert _listed(run, "events.jsonl")["sha256"] == _sha(path)


def test_lines_appended_by_someone_else_leave_no_kept_hash(tmp_path: Path):
    run = tmp_path / "ep_w"
    run.mkdir()
    writer = _writer_with(run, 10)
    with open(run / "events.jsonl", "ab") as fh:
        fh.write(orjson.dumps({"id": "intruder", "phase": "reason", "payload": {}}) + b"\n")
    writer.close()
    assert writer.closed_as is None
    write_manifest(run, "ep_w", known={})
    assert _listed(run, "events.jsonl")["sha256"] == _sha(run / "events.jsonl")
