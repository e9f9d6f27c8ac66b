"""A secret-named value printed as text in the shapes that give a name and its value apart is redacted.

``kubectl get deploy -o json|yaml`` prints an env entry (``{"name": "DB_PASSWORD", "value": …}`` as JSON text,
``- name: DB_PASSWORD`` then ``value: …`` as YAML), Maven's settings.xml ``<password>…</password>``, a Dockerfile
``ENV DB_PASSWORD …``: the same entry given as data was redacted, as text it was written and shown in clear. Each
shape is drawn with a secret name and a value; the same shapes with a plain name (``HOME``, ``<username>``) keep it.
"""

from __future__ import annotations

import json
import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from noesis_nb.secrets import REDACTED_VALUE, find_in_text, redact

SECRET_NAMES = ["DB_PASSWORD", "API_TOKEN", "client_secret", "GITHUB_TOKEN", "smtpPass", "SESSION_KEY", "password"]
PLAIN_NAMES = ["HOME", "LOG_LEVEL", "username", "DB_HOST", "region"]


@st.composite
def values(draw: st.DrawFn) -> str:
    """A password as people make them: words, digits and signs, not random enough for the randomness rule."""
    rnd = random.Random(draw(st.integers(0, 2**32)))
    word = rnd.choice(["mellow", "Harbor", "violet", "Quartz", "tiger", "Sunday"])
    return f"{rnd.choice(string.ascii_letters)}{rnd.randint(1, 99)}-{word}-{rnd.choice(string.ascii_letters)}{rnd.randint(1, 9)}"


def _shapes(name: str, value: str) -> dict[str, str]:
    entry = {"name": name, "value": value}
    return {
        "json": json.dumps({"spec": {"containers": [{"env": [{"name": "HOME", "value": "/root"}, entry]}]}}, indent=2),
        "json_flat": json.dumps({"env": [entry]}),
        "json_in_json": json.dumps(json.dumps({"env": [entry]})),
        "json_value_first": json.dumps({"value": value, "name": name}),
        "yaml": f"spec:\n  containers:\n  - env:\n    - name: HOME\n      value: /root\n"
        f"    - name: {name}\n      value: {value}\n",
        "yaml_quoted": f'- name: {name}\n  value: "{value}"\n',
        "xml": f"<server><id>nexus</id><username>deploy</username><{name}>{value}</{name}></server>",
        "dockerfile": f"FROM python:3.12\nENV {name} {value}\nRUN make\n",
        "dockerfile_eq": f"FROM python:3.12\nARG {name}={value}\n",
        "properties": f"db.url=jdbc:x\n{name} = {value}\n",
    }


@settings(max_examples=50, deadline=None)
@given(name=st.sampled_from(SECRET_NAMES), value=values())
def test_secret_named_values_in_text_are_redacted(name: str, value: str) -> None:
    for shape, text in _shapes(name, value).items():
        shown, _ = redact({"stdout": text})
        assert value not in shown["stdout"], (shape, shown["stdout"])
        assert REDACTED_VALUE in shown["stdout"], shape
        assert value in find_in_text(text), shape  # the value itself is what is found and learned


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(PLAIN_NAMES), value=values())
def test_plain_named_values_in_text_are_kept(name: str, value: str) -> None:
    for shape, text in _shapes(name, value).items():
        shown, _ = redact({"stdout": text})
        assert shown["stdout"] == text, shape


def test_prose_and_references_are_kept() -> None:
    kept = [
        "the name: password and value: lowered when reset",
        "- name: DB_PASSWORD\n  valueFrom: ref\n- name: HOME\n  value: /root\n",
        "<password>${env.DB_PASSWORD}</password>",
        "<password-policy>min length</password-policy>",
        "ENV PATH /usr/local/bin:$PATH\nENV DB_PASSWORD_FILE /run/secrets/db\n",
    ]
    for text in kept:
        assert redact({"stdout": text})[0]["stdout"] == text, text
