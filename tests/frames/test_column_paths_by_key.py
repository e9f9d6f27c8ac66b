"""An extra column's path is the caller's own text: a key in it that looks random (a git SHA, a hash-keyed metric, a
token-like name) is looked up as given. Before, ``runs_df`` judged the value under the key, the screen redacted the
key itself, and the lookup by the key raised a bare KeyError. A path whose first part no record of the frame has
(``summmary.task``) is refused with a did-you-mean, as ``phases=`` refuses a misspelt phase: before, it was a column of
NA in every row with no word said."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError
from noesis_nb.frames import Column

from .runkit import basic_events, write_run

SHA = "9fceb02d0ae598e95dc970b74767f19372d61af8"
KEYS = [SHA, "sha256-" + "3b1f0c9a7d" * 6, "Xk4pQ9vT2mZr8LbN6cWy1Hd"]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    metrics = {"by_commit": {key: 0.25 * (i + 1) for i, key in enumerate(KEYS)}, **{key: float(i) for i, key in enumerate(KEYS)}}
    write_run(root, "ep_keys", basic_events("ep_keys"), summary={"episode_id": "ep_keys", "status": "ok", "metrics": metrics})
    return root


@pytest.mark.parametrize("i", range(len(KEYS)))
def test_a_random_looking_key_in_a_path_is_looked_up_as_given(root: Path, i: int) -> None:
    summary = json.loads((root / "ep_keys" / "summary.json").read_text())
    nested = Column("at_head", path=f"summary.metrics.by_commit.{KEYS[i]}", type="float")
    flat = Column("flat", path=f"summary.metrics.{KEYS[i]}", type="float")
    df = noesis_nb.runs_df(root, columns=[nested, flat], cache=False)
    assert df["at_head"].tolist() == [summary["metrics"]["by_commit"][KEYS[i]]]
    assert df["flat"].tolist() == [summary["metrics"][KEYS[i]]]


def test_a_column_named_with_the_key_keeps_its_name(root: Path) -> None:
    df = noesis_nb.runs_df(root, columns=[Column(SHA, path=f"summary.metrics.by_commit.{SHA}", type="float")], cache=False)
    assert SHA in df.columns and df[SHA].notna().all()


@pytest.mark.parametrize(
    ("frame", "path", "meant"),
    [
        ("runs_df", "summmary.task", "summary"),
        ("runs_df", "stat.goal", "state"),
        ("tools_df", "aproval.decision", "approval"),
        ("usage_df", "paylod.model", "payload"),
    ],
)
def test_a_misspelt_first_part_is_refused_with_the_part_meant(root: Path, frame: str, path: str, meant: str) -> None:
    with pytest.raises(InvalidOptionError, match=rf"did you mean '{meant}'\?") as caught:
        getattr(noesis_nb, frame)(root, columns=[Column("t", path=path)])
    assert repr(path) in str(caught.value)


def test_a_first_part_with_nothing_close_names_the_parts_there_are(root: Path) -> None:
    with pytest.raises(InvalidOptionError, match="start the path at one of summary, state, final, manifest"):
        noesis_nb.runs_df(root, columns=[Column("t", path="metrics.score")])
