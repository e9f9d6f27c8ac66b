"""Secrets in the places and disguises the corpus carriers do not use are on disk and in views nowhere.

A token used as a dict key (in an event, a wide flat event, a tool's kwargs, the adapter's result), a
token split by a character that shows as nothing (zero-width space, word joiner, BOM, soft hyphen), a
URL's ``?access_token=``, a URL or query passed on percent-encoded, and name/value pairs with a
secret-looking name (a header list, an env entry, an OTel attribute) go through a real episode;
every file of the run and every view of it is searched for each secret and each 8-character
fragment of it. So do secrets, and secret-looking names holding short values, written with character
escapes (``\\u0070assword=…``, a token spelled in ``\\uXXXX`` or ``&#x..;``) or split by an invisible
character, and values of a form body or a query where ``+`` stands for a space (hunted as they
read decoded); there every file and view is also searched as it reads with its escapes undone.
"""

from __future__ import annotations

import html
import random
import re
import string
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus, unquote_plus

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.store import read_events, verify_manifest

from .secret_corpus import run_files
from .test_secrets import _surfaces

_RNG = random.SystemRandom()
ALNUM = string.ascii_letters + string.digits
INVISIBLE = ("\u200b", "\u2060", "\ufeff", "\u00ad")


def _token() -> str:
    return "ghp_" + "".join(_RNG.choice(ALNUM) for _ in range(36))


def _password() -> str:
    return "Pw" + "".join(_RNG.choice(ALNUM) for _ in range(14)) + "!"


KEYS = {where: _token() for where in ("event", "flat", "kwargs", "result")}
SPLIT = {ch: _token() for ch in INVISIBLE}
QUERY, HEADER, ENV, ATTRIBUTE = _password(), _password(), _password(), _password()
ENCODED = {"encoded url": _password(), "encoded query": _password(), "encoded redis url": _password()}
SECRETS = {**{f"key in {w}": v for w, v in KEYS.items()}, **{f"split by U+{ord(c):04X}": v for c, v in SPLIT.items()}}
SECRETS |= {"query": QUERY, "header pair": HEADER, "env entry": ENV, "otel attribute": ATTRIBUTE}
SECRETS |= ENCODED


def _split(value: str, ch: str) -> str:
    """``value`` with ``ch`` after every 9 characters: no piece is a token or a long random word."""
    return ch.join(value[i : i + 9] for i in range(0, len(value), 9))


def lookup(table: dict[str, Any]) -> dict[str, int]:
    """A python tool taking a dict keyed by a token."""
    return {"entries": len(table)}


async def agent(task: str, ctx: Any) -> dict[str, Any]:
    ctx.emit("note", {"seen": {KEYS["event"]: "used for the deploy"}})
    ctx.emit("note", {**{f"count_{i}": i for i in range(10)}, KEYS["flat"]: "ok"})  # wide and flat: judged value by value
    for ch, value in SPLIT.items():
        ctx.emit("reason", {"text": f"the token is {_split(value, ch)}, keep it"})
    ctx.emit("note", {"url": f"https://api.example.com/v1/items?access_token={QUERY}&limit=5"})
    ctx.emit("note", {"headers": [["content-type", "application/json"], ["x-api-key", HEADER]]})
    ctx.emit("note", {"env": [{"name": "LOG_LEVEL", "value": "debug"}, {"name": "DB_PASSWORD", "value": ENV}]})
    ctx.emit("note", {"attributes": [{"key": "http.request.header.authorization", "value": {"stringValue": ATTRIBUTE}}]})
    ctx.emit("note", {"dsn": quote(f"postgres://admin:{ENCODED['encoded url']}@db.example.com/app", safe="")})  # percent-encoded
    ctx.emit("reason", {"text": "next=" + quote(f"https://h.example/x?password={ENCODED['encoded query']}&n=2", safe="")})
    ctx.emit(
        "note",
        {**{f"n_{i}": i for i in range(10)}, "cache": quote(f"redis://:{ENCODED['encoded redis url']}@cache:6379", safe="")},
    )
    out = await ctx.tool_async("py.lookup", {"kwargs": {"table": {KEYS["kwargs"]: 1}}}, fn=lookup, effect="read", risk="low")
    return {"entries": {KEYS["result"]: out["result"]["entries"]}, "note": "done"}


