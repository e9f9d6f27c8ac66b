"""A secret behind a percent-encoded name (``%70assword=…``) is redacted from events, as the detectors read it.

The detectors read text percent-decoded too, so the cheap per-event prefilter must not clear such text: a
payload it cleared is written as given.
"""

from __future__ import annotations

import orjson
import pytest

import noesis_nb
from noesis_nb.secrets.text import find_in_text, might_contain, payload_might_contain

_ENCODED = ["%70assword=hunt3r", "x p%61sswd: hunt3r12", "%74oken=zq81vk", "s%65cret=plum42x"]


def _payloads(text: str) -> list[dict]:
    flat = {"text": text}
    nested = {"outer": {"items": [text]}}
    wide = {f"k{i}": i for i in range(9)} | {"text": text}  # judged value by value, without its JSON
    return [flat, nested, wide]


@pytest.mark.parametrize("text", _ENCODED)
def test_the_prefilter_passes_what_the_detectors_find_percent_decoded(text):
    assert find_in_text(text), text  # the detectors do find a secret here
    for payload in _payloads(text):
        assert payload_might_contain(payload, orjson.dumps(payload)), payload
        assert might_contain(orjson.dumps(payload)), payload


def test_percent_signs_in_ordinary_text_are_cleared():
    for text in ("100% sure", "a%20b", "50%-off"):
        payload = {"text": text}
        assert not payload_might_contain(payload, orjson.dumps(payload)), text


def test_an_episode_writes_no_secret_behind_a_percent_encoded_name(tmp_path):
    def adapter(task, ctx):
        for text in _ENCODED:
            for payload in _payloads(text):
                ctx.emit("reason", payload)
        return "done"

    episode = noesis_nb.solve("percent", using=adapter, runs_dir=tmp_path)
    written = (tmp_path / episode / "events.jsonl").read_text()
    for value in ("hunt3r", "zq81vk", "plum42x"):
        assert value not in written, value
    assert written.count("[REDACTED]") >= len(_ENCODED) * 3
