"""Who decides (an approver id) and who asks for tools (a principal) are recorded in one form, NFKC: two names that
read the same are one name. A name no letter carries (combining marks alone) and a word mixing Latin letters with
Cyrillic or Greek ones drawn alike are refused, naming the character, its code point and the fix."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb._envvars import approver_id_from_env, check_approver_id, principal_from_env
from noesis_nb.errors import InvalidOptionError

SAME = [
    (unicodedata.normalize("NFD", "José"), "José"),  # an accent combined, or composed
    ("ａｎａ", "ana"),  # fullwidth letters
    ("ﬁona", "fiona"),  # a ligature
]


@pytest.mark.parametrize(("given", "recorded"), SAME)
def test_names_that_read_the_same_are_one_name(given: str, recorded: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert check_approver_id(given) == recorded
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", given)
    assert approver_id_from_env() == recorded
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", f"user:{given}")
    assert principal_from_env() == f"user:{recorded}"


REFUSED = [
    ("\u0301\u0301\u0301", "'\\u0301' (U+0301 COMBINING ACUTE ACCENT) at position 0", "no letter"),
    ("аnа", "'\\u0430' (U+0430 CYRILLIC SMALL LETTER A) at position 0", "Latin letters"),
    ("Mr Αlpha", "'\\u0391' (U+0391 GREEK CAPITAL LETTER ALPHA) at position 3", "Latin letters"),
]


@pytest.mark.parametrize(("given", "named", "why"), REFUSED)
def test_names_that_read_as_another_are_refused(given: str, named: str, why: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(InvalidOptionError) as refused:
        check_approver_id(given)
    assert named in str(refused.value) and why in str(refused.value) and "approver_id='ana'" in str(refused.value)
    monkeypatch.setenv("NOESIS_NB_PRINCIPAL", given)
    with pytest.raises(InvalidOptionError) as refused:
        principal_from_env()
    assert named in str(refused.value) and "NOESIS_NB_PRINCIPAL" in str(refused.value)


@pytest.mark.parametrize("name", ["Ана", "Ελένη", "Дмитрий Smith", "ana-Ана", "Zoë", "Ångström"])
def test_names_in_one_script_a_word_are_taken(name: str) -> None:
    assert check_approver_id(name) == name


def test_a_decision_records_the_one_form(tmp_path: Path) -> None:
    def agent(task, ctx):
        return ctx.tool("fs.touch", {"argv": ["true"]}, effect="write", risk="high")["returncode"]

    episode_id = noesis_nb.solve("decide", using=agent, runs_dir=tmp_path, approver="ask")
    decision = noesis_nb.approve_draft(episode_id, approver_id="ａｎａ", runs_dir=tmp_path)
    assert decision.approver_id == "ana"
    (record,) = (tmp_path / episode_id / "tool_invocations" / "approvals").glob("*.json")
    assert '"approver_id":"ana"' in record.read_text().replace(" ", "")
