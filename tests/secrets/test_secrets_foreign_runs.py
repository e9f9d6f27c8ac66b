"""Runs noesis_nb did not write: their secrets are redacted in every frame, figure and load report.

A run Noēsis wrote (the fixture), copied into the runs directory with secrets planted in its
events and documents, was never screened: the frames read it as it is. What they show is checked
against the secret corpus; what holds no secret (the run's own ids, names and texts) is kept.
A run noesis_nb wrote and sealed is read as written, unless it was edited after it was sealed; "sealed by
noesis_nb" is a keyed tag in final.json (``store.seal``), so a run crafted to look like one is screened.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb import plots
from noesis_nb.frames import Column, eventblocks, runs
from noesis_nb.store import write_manifest
from tests.hardening.secret_corpus import corpus, leaks

FIXTURE = Path(__file__).parents[1] / "fixtures" / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
SHAPES = corpus(random.SystemRandom().randrange(2**32))
HEX_KEY = f"{random.SystemRandom().getrandbits(256):064x}"


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture()
def root(tmp_path: Path) -> Path:
    """The fixture run copied in, each shape's text in an event's payload, tokens as agents and in the summary."""
    run = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    events = _lines(run / "events.jsonl")
    for i, shape in enumerate(SHAPES):
        event = events[i % len(events)]
        event["payload"][f"note_{i}"] = shape.text
    events[1]["agent_id"] = SHAPES[0].value
    events[2]["payload"]["args"] = {"header": f"Authorization: Bearer {SHAPES[1].value}"}
    events[3]["timestamp"] = SHAPES[2].value  # no time: reported in attrs["errors"], quoting it
    events[4]["trace"] = {"env": SHAPES[6].env}  # read only by a column the user asks for
    events[5]["id"] = HEX_KEY  # a bare hex string as an event id: no UUID, and a key's shape
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    summary = json.loads((run / "summary.json").read_text())
    summary["task"] = SHAPES[3].text
    summary["tags"] = {"deploy": SHAPES[4].text, "env": [SHAPES[8].text], "creds": {"note": SHAPES[9].text}}
    summary["started_at"] = [SHAPES[5].text]  # no text: reported, quoting its start
    summary["ports"] = {"store": SHAPES[7].text}
    (run / "summary.json").write_text(json.dumps(summary))
    draft = f"draft:{run.name}:req_1"  # a tool call's records, as another runtime wrote them
    docs = {
        "prepared": {
            "draft_id": draft,
            "request_id": SHAPES[10].text,
            "protocol": "python",
            "status": "approved",
            "tool": {"namespace": "repo", "name": "push"},
        },
        "approvals": {
            "draft_id": draft,
            "status": "approved",
            "approver_id": SHAPES[11].text,
            "reason": SHAPES[12].text,
            "decided_at": "2025-01-01T00:00:01Z",
        },
        "executions": {"status": "succeeded", "reason_code": SHAPES[13].text},
    }
    for folder, doc in docs.items():
        (run / "tool_invocations" / folder).mkdir(parents=True)
        (run / "tool_invocations" / folder / f"{draft}.json").write_text(json.dumps(doc))
    return tmp_path


def _blob(df: pd.DataFrame) -> bytes:
    return (df.to_json(default_handler=str, date_format="iso") + json.dumps(df.attrs, default=str)).encode()


def test_the_frames_of_a_run_noesis_nb_did_not_write_show_no_secret(root: Path) -> None:
    events = noesis_nb.events_df(root, cache=False, columns=[Column("trace", "trace")])
    runs = noesis_nb.runs_df(root, cache=False, columns=[Column("ports", "summary.ports")])
    shown = [
        ("events_df", _blob(events)),
        ("runs_df", _blob(runs)),
        ("tools_df", _blob(noesis_nb.tools_df(root, cache=False))),
        ("usage_df", _blob(noesis_nb.usage_df(root, cache=False))),
        ("events_df payload column", repr(events["payload"].tolist()).encode()),
    ]
    assert leaks(SHAPES, shown) == []
    assert not any(HEX_KEY.encode() in blob for _, blob in shown)
    assert events.attrs["errors"] and runs.attrs["errors"]  # the bad times are reported, redacted


def test_the_figures_of_such_a_run_show_no_secret(root: Path) -> None:
    events = noesis_nb.events_df(root, cache=False)
    runs = noesis_nb.runs_df(root, cache=False)
    figures = [
        ("episode_timeline", plots.episode_timeline(events).to_json()),
        ("success_by_adapter", plots.success_by_adapter(runs).to_json()),
        ("duration_by_adapter", plots.duration_by_adapter(runs).to_json()),
    ]
    assert leaks(SHAPES, [(name, fig.encode()) for name, fig in figures]) == []


def test_what_is_no_secret_in_such_a_run_is_kept(root: Path) -> None:
    written = _lines(FIXTURE / "events.jsonl")
    events = noesis_nb.events_df(root, cache=False)
    ids = events["event_id"].fillna("").tolist()
    assert ids[:5] + ids[6:] == [e.get("id", "") for e in written[:5] + written[6:]]  # [5] is a hex key
    assert events["phase"].tolist() == [e["phase"] for e in written]
    agents = events["agent_id"].astype(object).tolist()
    assert agents[:1] + agents[2:] == [e.get("agent_id") for e in written[:1] + written[2:]]  # [1] holds a token
    kept = events["payload"].tolist()
    for row, event in zip(kept, written):
        for key, value in event["payload"].items():
            assert row[key] == value  # the run's own payload keys, beside the planted notes
    runs = noesis_nb.runs_df(FIXTURE.parent, cache=False)
    assert runs["task"].tolist() == [json.loads((FIXTURE / "summary.json").read_text())["task"]]


async def _plain_agent(task: str, ctx: Any) -> str:
    ctx.emit("note", {"text": "nothing secret here"})
    return "done"


@pytest.fixture()
def written(tmp_path: Path) -> Path:
    """A run noesis_nb wrote and sealed (its manifest records the size of events.jsonl)."""
    runs = tmp_path / "runs"
    episode_id = noesis_nb.solve("plain", using=_plain_agent, runs_dir=runs, approver="auto")
    assert (runs / episode_id / "manifest.json").exists()
    return runs / episode_id


def _plant(run: Path, text: str, agent: str, task: str) -> None:
    """A sealed run edited by hand: an event appended with a secret in its payload and as its agent, and
    a secret in the summary's task."""
    events = _lines(run / "events.jsonl")
    event = {**events[-1], "id": "planted", "agent_id": agent, "payload": {"note": text}}
    with (run / "events.jsonl").open("a") as f:
        f.write(json.dumps(event) + "\n")
    summary = json.loads((run / "summary.json").read_text())
    summary["task"] = task
    (run / "summary.json").write_text(json.dumps(summary))


