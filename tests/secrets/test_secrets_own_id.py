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

import pytest

import noesis_nb
from noesis_nb.ids import validate_id
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


SUGGESTED = "api_key-Zq8vN3kLm2Xp"  # what ids suggests for the refused 'api_key=Zq8vN3kLm2Xp': it reads as a key too
RANDOM_WORD_ID = "nightly.Lw4Tq9Zp2Rm7Xc5Vb8Nk3Hs6.v2"  # (not OWN: a part of OWN is a secret another test teaches)


def _quoting(eid: str) -> Any:
    def quoting(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"this is episode {eid}"})
        return f"done {eid}"

    return quoting


@pytest.mark.parametrize("eid", [SUGGESTED, RANDOM_WORD_ID], ids=["suggested id", "id with a random word"])
def test_the_runs_own_id_stays_whole_in_its_task_summary_and_events(runs_dir: Path, eid: str) -> None:
    if eid == SUGGESTED:  # the id the refusal of a labelled one suggests, taken as suggested
        with pytest.raises(ValueError, match=r"e\.g\. 'api_key-…'"):
            validate_id(eid.replace("-", "=", 1))
    assert noesis_nb.solve(f"task for {eid}", using=_quoting(eid), runs_dir=runs_dir, episode_id=eid) == eid
    run = runs_dir / eid
    for name, text in _files(run).items():
        assert "[REDACTED]" not in text, (name, text)
    assert noesis_nb.runs_df(runs_dir, episodes=[eid]).iloc[0]["task"] == f"task for {eid}"
    summary = json.loads((run / "summary.json").read_text())
    assert summary["answer"] == {"result": f"done {eid}"} and summary["task"] == f"task for {eid}"
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    assert {"text": f"this is episode {eid}"} in [e["payload"] for e in events if e["phase"] == "note"]
    plan = next(e for e in events if e["phase"] == "plan")
    assert plan["payload"]["steps"] == [f"act:Execute goal: task for {eid}"]


def test_a_secret_beside_the_runs_id_or_running_on_from_it_is_still_hidden(runs_dir: Path) -> None:
    longer = f"{SUGGESTED}Q7wLm9Rt2Vx"  # the id the head of a longer key: no occurrence of the id by itself

    def leaky(task: str, ctx: Any) -> str:
        ctx.emit("note", {"text": f"{SUGGESTED} logs in with password=hunter2secretX and {longer}"})
        return f"{SUGGESTED}: {longer}"

    task = f"task for {SUGGESTED} with {longer}"
    assert noesis_nb.solve(task, using=leaky, runs_dir=runs_dir, episode_id=SUGGESTED) == SUGGESTED
    for name, text in _files(runs_dir / SUGGESTED).items():
        assert "hunter2secretX" not in text and "Q7wLm9Rt2Vx" not in text, (name, text)
    assert noesis_nb.runs_df(runs_dir).iloc[0]["task"] == f"task for {SUGGESTED} with [REDACTED]"