def _fragments(value: str) -> set[bytes]:
    core = value.removeprefix("ghp_")
    return {core[i : i + 8].encode() for i in range(len(core) - 7)}


def _found(blobs: list[tuple[str, bytes]]) -> list[tuple[str, str]]:
    pieces = {name: _fragments(value) for name, value in SECRETS.items()}
    return [(where, name) for where, blob in blobs for name, frags in pieces.items() if any(f in blob for f in frags)]


def test_disguised_and_misplaced_secrets_reach_no_run_file_and_no_view(tmp_path: Path) -> None:
    episode_id = noesis_nb.solve("inventory", using=agent, runs_dir=tmp_path / "runs", approver="auto")
    run_dir = tmp_path / "runs" / episode_id
    events = read_events(run_dir / "events.jsonl", strict=True)
    assert verify_manifest(run_dir).ok and {e["phase"] for e in events} >= {"reason", "act", "terminate"}
    notes = [e["payload"] for e in events if e["payload"].get("headers") or e["payload"].get("env")]
    assert notes[0]["headers"][0] == ["content-type", "application/json"]  # what is no secret stays as it was
    assert notes[1]["env"][0] == {"name": "LOG_LEVEL", "value": "debug"}
    frames = noesis_nb.events_df(run_dir.parent)
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs.append(("events_df", frames.to_json().encode()))
    found = _found(blobs)
    assert sorted({name for _, name in found}) == [], found[:10]


async def keyed_agent(task: str, ctx: Any) -> Any:
    return await ctx.tool_async("py.lookup", {"kwargs": {"table": {KEYS["kwargs"]: 1}}}, fn=lookup, effect="write", risk="high")


def test_a_draft_keyed_by_a_secret_says_why_another_process_cannot_run_it(tmp_path: Path) -> None:
    """The key was stored redacted and ``secrets=`` fills values only: the other process's error says so
    (before: "the record was edited after it was prepared", which sent the user looking for an edit)."""
    runs = tmp_path / "runs"
    episode_id = noesis_nb.solve("inventory", using=keyed_agent, runs_dir=runs, approver="ask")
    noesis_nb.approve_draft(runs / episode_id, approver_id="ana")
    code = f"import noesis_nb; noesis_nb.resume_run({episode_id!r}, runs_dir={str(runs)!r})"
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0, proc.stdout
    assert "held a secret and was stored redacted" in proc.stderr, proc.stderr[-2000:]
    assert KEYS["kwargs"] not in proc.stderr


# -- disguises that need decoding: character escapes (HTML references too), invisible characters in names --
_ESCAPES_IN_BLOB = re.compile(r"\\\\?(?:u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|x([0-9a-fA-F]{2}))")
_INVISIBLE_RE = re.compile("[\u00ad\u034f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]")


def _unescaped(match: re.Match[str]) -> str:
    code = int(next(g for g in match.groups() if g), 16)
    return chr(code) if code <= 0x10FFFF else match.group()


def _readings(blob: bytes) -> list[str]:
    """A file or view as a person or a program could read it back: as written, with every ``\\uXXXX``/``\\xXX``
    escape (JSON's too), HTML character reference and invisible character undone, and form-decoded."""
    text = blob.decode("utf-8", "replace")
    plain = _INVISIBLE_RE.sub("", html.unescape(html.unescape(_ESCAPES_IN_BLOB.sub(_unescaped, text))))
    return [text, plain, unquote_plus(plain)]


def _leaks(run_dir: Path, secrets: dict[str, str]) -> list[tuple[str, str]]:
    """(where, name) for every secret, or 8-character piece of one, that any file or view of the run shows."""
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs.append(("events_df", noesis_nb.events_df(run_dir.parent).to_json().encode()))
    pieces = {name: {v[i : i + 8] for i in range(max(1, len(v) - 7))} for name, v in secrets.items()}
    return [
        (where, name)
        for where, blob in blobs
        for reading in _readings(blob)
        for name, frags in pieces.items()
        if any(f in reading for f in frags)
    ]


