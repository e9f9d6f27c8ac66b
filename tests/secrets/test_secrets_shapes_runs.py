"""End to end: a labelled password shorter than four characters, name/value pairs and records (under a dict
key, k8s env entries, AWS parameters), a token streamed across chunk records, UTF-16 bytes (LE, BE, with a
BOM), a known value later split by invisible characters or across stream chunks (also before it is
learned) reach no file of the run and no view of it;
and what is no secret is kept: prose about passwords, a schema's ``required`` list, a labelled digest, and
the word a stream chunk starts with right after a token.
"""

from __future__ import annotations

import hashlib
import re
import string
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb import DiskRun
from noesis_nb.secrets import shown
from noesis_nb.store import read_events
from noesis_nb.widgets.snapshot import timeline_text
from tests.hardening.secret_corpus import run_files
from tests.hardening.test_secrets import _surfaces
from tests.hardening.test_secrets_disguised import _RNG, _readings
from tests.secrets.test_secrets_encoded_runs import _replay_and_inbox

ALNUM = string.ascii_letters + string.digits


def _pw() -> str:
    return "Hu" + "".join(_RNG.choice(ALNUM) for _ in range(8)) + "2!"


SHORT = _RNG.choice(string.ascii_letters) + "+" + _RNG.choice(string.digits)  # password=a+1
KEY = "sk-proj-" + "".join(_RNG.choice(ALNUM) for _ in range(30))
GHP = "ghp_" + "".join(_RNG.choice(ALNUM) for _ in range(36))
SECRETS = {
    "pair under a dict key": _pw(),
    "k8s env record": _pw(),
    "aws parameter record": _pw(),
    "tag record": _pw(),
    "token streamed in chunk records": KEY,
    "token streamed in anthropic events": "sk-ant-api03-" + "".join(_RNG.choice(ALNUM) for _ in range(40)),
    "utf-16-le bytes": _pw(),
    "utf-16-be bytes": _pw(),
    "utf-16 bytes with a bom": _pw(),
    "utf-16 bytes from a tool": _pw(),
    "known value behind invisible characters": _pw(),
    "known value split across stream chunks": _pw(),
    "value split across chunks before it is learned": _pw(),
}
DIGEST = "wrote blob " + hashlib.sha256(b"release").hexdigest()
PROSE = "fill in the password field; password= is empty until then"
SCHEMA = {"type": "object", "required": ["password", "email"]}


def _hide(value: str) -> str:
    """``value`` with a zero-width space, a soft hyphen and a word joiner inside."""
    return value[:3] + "\u200b" + value[3:6] + "\u00ad" + value[6:9] + "\u2060" + value[9:]


def dump(argv: list[str]) -> dict[str, Any]:
    """A tool printing a config file saved as UTF-16, and the known password with invisible characters in it."""
    s = SECRETS
    return {
        "stdout": ("DB_PASSWORD=" + s["utf-16 bytes from a tool"] + "\n").encode("utf-16"),
        "echo": "connected with " + _hide(s["known value behind invisible characters"]),
    }


