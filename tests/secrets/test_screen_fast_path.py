"""The event screen's cheap tests only decide whether the detectors run: what it writes is what the full redaction
writes, for every payload (keys and values made of secrets, disguises, keywords and noise, flat or nested)."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.guard import RunSecrets
from noesis_nb.secrets.text import _UNDER_KEY, payload_might_contain
from tests.secrets.test_secrets_detection import flat_payloads, payloads, texts

objects = st.dictionaries(texts | st.sampled_from(["token", "pin", "x_otp", "step", "text"]), payloads, max_size=5)


@settings(max_examples=400, deadline=None)
@given(payload=objects | flat_payloads)
def test_the_screen_writes_what_the_full_redaction_writes(payload):
    try:
        orjson.dumps(payload)
    except orjson.JSONEncodeError:  # written as its JSON form: another path, compared elsewhere
        return
    screened = RunSecrets().screen(payload, event_id="e1", phase="reason")
    full = RunSecrets().redact(payload)
    assert orjson.dumps(screened, option=orjson.OPT_SORT_KEYS) == orjson.dumps(full, option=orjson.OPT_SORT_KEYS)


@settings(max_examples=300, deadline=None)
@given(payload=objects)
def test_a_container_under_a_key_is_told_as_the_substring_tests_tell_it(payload):
    blob = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS).lower()
    assert (_UNDER_KEY.search(blob) is not None) == (b'":{' in blob or b'":[' in blob)
    payload_might_contain(payload, blob)  # (the hot path reads it: no error on any payload)


def test_a_short_secret_name_under_a_nested_key_is_found():
    nested = {"step": 1, "detail": {"pin": "4912"}}
    listed = {"step": 1, "rows": [{"otp": "771204"}]}
    for payload in (nested, listed):
        assert payload_might_contain(payload, orjson.dumps(payload))
        assert "4912" not in str(RunSecrets().screen(payload)) and "771204" not in str(RunSecrets().screen(payload))


# flat payloads under names judged before (the prefilter's short cut for their keys), the short secret names among them
_known_names = st.sampled_from(["step", "text", "note", "pin", "x_otp", "user-pw", "totp", "shipping", "token", "auth"])
_flat_known = st.dictionaries(
    _known_names | texts,
    texts | st.sampled_from(["4912", "771204", "thought number 3 about a plan"]) | st.integers() | st.none(),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(payload=_flat_known)
def test_keys_judged_before_are_cleared_as_the_full_redaction_clears_them(payload):
    try:
        blob = orjson.dumps(payload)
    except orjson.JSONEncodeError:
        return
    full = orjson.dumps(RunSecrets().redact(payload), option=orjson.OPT_SORT_KEYS)
    for _ in range(2):  # the first look judges the keys, the second finds them all judged
        if not payload_might_contain(payload, blob):
            assert full == orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)  # nothing the full redaction would change
        screened = RunSecrets().screen(payload, event_id="e1", phase="reason")
        assert orjson.dumps(screened, option=orjson.OPT_SORT_KEYS) == full
