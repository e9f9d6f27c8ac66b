"""Every cookie of a Cookie header written as text is hidden, not only the first.

A Cookie header holds several cookies (``Cookie: lang=en; sessionid=X``): a value ending at ``; `` before a next
``name=`` (a connection string's ``Password=X;Database=y``) hid ``lang=en`` and wrote the session cookie after it in
clear, in a ``curl -H``, a request log or an HTTP dump alike; and ``curl -b 'session=X'`` named no secret. A Cookie or
Set-Cookie header's value now runs to its line's end (or to the quote closing the header's text) and each cookie
value is hidden (a Set-Cookie's first, its attributes kept); curl's ``-b``/``--cookie`` gives cookies too (a word
without ``=`` is a file, kept)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import redact, shown

_S = "Zq8rLm2pXw7Kt4Hn"
_HEADERS = [
    "curl -H 'Cookie: {c}' https://app.example.com/api/me",
    'curl -H "Cookie: {c}" https://app.example.com/api/me',
    "curl --header 'cookie: {c}' -s https://app.example.com/",
    "GET /api/me HTTP/1.1\nHost: app\nCookie: {c}\nAccept: */*\n",
    "GET /api/me HTTP/1.1\r\nHost: app\r\nCookie: {c}\r\n\r\n",
    "cookie: {c}",
    "COOKIE: {c}",
    "> Cookie: {c}",  # curl -v
    "http GET app.example.com Cookie:{c}",  # HTTPie
    "wget --header='Cookie: {c}' https://app.example.com/",
    "requests.get(url, headers={{'Cookie': '{c}'}})",
    '{{"headers": {{"Cookie": "{c}"}}}}',
    "curl -b '{c}' https://app.example.com/",
    'curl --cookie "{c}" https://app.example.com/',
    "curl -s --cookie='{c}' https://app.example.com/",
]
_JARS = [
    "lang=en; sessionid={s}",
    "_ga=GA1.2.3; PHPSESSID={s}",
    "theme=dark; connect.sid={s}",
    "a=1; b=2; session={s}; c=3",
    "csrftoken=abc; sessionid={s}",
    "sessionid={s}",
    "JSESSIONID={s}; Path=/",
]


@pytest.mark.parametrize("jar", _JARS)
@pytest.mark.parametrize("layout", _HEADERS)
def test_every_cookie_of_a_header_or_curl_flag_is_hidden(layout: str, jar: str) -> None:
    text = layout.format(c=jar.format(s=_S))
    for out in (shown(text), redact({"text": text})[0]["text"]):
        assert _S not in out and "Lm2pXw7" not in out, out


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    layout=st.sampled_from(_HEADERS),
    before=st.lists(st.sampled_from(["lang=en", "theme=dark", "_ga=GA1.2.3", "tz=UTC", "consent=yes"]), max_size=3),
    name=st.sampled_from(["sessionid", "PHPSESSID", "connect.sid", "session", "__Host-sid", "auth_session", "sid"]),
    value=st.text(st.sampled_from("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789-_.%"), min_size=12, max_size=40),
)
def test_a_session_cookie_anywhere_in_the_header_is_hidden(layout: str, before: list[str], name: str, value: str) -> None:
    secret = f"Zq8{value}7K"
    out = shown(layout.format(c="; ".join([*before, f"{name}={secret}"])))
    assert secret not in out and value not in out, out


def test_a_set_cookie_header_hides_its_cookie_and_keeps_its_attributes() -> None:
    out = shown(f"HTTP/1.1 200 OK\nSet-Cookie: sessionid={_S}; Path=/; HttpOnly; Secure; SameSite=Lax\n")
    assert _S not in out and "Path=/; HttpOnly; Secure; SameSite=Lax" in out, out


@pytest.mark.parametrize(
    "text",
    [
        "curl -b cookies.txt https://app.example.com/",  # a file of cookies
        "curl -c jar.txt -b jar.txt https://app.example.com/",
        "a cookie: a small biscuit",
        "the cookie banner shows on every page",
    ],
)
def test_no_cookie_given_nothing_is_hidden(text: str) -> None:
    assert shown(text) == text


def test_a_live_run_writes_and_shows_no_session_cookie(tmp_path: Path) -> None:
    texts = [layout.format(c=f"lang=en; sessionid={_S}{n:02d}") for n, layout in enumerate(_HEADERS)]

    def agent(task: str, ctx: Any) -> str:
        for text in texts:  # (under ``msg``: texts under ``text`` are read joined, as a stream's pieces)
            ctx.emit("note", {"msg": text})
        return "done"

    ep = noesis_nb.solve("t", using=agent, runs_dir=tmp_path, approver="auto")
    written = {p.name: p.read_text("utf-8") for p in (tmp_path / ep).rglob("*") if p.is_file()}
    assert not [name for name, body in written.items() if _S in body]
    assert _S not in noesis_nb.show(tmp_path / ep).snapshot_html()
    notes = [json.loads(line)["payload"]["msg"] for line in written["events.jsonl"].splitlines() if '"note"' in line]
    assert len(notes) == len(texts), notes
    assert all("app.example.com" in note for note, text in zip(notes, texts) if "app.example.com" in text), notes
