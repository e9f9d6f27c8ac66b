"""A crafted corpus of sealed and unsealed runs for the event frames: what a cold load checks per run besides the lines.

``build(root)`` writes the same events and documents every time: runs sealed as noesis_nb seals its own (a
``final.json`` seal, a manifest of sizes), some changed after their seal (a line appended, the summary rewritten,
the manifest listing another size, the last line cut), a seal cut short, live runs with a torn last line, runs
another system wrote (``tags.source``, ``payload.source``), events naming another episode (one hidden from a byte
count by a payload naming the run), a run with no summary, and the Noēsis runs of ``tests/fixtures``. Files' times
differ from one build to the next; nothing a frame holds depends on them.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
_FIXTURE_RUNS = ("noesis-smoke-run", "noesis-adr008-allow-run")


def _ts(n: int) -> str:
    return f"2025-03-01T{n // 3_600_000 % 24:02d}:{n // 60_000 % 60:02d}:{n // 1000 % 60:02d}.{n % 1000:03d}000+00:00"


def _events(rnd: random.Random, ep: str, size: int) -> list[dict[str, Any]]:
    t = rnd.randint(0, 40_000_000)
    out: list[dict[str, Any]] = []
    for n in range(size):
        t += rnd.randint(1, 900)
        phase = "start" if n == 0 else "terminate" if n == size - 1 and size > 1 else rnd.choice(["model", "tool", "reason"])
        payload: dict[str, Any] = {"text": f"step {n}"}
        if phase == "model":
            payload = {"event_name": "model.call", "model": rnd.choice(["gpt-4o", "gpt-4o-mini"]), "provider": "openai"}
            payload.update(input_tokens=rnd.randint(10, 900), output_tokens=rnd.randint(1, 90), latency_ms=12.5)
        elif phase == "tool":
            payload = {"event_name": "tool.requested", "tool": "read_file", "request_id": f"req_{n}", "protocol": "python"}
        elif phase == "terminate":
            payload = {"status": "success"}
        event = {"id": f"{ep}-{n:05d}", "episode_id": ep, "agent_id": "system", "phase": phase, "payload": payload}
        event["timestamp"] = _ts(t)
        if out:
            event["caused_by"] = out[-1]["id"]
        out.append(event)
    return out


def _lines(events: list[dict[str, Any]]) -> bytes:
    return b"".join((json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n").encode() for e in events)


def _write(run: Path, ep: str, data: bytes, *, marker: bool = True, tags: dict[str, Any] | None = None) -> None:
    run.mkdir(parents=True)
    (run / "events.jsonl").write_bytes(data)
    summary: dict[str, Any] = {"episode_id": ep, "status": "success", "tags": tags or {}}
    if marker:
        summary["x-noesis_nb"] = {"tool_requests": 0}
    (run / "summary.json").write_text(json.dumps(summary, indent=2))
    (run / "state.json").write_text(json.dumps({"episode": {"id": ep, "tags": tags or {}}}))


def _seal(run: Path, ep: str, *, manifest: bool = True) -> None:
    """Seal the run as noesis_nb does: final.json with this user's seal, then a manifest of every file's size."""
    from noesis_nb.store.seal import SEAL_KEY, make_seal

    final = {"episode_id": ep, "outcome": "success", "schema_version": "final/2.0.0"}
    (run / "final.json").write_text(json.dumps({**final, "x-noesis_nb": {SEAL_KEY: make_seal(run, ep)}}, indent=2))
    if not manifest:
        return
    files = []
    for path in sorted(p for p in run.rglob("*") if p.is_file()):
        data = path.read_bytes()
        digest = "sha256:" + hashlib.sha256(data).hexdigest()
        files.append({"name": path.relative_to(run).as_posix(), "sha256": digest, "size_bytes": len(data)})
    (run / "manifest.json").write_text(json.dumps({"schema_version": "manifest/1.0", "episode_id": ep, "files": files}))


def build(root: Path, seed: int = 16) -> Path:
    """Write the corpus under ``root`` (created); returns it."""
    rnd = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    for i in range(60):  # sealed runs of many sizes: chunks and batches of several runs each
        ep = f"ep_{i:03d}_sealed"
        _write(root / ep, ep, _lines(_events(rnd, ep, rnd.choice([1, 2, 3, 30, 31, rnd.randint(4, 80)]))))
        _seal(root / ep, ep)
    ep = "ep_100_appended"  # a line appended after the seal
    _write(root / ep, ep, _lines(_events(rnd, ep, 30)))
    _seal(root / ep, ep)
    with open(root / ep / "events.jsonl", "ab") as fh:
        fh.write(_lines(_events(rnd, ep, 1)))
    ep = "ep_101_summary_rewritten"
    _write(root / ep, ep, _lines(_events(rnd, ep, 30)))
    _seal(root / ep, ep)
    (root / ep / "summary.json").write_text(json.dumps({"episode_id": ep, "status": "success", "x-noesis_nb": {}}))
    ep = "ep_102_manifest_edited"
    _write(root / ep, ep, _lines(_events(rnd, ep, 30)))
    _seal(root / ep, ep)
    manifest = json.loads((root / ep / "manifest.json").read_text())
    for entry in manifest["files"]:
        entry["size_bytes"] += entry["name"] == "events.jsonl"
    (root / ep / "manifest.json").write_text(json.dumps(manifest))
    ep = "ep_103_cut_after_seal"
    _write(root / ep, ep, _lines(_events(rnd, ep, 30)))
    _seal(root / ep, ep)
    data = (root / ep / "events.jsonl").read_bytes()
    (root / ep / "events.jsonl").write_bytes(data[:-7])
    ep = "ep_104_sealed_torn"  # sealed with its last line cut
    _write(root / ep, ep, _lines(_events(rnd, ep, 30))[:-9])
    _seal(root / ep, ep)
    ep = "ep_105_seal_cut_short"  # final.json written, no manifest
    _write(root / ep, ep, _lines(_events(rnd, ep, 12)))
    _seal(root / ep, ep, manifest=False)
    for i in range(3):  # live runs, the last line in transit
        ep = f"ep_11{i}_live_torn"
        _write(root / ep, ep, _lines(_events(rnd, ep, 5 + i))[: -(3 + i)])
    ep = "ep_120_langgraph"  # another system's run, some of its events naming a system of their own
    events = _events(rnd, ep, 20)
    for event in events[3:6]:
        event["payload"]["source"] = "noeta"
    events[7]["payload"]["source"] = "planner.minimal"
    _write(root / ep, ep, _lines(events), marker=False, tags={"source": "langgraph"})
    ep = "ep_121_marker_sealed_other_system"
    _write(root / ep, ep, _lines(_events(rnd, ep, 20)), tags={"source": "agui"})
    _seal(root / ep, ep)
    ep = "ep_130_other_episode"  # sealed, one event names another run
    events = _events(rnd, ep, 25)
    events[4]["episode_id"] = "ep_999_elsewhere"
    _write(root / ep, ep, _lines(events))
    _seal(root / ep, ep)
    ep = "ep_131_named_in_payload"  # one event names no episode, its payload names the run: the bytes count right
    events = _events(rnd, ep, 25)
    del events[6]["episode_id"]
    events[6]["payload"]["episode_id"] = ep
    _write(root / ep, ep, _lines(events))
    _seal(root / ep, ep)
    ep = "ep_132_spaced"  # written with spaces after colons: every event names the run
    events = _events(rnd, ep, 15)
    _write(root / ep, ep, b"".join((json.dumps(e) + "\n").encode() for e in events))
    _seal(root / ep, ep)
    ep = "ep_140_no_summary"  # only state.json names the source
    _write(root / ep, ep, _lines(_events(rnd, ep, 10)), tags={"source": "crewai"})
    (root / ep / "summary.json").unlink()
    for name in _FIXTURE_RUNS:
        for run in (FIXTURES / name).iterdir():
            shutil.copytree(run, root / run.name, symlinks=True)
    return root


def frames_text(root: Path) -> str:
    """``events_df`` of the corpus dumped as ``eventcorpus.dump`` does: cold, with extra columns, and from the cache."""
    from noesis_nb.frames import events_df

    from .eventcorpus import dump, extra_columns

    lines: list[str] = []
    lines += dump(events_df(root, cache=False, progress=False), root, "events_df")
    lines += dump(events_df(root, columns=extra_columns(), cache=False, progress=False), root, "events_df columns")
    events_df(root, progress=False)
    lines += dump(events_df(root, progress=False), root, "events_df cached")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> None:
    """``python -m tests.frames.sealedcorpus ROOT OUT [--no-pyarrow] [--small-batches]``: dump ROOT's event frames."""
    if "--no-pyarrow" in argv:
        import tests.hardening._no_pyarrow  # noqa: F401  (before pandas)
    if "--small-batches" in argv:
        from noesis_nb.frames import eventblocks

        eventblocks._BATCH_ROWS = 300
    Path(argv[1]).write_text(frames_text(Path(argv[0])), encoding="utf-8")


if __name__ == "__main__":
    import sys
    import warnings

    warnings.simplefilter("ignore")  # the load's one warning names the problems the dump lists
    main(sys.argv[1:])