async def agent(task: str, ctx: Any) -> Any:
    s = SECRETS
    ctx.emit("note", {"text": "login: user=bob password=" + SHORT + " then retry", "prose": PROSE, "schema": SCHEMA})
    ctx.emit("note", {"login": ("password", s["pair under a dict key"]), "log": DIGEST})
    ctx.emit("note", {"spec": {"containers": [{"env": [{"name": "API_KEY", "value": s["k8s env record"]}]}]}})
    ctx.emit(
        "note",
        {
            "Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": s["aws parameter record"]}],
            "Tags": [{"Key": "api_key", "Value": s["tag record"]}],
        },
    )
    key, ant = s["token streamed in chunk records"], s["token streamed in anthropic events"]
    ctx.emit(
        "note",
        {"chunks": [{"delta": "use "}, {"delta": key[:12]}, {"delta": key[12:26]}, {"delta": key[26:]}, {"delta": "Thanks"}]},
    )
    ctx.emit(
        "model",
        {
            "event_name": "model.call",
            "model": "claude-sonnet-4-5",
            "events": [
                {"type": "content_block_delta", "delta": {"type": "text_delta", "text": ant[i : i + 15]}}
                for i in range(0, len(ant), 15)
            ],
            "chunks": [GHP, "Thanks for waiting"],
        },
    )
    ctx.emit("note", {"raw": ("password=" + s["utf-16-le bytes"]).encode("utf-16-le")})
    ctx.emit("note", {"raw": ("api_key: " + s["utf-16-be bytes"]).encode("utf-16-be")})
    ctx.emit("note", {"raw": ("token=" + s["utf-16 bytes with a bom"]).encode("utf-16")})
    early = s["value split across chunks before it is learned"]
    ctx.emit("note", {"chunks": [early[:4], early[4:8], early[8:]], "records": [{"text": early[:5]}, {"text": early[5:]}]})
    ctx.emit("note", {"env": {"DB_PASSWORD": s["known value behind invisible characters"], "API_TOKEN": early}})
    split = s["known value split across stream chunks"]
    ctx.emit("note", {"env": {"SECRET_KEY": split}})
    ctx.emit("note", {"chunks": ["retry with ", split[:4], split[4:8], split[8:], " now"]})
    ctx.emit("note", {"records": [{"delta": "retry with " + split[:5]}, {"delta": split[5:]}, {"delta": " now"}]})
    await ctx.tool_async("py.dump", {"kwargs": {"argv": ["cat", "db.conf"]}}, fn=dump, effect="read", risk="low")
    ctx.emit("reason", {"text": "the password is " + _hide(s["known value behind invisible characters"])})
    raise RuntimeError("login refused for " + _hide(s["known value behind invisible characters"]))


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    runs = tmp_path_factory.mktemp("shapes") / "runs"
    episode_id = noesis_nb.solve("sync", using=agent, runs_dir=runs, approver="auto")
    return runs / episode_id


def _blobs(run_dir: Path) -> list[tuple[str, bytes]]:
    events = read_events(run_dir / "events.jsonl", strict=True)
    blobs = run_files(run_dir) + _surfaces(DiskRun(run_dir))
    blobs.append(("show --text", timeline_text(events).encode()))
    blobs += _replay_and_inbox(run_dir)
    blobs.append(("events_df", noesis_nb.events_df(run_dir.parent).to_json().encode()))
    return blobs


# adjacent strings of a list and the texts of chunk records, read joined (a split secret shows no 8 characters)
_JOINS = re.compile(r'"\s*\}?\s*,\s*\{?\s*"(?:delta|text)"\s*:\s*"|"\s*,\s*"')


def test_short_labelled_paired_streamed_utf16_and_hidden_secrets_reach_no_file_and_no_view(run_dir: Path) -> None:
    pieces = {name: {v[i : i + 8] for i in range(len(v) - 7)} for name, v in SECRETS.items()}
    pieces["short labelled password"] = {"password=" + SHORT, "password=" + SHORT.replace("+", " ")}
    found = sorted(
        {
            (name, where)
            for where, blob in _blobs(run_dir)
            for reading in _readings(blob)
            for text in (reading, reading.replace("\x00", ""), _JOINS.sub("", reading))  # UTF-16 without its NULs
            for name, frags in pieces.items()
            if any(f in text for f in frags)
        }
    )
    assert found == [], "; ".join(sorted({name for name, _ in found}))
    hidden = SECRETS["known value behind invisible characters"]
    assert hidden not in shown("later: " + _hide(hidden)).replace("\u200b", "").replace("\u00ad", "").replace("\u2060", "")


def test_what_is_no_secret_is_kept(run_dir: Path) -> None:
    payloads = [e["payload"] for e in read_events(run_dir / "events.jsonl", strict=True)]
    notes = [p for p in payloads if "prose" in p or "log" in p or "chunks" in p]
    kept = {
        "prose about a password field": notes[0]["prose"] == PROSE,
        "a schema's required names": notes[0]["schema"] == SCHEMA,
        "a labelled digest": notes[1]["log"] == DIGEST,
        "the word after a token in chunk records": notes[2]["chunks"][-1] == {"delta": "Thanks"},
        "the chunk after a streamed token": notes[3]["chunks"][-1] == "Thanks for waiting",
    }
    assert [name for name, ok in kept.items() if not ok] == [], "; ".join(name for name, ok in kept.items() if not ok)
