"""What a view shows of a ``str`` subclass, and what a run learns from one, are its real characters: its own
methods (``encode``, ``find``, slicing, ``__len__``) cannot hide its secret from ``shown`` or from ``RunSecrets``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from noesis_nb.secrets import for_run, shown, shown_cut, shown_start

from .hostile_str import HOSTILE, IDS, KEY, TOKENS, LiesAll, hostile_text


@pytest.mark.parametrize("cls", HOSTILE, ids=IDS)
def test_a_view_shows_a_subclass_redacted_as_an_exact_str(cls: type[str]) -> None:
    for token in TOKENS:
        text = hostile_text(cls, token)
        for view in (shown(text), shown_start(text, 100), shown_cut(text, 100)):
            assert type(view) is str and token not in view and "[REDACTED]" in view


def test_a_run_learns_and_scrubs_the_characters_a_subclass_holds(tmp_path: Path) -> None:
    secrets = for_run(tmp_path / "run")
    secrets.learn([LiesAll(KEY)])
    assert secrets.scrub_text(f"later: {KEY}") == "later: [REDACTED]"
    assert secrets.scrub_text(LiesAll(f"later: {KEY}")) == "later: [REDACTED]"
    scrubbed = secrets.scrub({"a": LiesAll(f"x {KEY}"), LiesAll(KEY): [LiesAll(KEY)]})
    assert KEY.encode() not in orjson.dumps(scrubbed, option=orjson.OPT_NON_STR_KEYS)
