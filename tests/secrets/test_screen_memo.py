"""``ScreenMemo``: the one memo of texts a run's screen judged (a recorder's agent ids, a context's phases and names).
Each text is screened once; every memo of the run is emptied (its kept texts put back) when the run learns a value,
and a memo no one holds any more is not kept alive by the run."""

from __future__ import annotations

import gc

from noesis_nb.secrets.guard import RunSecrets
from tests.callcount import counting_calls

SECRET = "Zq" + "8mW3rT6yU1iO4pA7sD0f"


def test_a_text_is_screened_once_and_judged_again_after_the_run_learns_a_value() -> None:
    run = RunSecrets()
    memo, other = run.memo({"system": "system"}), run.memo()
    text = f"sub-{SECRET}"
    assert memo[text] == text and other[text] == text  # unknown yet: written as it is
    with counting_calls("redact") as made:
        assert memo[text] == text
    assert made == [0]  # a dict lookup
    run.learn([SECRET])
    assert dict(memo) == {"system": "system"} and dict(other) == {}
    assert memo[text] == "sub-[REDACTED]" == memo.shown(text)


def test_an_empty_judgement_is_kept_and_what_is_no_plain_text_is_not() -> None:
    run = RunSecrets()
    memo = run.memo()
    assert memo[""] == "" and "" in memo
    assert memo.shown(7) == 7 and 7 not in memo

    class Lying(str):
        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = str.__hash__

    assert memo.shown(Lying("plain")) == "plain" and "plain" not in memo  # read as its characters, not kept


def test_a_memo_dropped_is_not_kept_alive_by_the_run() -> None:
    run = RunSecrets()
    run.memo()
    gc.collect()
    kept = run.memo()
    assert [ref() for ref in run._memos] == [kept]
