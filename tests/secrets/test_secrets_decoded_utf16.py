"""Base64 of UTF-16 text read as what it encodes (``noesis_nb.secrets.decoded``): PowerShell's
``-EncodedCommand`` takes base64 of UTF-16LE, so a key set in such a command is in no pattern's sight
until it is decoded. It is redacted when an episode writes it and when a run written elsewhere is read;
base64 of UTF-16 prose is kept, and random bytes are not taken for UTF-16 text."""

from __future__ import annotations

import base64
import json
import secrets as stdlib_secrets
import string
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets import find_in_text
from noesis_nb.secrets.decoded import b64_text


def _key() -> str:
    alphabet = string.ascii_letters + string.digits
    return "sk-proj-" + "".join(stdlib_secrets.choice(alphabet) for _ in range(48))


def _command(key: str) -> str:
    return f"$env:OPENAI_API_KEY='{key}'; python agent.py"


# how a script is written to base64 for PowerShell and its cousins: without a byte-order mark (PowerShell's own
# [Convert]::ToBase64String([Text.Encoding]::Unicode.GetBytes(...))), with one, and big-endian
ENCODINGS = {
    "utf-16-le": lambda text: text.encode("utf-16-le"),
    "utf-16-le with BOM": lambda text: b"\xff\xfe" + text.encode("utf-16-le"),
    "utf-16-be": lambda text: text.encode("utf-16-be"),
    "utf-16-be with BOM": lambda text: b"\xfe\xff" + text.encode("utf-16-be"),
}


def _encoded(encoding: str, text: str, urlsafe: bool = False) -> str:
    raw = ENCODINGS[encoding](text)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=") if urlsafe else base64.b64encode(raw).decode()


def _files_text(root: Path) -> str:
    return "".join(p.read_text(errors="replace") for p in root.rglob("*") if p.is_file())


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_an_episode_writes_no_key_set_in_an_encoded_command(tmp_path: Path, encoding: str) -> None:
    """Before: the command was written as the agent gave it, decoding to the key."""
    key = _key()
    word = _encoded(encoding, _command(key))

    def agent(task: str, ctx) -> str:
        ctx.emit("note", {"cmd": f"powershell -EncodedCommand {word}"})
        return "done"

    episode = noesis_nb.solve("encoded", using=agent, runs_dir=tmp_path)
    written = _files_text(tmp_path)
    assert episode in written and "-EncodedCommand [REDACTED]" in written
    assert word not in written and key not in written and key[12:40] not in written


@pytest.mark.parametrize("encoding", list(ENCODINGS))
def test_a_run_written_elsewhere_shows_no_key_set_in_an_encoded_command(tmp_path: Path, encoding: str) -> None:
    """A run another runtime wrote holds the encoded command: events_df and show() redact it (before: shown as
    it is), and the key read decoded later in the run is redacted too."""
    key = _key()
    word = _encoded(encoding, _command(key), urlsafe=encoding.endswith("BOM"))
    episode = "ep_utf16_foreign"
    run = tmp_path / episode
    run.mkdir()
    events = [
        ("start", {"task": "t", "seed": 0, "using": "probe"}),
        ("act", {"cmd": f"powershell -EncodedCommand {word}"}),
        ("act", {"echo": f"key was {key}"}),
        ("terminate", {"status": "ok"}),
    ]
    lines = [
        {
            "id": f"00000000-0000-4000-8000-{i:012d}",
            "timestamp": f"2025-11-11T02:19:1{i}.000000+00:00",
            "episode_id": episode,
            "agent_id": "system",
            "phase": phase,
            "payload": payload,
            "evidence_ids": [],
        }
        for i, (phase, payload) in enumerate(events)
    ]
    (run / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = {"episode_id": episode, "task": "t", "started_at": "2025-11-11T02:19:10+00:00", "status": "ok"}
    (run / "summary.json").write_text(json.dumps(summary))

    frame = noesis_nb.events_df(tmp_path).astype(str).to_csv()
    view = noesis_nb.show(run)
    shown = frame + json.dumps(view._repr_mimebundle_(), default=str)
    assert "EncodedCommand [REDACTED]" in frame and "key was [REDACTED]" in frame
    assert word not in shown and key[12:40] not in shown


def test_utf16_text_without_a_key_is_kept_and_random_bytes_are_not_read_as_utf16() -> None:
    prose = "Get-ChildItem -Path C:\\Users -Recurse | Where-Object { $_.Length -gt 1MB }"
    for encoding in ENCODINGS:
        word = _encoded(encoding, prose)
        assert b64_text(word) == prose, encoding
        assert find_in_text(f"powershell -EncodedCommand {word}") == set(), encoding
    # a random key's bytes: no UTF-16 reading may make them "plain text" and spare them the entropy rule
    for _ in range(2000):
        raw = stdlib_secrets.token_bytes(stdlib_secrets.choice([24, 30, 32, 48]))
        assert b64_text(base64.b64encode(raw).decode()) is None or raw.decode("utf-8", "strict")
