"""An id typed with a letter drawn like an ASCII one (the Greek capital Alpha for ``A``, a Cyrillic ``о``) or in
full-width forms (``ｅｐ＿１２３``, as a full-width input mode types it) is refused naming that character, its
Unicode name and place, what it reads as and what to type, for every kind of id; a value that looks like a key is
still not shown. Before, a draft reference holding one was called "too short" (or matched nothing), and a full-width
id the detectors took for a key was hidden, its message naming no look-alike and no fix."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidIdError, InvalidOptionError
from noesis_nb.ids import validate_id
from noesis_nb.tools.names import split_tool_name
from tests.runtime.agents import paused_on_disk

ALPHA = "\u0391"  # GREEK CAPITAL LETTER ALPHA, drawn as the Latin A


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) for c in text)


@pytest.mark.parametrize("what", ["episode id", "draft id", "batch id", "checkpoint_id", "adapter name"])
def test_every_id_kind_names_the_look_alike_and_the_letter_to_type(what: str) -> None:
    with pytest.raises(InvalidIdError) as caught:
        validate_id(f"ep_{ALPHA}bc123", what=what)
    text = str(caught.value)
    assert "U+0391 GREEK CAPITAL LETTER ALPHA" in text and "at position 3," in text, text
    assert "drawn like the ASCII 'A'" in text and "'ep_Abc123'" in text, text


def test_a_full_width_id_is_named_as_one_with_the_id_to_type() -> None:
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.resume_run(_full_width("ep") + "\uff3f" + _full_width("123"), runs_dir=Path("runs"))
    text = str(caught.value)
    assert "U+FF45 FULLWIDTH LATIN SMALL LETTER E" in text and "at position 0," in text, text
    assert "full-width form of the ASCII 'e'" in text and "'ep_123'" in text and "5 more characters" in text, text


def test_a_full_width_minted_id_is_shown_not_hidden_as_a_key(tmp_path: Path) -> None:
    minted = "ep_" + uuid.uuid4().hex
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.resume_run(_full_width("ep_") + minted[3:], runs_dir=tmp_path)
    text = str(caught.value)
    # before: "episode id <a 35-character value that looks like a key, not shown> …", no look-alike named
    assert "not shown" not in text and repr(minted) in text, text
    assert "U+FF45 FULLWIDTH LATIN SMALL LETTER E" in text and "full-width form" in text, text


@pytest.mark.parametrize(
    "typed", ["ghp_Zq8Rt2Lm9V\uff58" + "4Nc7Kp1Bw6Hs3Jd5Fg0Yt2Ea", _full_width("ghp_Zq8Rt2Lm9Vx4Nc7Kp1Bw6Hs3Jd5Fg0Yt2Ea")]
)
def test_a_key_typed_with_a_full_width_letter_is_still_not_shown(typed: str) -> None:
    with pytest.raises(InvalidIdError) as caught:
        validate_id(typed, what="batch id")
    text = str(caught.value)
    assert "Zq8Rt2Lm9V" not in text and "Nc7Kp1Bw6Hs3" not in text, text
    assert "FULLWIDTH LATIN" in text and "full-width form of the ASCII" in text, text


@pytest.fixture
def paused_run(runs_dir: Path, tmp_path: Path) -> tuple[Path, str]:
    return paused_on_disk(runs_dir, tmp_path / "out.txt")


@pytest.mark.parametrize("how", ["short", "whole"])
def test_a_draft_reference_with_a_look_alike_is_told_so_not_too_short(paused_run: tuple[Path, str], how: str) -> None:
    run_dir, draft = paused_run
    request = draft.rsplit(":", 1)[1]
    ref = f"req_{ALPHA}" if how == "short" else draft.replace(request, request[:8] + ALPHA + request[9:])
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.approve_draft(run_dir, ref, approver_id="ana")
    text = str(caught.value)
    assert "too short" not in text and "no draft matches" not in text, text  # before: one or the other
    assert "U+0391 GREEK CAPITAL LETTER ALPHA" in text and f"at position {ref.index(ALPHA)}," in text, text
    assert "drawn like the ASCII 'A'" in text and "approval card" in text, text
    assert not (run_dir / "tool_invocations" / "approvals").exists() or not any(
        (run_dir / "tool_invocations" / "approvals").iterdir()
    )


def test_a_tool_name_with_a_look_alike_names_it() -> None:
    with pytest.raises(InvalidOptionError) as caught:
        split_tool_name("fs.wr\u0456te_file")
    text = str(caught.value)
    assert "U+0456 CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I" in text and "at position 5," in text, text
    assert "type the Latin letter 'i' in its place" in text, text


def test_a_batch_id_typed_full_width_is_refused_before_anything_runs(tmp_path: Path) -> None:
    with pytest.raises(InvalidIdError) as caught:
        noesis_nb.batch(["a"], using=lambda task: "ok", batch_id=_full_width("nightly"), root=tmp_path)
    text = str(caught.value)
    assert "U+FF4E FULLWIDTH LATIN SMALL LETTER N" in text and "'nightly'" in text, text
    assert not list(tmp_path.iterdir())
