"""``RunSecrets.scrub`` of a document: one test of its JSON text first, string by string only on a sign of a value.

A run holding an environment's secret scrubbed every string of its state and summary at each write (~400 strings,
~30 us each); a document whose JSON shows no sign of a known value is now returned as scrubbing returns it, unread.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.guard import RunSecrets
from tests.callcount import counting_calls

VALUES = ("sk-proj-Abc123Def456Ghi789", "pa ss word 42", "hunter2-correct")


def _guard(values: tuple[str, ...] = VALUES) -> RunSecrets:
    guard = RunSecrets("ep_gate")
    guard.learn(values)
    return guard


def _strings_read(guard: RunSecrets, value: Any) -> tuple[Any, int]:
    """(``guard.scrub(value)``, how many times a string was searched for the known values on the way)."""
    with counting_calls("scrub_text") as read:
        out = guard.scrub(value)
    return out, read[0]


def test_a_document_with_no_sign_of_a_value_is_not_read_string_by_string() -> None:
    guard = _guard((VALUES[0], VALUES[2]))  # (a value holding a space: its chunk records are read, see below)
    state = {"steps": [{"phase": "reason", "text": f"thought number {i} about the task", "n": i} for i in range(200)]}
    out, read = _strings_read(guard, state)
    assert out is state
    assert read == 0


def test_a_document_holding_a_value_is_still_scrubbed() -> None:
    guard = _guard()
    state = {"steps": [{"text": f"thought {i}"} for i in range(50)] + [{"text": f"key {VALUES[0]} here"}]}
    out, read = _strings_read(guard, state)
    assert out["steps"][-1] == {"text": "key [REDACTED] here"}
    assert out["steps"][:50] == state["steps"][:50]
    assert read > 0


def test_tuples_and_other_mappings_come_back_as_scrubbing_writes_them() -> None:
    guard = _guard()
    value = {"pair": ("a", "b"), "items": [1, ("c",)]}
    assert guard.scrub(value) == guard._scrub(value) == {"pair": ["a", "b"], "items": [1, ["c"]]}
    assert type(guard.scrub(value)["pair"]) is list


# texts made of the values' pieces and of what may disguise or split one: an escape, a backspace, a zero-width
# space, an HTML reference, an ellipsis after a cut-off start, a space where a value holds one
_PIECES = st.sampled_from(
    [
        *VALUES,
        *(v[:n] for v in VALUES for n in (3, 6, 8, 9)),
        *(v[n:] for v in VALUES for n in (3, 8)),
        "\b",
        "\\u0073",
        "\\x70",
        "&#x70;",
        "\u200b",
        "ś",
        "\x01",
        "\x7f",
        "…",
        "...",
        " ",
        "plain words",
        "ep_gate",
        '"',
        "\\",
    ]
)
# a value cut in two, with something between or around its halves (a disguise, or the cut itself in a list)
_CUT = st.builds(
    lambda value, at, between: (value[:at], between, value[at:]),
    st.sampled_from(VALUES),
    st.integers(1, 12),
    st.sampled_from(["", "\b", "\u200b", "\x01", "\x7f", "ś", " ", "…"]),
)
_TEXTS = (
    st.lists(_PIECES, max_size=5).map("".join) | _CUT.map("".join) | _CUT.map(lambda cut: cut[0] + cut[1]) | st.text(max_size=12)
)
_KEYS = st.sampled_from(["text", "delta", "content", "role", "k", VALUES[2]]) | _TEXTS
_DOCUMENTS = st.recursive(
    _TEXTS | st.integers() | st.none() | st.booleans(),
    lambda inner: (
        st.lists(inner, max_size=5)
        | _CUT.map(lambda cut: [cut[0], cut[2]])  # split across a list's strings
        | _CUT.map(lambda cut: [cut[0].rstrip(), cut[2].lstrip()])  # at a space it holds (joined with one, as argv)
        | _CUT.map(lambda cut: [{"delta": cut[0]}, {"delta": cut[2]}])  # or across streamed chunk records
        | st.tuples(inner, inner)
        | st.dictionaries(_KEYS, inner, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_DOCUMENTS)
def test_scrub_writes_what_reading_every_string_writes(document: Any) -> None:
    guard = _guard()
    fast, slow = guard.scrub(document), guard._scrub(document)
    assert fast == slow
    assert repr(fast) == repr(slow)  # the same containers (a tuple comes back as a list either way)
