"""A run noesis_nb did not write names a secret by a tag's key (``tags = {"password": …}``): runs_df shows the value
redacted, as the event screen redacts ``{"password": …}``, in its tag columns and in a Column reading that path.

The run is Noēsis's (the fixture) copied into the runs directory with its summary edited, as an outsider would.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

import noesis_nb
from noesis_nb.frames import Column
from noesis_nb.secrets import REDACTED_VALUE

FIXTURE = Path(__file__).parents[1] / "fixtures" / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
WORD = "Quibble-93Xr"  # no detector finds it by its shape: only its key names it a secret
SHORT = "abcdefgh12"
TAGS = {"password": WORD, "secret": WORD, "api_token": SHORT, "db_password": WORD, "team": "search-infra"}


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    run = tmp_path / "runs" / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    summary = json.loads((run / "summary.json").read_text())
    summary["tags"] = TAGS
    (run / "summary.json").write_text(json.dumps(summary))
    return run


def _clear(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if df[c].astype(str).str.contains(WORD, regex=False).any() or (df[c] == SHORT).any()]


def test_secret_named_tags_are_redacted(run: Path) -> None:
    df = noesis_nb.runs_df(run.parent, cache=False)
    assert _clear(df) == []
    for key in ("password", "secret", "api_token", "db_password"):
        assert df[f"tags_{key}"].tolist() == [REDACTED_VALUE], key
    assert df["tags_team"].tolist() == ["search-infra"]  # a plain tag is shown as written


def test_column_under_a_secret_name_is_redacted(run: Path) -> None:
    columns = [
        Column("pw", path="summary.tags.password", type="str"),
        Column("tok", path="summary.tags.api_token"),
        Column("all_tags", path="summary.tags"),
        Column("team", path="summary.tags.team", type="str"),
    ]
    df = noesis_nb.runs_df(run.parent, columns=columns, cache=False)
    assert _clear(df) == []
    assert df["pw"].tolist() == [REDACTED_VALUE] and df["tok"].tolist() == [REDACTED_VALUE]
    assert df["all_tags"][0]["team"] == "search-infra" and df["team"].tolist() == ["search-infra"]


def test_warm_reload_keeps_them_redacted(run: Path) -> None:
    noesis_nb.runs_df(run.parent)
    assert _clear(noesis_nb.runs_df(run.parent)) == []
