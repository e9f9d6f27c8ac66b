"""One rule for the characters no name typed in code may hold: a model, provider or request id given to
``ctx.model_call``, a tool's name, and who decides, asks for tools or steers (approver id, principal, sender)
refuse the same ones, and say which one and where.

A model name holding a direction mark (U+200E), a soft hyphen, a Hangul filler, an invisible operator, a tag
character or a no-break space was written: it reads as ``gpt-4o-mini`` in every view yet matches no price, so
its cost was unknown. Only ZWNJ, ZWJ and the emoji variation selector U+FE0F, which words and emoji are spelled
with, are taken in a model's name.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import noesis_nb
from noesis_nb._envvars import approver_id_from_env, check_approver_id, principal_from_env, principal_problem
from noesis_nb.errors import InvalidOptionError
from noesis_nb.ids import validate_id
from noesis_nb.integrations.agui import AGUIHttpAgent
from noesis_nb.runtime.handreport import reported_text
from noesis_nb.runtime.steer import check_sender
from noesis_nb.tools.names import check_tool_identity, split_tool_name

#: the characters the hostile report found written in a model's name
FOUND = [
    *"\u200e\u200f\u061c\u00ad\u3164\u115f\u1160\uffa0\u2061\u2062\u2063\u2064\U000e0000\U000e0041\U000e007f",
    *"\u180e\u034f\u206a\u206b\u206c\u206d\u206e\u206f\ufff9\ufffa\ufffb\u00a0",
]

_IGNORABLE = [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x1810), 0x2065, 0x3164, *range(0xFE00, 0xFE0F)]
_IGNORABLE += [0xFFA0, *range(0xFFF0, 0xFFF9), *range(0xE0000, 0xE1000)]
_UNSEEN = st.one_of(
    st.characters(categories=["Cc", "Cf", "Co", "Cs", "Zl", "Zp"], exclude_characters="\u200c\u200d"),
    st.characters(categories=["Zs"], exclude_characters=" "),
    st.sampled_from([chr(code) for code in _IGNORABLE]),
)


def _model_events(run_dir: Path) -> list[dict[str, Any]]:
    events = [orjson.loads(line) for line in (run_dir / "events.jsonl").read_bytes().splitlines()]
    return [e["payload"] for e in events if e["phase"] == "model"]


def test_a_model_name_holding_an_invisible_character_is_refused_naming_it_and_nothing_is_written(
    runs_dir: Path,
) -> None:
    refused: dict[str, str] = {}

    def agent(task: str, ctx: Any) -> str:
        for ch in FOUND:
            try:
                ctx.model_call("gpt-4o" + ch + "-mini", provider="openai", input_tokens=1000, output_tokens=100)
            except InvalidOptionError as exc:
                refused[ch] = str(exc)
        return "checked"

    ep = noesis_nb.solve("invisible names", using=agent, runs_dir=runs_dir)
    # before: all but none of them written (U+200E, the soft hyphen, the fillers, the tags, U+00A0, …), cost unknown
    assert _model_events(runs_dir / ep) == []
    assert sorted(refused) == sorted(FOUND)
    for ch, message in refused.items():
        assert f"U+{ord(ch):04X}" in message and "at position 6" in message, message
        assert ch not in message, message  # shown escaped, never raw


@settings(max_examples=300, deadline=None)
@given(ch=_UNSEEN, where=st.integers(0, 6))
def test_every_control_format_private_separator_ignorable_or_non_ascii_space_is_refused_by_both_name_rules(
    ch: str, where: int
) -> None:
    name = "gpt-4o"[:where] + ch + "gpt-4o"[where:]
    with pytest.raises(InvalidOptionError) as by_model:
        reported_text("model", name, required=True)
    tool = "fs.read"[:where] + ch + "fs.read"[where:]
    with pytest.raises(InvalidOptionError) as by_tool:
        split_tool_name(tool)
    code = f"U+{ord(ch):04X}"
    assert code in str(by_model.value) and f"at position {where}" in str(by_model.value), str(by_model.value)
    assert code in str(by_tool.value) and f"at position {where}" in str(by_tool.value), str(by_tool.value)


@settings(max_examples=200, deadline=None)
@given(
    word=st.text(
        st.characters(categories=["L", "M", "N", "Pd", "So"], exclude_characters=[chr(c) for c in _IGNORABLE]),
        min_size=1,
        max_size=12,
    )
)
def test_names_spelled_in_letters_marks_digits_and_symbols_are_taken(word: str) -> None:
    assert reported_text("model", "m-" + word) == "m-" + word


@pytest.mark.parametrize("name", ["مدل‌من", "🧑‍💻-coder", "❤️-bot", "नमस्‍ते"])
def test_the_joiners_and_the_emoji_variation_selector_stay_taken_in_a_model_name(name: str) -> None:
    assert reported_text("model", name) == name
    assert any(unicodedata.category(ch) == "Cf" or ch == "\ufe0f" for ch in name)


@settings(max_examples=200, deadline=None)
@given(ch=_UNSEEN, where=st.integers(0, 3))
def test_who_decides_asks_or_steers_is_named_under_the_same_rule(ch: str, where: int) -> None:
    """Before: an approver id or a principal holding a Hangul filler or U+034F (printable to Python) was taken, and
    a steer's sender holding a no-break space or a filler too: each read as another person's name."""
    name = "user:ana"[:where] + ch + "user:ana"[where:]
    with pytest.raises(InvalidOptionError) as by_approver:
        check_approver_id(name)
    with pytest.raises(InvalidOptionError) as by_sender:
        check_sender(name)
    assert f"U+{ord(ch):04X}" in str(by_sender.value) and f"at position {where}" in str(by_sender.value)
    problem = principal_problem(name)
    assert problem is not None and f"U+{ord(ch):04X}" in problem and f"at position {where}" in problem, problem
    assert "ana" in str(by_approver.value) or "not shown" in str(by_approver.value)


@pytest.mark.parametrize("name", ["user:مدل‌من", "user:🧑‍💻", "Ana Lima (ops)"])
def test_names_of_people_spelled_with_the_joiners_are_taken_by_each_rule(name: str) -> None:
    assert check_approver_id(name) == name  # before: a ZWNJ or ZWJ (not printable to Python) was refused here
    assert check_sender(name) == name
    assert principal_problem(name) is None


@pytest.mark.parametrize(
    ("ch", "kind"),
    [
        ("\u3164", "invisible character"),
        ("\u034f", "invisible character"),
        ("\u00ad", "invisible character"),
        ("\u00a0", "non-ASCII space"),
        ("\x1b", "control character"),
    ],
)
def test_an_approver_id_or_principal_refused_names_the_character_its_code_point_and_place(
    monkeypatch: pytest.MonkeyPatch, ch: str, kind: str
) -> None:
    """Before: 'approver_id='ana\u3164': name who decides in printable text …' (a Hangul filler is printable to Python;
    the name shown with it as typed, nothing said of which character or where), and a principal holding a no-break
    space was said to hold 'a control character'."""
    name = "an" + ch + "a"
    told = f"holds the {kind} {ascii(ch)} (U+{ord(ch):04X}"
    with pytest.raises(InvalidOptionError) as given_id:
        check_approver_id(name)
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", f"  {name}")
    with pytest.raises(InvalidOptionError) as from_env:
        approver_id_from_env()
    for said, at in ((str(given_id.value), 2), (str(from_env.value), 4)):
        assert told in said and f"at position {at}:" in said, said
        assert ch not in said and "printable" not in said, said
        assert f"={ascii(' ' * (at - 2) + name)} holds" in said, said
    problem = principal_problem(name)
    assert problem == f"{told}{_named(ch)}) at position 2", problem
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", f" {name}")
    with pytest.raises(InvalidOptionError, match=r"\$NOESIS_NB_PRINCIPAL=.* holds the .*at position 3:") as principal:
        principal_from_env()
    assert ch not in str(principal.value) and "printable" not in str(principal.value), str(principal.value)


def _named(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return " " + name if name else ""


#: noncharacters (never text, whatever Unicode version reads them) and code points no version assigns yet
NONCHARACTERS = ["\ufdd0", "\ufdef", "\ufffe", "\uffff", "\U0001fffe", "\U0010ffff"]
UNASSIGNED = ["\u0378", "\U00050000"]


@pytest.mark.parametrize("ch", NONCHARACTERS)
def test_a_noncharacter_is_refused_in_every_name(ch: str) -> None:
    """Before, each rule took it (the categories refused left out Cn), so an approver id, principal or sender holding
    U+FFFF was recorded, the principal as a tool record's file name."""
    code = f"U+{ord(ch):04X}, a noncharacter"
    for check in (check_approver_id, check_sender, lambda n: reported_text("model", n), split_tool_name):
        with pytest.raises(InvalidOptionError) as caught:
            check("ana" + ch if check is not split_tool_name else "fs.read" + ch)
        assert code in str(caught.value) and "at position" in str(caught.value), str(caught.value)
    assert principal_problem("user:ana" + ch) == f"holds the noncharacter {ascii(ch)} ({code}) at position 8"


