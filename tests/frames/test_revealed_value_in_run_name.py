"""A run folder named with a value a run of the load reveals (a run copied in as ``ep_<password>`` whose events say
``db password=<password>``) is shown ``[REDACTED:<mark>]`` wherever a run's id is shown, as when the environment
holds that value: every frame's ``episode_id`` and ``run_dir``, ``list_runs``, ``show()``, ``export_otel`` and the
plots. A folder whose name itself holds a secret name and a value after ``@`` (``ep_db_password@<value>``) is shown
redacted as ``ep_db_password=<value>`` is. The shown path still opens the run."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import noesis_nb
from noesis_nb import frames
from noesis_nb.store.listing import list_runs

from .runkit import fresh_password, unsealed_run


def _said(root: Path, run: Path, tmp_path: Path) -> dict[str, str]:
    """What each reader and view says of the root and the run, as text."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the copied logs name another run's id: said as problems, not asserted here
        events = frames.events_df(root)
        out = {
            "runs_df": frames.runs_df(root).to_csv(),
            "events_df": events.to_csv(),
            "usage_df": frames.usage_df(root).to_csv(),
            "tools_df": frames.tools_df(root).to_csv(),
            "list_runs": repr(list(list_runs(runs_dir=root))),
            "show": noesis_nb.show(str(run)).snapshot_html(),
        }
        noesis_nb.export_otel(str(run), path=str(tmp_path / "otel.json"))
        out["export_otel"] = (tmp_path / "otel.json").read_text()
        import noesis_nb.plots as plots

        out["episode_timeline"] = plots.episode_timeline(events).to_json()
    return out


def test_a_folder_named_with_the_value_its_own_run_reveals_is_hidden_in_every_view(tmp_path: Path) -> None:
    password = fresh_password()
    root = tmp_path / "runs"
    run = unsealed_run(root, f"ep_{password}", [{"note": f"db password={password}"}])
    said = _said(root, run, tmp_path)
    leaks = [name for name, text in said.items() if password in text]
    assert not leaks, leaks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = frames.runs_df(root).iloc[0]
        assert row.episode_id.startswith("ep_[REDACTED:") and row.run_dir.endswith(row.episode_id)
        assert len(frames.runs_df(row.run_dir)) == 1  # the shown path opens the run
        assert set(frames.events_df(root).episode_id) == {row.episode_id}


def test_the_name_is_shown_as_when_the_environment_holds_the_value(tmp_path: Path) -> None:
    password = fresh_password()
    root = tmp_path / "runs"
    unsealed_run(root, f"ep_{password}", [{"note": f"db password={password}"}])
    code = (
        "import sys, warnings; warnings.simplefilter('ignore'); import noesis_nb; "
        "print(noesis_nb.runs_df(sys.argv[1]).episode_id[0])"
    )
    env = {**os.environ, "MY_DB_PASSWORD": password}
    in_env = subprocess.run([sys.executable, "-c", code, str(root)], env=env, capture_output=True, text=True, check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        here = frames.runs_df(root, cache=False).episode_id[0]
    assert password not in in_env.stdout and in_env.stdout.strip() == here


def test_a_value_one_run_reveals_hides_another_runs_name(tmp_path: Path) -> None:
    password = fresh_password()
    root = tmp_path / "runs"
    unsealed_run(root, "ep_a", [{"note": f"db password={password}"}])
    unsealed_run(root, f"ep_b_{password}", [{"note": "nothing"}])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for df in (frames.runs_df(root), frames.events_df(root)):
            shown = [str(v) for name in ("episode_id", "run_dir") if name in df.columns for v in df[name]]
            assert shown and not any(password in v for v in shown), shown
        assert password not in repr(list(list_runs(runs_dir=root)))


def test_a_secret_named_value_after_at_in_a_folder_name_is_hidden(tmp_path: Path) -> None:
    password = fresh_password()
    root = tmp_path / "runs"
    run = unsealed_run(root, f"ep_db_password@{password}", [{"note": "nothing"}])
    said = _said(root, run, tmp_path)
    leaks = [name for name, text in said.items() if password in text]
    assert not leaks, leaks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        row = frames.runs_df(root).iloc[0]
    assert row.episode_id.startswith("ep_db_password@[REDACTED:")
