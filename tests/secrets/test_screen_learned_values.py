"""A flat payload (a captured model call's) is screened value by value while the run knows a few values (a client's
key and its written forms), without its JSON: what it writes is still what the full redaction writes, and a known
value of no shape a detector knows (only the known values can hide it) is never written, whole, cut off or encoded."""

from __future__ import annotations

from urllib.parse import quote

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import find_in_text
from noesis_nb.secrets.guard import RunSecrets

KEY = "corpkqzvwmtrx-2"  # a proxy's key: no detector finds it in a text
ENCODED = quote(KEY + "/x", safe="")[: len(KEY) + 2]


def _knowing() -> RunSecrets:
    secrets = RunSecrets(own="ep_01JABCDEFGHJKMNPQRSTVWXYZ0")
    secrets.learn([KEY])
    return secrets


def _call(**texts: str) -> dict[str, object]:
    """A model.call payload as capture writes it, with ``texts`` in place of its plain ones."""
    payload: dict[str, object] = {
        "event_name": "model.call",
        "model": "gpt-4o-mini-2024-07-18",
        "provider": "openai",
        "input_tokens": 1200,
        "output_tokens": 80,
        "cached_input_tokens": 0,
        "cache_write_input_tokens": None,
        "reasoning_tokens": None,
        "latency_ms": 812.25,
        "cost_usd": None,
        "api": "chat.completions",
        "capture": "openai",
        "requested_model": "gpt-4o-mini",
        "request_id": "req_0a1b" + "7a" * 14,
        "response_id": "chatcmpl-0a1b" + "5e" * 14,
        "stop_reason": "stop",
        "streamed": False,
    }
    payload.update(texts)
    return payload


def test_a_known_value_in_a_model_calls_texts_is_never_written():
    assert not find_in_text(f"model {KEY} refused")
    echoed = [
        {"model": KEY},  # whole
        {"model": f"proxy/{KEY}:latest"},  # inside a text
        {"stop_reason": "the key was " + KEY[:9]},  # cut off where the text ends
        {"requested_model": f"x {ENCODED}"},  # its percent-encoded form
        {"provider": KEY.upper().lower()},
        {"request_id": f"req_{KEY}"},  # in a field of an id's shape
    ]
    for texts in echoed:
        written = orjson.dumps(_knowing().screen(_call(**texts), event_id="e1", phase="model")).decode()
        assert KEY[:8] not in written and ENCODED[:10] not in written, (texts, written)


def test_a_model_call_holding_no_known_value_is_written_as_it_is():
    payload = _call()
    assert _knowing().screen(payload, event_id="e1", phase="model") == payload


pieces = st.sampled_from(
    [KEY, KEY[:6], KEY[:8], KEY[:11], KEY[3:], ENCODED, " ", "-", "/", ":", "gpt-4o", "req_", "\\", "&#", "\u200b", "é", "\x07"]
)
texts = st.lists(pieces, max_size=5).map("".join)
fields = st.sampled_from(["model", "provider", "requested_model", "request_id", "response_id", "stop_reason", "api"])


@settings(max_examples=150, deadline=None)
@given(changed=st.dictionaries(fields, texts, max_size=3))
def test_the_screen_of_a_run_knowing_a_value_writes_what_the_full_redaction_writes(changed):
    payload = _call(**changed)
    screened = _knowing().screen(payload, event_id="e1", phase="model")
    full = _knowing().redact(payload)
    assert orjson.dumps(screened, option=orjson.OPT_SORT_KEYS) == orjson.dumps(full, option=orjson.OPT_SORT_KEYS)
