"""A credential under a secret name in a URL's query, fragment or path parameters is redacted however it is
written: the name in any case, repeated after a harmless value, after ``;`` (``/p;token=…``), before a fragment,
the value percent-encoded. Ordinary URLs stay as they are."""

from __future__ import annotations

import string
from urllib.parse import quote

from hypothesis import example, given, settings
from hypothesis import strategies as st

from noesis_nb.secrets.scan import redact
from noesis_nb.secrets.url_parts import url_secrets

NAMES = ("token", "apikey", "api_key", "access_token", "secret", "password", "sig", "signature", "x-goog-signature")
_ALNUM = string.ascii_letters + string.digits


def _cased(draw: st.DrawFn, name: str) -> str:
    return "".join(c.upper() if draw(st.booleans()) else c for c in name)


@st.composite
def _urls(draw: st.DrawFn) -> tuple[str, str, str]:
    """A URL holding one credential, the credential, and the credential as written."""
    value = draw(st.text(_ALNUM, min_size=24, max_size=40).filter(lambda v: any(c.isdigit() for c in v)))
    value = value[:6] + "Aa" + value[6:]  # digits, lower and upper case letters, as credentials mix them
    written = quote(value[:8] + "/+=" + value[8:], safe="") if draw(st.booleans()) else value
    name = _cased(draw, draw(st.sampled_from(NAMES)))
    host = draw(st.sampled_from(["example.com", "[2001:db8::1]:8443", "10.0.0.1", "h"]))
    lead = draw(st.sampled_from(["?", "#", ";", "?a=1&", "?a=1;", "#/cb?", f"?{name}=on&", f";{name}=on&"]))
    tail = draw(st.sampled_from(["", "&b=2", "#frag", ")", "."]))
    return f"https://{host}/p{lead}{name}={written}{tail}", value, written


_KEY = "lcHsL93uNSQNWDcNkSxKsYlt8oDDSYAF9aDDD59k"
_ENCODED = "0PTKNpsx%2F%2B%3DFcIpRxG9hK6M"


@settings(max_examples=400, deadline=None)
@given(_urls())
@example((f"https://example.com/p?x=1&aPikEY=on&aPikEY={_KEY}#frag", _KEY, _KEY))  # shown whole before
@example((f"https://example.com/p;tOken={_ENCODED}&b=2", "0PTKNpsx/+=FcIpRxG9hK6M", _ENCODED))  # shown whole before
def test_a_credential_under_a_secret_name_never_survives(case: tuple[str, str, str]) -> None:
    url, value, written = case
    for text in (url, f"see {url} now", f'"{url}"'):
        shown = redact({"text": text})[0]["text"]
        assert value not in shown and written not in shown and value[8:] not in shown, (text, shown)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["q", "page", "lang", "sort", "ref", "utm_source"]),
    st.text(string.ascii_lowercase + "-", min_size=1, max_size=12),
    st.sampled_from(["?", ";", "#", "?a=1&"]),
)
def test_an_ordinary_url_stays_readable(name: str, value: str, lead: str) -> None:
    url = f"https://example.com/docs/page{lead}{name}={value}"
    assert redact({"text": url})[0]["text"] == url


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["sig", "token", "apiKey"]), st.sampled_from(["/images/logo.png", "/v2/items?page=2", "/a/b;lang=en"]))
def test_a_path_parameter_ends_with_its_segment(name: str, rest: str) -> None:
    """``/a;sig=<value>/more``: the URL rule finds the value alone, not the rest of the path with it (what it finds
    is also hunted for elsewhere as a secret)."""
    url = f"https://example.com/a;{name}={_KEY}{rest}"
    assert url_secrets(url) == {_KEY}
    assert _KEY not in redact({"text": url})[0]["text"]
