"""A URL's password holding a quote or a backslash (``postgres://app:pa"ss@db``): the URL detector finds it, but the
event screen's cheap test on the event's JSON (where the quote reads ``\\"``) cleared it, so ``ctx.emit`` wrote the
password as given. The cheap test now lets such a URL through to the detectors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.secrets.text import find_in_text, might_contain

PASSWORD = "Zq8R" + "x7Lm2pV9kT4w"  # built from parts: no whole credential in the repository's text


@pytest.mark.parametrize("mark", ['"', "\\", "'", '\\"'])
def test_a_url_password_holding_a_quote_is_redacted_in_what_an_episode_writes(tmp_path: Path, mark: str) -> None:
    url = f"postgres://app:{PASSWORD}{mark}w0rd@db:5432/x"
    assert find_in_text(url)  # the detector reads it a secret: the cheap test must not clear it
    blob = json.dumps({"a": url}).encode()
    assert might_contain(blob)

    def agent(task: str, ctx: object) -> str:
        ctx.emit("note", {"dsn": url, "said": f"connecting to {url} now"})  # type: ignore[attr-defined]
        return "ok"

    episode = noesis_nb.solve("connect", using=agent, runs_dir=tmp_path)
    written = b"".join(p.read_bytes() for p in (tmp_path / episode).rglob("*") if p.is_file())
    assert PASSWORD.encode() not in written
    assert b"postgres://app:" in written and b"@db:5432/x" in written  # the URL is kept, only its password redacted