@pytest.mark.parametrize("ch", UNASSIGNED)
def test_a_code_point_python_does_not_assign_is_refused_in_an_id_and_taken_in_free_text(ch: str) -> None:
    """An approver id and a principal key records and files: a code point Unicode may later make a format character
    is refused there. A sender or a model name may hold an emoji newer than Python's tables: taken."""
    assert unicodedata.category(ch) == "Cn"
    told = f"holds the code point {ascii(ch)} (U+{ord(ch):04X}, unassigned)"
    with pytest.raises(InvalidOptionError, match=re.escape(told)):
        check_approver_id("ana" + ch)
    assert principal_problem("user:ana" + ch) == f"{told} at position 8"
    assert check_sender("ana" + ch) == "ana" + ch
    assert reported_text("model", "m-" + ch) == "m-" + ch


def _refused(call: Any) -> str:
    with pytest.raises((InvalidOptionError, ValueError)) as caught:
        call()
    return str(caught.value)


#: each public entry refusing a value for a character in it: how it is given ``abc\u200edef`` (and where the mark
#: then stands in the value its message shows)
_ENTRIES: dict[str, tuple[Any, int]] = {
    "ctx.model_call model": (lambda v, mp: reported_text("model", v), 3),
    "ctx.model_call request_id": (lambda v, mp: reported_text("request_id", v), 3),
    "steer sender": (lambda v, mp: check_sender(v), 3),
    "tool name": (lambda v, mp: split_tool_name(v), 3),
    "tool namespace": (lambda v, mp: check_tool_identity(v, "write"), 3),
    "approver_id=": (lambda v, mp: check_approver_id(v), 3),
    "$NOESIS_NB_APPROVER_ID": (lambda v, mp: (mp.setenv("NOESIS_NB_APPROVER_ID", v), approver_id_from_env()), 3),
    "$NOESIS_NB_PRINCIPAL": (lambda v, mp: (mp.setenv("NOESIS_NB_PRINCIPAL", v), principal_from_env()), 3),
    "episode id": (lambda v, mp: validate_id(v), 3),
    "AG-UI url": (lambda v, mp: AGUIHttpAgent(f"http://{v}.test/run"), 10),
}


@pytest.mark.parametrize("entry", list(_ENTRIES))
def test_every_entry_names_a_character_it_refuses_in_one_phrase(entry: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each refusal says which character and where in the same words (its kind, escaped, code point and name,
    position). Before, six messages were built apart: 'holds the control or invisible character …' (sender), 'holds a
    control or invisible character (… at position 3; …' (model), '; it holds … at position 3, a control …' (tool
    name), '[A-Za-z0-9_.:@+=-]: … at position 3' (episode id), "it holds '\\u200e' at position 10" (AG-UI url)."""
    call, at = _ENTRIES[entry]
    said = _refused(lambda: call("abc\u200edef", monkeypatch))
    phrase = rf"\bholds the invisible character '\\u200e' \(U\+200E LEFT-TO-RIGHT MARK\) at position {at}\b"
    assert re.search(phrase, said), said
    assert "\u200e" not in said, said
