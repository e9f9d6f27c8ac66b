"""A secret streamed across events: an agent writing one event per delta (``ctx.emit("model", {"delta": …})``).

No single event shows the key (``sk-proj-Ab``, ``Cd3…``, ``…xyz``), so each was written in clear. Each piece is
now read joined with the stream's last pieces: the part the new piece holds is redacted as it is written, and the
parts earlier pieces hold (on disk already) are rewritten by the late sweep when the run pauses or is sealed.
"""

from __future__ import annotations

import base64
import secrets as stdlib_secrets
import string
from pathlib import Path
from typing import Any

import orjson
import pytest

import noesis_nb


def _openai_key() -> str:
    alphabet = string.ascii_letters + string.digits
    return "sk-proj-" + "".join(stdlib_secrets.choice(alphabet) for _ in range(48))


def _password() -> str:
    rnd = stdlib_secrets.SystemRandom()
    return "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(14)) + "7Qz"


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _streaming(text: str, size: int, field: str = "delta") -> Any:
    async def agent(task: str, ctx: Any) -> str:
        for piece in _pieces(text, size):
            ctx.emit("model", {field: piece})
        ctx.emit("note", {"text": "stream over"})
        return "done"

    return agent


def _everything(runs: Path) -> str:
    texts = [p.read_text("utf-8", "replace") for p in sorted(runs.rglob("*")) if p.is_file()]
    texts += [frame(runs).to_csv() for frame in (noesis_nb.events_df, noesis_nb.runs_df)]
    return "\n".join(texts)


def _deltas(run_dir: Path) -> list[str]:
    lines = (run_dir / "events.jsonl").read_bytes().splitlines()
    return [orjson.loads(line)["payload"]["delta"] for line in lines if b'"delta"' in line]


def _fragments(secret: str, n: int = 6) -> list[str]:
    return [secret[i : i + n] for i in range(len(secret) - n + 1)]


def _b64(value: Any) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(value)).decode().rstrip("=")


def _key_of(kind: str) -> str:
    rnd = stdlib_secrets.SystemRandom()
    letters = string.ascii_letters + string.digits

    def word(n: int, alphabet: str = letters) -> str:
        return "".join(rnd.choice(alphabet) for _ in range(n))

    return {
        "openai": _openai_key,
        "anthropic": lambda: "sk-ant-api03-" + word(80, letters + "-_") + "AA",
        "github": lambda: "ghp_" + word(36),
        "slack": lambda: "xoxb-" + word(12, string.digits) + "-" + word(13, string.digits) + "-" + word(24),
        "jwt": lambda: _b64({"alg": "HS256", "typ": "JWT"}) + "." + _b64({"sub": word(12), "n": 7}) + "." + word(43),
    }[kind]()


@pytest.mark.parametrize("size", [3, 4, 7, 16, 23, 40])
@pytest.mark.parametrize("kind", ["openai", "anthropic", "github", "slack", "jwt"])
def test_a_key_streamed_one_piece_per_event_reaches_no_file_and_no_frame(runs_dir: Path, size: int, kind: str) -> None:
    """Pieces of many sizes, of keys of many formats: a piece long enough to be redacted by itself does not hide the
    rest of the key from the pieces after it (the stream reads the pieces as given)."""
    key = _key_of(kind)
    text = f"Here is the key you asked for: {key} and nothing else."
    episode = noesis_nb.solve("stream", using=_streaming(text, size), runs_dir=runs_dir, approver="auto")
    everything = _everything(runs_dir)
    left = [f for f in _fragments(key[12:], 8) if f in everything]
    assert not left, f"{len(left)} fragments of the key left with pieces of {size}: {left[:3]}"
    joined = "".join(_deltas(runs_dir / episode))  # the words around it stay
    assert joined.startswith("Here is the key you asked for: ") and joined.endswith(" and nothing else.")


def test_a_short_password_streamed_after_its_name_is_redacted_whole(runs_dir: Path) -> None:
    """A value under 6 characters is not learned (too short to hunt), but its pieces are still rewritten by the
    sweep (it returned early when the run had learned nothing: ``password=Xy7[REDACTED]``)."""

    async def agent(task: str, ctx: Any) -> str:
        for piece in ("export PGPASSWORD=", "Xy7", "q9", " done"):
            ctx.emit("model", {"delta": piece})
        return "done"

    episode = noesis_nb.solve("stream", using=agent, runs_dir=runs_dir, approver="auto")
    joined = "".join(_deltas(runs_dir / episode))
    assert "Xy7" not in joined and joined.startswith("export PGPASSWORD=") and joined.endswith(" done"), joined


def test_a_word_cut_at_the_end_of_the_stream_so_far_is_not_placed_elsewhere(runs_dir: Path) -> None:
    """``auth: requir`` ending the text so far: ``requir`` may go on; it is neither redacted inside an earlier
    ``required`` nor learned (a later ``All fields are required`` lost its word)."""
    text = "The password field is required; auth: required. token_type: bearer, expires_in: 3600."

    async def agent(task: str, ctx: Any) -> str:
        for piece in _pieces(text, 4):
            ctx.emit("model", {"delta": piece})
        ctx.emit("note", {"message": "All fields are required before submit"})
        return "done"

    episode = noesis_nb.solve("stream", using=agent, runs_dir=runs_dir, approver="auto")
    assert "".join(_deltas(runs_dir / episode)) == text
    assert "All fields are required before submit" in (runs_dir / episode / "events.jsonl").read_text()


