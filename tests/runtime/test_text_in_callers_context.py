"""A user object's text, made on a thread of its own (so a ``__str__`` that never returns cannot hang the loop), is
the text the caller's code would get inline: context variables (``decimal``'s context, the user's own) read as the
caller set them."""

from __future__ import annotations

import contextvars
import decimal

from noesis_nb._safetext import safe_repr, safe_str

LANGUAGE: contextvars.ContextVar[str] = contextvars.ContextVar("LANGUAGE", default="en")


class Greeting:
    def __str__(self) -> str:
        return {"en": "hello", "fr": "bonjour"}[LANGUAGE.get()]

    def __repr__(self) -> str:
        return f"Greeting({LANGUAGE.get()})"


def test_a_context_variable_reads_as_the_caller_set_it() -> None:
    token = LANGUAGE.set("fr")
    try:
        assert (safe_str(Greeting()), safe_repr(Greeting())) == (str(Greeting()), repr(Greeting()))
        assert safe_str(Greeting()) == "bonjour"
    finally:
        LANGUAGE.reset(token)


def test_a_decimal_context_is_the_callers() -> None:
    with decimal.localcontext() as ctx:
        ctx.capitals = 0
        value = decimal.Decimal("1E+5")
        assert safe_str(value) == str(value) == "1e+5"
        assert safe_repr(value) == repr(value)
