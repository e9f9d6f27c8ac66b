"""A long model name, provider or id is cut at 256 characters after it is screened, never before: a key standing
across the cut lost the tail that made it a key, and its head was written in clear."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.capture.usage import MAX_TEXT, text

TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a GitHub token's shape (40 characters)


@pytest.mark.parametrize("before", [MAX_TEXT - 28, MAX_TEXT - 10, MAX_TEXT - 39])
def test_a_key_across_the_cut_is_not_written_in_part(runs_dir: Path, before: int) -> None:
    value = "x" * before + TOKEN + "y" * 100

    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=3, output_tokens=1, request_id=value)
        return "ok"

    episode = noesis_nb.solve("long id", using=agent, runs_dir=runs_dir)
    written = (runs_dir / episode / "events.jsonl").read_text()
    assert "ghp_A1b2" not in written and TOKEN[:12] not in written
    assert "[cut: " in written  # still cut


def test_a_captured_calls_text_is_redacted_before_it_is_cut() -> None:
    cut = text("m" * (MAX_TEXT - 20) + TOKEN)
    assert cut is not None and "ghp_" not in cut and cut.endswith(f"[cut: {MAX_TEXT - 20 + len(TOKEN)} characters]")
