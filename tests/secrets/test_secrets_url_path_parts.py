"""A random-looking part of a URL is hidden alone: the host and the other parts stay.

``https://docs.google.com/document/d/<id>/edit`` read ``https://docs.google.[REDACTED]``: the randomness rule took
``com/document/d/<id>/edit`` as one word (``/`` is a base64 character). Inside a URL (after its scheme and host, or
a bare host's names) a redaction never spans a ``/``, as a file path's parts are judged one by one.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, redact

from .keygen import keys

HEADS = ["https://docs.google.com/document/d/", "https://example.com/files/", "http://127.0.0.1:8000/v1/blobs/",
         "see example.org/share/", "https://drive.example.co.uk/a/b/"]  # fmt: skip
TAILS = ["/edit", "/download", "/view?usp=sharing", "/", ""]


@settings(max_examples=80, deadline=None)
@given(head=st.sampled_from(HEADS), part=keys([""]), tail=st.sampled_from(TAILS))
def test_random_url_part_is_hidden_alone(head: str, part: str, tail: str) -> None:
    text = head + part + tail
    shown, _ = redact({"text": text})
    alone, _ = redact({"text": part})  # the part is judged as it is standing alone: hidden, or (rarely) kept
    assert shown["text"] == head + alone["text"] + tail, shown["text"]
    assert alone["text"] in (part, REDACTED_VALUE)


def test_key_after_host_alone_still_hidden() -> None:
    key = "DNxril3RavGD5MfvJ7NScUykT8C8UBkkpdhiG37L"
    assert redact(f"s3://{key}/runs")[0] == f"s3://{REDACTED_VALUE}/runs"
    # a base64 key holding ``/`` outside a URL is still one word
    aws = "DNxril3RavGD5M/fvJ7NScUykT8C8U/BkkpdhiG37L"
    assert redact(f"secret is {aws} ok")[0] == f"secret is {REDACTED_VALUE} ok"


@settings(max_examples=80, deadline=None)
@given(
    head=st.sampled_from(HEADS),
    key=keys([""]).filter(lambda k: len(k) >= 36),
    cuts=st.lists(st.integers(min_value=6, max_value=14), min_size=1, max_size=3),
    tail=st.sampled_from(["/rotate", "/edit", ""]),
)
def test_a_key_holding_slashes_in_a_url_path_is_hidden_whole(head: str, key: str, cuts: list[int], tail: str) -> None:
    # base64 holds ``/`` (an AWS secret key ``wJalrXUtnFEMI/K7MDENG/bPxRfiCY…``): cut at its slashes into pieces each
    # too short to judge alone, a key in a URL's path was written in clear, whole or but for its longest piece
    pieces, rest = [], key
    for cut in cuts:
        if len(rest) > cut + 6:
            pieces.append(rest[:cut])
            rest = rest[cut:]
    slashed = "/".join([*pieces, rest])
    alone, _ = redact({"text": key})
    shown, _ = redact({"text": head + slashed + tail})
    if alone["text"] == REDACTED_VALUE:  # a key the rule hides standing alone is hidden in the URL, its host kept
        assert not any(len(p) >= 4 and p in shown["text"] for p in [*pieces, rest]), shown["text"]
        assert shown["text"].startswith(head.rsplit("/", 1)[0]) and shown["text"].endswith(tail), shown["text"]
