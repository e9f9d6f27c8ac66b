"""``ns.list_runs`` rows are Noēsis' rows: its twelve keys, ``status`` the summary's own ``status`` (Noēsis' finaliser
does not write one: None), never the status noesis_nb derives, which ``noesis_nb.list_runs`` and ``runs_df`` keep."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import noesis_nb
from noesis_nb import ns

from ..conftest import ADR008_RUN, SMOKE_RUN

#: the keys of a row of Noēsis' ``list_runs`` (``noesis/io.py``)
NOESIS_KEYS = {
    "episode_id",
    "task",
    "started_at",
    "flags",
    "success",
    "veto_count",
    "duration_sec",
    "status",
    "outcome",
    "process",
    "manifest",
    "manifest_status",
}


def _researcher_runs(runs_dir: Path) -> tuple[str, str]:
    from noesis_nb.scripted import researcher

    ok = noesis_nb.solve("look up the weather", using=researcher(), runs_dir=runs_dir)
    vetoed = noesis_nb.solve("please destroy x", using=researcher(), runs_dir=runs_dir, governance="enforce")
    return ok, vetoed


def test_rows_have_noesis_keys_and_the_summary_status(runs_dir: Path) -> None:
    for run in (SMOKE_RUN, ADR008_RUN):  # Noēsis wrote these: their summaries hold no status
        shutil.copytree(run, runs_dir / run.name)
    ok, vetoed = _researcher_runs(runs_dir)
    summary_of = {d.name: json.loads((d / "summary.json").read_bytes()) for d in runs_dir.iterdir()}
    ns.set(runs_dir=str(runs_dir))
    rows = {r["episode_id"]: r for r in ns.list_runs()}
    assert set(rows) == {SMOKE_RUN.name, ADR008_RUN.name, ok, vetoed}
    for ep, row in rows.items():
        assert set(row) == NOESIS_KEYS, ep
        assert row["status"] == summary_of[ep].get("status"), ep
    assert rows[SMOKE_RUN.name]["status"] is None and rows[ADR008_RUN.name]["status"] is None
    # noesis_nb's own readers still derive a status for every run
    ours = {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs_dir)}
    assert ours[SMOKE_RUN.name] == ours[ADR008_RUN.name] == ours[ok] == "ok" and ours[vetoed] == "vetoed"
    df = noesis_nb.runs_df(runs_dir).set_index("episode_id")
    assert df.loc[SMOKE_RUN.name, "status"] == "ok" and df.loc[vetoed, "status"] == "vetoed"


def test_a_summary_without_status_lists_none_where_noesis_nb_derives_one(runs_dir: Path) -> None:
    ok, vetoed = _researcher_runs(runs_dir)
    for ep in (ok, vetoed):  # a summary as Noēsis' finaliser writes it: no status
        path = runs_dir / ep / "summary.json"
        summary = json.loads(path.read_bytes())
        del summary["status"]
        path.write_text(json.dumps(summary))
    ns.set(runs_dir=str(runs_dir))
    assert {r["episode_id"]: r["status"] for r in ns.list_runs()} == {ok: None, vetoed: None}
    assert {r["episode_id"]: r["status"] for r in noesis_nb.list_runs(runs_dir=runs_dir)} == {ok: "ok", vetoed: "vetoed"}
