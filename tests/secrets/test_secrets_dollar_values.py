"""A value starting with ``$`` is a reference standing for a secret only when it is shaped as one (``$DB_PASSWORD``,
``${VAR}``, ``$(cmd)``, ``$1``): every value starting with ``$`` was kept as a placeholder, so ``password=$uperS3cret99``
and ``{"api_key": "$9fK2mQ…"}`` were written in clear."""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import REDACTED_VALUE, redact

NAMES = ["password", "api_key", "DB_PASSWORD", "client_secret", "token", "apiKey", "passphrase"]
FORMS = [
    lambda n, v: f"{n}={v}",
    lambda n, v: f"export {n.upper()}={v}",
    lambda n, v: f"{n}: {v}",
    lambda n, v: json.dumps({n: v}),
    lambda n, v: f"--{n.lower().replace('_', '-')} {v}",
    lambda n, v: f'{n} = "{v}"',
    lambda n, v: f"my password is {v} ok",
]
SYMBOLS = "!@#^*+"  # (``&`` ends a value in a query or form, ``%`` starts an escape)


@st.composite
def dollar_passwords(draw: Any) -> str:
    """``$`` and a password no shell reads as one name: a digit then more (``$9fK2mQ…``), small letters then a
    capital and a digit (``$uperS3cret99``), or a symbol inside."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    tail = "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(rnd.randint(6, 20)))
    shape = draw(st.sampled_from(["digit", "capital_digit", "symbol"]))
    if shape == "digit":
        return "$" + rnd.choice(string.digits) + rnd.choice(string.ascii_letters) + tail
    if shape == "capital_digit":
        head = "".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(2, 5)))
        return "$" + head + rnd.choice(string.ascii_uppercase) + rnd.choice(string.digits) + tail
    cut = rnd.randint(1, len(tail) - 1)
    return "$" + tail[:cut] + rnd.choice(SYMBOLS) + tail[cut:]


@settings(max_examples=150, deadline=None)
@given(value=dollar_passwords(), name=st.sampled_from(NAMES), form=st.sampled_from(FORMS))
def test_a_password_starting_with_a_dollar_is_hidden(value: str, name: str, form: Any) -> None:
    text = form(name, value)
    shown, _ = redact({"text": text})
    assert value not in shown["text"] and value[1:] not in shown["text"], (text, shown)
    assert REDACTED_VALUE in shown["text"]


@settings(max_examples=60, deadline=None)
@given(value=dollar_passwords(), name=st.sampled_from(NAMES))
def test_a_dollar_password_under_a_secret_key_is_hidden(value: str, name: str) -> None:
    shown, _ = redact({"config": {name: value}})
    assert shown["config"][name] == REDACTED_VALUE


# names as they are written: words joined by ``_``, maybe a number after one (``DB_PASSWORD``, ``API_KEY_2``, ``S3``)
_WORDS = ["db", "password", "api", "key", "token", "secret", "aws", "s3", "github", "openai", "client", "prod", "user",
          "pass", "redis", "postgres", "smtp", "app", "v2", "k8s", "staging", "admin", "access", "pw"]  # fmt: skip
_NAME = st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4).map("_".join)
_UPPER = st.tuples(_NAME, st.sampled_from(["", "2", "_1", "01"])).map(lambda p: (p[0] + p[1]).upper())
_LOWER = st.tuples(_NAME, st.sampled_from(["", "2", "_1"])).map("".join)
REFERENCES = st.one_of(
    _UPPER.map(lambda v: "$" + v),
    _UPPER.map(lambda v: "${" + v + "}"),
    _UPPER.map(lambda v: "${" + v + ":-default}"),
    _LOWER.map(lambda v: "$" + v),
    _UPPER.map(lambda v: "${{ secrets." + v + " }}"),
    st.sampled_from(
        [
            "$(pass show db)",
            "$(cat /run/secrets/db)",
            "$((1+2))",
            "$1",
            "$9",
            "$?",
            "$@",
            "$env:API_KEY",
            "$dbPassword",
            "$apiKey",
            "$AWS_S3_KEY",
            "$K8S_TOKEN",
        ]
    ),  # fmt: skip
)


@settings(max_examples=150, deadline=None)
@given(value=REFERENCES, name=st.sampled_from(NAMES), form=st.sampled_from(FORMS[:3]))
def test_a_reference_standing_for_a_secret_stays(value: str, name: str, form: Any) -> None:
    text = form(name, value)
    shown, _ = redact({"text": text})
    assert shown["text"] == text


def test_a_live_run_writes_them_redacted(tmp_path: Path) -> None:
    given_values = ["$uperS3cret99", "$9fK2mQ7xLpW3", "$Xy9!kQ2mTz"]

    def agent(task: str, ctx: Any) -> str:
        ctx.emit("model", {"text": f"password={given_values[0]}"})
        ctx.emit("model", {"text": json.dumps({"api_key": given_values[1]})})
        ctx.emit("note", {"args": {"client_secret": given_values[2]}, "note": "export TOKEN=$DB_TOKEN"})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path)
    written = (tmp_path / ep / "events.jsonl").read_text()
    for value in given_values:
        assert value not in written and value[1:] not in written, value
    assert "$DB_TOKEN" in written
    assert written.count(REDACTED_VALUE) >= 3
