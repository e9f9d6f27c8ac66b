"""``%noesis show <id> --text`` names every part of a model call's tokens the view's step shows: cached input, cache
writes and reasoning besides input and output (a cached call read as uncached priced it several times too high)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import usage_df


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1200, output_tokens=90, cached_input_tokens=1000)
    ctx.model_call(
        "claude-sonnet-4-5",
        provider="anthropic",
        input_tokens=5000,
        output_tokens=300,
        cached_input_tokens=2000,
        cache_write_input_tokens=1000,
        reasoning_tokens=100,
    )
    return "done"


def test_each_token_part_of_a_call_is_on_its_text_line(ip: Any, runs_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ep = noesis_nb.solve("tokens", using=_agent, runs_dir=runs_dir)
    ip.run_line_magic("noesis", f"show {ep} --text --runs-dir {runs_dir}")
    lines = [line for line in capsys.readouterr().out.splitlines() if " model.call " in line]
    calls = usage_df(runs_dir)  # what the run holds, read by the frame
    assert len(lines) == len(calls) == 2
    parts = ("input_tokens", "output_tokens", "cached_input_tokens", "cache_write_input_tokens", "reasoning_tokens")
    for line, (_, call) in zip(lines, calls.iterrows()):
        said = dict(word.split("=", 1) for word in line.split() if "=" in word)
        assert said["model"] == call["model"]
        for part in parts:
            if pd.notna(call[part]) and call[part]:  # known and not zero: named, with its count
                assert said.get(part) == str(int(call[part])), (part, line)
