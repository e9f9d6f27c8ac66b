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


def checked_calls(runs_dir: Path, episode_id: str) -> list[dict[str, Any]]:
    """``calls``, once the run passes the Noēsis checker and ``usage_df`` reads it with ``strict=True``."""
    import noesis_nb

    from ..compat.checker import check_run

    assert check_run(runs_dir / episode_id) == []
    noesis_nb.usage_df(runs_dir, episodes=episode_id, strict=True)
    return calls(runs_dir, episode_id)


def model_event_ids(runs_dir: Path, episode_id: str) -> list[str]:
    """The ids of the episode's ``model`` events, in the order written."""
    lines = (runs_dir / episode_id / "events.jsonl").read_text().splitlines()
    return [e["id"] for e in map(json.loads, lines) if e["phase"] == "model"]
