"""A URL's credentials outside its password (``url_parts``): query values that sign or authorise the request
and a token used as its user name are redacted where a view shows them, where a run writes them and in tool
output (screened without the randomness rule), while ordinary URLs and ``code``/``sig`` outside a URL are kept."""

from __future__ import annotations

import asyncio
import base64
import random
import secrets as stdlib_secrets
import string
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

import noesis_nb
from noesis_nb.secrets import find_in_text, for_run, is_secret_key, redact, shown
from noesis_nb.secrets.randomness import entropy_ok

_RNG = random.SystemRandom()


def _token(letters: int = 12, digits: int = 4) -> str:
    """A short random credential (under the 20 characters the randomness rule measures): distinct characters.

    A user name or a ``key=``/``code=`` value counts as a credential when it reads random; about one such draw
    in three hundred reads as syllables and a number to the rule (``HGDAujwpgM3912db``), which keeps names like
    ``JohnSmith1985``, so the draw leaves those out: what is checked is where the ones that read random go."""
    while True:
        chars = _RNG.sample(string.ascii_letters, letters) + _RNG.sample(string.digits, digits)
        _RNG.shuffle(chars)
        token = "".join(chars)
        if entropy_ok(token):
            return token


def _urls() -> dict[str, tuple[str, str]]:
    """name -> (url, the credential in it as written)."""
    sas = quote(base64.b64encode(stdlib_secrets.token_bytes(32)).decode(), safe="")
    amz = stdlib_secrets.token_hex(32)
    code = "4/0A" + stdlib_secrets.token_urlsafe(30)
    names = ("key", "signature", "token", "access", "client", "password", "user", "ghp", "implicit", "id", "fcode", "fsig")
    values = {name: _token() for name in (*names, "colon user", "empty password")}
    github_code = "".join(_RNG.sample("0123456789abcdef", 16)) + stdlib_secrets.token_hex(2)  # 20 hex digits
    keycloak = ".".join(str(uuid.uuid4()) for _ in range(3))
    microsoft = f"M.C507_BAY.2.U.{uuid.uuid4()}"
    values["ghp"] = "ghp_" + "".join(_RNG.choice(string.ascii_letters + string.digits) for _ in range(36))
    return {
        "azure sas sig": (f"https://acct.blob.core.windows.net/c/report.pdf?sv=2022-11-02&sr=b&sp=r&sig={sas}", sas),
        "s3 presigned": (
            f"https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Expires=900&X-Amz-Signature={amz}",
            amz,
        ),
        "oauth code": (f"https://app.example.com/callback?code={code}&state=af0ifjsldkj", code),
        "generic key": (f"https://api.example.com/v1/items?key={values['key']}&page=2", values["key"]),
        "signature": (f"https://cdn.example.com/a.png?expires=1700000000&signature={values['signature']}", values["signature"]),
        "token": (f"https://api.example.com/x?token={values['token']}", values["token"]),
        "access_token": (f"https://api.example.com/x?access_token={values['access']}", values["access"]),
        "client_secret": (f"https://auth.example.com/t?client_id=app&client_secret={values['client']}", values["client"]),
        "password": (f"https://db.example.com/x?user=bob&password={values['password']}", values["password"]),
        "token as user": (f"https://{values['user']}@git.example.com/org/repo.git", values["user"]),
        "github token as user": (f"https://{values['ghp']}@github.com/org/repo.git", values["ghp"]),
        "github oauth code": (f"https://app.example.com/callback?code={github_code}&state=x", github_code),
        # an OAuth implicit flow hands its tokens over in the fragment
        "fragment access_token": (
            f"https://app.example.com/cb#access_token={values['implicit']}&token_type=bearer",
            values["implicit"],
        ),
        "fragment id_token": (f"https://app.example.com/cb#state=x&id_token={values['id']}", values["id"]),
        "fragment code": (f"https://app.example.com/cb#code={values['fcode']}&state=x", values["fcode"]),
        "fragment sig": (f"https://app.example.com/cb#state=x&sig={values['fsig']}", values["fsig"]),
        "token before x-oauth-basic": (
            f"https://{values['colon user']}:x-oauth-basic@github.com/org/repo.git",
            values["colon user"],
        ),
        "token with an empty password": (f"https://{values['empty password']}:@git.example.com/r.git", values["empty password"]),
        # codes issued in parts, each a UUID or a short tag: random as a whole, no part of them reads random
        "keycloak code": (f"https://app.example.com/cb?state=ab12&code={keycloak}", keycloak),
        "microsoft account code": (f"https://app.example.com/cb?code={microsoft}&state=1", microsoft),
    }


