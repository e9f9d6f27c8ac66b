"""A run never learns its own id as a secret, and only its id: a secret that is a part of the id, or that puts a word
and ``:`` before it (``hunter:<id>``), is learned and hidden wherever it stands, while the id stays whole.

The exemption covered every part of 16+ characters of the id (a password that happened to be one was written in
clear in every later text) and read any word before ``:`` as one of the package's kinds (``draft:``), so a password
``hunter:<id>`` was never learned. Now the id is exempt, with what the detectors find in it as it stands (the random
word of ``nightly.<random>.v2``, which a text quoting the id shows them), and the kinds the package writes before it;
a text holding the id is scrubbed around it, so a learned part of it never cuts the id in a record.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.secrets import RunSecrets

RANDOM = "Xk9aB3cD7eF1gH5jK2mN8pQ4rS6"
OWN = f"nightly.{RANDOM}.v2"
PART = RANDOM[4:22]  # 18 characters of the id, not the word the detectors find in it
ULID_ID = "ep_01KBQ3Z5X8M2N4P6R8T0V2W4Y6"


def _files(run: Path) -> dict[str, str]:
    return {str(p.relative_to(run)): p.read_text("utf-8", "replace") for p in sorted(run.rglob("*")) if p.is_file()}


def _episode_ids(run: Path) -> set[str]:
    return {json.loads(line)["episode_id"] for line in (run / "events.jsonl").read_text().splitlines()}


def test_a_secret_that_is_a_part_of_the_runs_id_is_hunted_and_the_id_kept(runs_dir: Path) -> None:
    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("login", {"password": PART})
        ctx.emit("note", {"text": f"logged in with {PART} to {OWN}"})  # the part alone: redacted as a learned value
        return f"done {OWN}"

    assert noesis_nb.solve("t", using=leaky, runs_dir=runs_dir, episode_id=OWN) == OWN
    run = runs_dir / OWN
    for name, text in _files(run).items():
        assert PART not in text.replace(OWN, ""), name  # nowhere but inside the id
    assert _episode_ids(run) == {OWN}
    assert json.loads((run / "summary.json").read_text())["status"] == "ok"


def test_a_secret_of_a_word_and_the_runs_id_is_hunted(runs_dir: Path) -> None:
    secret = f"hunter:{ULID_ID}"

    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("login", {"password": secret})
        ctx.emit("note", {"text": f"login with {secret} ok"})
        return "ok"

    assert noesis_nb.solve("t", using=leaky, runs_dir=runs_dir, episode_id=ULID_ID) == ULID_ID
    run = runs_dir / ULID_ID
    for name, text in _files(run).items():
        assert "hunter:" not in text, name
    assert _episode_ids(run) == {ULID_ID}


def test_the_id_and_the_word_the_detectors_find_in_it_are_not_learned() -> None:
    guard = RunSecrets(OWN)
    assert not guard.learn([OWN, RANDOM, f"draft:{OWN}:req_01KBQ3Z5X8M2N4P6R8T0V2W4Y7"])
    assert guard.learn([PART]) and guard.values == (PART,)
    text = f"resume {OWN} now"
    assert guard.scrub_text(text) == text
    assert guard.scrub_text(f"the password was {PART}.") == "the password was [REDACTED]."
