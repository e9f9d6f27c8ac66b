"""A key written with accented letters, letters of another script drawn as Latin ones, or control characters inside
it is found, and redacted whole; a learned value is found however its spaces are written.

``śk-proj-…`` (a precomposed ``ś``, one character), ``ǵhp_…``, ``ѕk-proj-…`` and ``ghр_…`` (a Cyrillic ``ѕ`` and
``р``) show as the key they spell; so does a key with ``\\x01``, DEL or a C1 control between its characters, which no
page shows. Each such text is read as it shows (``disguise``), and what is found there is redacted where it is
written. Prose in the scripts those letters come from is kept as it is. Generated (a fixed seed: the same examples
each run), and end to end through a run's files.
"""

from __future__ import annotations

import random
import unicodedata
from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import RunSecrets, find_in_text
from noesis_nb.secrets.names import REDACTED_VALUE
from noesis_nb.secrets.scan import redact
from noesis_nb.secrets.text import payload_might_contain
from tests.hardening.secret_corpus import run_files
from tests.secrets.keygen import keys

PREFIXES = ["sk-proj-", "sk-ant-api03-", "ghp_", "github_pat_11A", "hf_", "glpat-", "AKIA", ""]
# each ASCII letter's precomposed accented forms (Latin-1 and Latin Extended-A/B: one character each, ``ś`` ``ǵ``)
ACCENTED: dict[str, list[str]] = {}
for _code in range(0xC0, 0x250):
    _base = unicodedata.normalize("NFD", chr(_code))[0]
    if len(unicodedata.normalize("NFD", chr(_code))) > 1 and _base.isascii() and _base.isalpha():
        ACCENTED.setdefault(_base, []).append(chr(_code))
# letters of Cyrillic and Greek drawn as a Latin letter (from Unicode's confusables)
LOOK_ALIKE = {
    "a": "\u0430",  # Cyrillic а
    "e": "\u0435",  # Cyrillic е
    "o": "\u043e\u03bf",  # Cyrillic о, Greek ο
    "p": "\u0440\u03c1",  # Cyrillic р, Greek ρ
    "c": "\u0441",  # Cyrillic с
    "s": "\u0455",  # Cyrillic ѕ
    "i": "\u0456",  # Cyrillic і
    "x": "\u0445",  # Cyrillic х
    "A": "\u0410\u0391",  # Cyrillic А, Greek Α
    "B": "\u0412\u0392",
    "E": "\u0415\u0395",
    "K": "\u041a\u039a",
    "M": "\u041c\u039c",
    "H": "\u041d\u0397",
    "O": "\u041e\u039f",
    "P": "\u0420\u03a1",
    "C": "\u0421",
    "T": "\u0422\u03a4",
    "X": "\u0425\u03a7",
}
# (not the separators of fields and records, FS GS RS US: they part words as a space does)
CONTROLS = ["\x01", "\x02", "\x07", "\x08", "\x0e", "\x1a", "\x1b", "\x7f", "\x80", "\x8d", "\x9b", "\x9f"]


@st.composite
def disguised(draw: Any, table: dict[str, Any]) -> str:
    """A key with some of its letters (its first one among them) written as one of ``table``'s forms of it."""
    key = draw(keys(PREFIXES))
    rnd = random.Random(draw(st.integers(0, 2**32)))
    every = draw(st.integers(1, 6))
    places = [i for i, c in enumerate(key) if c in table]
    chosen = {i for n, i in enumerate(places) if n % every == 0} or {0}
    written = "".join(rnd.choice(table[c]) if i in chosen and c in table else c for i, c in enumerate(key))
    if written == key:  # no letter of the table in it: one written so at its start
        written = rnd.choice(ACCENTED[key[0]]) + key[1:] if key[0] in ACCENTED else key
    return written


@st.composite
def controlled(draw: Any) -> str:
    """A key with control characters between some of its characters."""
    key = draw(keys(PREFIXES))
    rnd = random.Random(draw(st.integers(0, 2**32)))
    every = draw(st.integers(2, 8))
    return "".join(c + (rnd.choice(CONTROLS) if i % every == every - 1 else "") for i, c in enumerate(key[:-1])) + key[-1]


def _redacted_whole(written: str) -> None:
    shown, hits = redact({"message": f"use {written} now"})
    assert hits, ascii(written)
    assert shown["message"] == f"use {REDACTED_VALUE} now", (ascii(written), shown)
    payload = {"text": f"use {written} now"}
    assert payload_might_contain(payload, orjson.dumps(payload)), ascii(written)


@settings(derandomize=True, max_examples=80)
@given(disguised(ACCENTED))
def test_a_key_with_precomposed_accented_letters_is_redacted_whole(written: str) -> None:
    _redacted_whole(written)


@settings(derandomize=True, max_examples=80)
@given(disguised(LOOK_ALIKE))
def test_a_key_with_cyrillic_or_greek_look_alikes_is_redacted_whole(written: str) -> None:
    _redacted_whole(written)