def test_a_run_noesis_nb_wrote_then_edited_on_disk_is_screened(written: Path) -> None:
    _plant(written, SHAPES[0].text, SHAPES[1].value, SHAPES[2].text)
    root = written.parent
    shown = [
        ("events_df", _blob(noesis_nb.events_df(root, cache=False))),
        ("runs_df", _blob(noesis_nb.runs_df(root, cache=False))),
        ("tools_df", _blob(noesis_nb.tools_df(root, cache=False))),
        ("usage_df", _blob(noesis_nb.usage_df(root, cache=False))),
    ]
    assert leaks(SHAPES[:3], shown) == []


def test_a_run_noesis_nb_wrote_is_read_as_written(written: Path) -> None:
    """What it screened as it wrote is not screened again: its events read back as they are on disk."""
    on_disk = _lines(written / "events.jsonl")
    events = noesis_nb.events_df(written.parent, cache=False)
    assert events["payload"].tolist() == [e["payload"] for e in on_disk]
    assert events["agent_id"].astype(object).tolist() == [e.get("agent_id") for e in on_disk]


def test_a_run_edited_in_place_keeping_its_size_is_screened(tmp_path: Path) -> None:
    """The manifest's size still matches; the edit made events.jsonl newer than the manifest."""
    planted = json.dumps(SHAPES[0].text)[1:-1].encode()  # as it sits inside a JSON string
    filler = "f" * len(planted)

    async def notes(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": filler})
        return "done"

    runs = tmp_path / "runs"
    episode_id = noesis_nb.solve("same size", using=notes, runs_dir=runs)
    path = runs / episode_id / "events.jsonl"
    data = path.read_bytes()
    assert data.count(filler.encode()) == 1
    time.sleep(0.02)  # a later modification time than the seal's
    path.write_bytes(data.replace(filler.encode(), planted))
    assert leaks(SHAPES[:1], [("events_df", _blob(noesis_nb.events_df(runs, cache=False)))]) == []


def test_an_integrations_run_noesis_nb_wrote_is_taken_as_screened(tmp_path: Path) -> None:
    """An imported trace is written (and screened) by noesis_nb: it carries the marker and its manifest, so
    the frames read it as written rather than screening it again on every cold load."""
    from noesis_nb.frames.provenance import written_as
    from noesis_nb.frames.rowsource import read_run_source
    from noesis_nb.frames.source import resolve_source
    from noesis_nb.integrations.noetic import import_noetic

    log = [{"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}}]
    harness = {"usage": {"inputTokens": 900, "outputTokens": 40}, "cost": 0.0021, "text": "done", "items": []}
    runs = tmp_path / "runs"
    import_noetic(log, harness, runs_dir=runs)
    [ref] = resolve_source(runs)
    source = read_run_source(ref)
    stat = ref.stat_events(ref.file("events.jsonl"))
    assert source == "noetic" and stat is not None
    assert written_as(ref, source, stat[0], stat, ref.fs.stat(ref.file("summary.json")))[0]


def _shown(root: Path) -> list[tuple[str, bytes]]:
    return [
        ("events_df", _blob(noesis_nb.events_df(root, cache=False))),
        ("runs_df", _blob(noesis_nb.runs_df(root, cache=False))),
        ("tools_df", _blob(noesis_nb.tools_df(root, cache=False))),
        ("usage_df", _blob(noesis_nb.usage_df(root, cache=False))),
    ]


@pytest.mark.parametrize("seal", ["none", "forged"])
def test_a_run_crafted_to_look_sealed_by_noesis_nb_is_screened(written: Path, seal: str) -> None:
    """The marker, a manifest that verifies and a log older than final.json (``touch``) are all a crafter's to
    make; a tag under the user's key is not: secrets in its payload, tags and task are redacted in every frame."""
    run = written
    events = _lines(run / "events.jsonl")
    events[-1]["payload"]["note"] = SHAPES[0].text
    (run / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    summary = json.loads((run / "summary.json").read_text())
    assert "x-noesis_nb" in summary
    summary["task"] = SHAPES[1].text
    summary["tags"] = {"deploy": SHAPES[2].text}
    (run / "summary.json").write_text(json.dumps(summary))
    past = time.time_ns() - 3_600 * 10**9
    for name in ("events.jsonl", "summary.json"):
        os.utime(run / name, ns=(past, past))
    final = json.loads((run / "final.json").read_text())
    stats = [[(run / n).stat().st_size, (run / n).stat().st_mtime_ns] for n in ("events.jsonl", "summary.json")]
    forged = {"seal": {"events": stats[0], "summary": stats[1], "tag": f"{random.getrandbits(256):064x}"}}
    final["x-noesis_nb"] = forged if seal == "forged" else {}
    (run / "final.json").write_text(json.dumps(final))
    (run / "manifest.json").unlink()
    write_manifest(run, run.name)
    assert noesis_nb.runs_df(run.parent, cache=False)["manifest_ok"].tolist() == [True]
    assert leaks(SHAPES[:3], _shown(run.parent)) == []


def _count_screening(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Calls of the functions that screen what the frames read (events, then runs_df's texts)."""
    calls = {"events": 0, "runs": 0}
    records, texts = eventblocks.shown_records, runs._shown_text

    def counted_records(evs: Any, *revealed: Any) -> Any:
        calls["events"] += 1
        return records(evs, *revealed)

    def counted_texts(row: Any) -> Any:
        calls["runs"] += 1
        return texts(row)

    monkeypatch.setattr(eventblocks, "shown_records", counted_records)
    monkeypatch.setattr(runs, "_shown_text", counted_texts)
    return calls


def test_a_run_noesis_nb_sealed_is_read_unscreened_also_after_a_copy_keeping_times(
    written: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copied = tmp_path / "copied"
    shutil.copytree(written.parent, copied, copy_function=shutil.copy2)
    calls = _count_screening(monkeypatch)
    for root in (written.parent, copied):
        noesis_nb.events_df(root, cache=False)
        noesis_nb.runs_df(root, cache=False)
    assert calls == {"events": 0, "runs": 0}


_SEAL_ELSEWHERE = """
import sys
import noesis_nb

async def agent(task, ctx):
    ctx.emit("note", {"text": "nothing secret here"})
    return "done"

print(noesis_nb.solve("plain", using=agent, runs_dir=sys.argv[1], approver="auto"))
"""


def test_a_run_sealed_under_another_users_key_is_screened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another account (another home, so another key) seals its runs as its own: this user's frames screen them."""
    home = tmp_path / "other-home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_DATA_HOME": str(home / ".local")}
    runs_dir = tmp_path / "runs"
    subprocess.run([sys.executable, "-c", _SEAL_ELSEWHERE, str(runs_dir)], env=env, check=True, timeout=300)
    calls = _count_screening(monkeypatch)
    noesis_nb.events_df(runs_dir, cache=False)
    noesis_nb.runs_df(runs_dir, cache=False)
    assert calls == {"events": 1, "runs": 1}


def test_an_edit_after_the_seal_that_restores_the_mtime_is_screened(written: Path) -> None:
    """``os.utime`` sets the old time back; the size the seal recorded has moved."""
    log = written / "events.jsonl"
    before = log.stat()
    _plant(written, SHAPES[0].text, SHAPES[1].value, SHAPES[2].text)
    for name in ("events.jsonl", "summary.json"):
        os.utime(written / name, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert leaks(SHAPES[:3], _shown(written.parent)) == []


def test_on_remote_storage_the_seal_and_the_sizes_decide(written: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A remote listing has no time of ours: a sealed run is read as written while its sizes are as sealed."""
    fsspec = pytest.importorskip("fsspec")
    memory = fsspec.filesystem("memory")
    base = f"seal-{random.getrandbits(32):08x}"
    for path in sorted(p for p in written.rglob("*") if p.is_file()):
        memory.pipe_file(f"/{base}/runs/{written.name}/{path.relative_to(written).as_posix()}", path.read_bytes())
    calls = _count_screening(monkeypatch)
    noesis_nb.events_df(f"memory://{base}/runs", cache=False)
    assert calls["events"] == 0
    events = f"/{base}/runs/{written.name}/events.jsonl"
    memory.pipe_file(events, memory.cat_file(events) + b"\n")  # one byte more than sealed
    try:
        noesis_nb.events_df(f"memory://{base}/runs", cache=False)
    finally:
        memory.rm(f"/{base}", recursive=True)
    assert calls["events"] == 1


def test_the_noesis_readers_of_such_a_run_show_no_secret_either(root: Path) -> None:
    """``ns.list_runs``, ``ns.summary.read``, ``ns.events.read`` (and ``noesis_nb.list_runs``) returned the files as
    written, secrets and all, where the frames, ``show`` and ``%noesis list`` redact them."""
    episode = FIXTURE.name
    noesis_nb.ns.set(runs_dir=str(root))
    try:
        shown = [
            ("ns.list_runs", json.dumps(noesis_nb.ns.list_runs(), default=str).encode()),
            ("list_runs", json.dumps(noesis_nb.list_runs(runs_dir=root), default=str).encode()),
            ("ns.summary.read", json.dumps(noesis_nb.ns.summary.read(episode), default=str).encode()),
            ("ns.events.read", json.dumps(read := noesis_nb.ns.events.read(episode), default=str).encode()),
            ("ns.events.read stream", json.dumps(list(noesis_nb.ns.events.read(episode, stream=True)), default=str).encode()),
        ]
    finally:
        noesis_nb.ns.set(runs_dir=None)
    assert leaks(SHAPES[:10], shown) == []
    assert [e["phase"] for e in read] == [e["phase"] for e in _lines(FIXTURE / "events.jsonl")]  # the rest is kept
