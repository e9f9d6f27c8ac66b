"""A message quoting a value names it as ``repr`` writes it: an escape for a character ``repr`` does not show
(``'\\U000a6324'``, ``'\\x07'``) is no key, even with letters and digits after it.

The escape's hex digits and the characters after it read as one word (``U000a63241``) that mixes capitals, small
letters and digits: the message said ``source list item ('\\[REDACTED]',)``, hiding the value it was about.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb import runs_df
from noesis_nb.secrets import quoted

_UNSHOWN = st.characters(categories=["Co", "Cn", "Cc", "Cf"], exclude_characters="\n\r\t")


@settings(max_examples=200, deadline=None, database=None)
@given(char=_UNSHOWN, tail=st.text("0123456789abcdefXYZ", max_size=3))
def test_an_escaped_character_is_quoted_as_repr_writes_it(char: str, tail: str) -> None:
    for value in (char + tail, (char + tail,), {char + tail: None}):
        assert quoted(value) == repr(value), value


def test_a_source_list_item_is_named_as_written(tmp_path) -> None:
    with pytest.raises(TypeError) as err:
        runs_df([str(tmp_path), ("\U000a63241",)])
    assert "('\\U000a63241',)" in str(err.value)


@pytest.mark.parametrize("key", ["Zx9Qw7Er5Ty3Ui1Op0As", "sk-proj-Zx9Qw7Er5Ty3Ui1Op0AsDf8Gh"])
def test_a_key_after_an_escape_is_still_hidden(key: str) -> None:
    for value in ("\x07" + key, ("\U000a6324" + key,)):
        assert key not in quoted(value) and key[:10] not in quoted(value), quoted(value)