def _escaped(text: str, form: str = "\\u{:04x}") -> str:
    return "".join(form.format(ord(c)) for c in text)


def _short() -> str:
    """A short password (no token shape, too short to look random)."""
    return "Hu" + "".join(_RNG.choice(ALNUM) for _ in range(6)) + "2!"


def _solve(agent_fn: Any, tmp_path: Path) -> Path:
    episode_id = noesis_nb.solve("inventory", using=agent_fn, runs_dir=tmp_path / "runs", approver="auto")
    run_dir = tmp_path / "runs" / episode_id
    assert verify_manifest(run_dir).ok
    return run_dir


def _payloads(run_dir: Path) -> list[dict[str, Any]]:
    return [e["payload"] for e in read_events(run_dir / "events.jsonl", strict=True)]


X_FORM = "\\x{:02x}"
ESCAPED = {
    "partly escaped key": "sk-proj-" + "".join(_RNG.choice(ALNUM) for _ in range(28)),
    "escaped token": _token(),
    "escaped name": _short(),
    "escaped name, x form": _short(),
    "escaped key in JSON text": _short(),
    "escaped name in a tool's kwargs": _short(),
}


async def escaped_agent(task: str, ctx: Any) -> dict[str, Any]:
    key = ESCAPED["partly escaped key"]
    ctx.emit("reason", {"text": f"the key is \\u0073{key[1:]} for now"})  # the text holds a backslash, a u and 4 digits
    ctx.emit("reason", {"text": f"the token is {_escaped(ESCAPED['escaped token'])}, keep it"})
    ctx.emit("note", {"text": _escaped("password") + "=" + ESCAPED["escaped name"]})
    ctx.emit("note", {"text": "pass" + _escaped("wor", X_FORM) + "d: " + ESCAPED["escaped name, x form"]})
    ctx.emit(
        "note",
        {
            **{f"n_{i}": i for i in range(10)},
            "cfg": '{"' + _escaped("db_password") + f'": "{ESCAPED["escaped key in JSON text"]}"}}',
        },
    )
    ctx.emit("reason", {"text": 'JSON writes "\\u00e9" for é and "\\u2014" for a dash'})  # ordinary escapes stay
    out = await ctx.tool_async(
        "py.lookup",
        {"kwargs": {"table": {"conn": "host=db " + _escaped("pass") + "word=" + ESCAPED["escaped name in a tool's kwargs"]}}},
        fn=lookup,
        effect="read",
        risk="low",
    )
    return {"entries": out["result"]["entries"]}


def test_secrets_written_with_character_escapes_reach_no_run_file_and_no_view(tmp_path: Path) -> None:
    run_dir = _solve(escaped_agent, tmp_path)
    assert {"text": 'JSON writes "\\u00e9" for é and "\\u2014" for a dash'} in _payloads(run_dir)
    found = _leaks(run_dir, ESCAPED)
    assert sorted({name for _, name in found}) == [], found[:10]


INVISIBLE_NAMED = {
    "key split by U+200B": _short(),
    "key split by U+2060, wide payload": _short(),
    "key split by U+00AD, a number": "73519864",
    "text name split by U+200B": _short(),
    "text name split by U+FEFF": _short(),
    "kwargs key split by U+00AD": _short(),
}


