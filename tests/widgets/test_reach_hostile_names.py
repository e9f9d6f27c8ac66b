"""The commands a view names to reach its run from a new cell (its lost-kernel notice: ``noesis_nb.show(…)``,
``%noesis resume …``) name what finds the run — its folder — and show every hidden character: a run whose files
claim a hostile id (markup, a bidi override, a terminal escape) or whose folder is named so never puts that text,
raw, in the view, and the command still reaches the run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import noesis_nb
from noesis_nb.runtime.diskrun import DiskRun
from noesis_nb.widgets.stale import stale_notice_html
from noesis_nb.widgets.view import EpisodeView

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"
HOSTILE = "<img src=x onerror=alert(1)>\u202e\x1b[2J"


def _run(folder: Path) -> Path:
    shutil.copytree(FIXTURE, folder)
    for name in ("summary.json", "manifest.json", "state.json"):
        doc = json.loads((folder / name).read_text())
        if "episode_id" in doc:
            doc["episode_id"] = HOSTILE
        (folder / name).write_text(json.dumps(doc))
    return folder


def _notice(run: Path) -> str:
    """The view's notice (the run ended: ``noesis_nb.show(…)``), and the one it gives a lost run (``%noesis resume …``)."""
    view = EpisodeView(DiskRun(run))
    try:
        return str(view.stale.value) + stale_notice_html(view.source, "lost", [], here=False)
    finally:
        view.close()


def test_a_hostile_id_in_the_files_is_not_what_the_notice_names(tmp_path: Path, comm_log: list) -> None:
    run = _run(tmp_path / "runs" / "ep_fine")
    notice = _notice(run)
    assert "\u202e" not in notice and "\x1b" not in notice and "<img" not in notice
    assert "noesis_nb.show(&#x27;ep_fine&#x27;" in notice and "%noesis resume ep_fine" in notice
    assert noesis_nb.show("ep_fine", runs_dir=run.parent).source.run_dir == run  # what it names finds the run


def test_a_hostile_folder_is_named_by_its_path_with_hidden_characters_shown(tmp_path: Path, comm_log: list) -> None:
    run = _run(tmp_path / "runs" / "ep_\u202eevil\x1b[2J")
    notice = _notice(run)
    assert "\u202e" not in notice and "\x1b" not in notice and "<img" not in notice
    assert "evil\ufffd[2J" in notice and str(run.parent) in notice


def test_a_folder_named_like_an_option_or_hidden_is_named_by_its_path(tmp_path: Path, comm_log: list) -> None:
    for name in ("-copy", ".shadow"):  # names show() and the magics refuse as ids (an option, a hidden folder)
        run = _run(tmp_path / "runs" / name)
        notice = _notice(run)
        assert f"noesis_nb.show(&#x27;{name}&#x27;" not in notice and f"resume {name}" not in notice
        assert str(run) in notice  # its path, which finds it
        assert noesis_nb.show(run).source.run_dir == run


def test_a_runs_dir_variable_with_a_pasted_line_end_is_read_as_a_fresh_kernel_reads_it(
    tmp_path: Path, comm_log: list, monkeypatch
) -> None:
    """``$NOESIS_RUNS_DIR`` set with a trailing space or line end (pasted) names the same folder to a fresh kernel,
    which strips it: the notice's command is the bare id, as ``show`` then finds it, not one with ``runs_dir=``."""
    run = _run(tmp_path / "shared" / "ep_fine")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NOESIS_RUNS_DIR", f"{run.parent} \n")
    notice = _notice(run)
    assert "noesis_nb.show(&#x27;ep_fine&#x27;)" in notice and "%noesis resume ep_fine<" in notice.replace("\n", "<")
    assert noesis_nb.show("ep_fine").source.run_dir.resolve() == run.resolve()  # the bare id finds it
