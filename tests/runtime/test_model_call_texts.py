"""A hand-reported model call's model, provider and request id follow the rule a captured call's follow.

They were written whole and unchecked: a 1,000,000-character name was stored at full length (and screened and
read with every view), a blank name, a NUL or a U+202E accepted. Now one longer than 256 characters is stored
cut as a captured call's is, and one holding a control or invisible character, or a blank model, is refused
naming it, as a tool's name is. A blank provider or request id (``headers.get("x-request-id", "")``) is unknown,
as capture reads a blank id: the call is written without it.
"""

from __future__ import annotations

import re
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
    ("provider", "open\nai"),
    ("provider", "openai\u202e"),
    ("request_id", "req\x1b[31m"),
]


SPELLED = ["مدل‌من", "🧑‍💻-coder", "❤️-bot", "modèle-fr", "模型-7b"]  # ZWNJ, ZWJ, a variation selector


@pytest.mark.parametrize("model", SPELLED)
def test_a_model_named_with_the_joiners_words_and_emoji_are_spelled_with_is_taken(runs_dir: Path, model: str) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call(model, provider="local", input_tokens=2, output_tokens=1)
        return "reported"

    ep = noesis_nb.solve("names", using=agent, runs_dir=runs_dir)
    assert [p["model"] for p in _model_events(runs_dir / ep)] == [model]


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
    said = r"holds the [a-zA-Z -]+ '.+' \(U\+[0-9A-F]{4,6}.*\) at position \d+"
    assert "is blank" in message or re.search(said, message), message
    assert _model_events(runs_dir / ep) == []


@pytest.mark.parametrize("given", [{"request_id": ""}, {"request_id": " "}, {"provider": ""}, {"provider": "  "}])
def test_a_blank_provider_or_request_id_is_unknown_and_the_call_written(runs_dir: Path, given: dict[str, str]) -> None:
    def agent(task: str, ctx: Any) -> str:
        ctx.model_call("gpt-4o", input_tokens=3, output_tokens=2, **given)
        return "ok"

    ep = noesis_nb.solve("blank", using=agent, runs_dir=runs_dir)
    # before: InvalidOptionError, the run ended in error and no call was written
    assert orjson.loads((runs_dir / ep / "summary.json").read_bytes())["status"] == "ok"
    [written] = _model_events(runs_dir / ep)
    assert (written["model"], written["input_tokens"], written["output_tokens"]) == ("gpt-4o", 3, 2)
    assert written["provider"] is None and "request_id" not in written


def test_a_model_call_given_to_emit_has_its_long_texts_stored_cut(runs_dir: Path) -> None:
    """``ctx.emit`` of a ``model.call`` cuts its texts as ``ctx.model_call`` does; a blank one is kept as given."""

    def agent(task: str, ctx: Any) -> str:
        payload = {"event_name": "model.call", "model": "m" * 1_000_000, "provider": "p" * 300, "request_id": "r" * 257}
        ctx.emit("model", {**payload, "input_tokens": 1, "output_tokens": 1})
        ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", "provider": "", "input_tokens": 1})
        return "ok"

    ep = noesis_nb.solve("emit long", using=agent, runs_dir=runs_dir)
    first, second = _model_events(runs_dir / ep)
    # before: the 1,000,000-character name was stored whole
    assert first["model"] == "m" * 256 + "… [cut: 1000000 characters]"
    assert first["provider"] == "p" * 256 + "… [cut: 300 characters]"
    assert first["request_id"] == "r" * 256 + "… [cut: 257 characters]"
    assert (second["model"], second["provider"]) == ("gpt-4o", "")
    assert (runs_dir / ep / "events.jsonl").stat().st_size < 20_000


HIDDEN = [(key, value) for key, value in BAD if value.strip()]


@pytest.mark.parametrize("key, value", HIDDEN, ids=[f"{k}={v!r}" for k, v in HIDDEN])
def test_a_model_call_given_to_emit_with_a_control_or_invisible_character_is_refused_as_model_call_refuses_it(
    runs_dir: Path, key: str, value: str
) -> None:
    errors: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        payload = {"event_name": "model.call", "model": "gpt-4o", "provider": "openai", key: value, "input_tokens": 1}
        with pytest.raises(InvalidOptionError) as by_emit:
            ctx.emit("model", payload)
        given = {"model": "gpt-4o", "provider": "openai", key: value}
        with pytest.raises(InvalidOptionError) as by_model_call:
            ctx.model_call(given.pop("model"), input_tokens=1, **given)
        errors.extend([str(by_emit.value), str(by_model_call.value)])
        return "checked"

    ep = noesis_nb.solve("names", using=agent, runs_dir=runs_dir)
    assert orjson.loads((runs_dir / ep / "summary.json").read_bytes())["status"] == "ok"
    by_emit, by_model_call = errors
    assert by_emit == by_model_call  # one rule, one message
    assert by_emit.startswith(f"{key}={value!r} holds the "), by_emit
    assert _model_events(runs_dir / ep) == []


def test_a_peers_model_name_with_a_control_character_is_written_escaped_by_an_integration(runs_dir: Path) -> None:
    """An adapter writes another system's names through ``ctx.emit``: a peer's control character is shown as its
    escape there, and the run goes on (a peer's slip is no reason to fail it)."""
    from noesis_nb.integrations._emit import emit_row, usage_row

    def agent(task: str, ctx: Any) -> str:
        emit_row(ctx, usage_row("agui", model="gpt\u202eini-o4", provider="open\nai", request_id="r\x1b[2J", input_tokens=2))
        return "ok"

    ep = noesis_nb.solve("peer names", using=agent, runs_dir=runs_dir)
    assert orjson.loads((runs_dir / ep / "summary.json").read_bytes())["status"] == "ok"
    [written] = _model_events(runs_dir / ep)
    assert (written["model"], written["provider"], written["request_id"]) == ("gpt\\u202eini-o4", "open\\nai", "r\\x1b[2J")
    assert written["input_tokens"] == 2
