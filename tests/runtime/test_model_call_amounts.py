"""A model call's latency and cost are refused as its token counts are: a negative, NaN or infinite figure
raises one error naming it, and nothing is written (a frame would read it as unknown, the file keeping it).
A figure of another number kind is written as a plain int or float (a numpy integer from ``df.tok.sum()``, a
float subclass, a ``Fraction`` or ``Decimal`` latency or cost at the nearest float: ``Fraction(1, 3)`` was written
as its text), or refused naming it."""

from __future__ import annotations

import enum
import math
import numbers
import warnings
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
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


class _Latency(float):
    """A float subclass (a unit type, a tagged measurement): it was written as the text '2.5'."""


class _Tokens(enum.IntEnum):
    FIVE = 5


# (argument, a number of another kind, the plain number written)
OTHER_KINDS = [
    ("input_tokens", np.int64(5), 5),  # df.tok.sum(): refused as no int
    ("output_tokens", np.uint32(3), 3),
    ("reasoning_tokens", _Tokens.FIVE, 5),
    ("latency_ms", _Latency(2.5), 2.5),  # written as the text "2.5": read as unknown, with a warning
    ("latency_ms", np.int64(7), 7),
    ("latency_ms", Fraction(1, 2), 0.5),  # float holds it exactly
    ("latency_ms", Fraction(1, 3), 1 / 3),  # a measure: the nearest float, as JSON writes any number
    ("cost_usd", Decimal("0.1"), 0.1),  # a billing figure
    ("cost_usd", np.float32(0.5), 0.5),
    ("cost_usd", np.float64(0.25), 0.25),
]


@pytest.mark.parametrize("key, value, plain", OTHER_KINDS, ids=[f"{k}={v!r}" for k, v, _ in OTHER_KINDS])
def test_a_figure_of_another_number_kind_is_written_as_a_plain_number_every_view_reads(
    runs_dir: Path, key: str, value: Any, plain: float
) -> None:
    def agent(task: str, ctx: Any) -> str:
        report = {"input_tokens": 9, "output_tokens": 5, key: value}
        ctx.model_call("gpt-4o", provider="openai", **report)
        ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", **report})
        return "reported"

    ep = noesis_nb.solve("figures", using=agent, runs_dir=runs_dir)
    lines = [line for line in (runs_dir / ep / "events.jsonl").read_bytes().splitlines() if b'"model.call"' in line]
    assert len(lines) == 2
    for line in lines:
        written = orjson.loads(line)["payload"][key]
        assert written == plain and type(written) is type(plain), line  # a JSON number, not its text
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a figure read as unknown is a LoadProblemsWarning
        usage = noesis_nb.usage_df(runs_dir)
    column = "reported_cost_usd" if key == "cost_usd" else key  # cost_usd: priced from the tokens
    assert usage[column].tolist() == [plain, plain]


REFUSED = [
    ("cost_usd", Decimal("NaN"), "pass None"),
    ("latency_ms", Fraction(-1, 3), "pass None"),
    ("latency_ms", "12", "pass a number"),
    ("input_tokens", np.float64(5.0), "pass int(count)"),
    ("output_tokens", 2.5, "pass int(count)"),
]


@pytest.mark.parametrize("key, value, fix", REFUSED, ids=[f"{k}={v!r}" for k, v, _ in REFUSED])
def test_a_figure_no_plain_number_holds_is_refused_naming_it_and_the_fix(runs_dir: Path, key: str, value: Any, fix: str) -> None:
    errors: list[str] = []

    def agent(task: str, ctx: Any) -> str:
        for write in (
            lambda: ctx.model_call("gpt-4o", provider="openai", **{"input_tokens": 5, "output_tokens": 1, key: value}),
            lambda: ctx.emit("model", {"event_name": "model.call", "model": "gpt-4o", "input_tokens": 5, key: value}),
        ):
            with pytest.raises(ValueError) as caught:
                write()
            errors.append(str(caught.value))
        return "checked"

    ep = noesis_nb.solve("figures", using=agent, runs_dir=runs_dir)
    assert read_status(runs_dir / ep) == "ok"
    for message in errors:
        assert message.startswith(f"{key}={value!r}: ") and fix in message, message
    if key.endswith("_tokens"):  # the call happened: recorded with its counts unknown (its cost too, never $0)
        written = _model_events(runs_dir / ep)
        assert len(written) == 2 and all(e["input_tokens"] is None and e.get(key) is None for e in written), written
    else:
        assert _model_events(runs_dir / ep) == []


class _Figure(numbers.Number):
    """A number kind that is no Real but converts to a float (a library's own amount type)."""

    def __float__(self) -> float:
        return 0.25

    def __repr__(self) -> str:
        return "Figure(0.25)"

    __hash__ = object.__hash__


ODD_KINDS = [Decimal("sNaN"), complex(1, 0), Fraction(10**400, 3), _Figure()]


@pytest.mark.parametrize("value", ODD_KINDS, ids=["sNaN", "complex", "Fraction-past-float", "Number-kind"])
def test_the_fix_a_refused_cost_is_told_works_when_followed(runs_dir: Path, value: Any) -> None:
    """The fix said for a refused number: ``float(value)`` only when it converts to a figure that is written."""
    followed: list[tuple[str, Any]] = []

    def agent(task: str, ctx: Any) -> str:
        with pytest.raises(ValueError) as caught:
            ctx.model_call("gpt-4o", provider="openai", input_tokens=5, output_tokens=1, cost_usd=value)
        message = str(caught.value)
        # before: "pass float(value) to write it as float holds it" for each, though float() raises for the first three
        fixed = float(value) if "pass float(value)" in message else None
        assert "pass None" in message or fixed is not None, message
        ctx.model_call("gpt-4o", provider="openai", input_tokens=5, output_tokens=1, cost_usd=fixed)
        followed.append((message, fixed))
        return "checked"

    ep = noesis_nb.solve("fixes", using=agent, runs_dir=runs_dir)
    assert read_status(runs_dir / ep) == "ok"
    [(message, fixed)] = followed
    [written] = _model_events(runs_dir / ep)
    assert written["cost_usd"] == fixed