ORDINARY = [
    "https://example.com/search?page=2&q=token",
    "https://example.com/status?code=200",
    "https://app.example.com/callback?code=200&state=ok",
    "https://shop.example.com/p?key=my-page-name",
    "https://shop.example.com/p?sig=on&key=colour",
    "https://john.doe@example.com/calendar",
    "ssh://git@github.com/org/repo.git",
    "https://github.com/org/repo/blob/main/setup.py?plain=1",
    # promo, error and product codes are short or made of words: not the long random OAuth codes and API keys
    "https://shop.example.com/cart?code=SUMMER25",
    "https://shop.example.com/cart?code=Summer25",
    "https://docs.example.com/errors?code=ERR_Conn_Reset42",
    "https://www.example.com/product?key=SKU-AB12cd34",
    "https://en.wikipedia.org/w/index.php?title=X&key=ThinkPadX1Carbon",
    "https://JohnSmith1985:@bitbucket.org/team/repo.git",
]


@pytest.mark.parametrize("name", list(_urls()))
def test_a_credential_in_a_url_is_redacted_where_shown_written_and_in_tool_output(tmp_path: Path, name: str) -> None:
    url, credential = _urls()[name]
    text = f"fetched {url} for the report"
    assert credential not in shown(text)
    assert credential in find_in_text(text, entropy=False)  # tool output is screened without the randomness rule
    written = for_run(tmp_path).screen({"url": url, "note": text})
    assert credential not in written["url"] and credential not in written["note"]
    assert credential not in str(redact({"output": text}, entropy=False)[0])


@pytest.mark.parametrize("url", ORDINARY)
def test_an_ordinary_url_is_kept(tmp_path: Path, url: str) -> None:
    text = f"see {url} for details"
    assert shown(text) == text
    assert for_run(tmp_path).screen({"url": url}) == {"url": url}


def test_code_and_signature_are_secret_names_only_in_a_url() -> None:
    value = _token()
    assert not is_secret_key("code") and not is_secret_key("signature") and not is_secret_key("sig")
    for text in (f"status code={value}", f"signature: {value}", f'{{"code": "{value}"}}'):
        assert shown(text) == text
    assert redact({"code": value, "sig": value})[0] == {"code": value, "sig": value}


def test_a_run_writes_no_url_credential_and_keeps_ordinary_urls(tmp_path: Path) -> None:
    urls = _urls()

    def agent(task: str, ctx: Any) -> str:
        for url, _ in urls.values():
            ctx.emit("note", {"url": url})
        ctx.emit("note", {"links": ORDINARY})
        return "done"

    async def cell() -> Path:
        handle = noesis_nb.start("fetch", using=agent, runs_dir=tmp_path)
        await handle
        assert handle.status == "ok"
        return Path(handle.run_dir)

    events = (asyncio.run(cell()) / "events.jsonl").read_text(encoding="utf-8")
    assert [name for name, (_, credential) in urls.items() if credential in events] == []
    assert [url for url in ORDINARY if url not in events] == [], events[-2000:]


@pytest.mark.parametrize("text", ["", "no link here ?code=abc", "a:/b?sig=x", "https:/x"])
def test_a_text_without_a_url_gives_no_url_secret(text: str) -> None:
    """``url_secrets`` is reached only through a pre-check today; called on any text it finds none, raising nothing."""
    from noesis_nb.secrets.url_parts import url_secrets

    assert url_secrets(text) == set()
