"""A sealed run whose summary.json was edited to say another status after the seal reads one status everywhere:
the one its sealed log recorded (runs_df, list_runs, DiskRun, show, export_otel), and runs_df reports the edit."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import clear_cache


def _adapter(task: str, ctx: Any) -> Any:
    ctx.model_call("gpt-4o", provider="openai", input_tokens=100, output_tokens=10)
    return "done"


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sealed") / "runs"
    return root / noesis_nb.solve("say done", using=_adapter, runs_dir=root)


def _statuses(run: Path, tmp_path: Path) -> dict[str, Any]:
    """The status each reader gives ``run``, each read cold."""
    clear_cache()
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        frame = noesis_nb.runs_df(run)
    trace = tmp_path / "trace.json"
    noesis_nb.export_otel(run, path=str(trace))
    spans = [s for r in json.loads(trace.read_text())["resourceSpans"] for ss in r["scopeSpans"] for s in ss["spans"]]
    root = next(s for s in spans if not s.get("parentSpanId"))
    bundle = noesis_nb.show(run)._repr_mimebundle_()
    plain = (bundle[0] if isinstance(bundle, tuple) else bundle)["text/plain"]
    return {
        "runs_df": frame.status.iloc[0],
        "list_runs": next(r["status"] for r in noesis_nb.list_runs(runs_dir=run.parent) if r["episode_id"] == run.name),
        "DiskRun": noesis_nb.DiskRun(run).status,
        "show": re.search(r"status='(\w+)'", plain).group(1),  # type: ignore[union-attr]
        "export_otel": next(a["value"]["stringValue"] for a in root["attributes"] if a["key"] == "noesis.status"),
        "problems": frame.attrs["errors"],
    }


@pytest.mark.parametrize("edited", ["error", "vetoed", "cancelled"])
def test_edited_summary_status_is_not_the_runs(sealed: Path, tmp_path: Path, edited: str) -> None:
    before = _statuses(sealed, tmp_path)
    recorded = before["runs_df"]
    assert recorded != edited
    assert {v for k, v in before.items() if k != "problems"} == {recorded}
    run = tmp_path / "runs" / sealed.name
    shutil.copytree(sealed, run, copy_function=shutil.copy2)  # times kept: only the edit moves one
    summary = json.loads((run / "summary.json").read_text())
    assert summary["status"] == recorded
    summary["status"] = edited
    (run / "summary.json").write_text(json.dumps(summary, indent=2))
    after = _statuses(run, tmp_path)
    # one status, the one the sealed log recorded, whichever reader is asked
    assert {k: v for k, v in after.items() if k != "problems"} == dict.fromkeys(
        ("runs_df", "list_runs", "DiskRun", "show", "export_otel"), recorded
    )
    # and the edit is reported, naming the file
    assert any(p["path"].endswith("summary.json") and "after the run was sealed" in p["reason"] for p in after["problems"])
    # a warm load (the cached record) says the same
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        assert noesis_nb.runs_df(run).status.iloc[0] == recorded