@settings(derandomize=True, max_examples=80)
@given(controlled())
def test_a_key_with_control_characters_inside_is_redacted_whole(written: str) -> None:
    _redacted_whole(written)


def test_the_examples_of_the_report_are_redacted() -> None:
    for written in (
        "\u015bk-proj-Qm7Xv2Lp9Rt4Wz8Kc3Nb6Hd1Fg5Js0Ya",  # ś
        "\u01f5hp_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",  # ǵ
        "\u0455k-proj-Qm7Xv2Lp9Rt4Wz8Kc3Nb6Hd1Fg5Js0Ya",  # Cyrillic ѕ
        "gh\u0440_Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6",  # Cyrillic р
        "sk-proj-Qm7Xv2\x01Lp9Rt4Wz8Kc3\x7fNb6Hd1Fg5\x9bJs0Ya",
    ):
        _redacted_whole(written)


def test_a_learned_value_is_scrubbed_however_its_spaces_are_written() -> None:
    guard = RunSecrets()
    guard.learn(["correct horse battery staple", "Zażółć gęślą jaźń 42"])
    spaced = ("correct\u3000horse\u3000battery\u3000staple", "correct\u00a0horse battery\u2009staple")
    for later in (*spaced, "Zażółć\u3000gęślą\u3000jaź\u200bń 42"):
        assert guard.scrub_text(f"said {later} twice") == f"said {REDACTED_VALUE} twice", ascii(later)
    written = RunSecrets()
    written.learn(["battery\u3000staple\u3000horse"])  # learned with ideographic spaces, shown with plain ones
    assert written.scrub_text("said battery staple horse twice") == f"said {REDACTED_VALUE} twice"
    assert written.screen({"t": "said battery\u3000staple\u3000horse"}) == {"t": f"said {REDACTED_VALUE}"}


PROSE = [
    "Le café était très animé ; l'équipe a déployé la nouvelle version hier soir, à 22 h.",
    "Zażółć gęślą jaźń: przedsiębiorstwo państwowe wdrożyło nową wersję systemu rozliczeń.",
    "Tiếng Việt có nhiều dấu thanh điệu; nhóm đã triển khai phiên bản mới vào tối qua.",
    "Привет! Сообщение доставлено получателю, сервер перезапущен в 03:15.",
    "Καλημέρα, το μήνυμα παραδόθηκε στον παραλήπτη και ο διακομιστής επανεκκινήθηκε.",
    "東京都\u3000渋谷区\u3000会議の議事録を作成しました。次回は月曜日です。",
    "Ρ Α Ο С Е Х: ΑΒΓ, АВС, ОРЕХ, КОМПАНИЯ «РОСТЕХ», ΟΡΕΙΧΑΛΚΟΣ",
    "naïve coöperation, Ångström, São Paulo, Kraków, Hà Nội, İstanbul, Ørsted",
    "payments-api-7d9f8b6c5d-x2k9p restarted; pod checkout-worker-5f7c9d8b4-qw8zt ready",
    "request 550e8400-e29b-41d4-a716-446655440000 and trace id 4bf92f3577b34da6a3ce929d0e0e4736",
    "line one\x0bline two\x0cpage three\ttab\r\nend\x85next",
]


def test_prose_in_those_scripts_is_kept() -> None:
    for text in PROSE:
        assert find_in_text(text) == set(), text
        assert redact({"text": text}) == ({"text": text}, []), text
        assert RunSecrets().screen({"text": text}) == {"text": text}, text


KEY = "\u015bk-proj-" + "Qm7Xv2Lp9Rt4Wz8Kc3Nb6Hd1Fg5Js0Ya"
GHP = "gh\u0440_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"
CTL = "sk-ant-api03-" + "Zx8\x01Cv7Bn6\x7fMq5Wr4\x9bEt3Yu2Io1Pa0Sd9Fg8Hj7Kl6"


async def agent(task: str, ctx: Any) -> Any:
    ctx.emit("note", {"text": f"key {KEY} set"})
    ctx.emit("note", {"text": f"token {GHP}"})
    ctx.emit("note", {"text": f"and {CTL}"})
    return f"done with {KEY}"


def test_such_keys_reach_no_run_file(tmp_path: Path) -> None:
    episode_id = noesis_nb.solve("look-alikes", using=agent, runs_dir=tmp_path / "runs", approver="auto")
    files = run_files(tmp_path / "runs" / episode_id)
    for key in (KEY, GHP, CTL):
        # no piece of it as written (a control character is written escaped: the pieces without one)
        pieces = {p for p in (key[i : i + 8] for i in range(len(key) - 7)) if not any(c in p for c in CONTROLS)}
        for name, blob in files:
            text = blob.decode("utf-8", "replace")
            assert not any(p in text for p in pieces), (ascii(key), name)