async def invisible_agent(task: str, ctx: Any) -> dict[str, Any]:
    v = INVISIBLE_NAMED
    ctx.emit("note", {"pass\u200bword": v["key split by U+200B"]})
    ctx.emit("note", {**{f"n_{i}": i for i in range(10)}, "api\u2060_key": v["key split by U+2060, wide payload"]})
    ctx.emit("note", {"db_pass\u00adword": int(v["key split by U+00AD, a number"])})
    ctx.emit("reason", {"text": f"p\u200bassword={v['text name split by U+200B']}"})
    ctx.emit("reason", {"text": f"use to\ufeffken: {v['text name split by U+FEFF']} today"})
    ctx.emit("reason", {"text": "an ordinary\u200bsentence with a soft\u00adhyphen"})  # stays as it is
    out = await ctx.tool_async(
        "py.lookup",
        {"kwargs": {"table": {"secr\u00adet": v["kwargs key split by U+00AD"]}}},
        fn=lookup,
        effect="read",
        risk="low",
    )
    return {"entries": out["result"]["entries"]}


def test_secret_names_split_by_an_invisible_character_keep_short_values_out_of_every_file_and_view(tmp_path: Path) -> None:
    run_dir = _solve(invisible_agent, tmp_path)
    assert {"text": "an ordinary\u200bsentence with a soft\u00adhyphen"} in _payloads(run_dir)
    found = _leaks(run_dir, INVISIBLE_NAMED)
    assert sorted({name for _, name in found}) == [], found[:10]


FORM = {
    "form password": "correct horse " + "".join(_RNG.choice(string.ascii_lowercase) for _ in range(7)) + " staple",
    "form token": "ab cd+" + "".join(_RNG.choice(ALNUM) for _ in range(12)),
    "query secret": "Pw " + "".join(_RNG.choice(ALNUM) for _ in range(10)),
}


async def form_agent(task: str, ctx: Any) -> dict[str, Any]:
    ctx.emit("reason", {"text": f"I will sign in with {FORM['form password']} as before"})  # before it is known
    ctx.emit("note", {"body": "grant_type=password&username=bob&password=" + quote_plus(FORM["form password"])})
    ctx.emit("reason", {"text": f"signed in with {FORM['form password']}"})  # after
    ctx.emit("reason", {"text": "2+2=4, C++ and a+b=c stay as they are; x=1&y=a+b too"})
    ctx.emit("note", {"url": "https://id.example.com/cb?client_secret=" + quote_plus(FORM["query secret"]) + "&state=ok"})
    ctx.emit("note", {"text": f"then the {FORM['query secret']} one"})
    out = await ctx.tool_async(
        "py.lookup",
        {"kwargs": {"table": {"data": "token=" + quote_plus(FORM["form token"])}}},
        fn=lookup,
        effect="read",
        risk="low",
    )
    return {"entries": out["result"]["entries"], "note": f"token {FORM['form token']} used"}


def test_form_encoded_secrets_are_learned_as_they_read_decoded(tmp_path: Path) -> None:
    """``+`` stands for a space in a form body or query: the value is redacted as written and hunted decoded."""
    run_dir = _solve(form_agent, tmp_path)
    assert {"text": "2+2=4, C++ and a+b=c stay as they are; x=1&y=a+b too"} in _payloads(run_dir)
    found = _leaks(run_dir, FORM)
    assert sorted({name for _, name in found}) == [], found[:10]


HTML_REFS = {"entity name": _short(), "entity token": _token(), "decimal entity value": _short()}


async def entity_agent(task: str, ctx: Any) -> dict[str, Any]:
    ctx.emit("note", {"html": "<p>" + _escaped("pass", "&#x{:x};") + "word=" + HTML_REFS["entity name"] + "</p>"})
    ctx.emit("reason", {"text": "the token is " + _escaped(HTML_REFS["entity token"], "&#{};") + " now"})
    ctx.emit("note", {**{f"n_{i}": i for i in range(10)}, "form": "&#116;oken: " + HTML_REFS["decimal entity value"]})
    ctx.emit("reason", {"text": "Tom &#38; Jerry &amp; friends"})  # stays as it is
    return {"note": "done"}


def test_secrets_written_with_html_character_references_reach_no_run_file_and_no_view(tmp_path: Path) -> None:
    run_dir = _solve(entity_agent, tmp_path)
    assert {"text": "Tom &#38; Jerry &amp; friends"} in _payloads(run_dir)
    found = _leaks(run_dir, HTML_REFS)
    assert sorted({name for _, name in found}) == [], found[:10]
