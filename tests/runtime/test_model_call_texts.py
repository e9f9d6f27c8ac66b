"""A hand-reported model call's model, provider and request id follow the rule a captured call's follow.

They were written whole and unchecked: a 1,000,000-character name was stored at full length (and screened and
read with every view), a blank name, a NUL or a U+202E accepted. Now one longer than 256 characters is stored
cut as a captured call's is, and a blank one or one holding a control or invisible character is refused
naming it, as a tool's name is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError


def _model_events(run_dir: Path) -> list[dict[str, Any]]:
    events = [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]
    return [e["payload"] for e in events if e["phase"] == "model"]


def test_a_long_name_provider_and_id_are_stored_cut_as_a_captured_calls_are(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("m" * 1_000_000, provider="p" * 300, request_id="r" * 257, input_tokens=1, output_tokens=1)
        return "ok"

    ep = noesis_nb.solve("long", using=agent, runs_dir=runs_dir)
    [written] = _model_events(runs_dir / ep)
    assert written["model"] == "m" * 256 + "… [cut: 1000000 characters]"
    assert written["provider"] == "p" * 256 + "… [cut: 300 characters]"
    assert written["request_id"] == "r" * 256 + "… [cut: 257 characters]"
    assert (runs_dir / ep / "events.jsonl").stat().st_size < 20_000


BAD = [
    ("model", "   "),
    ("model", "gpt-4o\nmini"),
    ("model", "gpt\x00x"),
    ("model", "gpt\u202eini-o4"),
    ("model", "gpt\u200b4o"),
    ("provider", "\n"),
    ("provider", ""),
    ("request_id", "req\x1b[31m"),
]


@pytest.mark.parametrize("key, value", BAD, ids=[f"{k}={v!r}" for k, v in BAD])
def test_a_blank_name_or_one_with_a_control_or_invisible_character_is_refused_naming_it(
    runs_dir: Path, key: str, value: str
) -> None:
    errors: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        given = {"model": "gpt-4o", "provider": "openai", key: value}
        with pytest.raises(InvalidOptionError) as caught:
            ctx.model_call(given.pop("model"), input_tokens=1, output_tokens=1, **given)
        errors.append(str(caught.value))
        return "checked"

    ep = noesis_nb.solve("names", using=agent, runs_dir=runs_dir)
    assert orjson.loads((runs_dir / ep / "summary.json").read_bytes())["status"] == "ok"
    [message] = errors
    shown = repr(value)
    assert message.startswith(f"{key}={shown} "), message
    assert "is blank" in message or "holds a control or invisible character" in message, message
    assert _model_events(runs_dir / ep) == []
