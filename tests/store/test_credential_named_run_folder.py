"""A run folder whose name holds a credential (``ep_ghp_…``, copied or crafted) is left out of every listing with
a problem naming it redacted: its name stood in clear in each frame's ``episode_id`` and ``run_dir`` and in
``list_runs`` while views and %noesis hid it, and no decision or resume could name the run (ids holding a
credential are refused). One rule, in the scan every listing reads the root through.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import orjson

import noesis_nb

TOKEN = "ghp_" + "R8x2kLmQ9vT4wZ7pN1sD5fG3hJ6kL0aB2cE4"


def _agent(task: str, ctx: Any) -> str:
    ctx.model_call("gpt-4o-mini", provider="openai", input_tokens=1000, output_tokens=100)
    return "ok"


def test_a_folder_named_with_a_token_is_no_row_anywhere_and_its_problem_is_redacted(runs_dir: Path) -> None:
    crafted = noesis_nb.solve("crafted", using=_agent, runs_dir=runs_dir)
    kept = noesis_nb.solve("kept", using=_agent, runs_dir=runs_dir)
    (runs_dir / crafted).rename(runs_dir / f"ep_{TOKEN}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frames = {f.__name__: f(runs_dir) for f in (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.usage_df)}
    for name, df in frames.items():
        shown = df.to_csv() + orjson.dumps(df.attrs["errors"], default=str).decode()
        assert TOKEN not in shown, name  # before: episode_id and run_dir held it, and the problem's path
        assert set(df["episode_id"]) == {kept}, name
        assert any("credential" in p["reason"] and p["path"].endswith("[REDACTED]") for p in df.attrs["errors"]), name
    rows = noesis_nb.list_runs(runs_dir=runs_dir)
    assert [r["episode_id"] for r in rows] == [kept]
    assert TOKEN not in orjson.dumps([list(rows), rows.problems], default=str).decode()
    assert any("credential" in p["reason"] for p in rows.problems)
    (runs_dir / f"ep_{TOKEN}").rename(runs_dir / crafted)  # renamed as told: read again
    assert {r["episode_id"] for r in noesis_nb.list_runs(runs_dir=runs_dir)} == {crafted, kept}
