"""``Known.cut_offs`` against its definition read place by place: every start of a value's first ``FRAGMENT``
characters in the text, outside the whole values found, that a cut (an ellipsis, the text's end) leaves a prefix of
a longer value. Random texts made of values, their pieces and filler, with ellipses."""

from __future__ import annotations

from bisect import bisect_left

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.known import FRAGMENT, Known, _cuts

PIECE = st.text(alphabet="ab", min_size=9, max_size=14)


def _by_definition(known: Known, text: str) -> list[tuple[int, int]]:
    covered = known.spans(text)
    cuts = _cuts(text)
    reach = max(map(len, known.values))
    found = []
    for at in range(len(text)):
        if any(a <= at < b for a, b in covered) or not any(text.startswith(v[:FRAGMENT], at) for v in known.values):
            continue
        if not any(0 < c - at <= reach and at + FRAGMENT <= c for c in cuts):
            continue
        for c in cuts[bisect_left(cuts, at + FRAGMENT) :]:
            if c - at >= reach:
                break
            count, exact = known.prefixed(text[at:c])
            if not count:
                break
            after = known.prefixed(text[at : c + 1])[0] if c < len(text) else 0
            if count - exact - after > 0:
                found.append((at, c))
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECE, min_size=1, max_size=12, unique=True), st.data())
def test_cut_offs_are_those_of_the_definition(values: list[str], data: st.DataObject) -> None:
    known = Known(values)
    parts = data.draw(
        st.lists(
            st.one_of(
                st.sampled_from(values),
                st.sampled_from(values).map(lambda v: v[: len(v) - 2]),
                st.sampled_from(["…", "...", " x ", "a"]),
            ),
            max_size=10,
        )
    )
    text = "".join(parts)
    assert sorted(known.cut_offs(text, known.spans(text))) == sorted(_by_definition(known, text))
