"""A key with combining marks, format characters or compatibility forms in it is found, and redacted whole.

``s\u0301k-proj-…`` shows as ``śk-proj-…``, ``ghp_`` with zero-width joiners, variation selectors or tag characters
between its characters shows as ``ghp_…``, and ``ｓｋ-ｐｒｏｊ-…`` (fullwidth forms) reads as ``sk-proj-…``: the
detectors read the text without the invisible characters and with each compatibility form as its ASCII character,
and what they find is redacted where it is written, the marks inside it and on its last character too. Generated
(a fixed seed: the same examples each run), for keys of known formats and random keys of no format; end to end
through a run's files as well.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb.secrets import RunSecrets
from noesis_nb.secrets.names import REDACTED_VALUE, is_secret_key
from noesis_nb.secrets.scan import redact
from noesis_nb.secrets.text import payload_might_contain
from tests.hardening.secret_corpus import run_files
from tests.secrets.keygen import keys

# characters that show as nothing or as a mark on the character before them, of every kind a copy or a forger uses
HIDING = [
    "\u0301",  # combining acute accent (Mn)
    "\u0327",  # combining cedilla
    "\u036f",  # combining latin small letter x
    "\u20dd",  # combining enclosing circle (Me)
    "\u200d",  # zero-width joiner (Cf)
    "\u200c",  # zero-width non-joiner
    "\u2061",  # function application
    "\u00ad",  # soft hyphen
    "\u202e",  # right-to-left override
    "\u2067",  # right-to-left isolate
    "\ufe0f",  # variation selector 16
    "\U000e0101",  # variation selector 18 (supplement)
    "\U000e0041",  # tag latin capital letter a
    "\u3164",  # Hangul filler
    "\u1160",  # Hangul jungseong filler
]
PREFIXES = ["sk-proj-", "sk-ant-api03-", "ghp_", "github_pat_11A", "hf_", "glpat-", "xoxb-1234-", "AKIA", ""]


def _fullwidth(char: str) -> str:
    return chr(ord(char) + 0xFEE0) if "!" <= char <= "~" else char


def _math_bold(char: str) -> str:
    if char.isascii() and char.isupper():
        return chr(0x1D400 + ord(char) - ord("A"))
    if char.isascii() and char.islower():
        return chr(0x1D41A + ord(char) - ord("a"))
    if char.isdigit():
        return chr(0x1D7CE + ord(char) - ord("0"))
    return char


@st.composite
def marked(draw: Any) -> tuple[str, str]:
    """A key, and the key with invisible characters after some of its characters (the last one's included)."""
    key = draw(keys(PREFIXES))
    chars = draw(st.lists(st.sampled_from(HIDING), min_size=len(key), max_size=len(key)))
    every = draw(st.integers(1, 6))
    return key, "".join(
        c + (mark if i % every == every - 1 or i == len(key) - 1 else "") for i, (c, mark) in enumerate(zip(key, chars))
    )


@st.composite
def compatible(draw: Any) -> tuple[str, str]:
    """A key, and the key with some of its characters in fullwidth or mathematical forms."""
    key = draw(keys(PREFIXES))
    forms = draw(st.lists(st.sampled_from([str, _fullwidth, _math_bold]), min_size=len(key), max_size=len(key)))
    written = "".join(form(c) for c, form in zip(key, forms))
    return key, written if written != key else _fullwidth(key[0]) + key[1:]


def _redacted_whole(written: str) -> None:
    """A message holding the key as written is redacted, the key whole and nothing around it."""
    shown, hits = redact({"message": f"use {written} now"})
    assert hits, written
    assert shown["message"] == f"use {REDACTED_VALUE} now", (written, shown)


@settings(derandomize=True, max_examples=80)
@given(marked())
def test_a_key_with_marks_between_its_characters_is_redacted_whole(pair: tuple[str, str]) -> None:
    _redacted_whole(pair[1])


@settings(derandomize=True, max_examples=80)
@given(compatible())
def test_a_key_in_compatibility_forms_is_redacted_whole(pair: tuple[str, str]) -> None:
    _redacted_whole(pair[1])


@settings(derandomize=True, max_examples=40)
@given(marked(), compatible())
def test_the_event_screen_passes_such_a_key_to_the_detectors(marks: tuple[str, str], forms: tuple[str, str]) -> None:
    for _, written in (marks, forms):
        payload = {"text": f"use {written} now"}
        assert payload_might_contain(payload, orjson.dumps(payload)), written


@settings(derandomize=True, max_examples=40)
@given(marked(), compatible())
def test_a_learned_key_shown_later_with_marks_or_other_forms_is_scrubbed(marks: tuple[str, str], forms: tuple[str, str]) -> None:
    guard = RunSecrets()
    guard.learn([marks[0], forms[0]])
    later = guard.scrub_text(f"again {marks[1]} and {forms[1]} done")
    assert later == f"again {REDACTED_VALUE} and {REDACTED_VALUE} done", later


def test_a_secret_name_with_marks_or_in_fullwidth_forms_names_a_secret() -> None:
    for name in ("pa\u0301ssword", "ｐａｓｓｗｏｒｄ", "api\u200d_key", "ＡＰＩ＿ＫＥＹ", "to\ufe0fken"):
        assert is_secret_key(name), name
    shown, hits = redact("login with ｐａｓｓｗｏｒｄ=Hunter2Horse and pa\u0301ssword: Correct9Battery")
    assert hits and "Hunter2Horse" not in shown and "Correct9Battery" not in shown, shown


def test_prose_with_accents_and_marks_is_kept() -> None:
    for text in (
        "Café crème brûlée, naïve résumé",
        "ｆｕｌｌｗｉｄｔｈ ｔｅｘｔ",
        "Ａｎｇｓｔｒöｍ",
        "e\u0301te\u0301 a\u0300 Paris",
    ):
        assert redact({"text": text}) == ({"text": text}, []), text


KEY = "sk-proj-" + "Qm7Xv2Lp9Rt4Wz8Kc3Nb6Hd1Fg5Js0Ya"
GHP = "ghp_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"


async def agent(task: str, ctx: Any) -> Any:
    ctx.emit("note", {"text": "key " + "\u0301".join(KEY) + "\u0301 set"})
    ctx.emit("note", {"text": "token " + "".join(_fullwidth(c) for c in GHP)})
    return "done"


def test_keys_with_marks_or_in_fullwidth_forms_reach_no_run_file(tmp_path: Path) -> None:
    episode_id = noesis_nb.solve("marks", using=agent, runs_dir=tmp_path / "runs", approver="auto")
    files = run_files(tmp_path / "runs" / episode_id)
    for key in (KEY, GHP):
        pieces = {key[i : i + 8] for i in range(len(key) - 7)}
        for name, blob in files:
            read = blob.decode("utf-8", "replace").replace("\u0301", "").translate(_ASCII)
            assert not any(p in read for p in pieces), (key, name)


_ASCII = {0xFEE0 + c: c for c in range(0x21, 0x7F)}  # fullwidth forms as ASCII
