"""A run folder named with a credential, put in a shared root by another user, is read by every reader and named
redacted everywhere a person or a frame sees it (ids, paths, draft ids, problems, plots), and the shown value still
opens the run: ``show(row.run_dir)``, ``runs_df(row.run_dir)``, ``episodes=df.episode_id.unique()``."""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import noesis_nb
from noesis_nb import plots
from noesis_nb.errors import RunNotFoundError
from noesis_nb.store import find_run_dir
from tests.frames.runkit import writer_adapter

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SMOKE = FIXTURES / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
PLAIN = FIXTURES / "noesis-adr008-allow-run" / "ep_adr008_allow"
# built from parts: no whole credential stands in the repository's text
_GH = "ghp" + "_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb12"
_OPENAI = "sk-" + "proj-" + "Qw8Er7Ty6Ui5Op4As3Df2Gh1"
GH_ID, OPENAI_ID = f"ep_{_GH}", f"ep_{_OPENAI}"
DISTINCT = (_GH[4:], _OPENAI[8:])  # what makes each token one: found nowhere shown


def _renamed(run: Path, root: Path, new: str) -> Path:
    """``run`` copied into ``root`` as another user would: folder, file names and the id inside renamed to ``new``."""
    old = run.name
    to = root / new
    shutil.copytree(run, to)
    for path in sorted(to.rglob("*"), key=lambda p: -len(p.parts)):
        if old in path.name:
            path.rename(path.with_name(path.name.replace(old, new)))
    for path in to.rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes().replace(old.encode(), new.encode()))
    return to


def _resealed(run: Path) -> None:
    """The manifest's hashes and sizes made true again (the copier's run verifies, no problem to name)."""
    manifest = json.loads((run / "manifest.json").read_text())
    for entry in manifest["files"]:
        data = (run / entry["name"]).read_bytes()
        entry["sha256"], entry["size_bytes"] = "sha256:" + hashlib.sha256(data).hexdigest(), len(data)
    (run / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True))


@pytest.fixture
def shared(tmp_path: Path) -> dict[str, Path]:
    """Root ``a``: the Noēsis smoke run named ``ep_ghp_…`` next to a plain run. Root ``b``: a run noesis_nb wrote
    (a model call, a tool draft approved, its records) renamed ``ep_sk-proj-…`` and edited after its seal, so its
    problems name its files."""
    a, b, made = tmp_path / "a", tmp_path / "b", tmp_path / "made"
    a.mkdir(), b.mkdir(), made.mkdir()
    _resealed(_renamed(SMOKE, a, GH_ID))
    shutil.copytree(PLAIN, a / PLAIN.name)
    episode = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=made, approver="ask")
    noesis_nb.approve_draft(episode, approver_id="ops", runs_dir=made)
    noesis_nb.resume_run(episode, runs_dir=made)
    _renamed(made / episode, b, OPENAI_ID)
    return {"a": a, "b": b}


def _leaks(text: str) -> list[str]:
    return [d for d in DISTINCT if d in text]


def _frame_texts(df: pd.DataFrame) -> str:
    return "\n".join(
        [repr(df), df.to_string(), df.to_html(), df.to_csv(), df.to_json(default_handler=str, date_format="iso"), repr(df.attrs)]
    )


READERS = (noesis_nb.runs_df, noesis_nb.events_df, noesis_nb.tools_df, noesis_nb.usage_df)


def _load(reader: Any, source: Any, **options: Any) -> tuple[pd.DataFrame, str]:
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        df = reader(source, **options)
    return df, "\n".join(str(w.message) for w in said)


def test_every_frame_names_the_run_redacted_and_keeps_its_rows(shared: dict[str, Path]) -> None:
    for root, lines in ((shared["a"], SMOKE / "events.jsonl"), (shared["b"], None)):
        for reader in READERS:
            df, said = _load(reader, root)
            assert not _leaks(_frame_texts(df) + said), (reader.__name__, _leaks(_frame_texts(df) + said))
        events = noesis_nb.events_df(root)
        ours = events[events["episode_id"].astype(str).str.contains("REDACTED")]
        if lines is not None:
            assert len(ours) == len(lines.read_text().splitlines())  # read whole, as any run
    a = noesis_nb.runs_df(shared["a"])
    assert PLAIN.name in set(a["episode_id"])  # a plain run keeps its id
    b_runs, b_tools, b_usage = (noesis_nb.runs_df(shared["b"]), noesis_nb.tools_df(shared["b"]), noesis_nb.usage_df(shared["b"]))
    assert len(b_runs) == 1 and len(b_tools) >= 1 and len(b_usage) >= 1
    assert b_tools["draft_id"].notna().all() and (b_usage["input_tokens"] > 0).all()
    assert b_runs.attrs["errors"]  # its files changed after the seal: named, redacted
    assert all("[REDACTED:" in e["path"] for e in b_runs.attrs["errors"] if "/b/" in e["path"])


def test_list_runs_names_the_run_redacted(shared: dict[str, Path]) -> None:
    for root in shared.values():
        rows = noesis_nb.list_runs(runs_dir=root)
        assert len(rows) == len(list(root.iterdir()))
        assert not _leaks(repr(rows) + repr(rows.problems))


