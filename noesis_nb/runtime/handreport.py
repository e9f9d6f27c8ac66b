"""What a model call reported by hand (``ctx.model_call``, or a ``model.call`` given to ``ctx.emit``) may hold.

Its numbers (token counts, ``latency_ms``, ``cost_usd``) are written as plain ints and floats: a numpy integer
from ``df.tok.sum()`` is a count, and a latency or cost of any number kind (a float subclass, a ``Fraction``, a
billing ``Decimal``) is the nearest float; a float subclass or a ``Fraction`` was written as its text
(``"Fraction(1, 3)"``), which every view then read as unknown. Its texts (model, provider, request id) follow the
rule captured calls follow (``capture.usage.text``: one longer than 256 characters is stored cut), and, as a
tool's name, are refused when holding a control or invisible character (``_safetext.unseen_character``), or,
for the model, blank: typed by a person, such a name is a slip that would never match its price or another record
of the same call. A blank provider or request id (``headers.get("x-request-id", "")``) is unknown, as capture reads a blank id.
"""

from __future__ import annotations

import math
import numbers
from decimal import Decimal
from typing import Any

from .._safetext import NAME_JOINERS, safe_repr, type_name, unseen_character, unseen_escaped, unseen_said
from ..capture.usage import MAX_COUNT, fitted_counts, text
from ..errors import InvalidOptionError
from ..secrets.quoted import quoted
from ..store.vocab import TOKEN_FIELDS

__all__ = ["cut_texts", "peer_text", "plain_figures", "reported_counts", "reported_text"]


def plain_figures(given: dict[str, Any]) -> dict[str, Any]:
    """``given``'s token counts and amounts as plain ints and floats (None stays None); a ``ValueError`` naming the
    first one that is no such number, and what to pass instead."""
    return {key: None if value is None else _figure(key, value) for key, value in given.items()}


def reported_counts(given: dict[str, Any], *, parts: bool = True) -> tuple[dict[str, Any], ValueError | None]:
    """A model call's token counts as written, and the ``ValueError`` refusing them, if any, saying what was recorded.

    The figures are ``plain_figures``'; a count that is none (10**33, -5, text) makes every count given None, so the
    call is still recorded, its tokens and cost unknown (a call that happened never reads as $0). Parts past their
    total (cached and cache-write above the input, reasoning above the output) follow the rule captured calls
    follow (``capture.usage.fitted_counts``): the totals kept, the part that does not fit unknown; with ``parts``
    (``ctx.model_call``) that is refused too, once recorded so."""
    try:
        counts = plain_figures(given)
    except ValueError as exc:
        return dict.fromkeys(given), ValueError(
            f"{exc} (the call is recorded with its token counts unknown, so its cost reads unknown)"
        )
    fitted = fitted_counts(*(counts.get(k) for k in TOKEN_FIELDS), lone_write=True)
    lost = [k for k in counts if counts[k] is not None and fitted[k] is None]
    if not lost:
        return counts, None
    kept = {k: fitted[k] for k in counts}
    if not parts:
        return kept, None
    said = []
    parts_in = sum(v for v in (counts.get("cached_input_tokens"), counts.get("cache_write_input_tokens")) if v)
    if counts.get("input_tokens") is not None and parts_in > counts["input_tokens"]:
        said.append(f"cached_input_tokens + cache_write_input_tokens = {parts_in} exceeds input_tokens={counts['input_tokens']}")
    if "reasoning_tokens" in lost:
        said.append(f"reasoning_tokens={counts['reasoning_tokens']} exceeds output_tokens={counts['output_tokens']}")
    return kept, ValueError(
        f"{'; '.join(said)}: input and output tokens are totals including their cached, cache-write and reasoning "
        f"parts (the call is recorded as a captured call with such counts is: the totals kept, {' and '.join(lost)} unknown)"
    )


def _figure(key: str, value: Any) -> int | float:
    if type(value) is int and 0 <= value < MAX_COUNT:  # most figures: taken as they are
        return value
    counting = key in TOKEN_FIELDS
    number = _exact(value, whole=counting)
    if number is not None and (math.isfinite(number) and 0 <= number < MAX_COUNT):
        return number
    if counting:
        raise ValueError(
            f"{key}={safe_repr(value, 80)}: a token count is a non-negative whole number below 2**53 (an int or a numpy "
            "integer), or None when unknown; pass int(count) for a whole number held as a float"
        )
    if number is not None:
        fix = "pass None when it is unknown"
    elif not isinstance(value, numbers.Number):
        fix = "pass a number"
    elif _plain_float(value):
        fix = "pass float(value) to write it as float holds it"
    else:  # float(value) would raise or give no such figure (a signalling NaN, a complex, a Fraction past float's range)
        fix = "pass None when it is unknown, or the figure as a finite float from 0 below 2**53 such as 0.0021"
    raise ValueError(
        f"{key}={safe_repr(value, 80)}: latency and cost are finite numbers from 0 below 2**53 (an int or float, a "
        f"numpy number), or None when unknown; {fix}"
    )