def test_a_password_after_its_name_in_the_next_event_is_redacted(runs_dir: Path) -> None:
    password = _password()

    async def agent(task: str, ctx: Any) -> str:
        for piece in ("connecting with password=", password[:5], password[5:11], password[11:], " to db"):
            ctx.emit("model", {"delta": piece})
        return "done"

    noesis_nb.solve("stream", using=agent, runs_dir=runs_dir, approver="auto")
    everything = _everything(runs_dir)
    assert not [f for f in _fragments(password, 5) if f in everything]
    assert "connecting with password=" in everything


def test_the_pieces_on_disk_read_joined_hold_none_of_the_key_and_keep_the_words_around_it(runs_dir: Path) -> None:
    key = _openai_key()
    episode = noesis_nb.solve("stream", using=_streaming(f"key: {key} end", 5), runs_dir=runs_dir, approver="auto")
    lines = (runs_dir / episode / "events.jsonl").read_bytes().splitlines()
    deltas = [orjson.loads(line)["payload"]["delta"] for line in lines if b'"delta"' in line]
    joined = "".join(deltas)
    assert "[REDACTED]" in joined and not [f for f in _fragments(key[8:]) if f in joined]
    assert joined.startswith("key: ") and joined.endswith(" end")


@pytest.mark.parametrize("size", [1, 3, 8])
def test_ordinary_streamed_text_is_written_as_it_came(runs_dir: Path, size: int) -> None:
    """Prose, code and ids streamed in pieces keep every piece: nothing in them is a secret joined either."""
    text = (
        "The function `parse_tokens(max_tokens=512)` reads the config; set auth: required and use the token "
        "budget wisely. Run id 01J9ZK3V6Q8M2N4P5R7S9T1V3W, commit 3f786850e387550fdab836ed7e6dc881de23001b."
    )
    episode = noesis_nb.solve("stream", using=_streaming(text, size), runs_dir=runs_dir, approver="auto")
    lines = (runs_dir / episode / "events.jsonl").read_bytes().splitlines()
    deltas = [orjson.loads(line)["payload"]["delta"] for line in lines if b'"delta"' in line]
    assert "".join(deltas) == text


def _quiet(task: str, ctx: Any) -> str:
    for _ in range(40):
        ctx.emit("model", {"delta": "placeholder"})
    return "ok"


@pytest.mark.parametrize("size", [2, 5, 11])
def test_a_run_written_elsewhere_with_a_key_streamed_across_events_shows_none_of_it(tmp_path: Path, size: int) -> None:
    """A log another writer kept (no screening, no seal) with the key one delta per event: the frames read the
    deltas joined, as a live run does."""
    key = _openai_key()
    episode = noesis_nb.solve("t", using=_quiet, runs_dir=tmp_path)
    log = tmp_path / episode / "events.jsonl"
    events = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    deltas = [e for e in events if "delta" in e["payload"]]
    pieces = _pieces(f"use {key} now", size)
    assert len(pieces) <= len(deltas)
    for event, piece in zip(deltas, pieces + [""] * len(deltas), strict=False):
        event["payload"]["delta"] = piece
    log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))  # as a writer that screens nothing logs it
    (tmp_path / episode / "manifest.json").unlink()  # not sealed by noesis_nb: read as a foreign run
    shown = noesis_nb.events_df(tmp_path)
    texts = [p["delta"] for p in shown["payload"] if isinstance(p, dict) and "delta" in p]
    joined = "".join(texts)
    assert not [f for f in _fragments(key[8:]) if f in joined], joined
    assert joined.startswith("use ") and joined.endswith(" now")


def test_the_head_of_a_key_written_before_it_was_found_is_not_shown_once_read_back(tmp_path: Path) -> None:
    """A process killed before its sweep leaves the key's first pieces in clear beside the later ones it redacted as
    it wrote them (``sk-proj-Ab3dEf6h``, ``[REDACTED]``…); read back, the run (continued or sealed elsewhere) shows
    none of them: a run of key characters glued to a redaction is the rest of that key."""
    key = _openai_key()
    episode = noesis_nb.solve("t", using=_quiet, runs_dir=tmp_path)
    log = tmp_path / episode / "events.jsonl"
    events = [orjson.loads(line) for line in log.read_bytes().splitlines()]
    deltas = [e for e in events if "delta" in e["payload"]]
    written = ["key: ", key[:5], key[5:10], key[10:15], "[REDACTED]", "[REDACTED]", " and the rest, password=", "[REDACTED]"]
    for event, piece in zip(deltas, written + [""] * len(deltas), strict=False):
        event["payload"]["delta"] = piece
    log.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    (tmp_path / episode / "manifest.json").unlink()
    texts = [p["delta"] for p in noesis_nb.events_df(tmp_path)["payload"] if isinstance(p, dict) and "delta" in p]
    joined = "".join(texts)
    assert key[8:15] not in joined and key[:15] not in joined, joined
    assert joined.startswith("key: ") and " and the rest, password=" in joined
