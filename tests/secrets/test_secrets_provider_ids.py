"""The ids model providers answer with are no secrets, in any text that holds them.

An agent that returned ``response.id`` (``resp_<48 hex>``, ``msg_01XFDUDY…``, ``chatcmpl-B9MB…``) had it taken for a
random key: the run learned it as a secret and redacted it from the captured call's own ``response_id`` too, so
``usage_df`` lost the id that ties a call to the provider's logs. A key put after a name, or a token of a known
format inside such a word, is still hidden.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets.scan import redact

_ALNUM = string.ascii_letters + string.digits
# each provider's own shape: a prefix and how many of which characters follow it
_SHAPES = {
    "resp_": ("0123456789abcdef", 48),  # OpenAI Responses
    "chatcmpl-": (_ALNUM, 29),  # OpenAI Chat Completions
    "call_": (_ALNUM, 24),  # an OpenAI tool call
    "msg_01": (_ALNUM, 22),  # an Anthropic message
    "toolu_01": (_ALNUM, 22),  # an Anthropic tool use
    "req_011C": (_ALNUM, 20),  # an Anthropic request
}


def _ids() -> st.SearchStrategy[str]:
    return st.sampled_from(sorted(_SHAPES)).flatmap(
        lambda prefix: st.text(alphabet=_SHAPES[prefix][0], min_size=_SHAPES[prefix][1], max_size=_SHAPES[prefix][1]).map(
            lambda tail: prefix + tail
        )
    )


@settings(max_examples=300, deadline=None)
@given(_ids(), st.sampled_from(["{id}", "the answer came in {id}.", "response_id={id}", '{{"last": "{id}"}}']))
def test_a_provider_id_in_any_text_is_kept(provider_id: str, form: str) -> None:
    text = form.format(id=provider_id)
    shown, hits = redact({"result": text})
    assert hits == [] and shown == {"result": text}


def test_a_key_after_a_name_or_a_known_token_in_an_id_shape_is_still_hidden() -> None:
    for text, secret in (
        ("api_key=msg_01XFDUDYJgAACzvnptvVoYEL", "msg_01XFDUDYJgAACzvnptvVoYEL"),
        ("Authorization: Bearer resp_Ab3dEf6hIjKlMnOpQrStUvWx", "resp_Ab3dEf6hIjKlMnOpQrStUvWx"),
        ("ref msg_AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ):
        shown, hits = redact(text)
        assert hits and secret not in shown, shown


def test_an_agent_returning_its_provider_ids_keeps_them_in_the_run(runs_dir: Path) -> None:
    ids = [
        "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b",
        "msg_01XFDUDYJgAACzvnptvVoYEL",
        "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
    ]

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"calls answered: {', '.join(ids)}"})
        return " ".join(ids)

    episode = noesis_nb.solve("ids", using=agent, runs_dir=runs_dir)
    for name in ("events.jsonl", "summary.json", "state.json"):
        written = (runs_dir / episode / name).read_text()
        assert all(i in written for i in ids) and "[REDACTED]" not in written, name


@pytest.mark.parametrize(
    "text",
    [
        "The trace id is 4bf92f3577b34da6a3ce929d0e0e4736 and its span id 00f067aa0ba902b7",
        '{"traceId": "4bf92f3577b34da6a3ce929d0e0e4736", "spanId": "00f067aa0ba902b7"}',
        "x-request-id: 9c1e5f0a7b3d4e2f8a6c0b1d2e3f4a5b",
        "container id 3f4e2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f",
        "see https://github.com/org/repo/blob/4f9c2b1e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b/README.md",
        "charged pi_3MtwBwLkdIwHu7ix28a3tqPa for cus_NffrFeUfNV2HibQx",
    ],
)
def test_labelled_trace_request_and_service_ids_are_kept(text: str) -> None:
    shown, hits = redact({"result": text})
    assert hits == [] and shown == {"result": text}


@pytest.mark.parametrize(
    "text, secret",
    [
        ("HMAC key 4bf92f3577b34da6a3ce929d0e0e4736", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("trace id is fine but api_key=4bf92f3577b34da6a3ce929d0e0e4736", "4bf92f3577b34da6a3ce929d0e0e4736"),
        ("client secret pi_3MtwBwLkdIwHu7ix28a3tqPa_secret_YrKJUKribcBjcG8HVhfZluoGH", "YrKJUKribcBjcG8HVhfZluoGH"),
        ("sk_live_51HxYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789", "51HxYzAbCdEfGhIjKlMnOpQrStUvWxYz0123456789"),
    ],
)
def test_a_key_beside_those_labels_is_still_hidden(text: str, secret: str) -> None:
    shown, hits = redact(text)
    assert hits and secret not in shown, shown


def test_an_id_shape_does_not_hide_a_longer_token_or_a_credential_named_value() -> None:
    """The id exemption covers what services issue (tails of 16-48 characters) where no credential's name governs
    the value: a 64-character token glued after ``call_`` and ``?code=run_<random>`` were written whole."""
    token = "cmVmdGtu" + "Oa1DFCpANe1GRWiSKhKrWgUjdVIuni55ftFfhz3Zv5gA0fngQz8rT2yLm4Kd"
    for text, secret in (
        (f"call_{token}", token),
        ("https://app.example/cb?state=s&code=run_3f8Caw1tP28qCdGFjuBwuFcaOPydjf", "3f8Caw1tP28qCdGFjuBwuFcaOPydjf"),
    ):
        shown, hits = redact(text)
        assert hits and secret not in str(shown), shown


_NAMES = [
    "checkout-service-qw4mqnhqcr-bl4bm",
    "my-bucket-logs-us-east-1-5f3a9c2e1b7d4a8c",
]


@pytest.mark.parametrize("name", _NAMES)
def test_a_generated_resource_name_of_32_characters_or_more_is_kept(name: str) -> None:
    """Pods' and buckets' names: hyphenated words keep the 0.82·log2 n limit past 32 characters (the stricter limit
    took these for keys; about 7% of generated pod names of 32+ characters, random in their tails, still read so)."""
    assert redact({"result": f"restarted {name}"})[1] == []