def _plain_float(value: Any) -> bool:
    """Whether ``float(value)`` is a figure ``_figure`` takes: the fix a message may then give."""
    try:
        number = float(value)
    except Exception:  # a complex, a signalling NaN, a Fraction past float's range, a hostile __float__
        return False
    return math.isfinite(number) and 0 <= number < MAX_COUNT


def _exact(value: Any, *, whole: bool) -> int | float | None:
    """``value`` as a plain int (an Integral) or, for a measure (``whole`` False: latency, cost), a float: any Real
    or ``Decimal`` (a billing figure), at the nearest float as JSON writes every number; None for anything else."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, Decimal)):
        return None
    try:
        if isinstance(value, numbers.Integral):
            return int(value)
        if whole:
            return None
        return float(value)
    except (OverflowError, TypeError, ValueError, ArithmeticError):  # a Real that will not convert
        return None


_EXAMPLES = {"model": "'gpt-4o-mini'", "provider": "'openai'", "request_id": "'chatcmpl-…'"}


def reported_text(key: str, value: Any, *, required: bool = False) -> str | None:
    """A model name, provider or request id as it is stored: text, cut past 256 characters as a captured call's
    is. Refused (``InvalidOptionError``, naming it): not text, or holding a control or invisible character (a line
    break, a NUL, a bidi override or direction mark, a zero-width space, a soft hyphen, a Hangul filler, a tag
    character, a no-break space: ``_safetext.unseen_character``, the rule of every name); the joiners and the
    variation selector words and emoji are spelled with (ZWNJ in Persian, ZWJ, U+FE0F: ``NAME_JOINERS``) are taken.
    None, or blank text (``""``, ``" "``), is unknown (None) unless ``required``: then it is refused."""
    if value is None and not required:
        return None
    example = _EXAMPLES.get(key, "'name'")
    if type(value) is not str:
        raise InvalidOptionError(
            f"{key} must be a str such as {example}" + ("" if required else " or None") + f", got a {type_name(value)}"
        )
    if not value.strip():
        if not required:  # ``headers.get("x-request-id", "")``: an absent optional text, as capture reads a blank id
            return None
        raise InvalidOptionError(f"{key}={quoted(value, 60)} is blank; give it as text such as {example}")
    if _hides(value):
        raise _hidden(key, value)
    return text(value)


def _hides(value: str) -> bool:
    return unseen_character(value, allowed=NAME_JOINERS) is not None


def _hidden(key: str, value: str) -> InvalidOptionError:
    ch = unseen_character(value, allowed=NAME_JOINERS) or value[0]  # (called when there is one)
    return InvalidOptionError(
        f"{key}={unseen_escaped(quoted(value, 60))} {unseen_said(ch, value.index(ch))}, a character (like a line "
        f"break, a NUL, a bidi override) no {key.replace('_', ' ')} has; type it again, e.g. "
        f"{_EXAMPLES.get(key, repr('name'))}"
    )


#: the texts of a ``model.call`` payload that ``reported_text`` reads for ``ctx.model_call``
_TEXTS = ("model", "provider", "request_id")


def cut_texts(payload: dict[str, Any]) -> dict[str, str]:
    """The texts of a ``model.call`` given to ``ctx.emit`` that are longer than 256 characters, cut as
    ``reported_text`` cuts them ({} when none is). One holding a control or invisible character is refused as
    ``reported_text`` refuses it (``InvalidOptionError``); a blank one is kept as given. Adapters writing another
    system's names pass them through ``peer_text`` first, which shows such characters as escapes."""
    for key in _TEXTS:
        if isinstance(value := payload.get(key), str) and _hides(value):
            raise _hidden(key, value)
    return {k: str(text(v)) for k in _TEXTS if isinstance(v := payload.get(k), str) and v and text(v) != v}


def peer_text(value: Any) -> Any:
    """A model name, provider or request id another system sent, with each character ``reported_text`` refuses
    shown as its backslash escape (``gpt\\u202e4o``): the peer's slip is kept readable and never fails the run."""
    if not isinstance(value, str) or not _hides(value):
        return value
    return "".join(ch.encode("unicode_escape").decode("ascii") if _hides(ch) else ch for ch in value)
