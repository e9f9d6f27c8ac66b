"""End to end: secrets passed on base64-encoded, as a lone form pair, split across list strings, behind
``\\/``/octal/surrogate-pair escapes, percent-encoded in a URL's userinfo, as curl's ``-u``, in bytes, in a
key, in a model prompt, in tool arguments and results and in the exception that ends the episode reach
no file of the run and no view of it (HTML views, rows, replay, inbox, ``%noesis show --text``), read
as written, with escapes undone, form-decoded and base64-decoded.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import string
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.store import read_events
from noesis_nb.widgets.snapshot import timeline_text
from tests.hardening.secret_corpus import run_files
from tests.hardening.test_secrets import _surfaces
from tests.hardening.test_secrets_disguised import _RNG, _readings

ALNUM = string.ascii_letters + string.digits


def _pw() -> str:
    return "Hu" + "".join(_RNG.choice(ALNUM) for _ in range(8)) + "2!"


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


TOKEN = "ghp_" + "".join(_RNG.choice(ALNUM) for _ in range(36))
SECRETS = {
    "base64 key=value in a url": _pw(),
    "lone form pair": "correct horse " + "".join(_RNG.choice(string.ascii_lowercase) for _ in range(8)),
    "basic credentials in a prompt": _pw(),
    "token streamed in chunks": TOKEN,
    "value split from its name in tool argv": _pw(),
    "octal-escaped name in a tool result": _pw(),
    "url behind json's \\/ in a key": _pw(),
    "base64 in bytes": _pw(),
    "base64 in the exception": _pw(),
    "surrogate pair escapes": _pw()[:6] + "\U0001f600" + _pw()[:6],
    "percent-encoded userinfo": "p@ss" + "".join(_RNG.choice(ALNUM) for _ in range(10)),
    "escaped JSON in a tool result": _pw(),
    "curl -u in an argv": _pw(),
}
PROSE = _b64("the quick brown fox reads the run log")  # base64 of no secret
DIGEST = "sha256=" + hashlib.sha256(b"release").hexdigest()


def echo(argv: list[str]) -> dict[str, Any]:
    """A tool that answers with a config line naming its password in an octal escape, and JSON inside a string."""
    config = "\\160assword=" + SECRETS["octal-escaped name in a tool result"]
    return {
        "ran": len(argv),
        "config": config,
        "headers": '{\\"authorization\\": \\"' + SECRETS["escaped JSON in a tool result"] + '\\"}',
    }


async def agent(task: str, ctx: Any) -> Any:
    s = SECRETS
    ctx.emit("note", {"url": "https://app.example.com/cb?state=" + _b64("user=bob&password=" + s["base64 key=value in a url"])})
    ctx.emit("note", {"body": "password=" + quote_plus(s["lone form pair"]), "kept": [PROSE, DIGEST]})
    ctx.emit(
        "model",
        {
            "event_name": "model.call",
            "model": "claude-sonnet-4-5",
            "messages": [
                {"role": "user", "content": "Authorization: Basic " + _b64("bob:" + s["basic credentials in a prompt"])}
            ],
            "chunks": ["the key is ", TOKEN[:9], TOKEN[9:20], TOKEN[20:], " - keep it"],
        },
    )
    ctx.emit("note", {'{"dsn": "https:\\/\\/bob:' + s["url behind json's \\/ in a key"] + '@db.example\\/app"}': "seen"})
    ctx.emit("note", {"raw": b"state=" + _b64("api_key=" + s["base64 in bytes"]).encode()})
    ctx.emit("note", {"text": "password=" + s["surrogate pair escapes"].replace("\U0001f600", "\\ud83d\\ude00")})
    ctx.emit("note", {"dsn": "postgres://bob:" + quote(s["percent-encoded userinfo"], safe="") + "@db.example.com/app"})
    ctx.emit("note", {"argv": ["curl", "-sS", "-u", "bob:" + s["curl -u in an argv"], "https://api.example.com"]})
    await ctx.tool_async(
        "py.echo",
        {"kwargs": {"argv": ["sh", "-c", "export API_TOKEN=", s["value split from its name in tool argv"], "; make"]}},
        fn=echo,
        effect="read",
        risk="low",
    )
    for name, value in s.items():  # each secret, as it reads, in a later message
        ctx.emit("reason", {"text": f"{name}: {value.replace('+', ' ')}"})
    raise RuntimeError("upstream refused ?state=" + _b64("password=" + s["base64 in the exception"]))


_B64_WORD = re.compile(r"[A-Za-z0-9+/_-]{16,}={0,2}")


def _decoded_words(text: str) -> list[str]:
    """Each base64 word of ``text`` as it decodes (as UTF-8, errors replaced)."""
    out = []
    for word in _B64_WORD.findall(text):
        body = word.rstrip("=").replace("-", "+").replace("_", "/")
        try:
            out.append(base64.b64decode(body + "=" * (-len(body) % 4)).decode("utf-8", "replace"))
        except (binascii.Error, ValueError):
            continue
    return out


def _paired(text: str) -> str:
    """``text`` with each surrogate pair (as an escape reading leaves one) read as the one character it stands for."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def _replay_and_inbox(run_dir: Path) -> list[tuple[str, bytes]]:
    """The replay view at its first and last event, and the inbox of the runs directory."""
    from noesis_nb.widgets.inboxview import InboxView

    view = noesis_nb.replay(run_dir)
    out = [("replay start", view._repr_mimebundle_()["text/html"])]
    view.seek(view.total)
    out.append(("replay end", view._repr_mimebundle_()["text/html"]))
    inbox = InboxView(run_dir.parent)
    try:
        out.append(("inbox", inbox.snapshot_html()))
    finally:
        inbox.close()
    return [(where, html.encode()) for where, html in out]


def test_encoded_split_and_escaped_secrets_reach_no_file_and_no_view(tmp_path: Path) -> None:
    episode_id = noesis_nb.solve("sync", using=agent, runs_dir=tmp_path / "runs", approver="auto")
    run_dir = tmp_path / "runs" / episode_id
    events = read_events(run_dir / "events.jsonl", strict=True)
    assert [e["payload"]["status"] for e in events if e["phase"] == "terminate"] == ["error"]
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs.append(("show --text", timeline_text(events).encode()))
    blobs += _replay_and_inbox(run_dir)
    blobs.append(("events_df", noesis_nb.events_df(run_dir.parent).to_json().encode()))
    pieces = {name: {v[i : i + 8] for i in range(len(v) - 7)} for name, v in SECRETS.items()}
    found = sorted(
        {
            (name, where)
            for where, blob in blobs
            for reading in _readings(blob)
            for text in (reading, _paired(reading), *_decoded_words(reading))
            for name, frags in pieces.items()
            if any(f in text for f in frags)
        }
    )
    assert found == [], found[:12]
    kept = [e["payload"]["kept"] for e in events if "kept" in e["payload"]]
    assert kept == [[PROSE, DIGEST]]  # base64 of prose and a labelled digest are not secrets
