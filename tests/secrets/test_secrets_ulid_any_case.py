"""A ULID is an id in either case, bare or after a ``name_`` prefix (Crockford's base 32 is read in any case; a
TypeID is ``user_01h455vb4pex5vsknk084sn02q``, the TypeID spec's own example).

The lower-case ULID after a prefix was taken for a key: redacted in what a run wrote, while the same id bare, in
capitals, or after ``order_`` in capitals was kept; and ``runs_df`` said a run's folder named in lower case was
``'[REDACTED]'``. A word mixing both cases is no ULID, and stays judged as a random word.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import find_in_text

IDS = [
    "01H455VB4PEX5VSKNK084SN02Q",
    "01h455vb4pex5vsknk084sn02q",
    "user_01h455vb4pex5vsknk084sn02q",
    "order_01H455VB4PEX5VSKNK084SN02Q",
    "ep_01m933d44jd2v1nn0wdg2g7hj7",
]


@pytest.mark.parametrize("value", IDS)
def test_a_ulid_in_either_case_with_or_without_a_prefix_is_no_key(value: str) -> None:
    assert find_in_text(f"see {value} here") == set()
    assert find_in_text(f'{{"id": "{value}"}}') == set()


@pytest.mark.parametrize(
    "value",
    [
        "user_01h455vB4pex5vsknk084sn02q",  # one capital among small letters: mixed case is a random word's
        "user_01h455vb4pex5vsknk084sn02qXy7",  # longer than a ULID
        "sk-proj-01h455vb4pex5vsknk084sn02qAbC3dEf6GhIj",  # a key's prefix before it
    ],
)
def test_a_word_shaped_unlike_a_ulid_is_still_judged(value: str) -> None:
    assert find_in_text(f"see {value} here"), value


def test_a_run_writes_lower_case_ulids_in_clear(runs_dir: Path) -> None:
    def agent(task: str, ctx: Any) -> dict[str, Any]:
        ctx.emit("note", {"text": "ids: " + " ".join(IDS)})
        return {"ids": IDS}

    episode = noesis_nb.solve("look the ids up", using=agent, runs_dir=runs_dir)
    events = (runs_dir / episode / "events.jsonl").read_text()
    assert "[REDACTED]" not in events
    assert all(i in events for i in IDS)
    summary = (runs_dir / episode / "summary.json").read_text()
    assert "[REDACTED]" not in summary and all(i in summary for i in IDS)


def test_a_run_folder_named_in_lower_case_is_named_in_the_error(runs_dir: Path) -> None:
    episode = noesis_nb.solve("x", using=lambda task, ctx: "ok", runs_dir=runs_dir)
    low = "ep_" + episode[3:].lower()
    shutil.copytree(runs_dir / episode, runs_dir / low)
    errors = noesis_nb.runs_df(runs_dir).attrs.get("errors", [])
    reasons = " ".join(e["reason"] for e in errors)
    assert f"'{low}'" in reasons and "[REDACTED]" not in reasons, reasons


def test_an_id_cut_where_an_excerpt_ends_is_no_key(runs_dir: Path) -> None:
    # the act's input_excerpt is the task's first 120 characters: it ends inside the fourth id, whose cut head was
    # taken for a random word, learned, and hidden in every full copy of the id the run wrote
    task = "look up " + " ".join(IDS)
    episode = noesis_nb.solve(task, using=lambda task, ctx: "ok", runs_dir=runs_dir)
    events = (runs_dir / episode / "events.jsonl").read_text()
    assert task[:120] in events and "[REDACTED]" not in events
    assert noesis_nb.runs_df(runs_dir).task.tolist() == [task]


@pytest.mark.parametrize("text", ["x order_01H455VB4PEX5VSKNK08 y", "x 01H455VB4PEX5VSKNK08aB", "x 01H455VB4pex5vsknk08"])
def test_a_cut_id_inside_a_text_or_mixing_cases_is_still_judged(text: str) -> None:
    assert find_in_text(text), text


@pytest.mark.parametrize("head", ["02", "05", "07"])
def test_a_random_word_ending_a_text_is_kept_only_as_a_ulid_of_these_decades(head: str) -> None:
    # a cut ULID minted 2004-2039 starts 01; a random word of the same letters ending a text with any other start
    # (a generated password, a token) is still judged, or the exemption would keep one such word in seven
    word = head + "kq8z7m2x9v4n6b1c5tw3hr"
    assert find_in_text("the code is " + word), word
    assert not find_in_text("the code is 01" + word[2:] + "…")
