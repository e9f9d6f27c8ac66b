"""``LiveText``: a streamed text released as it comes, with no piece of a key split across its pieces."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, RunSecrets
from noesis_nb.secrets.live import LiveText
from noesis_nb.secrets.live_values import ValuePrefixes, json_escaped

PROJ = "sk-proj-" + "Qw8eR2tY6uI0oP4aS7dF1gH5jK9lZ3xC" + "Vb2Nm6" * 3
GITHUB = "ghp_" + "Ab3d" * 9
LEARNED = 'pa"ss w\u00f6rd 42!'  # a value no key alphabet holds: a quote, a space, a letter past ASCII


def _released(live: LiveText, pieces: list[str]) -> list[str]:
    return [live.push(p) for p in pieces] + [live.close()]


def _sizes(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("secret", [PROJ, GITHUB], ids=["sk-proj", "ghp"])
def test_a_key_split_anywhere_is_released_whole_and_redacted(secret: str) -> None:
    text = f"the key is {secret}, keep it (and {secret}) safe."
    redacted = text.replace(secret, REDACTED_VALUE)
    start = text.index(secret)
    for cut in range(start, start + len(secret) + 1):  # two pieces, cut at every character of the key
        assert "".join(_released(LiveText(), [text[:cut], text[cut:]])) == redacted, cut
    for size in range(1, 10):  # pieces of 1..9 characters, the key over up to len(key) of them
        out = _released(LiveText(), _sizes(text, size))
        assert "".join(out) == redacted, size
        assert not any(secret[n : n + 8] in piece for piece in out for n in range(len(secret) - 7))


def test_prose_and_cjk_are_released_before_the_stream_ends() -> None:
    live = LiveText()
    english, cjk = "The weather is fine today. ", "\u4eca\u5929\u5929\u6c14\u5f88\u597d\u3002"
    assert "".join(live.push(c) for c in english) == english
    assert "".join(live.push(c) for c in cjk) == cjk
    assert live.push("Hello wor") == "Hello " and live.held == 3  # a word may still become a key: held, no more
    assert live.close() == "wor" and live.held == 0


@pytest.mark.parametrize("others", [0, 300], ids=["alone", "among-300"])  # 300 values: their forms found in one pass
@pytest.mark.parametrize("as_json", [None, "utf-8", "ascii"], ids=["text", "json-escaped", "json-ascii"])
def test_a_value_the_run_learned_is_held_back_from_where_it_could_start(as_json: str | None, others: int) -> None:
    secrets = RunSecrets()
    secrets.learn([f'other value {i:03d} \u00e9" q' for i in range(others)] + [LEARNED])
    text = f"login {LEARNED} now"
    text = json.dumps({"cmd": text}, ensure_ascii=as_json == "ascii") if as_json else text
    form = json_escaped(LEARNED, ascii_only=as_json == "ascii") if as_json else LEARNED
    assert form in text
    for size in (1, 2, 3):
        out = _released(LiveText(secrets), _sizes(text, size))
        assert "".join(out) == text.replace(form, REDACTED_VALUE), size
    live = LiveText(secrets)
    assert live.push(text[: text.index(form) + 4]) == text[: text.index(form)]  # 'pa"s' (or 'pa\\"') waits


def test_the_prefix_index_names_where_a_value_could_start() -> None:
    index = ValuePrefixes([LEARNED])
    assert index.open_start("say pa") == 4 and index.open_start('say pa\\"s') == 4
    assert index.open_start("say no") == 6 and index.open_start(f"say {LEARNED}") == len(LEARNED) + 4  # whole: released


def test_a_stream_of_key_characters_without_end_is_held_back_only_so_far() -> None:
    """A blob (base64, a long URL) is one run of key characters: it is released but for its last 1024 characters
    once over 8192, so one stream never holds more, and no piece costs more than that to read."""
    blob = "QUJD" * 25_000
    live, out, most = LiveText(), [], 0
    for char in blob:
        out.append(live.push(char))
        most = max(most, live.held)
    out.append(live.close())
    assert "".join(out) == blob and most == 8192


@given(
    values=st.lists(st.text(alphabet='ab"\u00f6 ', min_size=1, max_size=6), max_size=5),
    text=st.text(alphabet='ab"\u00f6 \\', max_size=12),
)
def test_the_prefix_index_agrees_with_every_prefix_of_every_form(values: list[str], text: str) -> None:
    forms = {f for v in values for f in (v, json_escaped(v), json_escaped(v, ascii_only=True))}
    starts = [at for at in range(len(text)) if any(f.startswith(text[at:]) and len(f) > len(text) - at for f in forms)]
    assert ValuePrefixes(values).open_start(text) == (starts[0] if starts else len(text))


def test_the_prefix_index_holds_the_values_not_every_prefix_of_them() -> None:
    """A run that learned 100 values of 512 characters: every prefix of each held ~40 MB; the values are ~150 KB."""
    import random
    import tracemalloc

    rng = random.Random(7)
    values = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=512)) for _ in range(100)]
    tracemalloc.start()
    try:
        index = ValuePrefixes(values)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert held < 2_000_000, f"{held} bytes for {sum(map(len, values))} characters of values"
    assert index.open_start("x" + values[3][:100]) == 1
