"""The event writer holds what it wrote as bytes, not as each line's encoder buffer.

The writer keeps the lines written since its digest last took a block (sealing then need not read the
log again). Kept as the encoder's own ``bytes`` objects, each line held orjson's whole buffer (4-8 KB for a
600-byte model call), so a run grew its heap by that much per event until the block was hashed.
"""

from __future__ import annotations

import hashlib
import tracemalloc
from pathlib import Path

from noesis_nb.store import EventWriter


def _model_call(i: int) -> dict:
    return {
        "id": f"84288659-2d45-4ce5-979f-{i:012x}",
        "timestamp": "2026-01-01T00:00:00.000000+00:00",
        "episode_id": "ep_01M8V9GF8629M0EKGV625HYP59",
        "agent_id": "model:openai",
        "phase": "model",
        "evidence_ids": [],
        "payload": {
            "event_name": "model.call",
            "model": "gpt-4o-mini-2024-07-18",
            "provider": "openai",
            "input_tokens": 1200,
            "output_tokens": 90,
            "cached_input_tokens": 1000,
            "cache_write_input_tokens": None,
            "reasoning_tokens": 64,
            "latency_ms": 4.551,
            "request_id": f"req_{i:032x}",
            "response_id": f"chatcmpl-{i:032x}",
            "stop_reason": "stop",
            "streamed": False,
        },
    }


def test_lines_written_are_held_at_their_own_size(tmp_path: Path):
    writer = EventWriter(tmp_path / "events.jsonl")
    events = [_model_call(i) for i in range(400)]  # made before measuring: only what the writer keeps is counted
    tracemalloc.start()
    try:
        before, _ = tracemalloc.get_traced_memory()
        for event in events:
            writer.append(event)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    written = (tmp_path / "events.jsonl").stat().st_size
    assert written > 200_000
    # at most one block of lines (64 KB) and the buffer's growth room; the lines' encoder buffers came to 1.6 MB
    assert held < 200_000, f"{held} bytes held after writing {written} bytes"
    writer.close()
    assert writer.closed_as is not None
    assert writer.closed_as.sha256 == hashlib.sha256((tmp_path / "events.jsonl").read_bytes()).hexdigest()
