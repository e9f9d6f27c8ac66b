"""What a captured episode wrote: its ``model.call`` payloads and their five token counts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TOKEN_KEYS = ("input_tokens", "cached_input_tokens", "cache_write_input_tokens", "output_tokens", "reasoning_tokens")


def calls(runs_dir: Path, episode_id: str) -> list[dict[str, Any]]:
    """The payloads of the episode's model calls, in the order written."""
    lines = (runs_dir / episode_id / "events.jsonl").read_text().splitlines()
    return [e["payload"] for e in map(json.loads, lines) if e["phase"] == "model"]


def tokens(payload: dict[str, Any]) -> tuple[Any, ...]:
    """The token counts in the order tables show them (each total next to its parts)."""
    return tuple(payload[k] for k in TOKEN_KEYS)
