"""A model call's latency and cost are refused as its token counts are: a negative, NaN or infinite figure
raises one error naming it, and nothing is written (a frame would read it as unknown, the file keeping it)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb

BAD = [
    ("latency_ms", -3.0),
    ("latency_ms", math.nan),
    ("latency_ms", math.inf),
    ("cost_usd", -0.01),
    ("cost_usd", math.inf),
    ("cost_usd", -math.inf),
    ("cost_usd", math.nan),
    ("latency_ms", 2.0**53),
]


def _model_events(run_dir: Path) -> list[dict[str, Any]]:
    events = [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]
    return [e["payload"] for e in events if e["phase"] == "model"]


@pytest.mark.parametrize("key, value", BAD, ids=[f"{k}={v}" for k, v in BAD])
def test_a_figure_no_view_reads_is_refused_and_not_written(runs_dir: Path, key: str, value: float) -> None:
    errors: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        for write in (
            lambda: ctx.model_call("gpt-4o", provider="openai", input_tokens=5, output_tokens=1, **{key: value}),
            lambda: ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", "input_tokens": 5, key: value}),
        ):
            with pytest.raises(ValueError) as caught:
                write()
            errors.append(str(caught.value))
        ctx.model_call("gpt-4o", provider="openai", input_tokens=5, output_tokens=1, latency_ms=0, cost_usd=0.0)
        return "checked"

    ep = noesis_nb.solve("figures", using=agent, runs_dir=runs_dir)
    assert read_status(runs_dir / ep) == "ok"
    assert len(errors) == 2
    for message in errors:
        assert message.startswith(f"{key}={value!r}: ") and "pass None when it is unknown" in message
    [written] = _model_events(runs_dir / ep)  # only the sound call: zero is a figure, not an unknown
    assert (written["latency_ms"], written["cost_usd"]) == (0, 0.0)


def read_status(run_dir: Path) -> str:
    return str(orjson.loads((run_dir / "summary.json").read_bytes())["status"])