def test_the_plots_name_the_run_redacted(shared: dict[str, Path]) -> None:
    runs = pd.concat([noesis_nb.runs_df(shared["a"]), noesis_nb.runs_df(shared["b"])])
    events, tools, usage = (noesis_nb.events_df(shared["b"]), noesis_nb.tools_df(shared["b"]), noesis_nb.usage_df(shared["b"]))
    figures = [
        plots.episode_timeline(events),
        plots.episode_timeline(noesis_nb.events_df(shared["a"]), runs["episode_id"].iloc[0]),
        plots.success_by_adapter(runs),
        plots.duration_by_adapter(runs),
        plots.approval_waits(tools),
        plots.tokens_by(usage, by="episode_id"),
        plots.cost_over_time(usage, by="episode_id"),
    ]
    for fig in figures:
        assert not _leaks(fig.to_json() + fig.to_html(include_plotlyjs=False))


def test_the_shown_id_and_folder_open_the_run(shared: dict[str, Path]) -> None:
    for root, real in ((shared["a"], shared["a"] / GH_ID), (shared["b"], shared["b"] / OPENAI_ID)):
        runs = noesis_nb.runs_df(root)
        row = runs[runs["episode_id"].str.contains("REDACTED")].iloc[0]
        lines = len((real / "events.jsonl").read_text().splitlines())
        assert find_run_dir(row.run_dir) == real
        assert find_run_dir(row.episode_id, runs_dir=root) == real
        assert len(noesis_nb.DiskRun(row.run_dir).events) == lines
        view = noesis_nb.show(row.run_dir)
        assert not _leaks(repr(view) + str(view._repr_mimebundle_()))
        noesis_nb.replay(row.run_dir)
        again = noesis_nb.runs_df(row.run_dir)
        assert again["episode_id"].tolist() == [row.episode_id] and again["run_dir"].tolist() == [row.run_dir]
        kept = noesis_nb.events_df(root, episodes=runs["episode_id"].unique())
        assert len(kept[kept["episode_id"] == row.episode_id]) == lines


def test_two_folders_shown_apart_each_open_and_a_bare_form_names_neither(shared: dict[str, Path]) -> None:
    """Both tokens redact whole, each marked apart (``[REDACTED:<mark>]``): each shown path opens its own run. The
    bare ``[REDACTED]`` of an older output is how both are shown: no address, and the error names neither."""
    shutil.move(shared["b"] / OPENAI_ID, shared["a"] / OPENAI_ID)
    runs = noesis_nb.runs_df(shared["a"])
    assert len(runs) == 3 and not _leaks(_frame_texts(runs))
    shown = runs[runs["episode_id"].str.contains("REDACTED")]
    assert len(shown) == 2 and shown["run_dir"].nunique() == 2 and shown["episode_id"].nunique() == 2
    for run_dir in shown["run_dir"]:
        assert noesis_nb.runs_df(run_dir)["run_dir"].tolist() == [run_dir]
    bare = str(shared["a"] / "[REDACTED]")
    with pytest.raises(RunNotFoundError) as caught:
        noesis_nb.runs_df(bare)
    assert not _leaks(str(caught.value)) and "2 folders" in str(caught.value)


@pytest.mark.parametrize(
    "above",
    [
        "mlruns/1/6f1e2d3c4b5a69788796a5b4c3d2e1f0/artifacts/runs",  # an MLflow artifact folder: a hash-named part
        "snapshots/token=abc123/runs",  # a part reading as an assignment
        "data/bucket-a8Fj3kLq9ZxP2mN7vB4c/runs",  # a random-looking part
    ],
)
def test_the_root_a_caller_names_is_kept_as_given_in_every_row(tmp_path: Path, above: str) -> None:
    """Only a run's own folder name is screened: the folders above it are the root the caller named. Screened, a
    hash-named or random-looking folder read as a key, one ``[REDACTED]`` spanned several parts, and ``row.run_dir``
    named nothing (``Path(row.run_dir) / 'events.jsonl'`` missing, ``runs_df(row.run_dir)`` matching nothing)."""
    root = tmp_path / above
    root.mkdir(parents=True)
    shutil.copytree(SMOKE, root / SMOKE.name)
    _resealed(_renamed(PLAIN, root, GH_ID))
    df = noesis_nb.runs_df(root)
    listed = noesis_nb.list_runs(runs_dir=root)
    for run_dir in [*df["run_dir"], *(row["run_dir"] for row in listed)]:
        assert run_dir.startswith(str(root) + "/"), run_dir
    kept = [d for d in df["run_dir"] if "[REDACTED" not in d]
    assert kept == [str(root / SMOKE.name)] and (Path(kept[0]) / "events.jsonl").is_file()
    assert sorted(df["run_dir"]) == sorted(row["run_dir"] for row in listed)
    for run_dir in df["run_dir"]:
        assert len(noesis_nb.runs_df(run_dir)) == 1 and len(noesis_nb.events_df(run_dir)) > 0
    assert not _leaks(_frame_texts(df))
