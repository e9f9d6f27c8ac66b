"""The committed notebooks: executed, small, without widget state, and readable as static HTML."""

import sys
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
SHOW_VIEWS = {"quickstart.ipynb", "governance-and-resume.ipynb", "integrations.ipynb"}


def test_the_tours_exist():
    assert {"quickstart.ipynb", "analysis.ipynb", "governance-and-resume.ipynb", "integrations.ipynb", "real-models.ipynb"} <= {
        p.name for p in NOTEBOOKS
    }


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_without_widget_state_small_and_executed(path):
    nb = nbformat.read(path, as_version=4)
    assert "widgets" not in nb.metadata, "strip saved widget state (scripts/execute_notebooks.py does)"
    assert path.stat().st_size < 1_000_000, f"{path.name} is {path.stat().st_size // 1024} KiB"
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code), "every code cell has run (commit executed notebooks)"
    assert not [o for c in code for o in c.outputs if o.output_type == "error"]
    parameters = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    assert len(parameters) == 1, "one papermill `parameters` cell"
    home = str(Path.home())
    for cell in code:
        for output in cell.outputs:
            html = output.get("data", {}).get("text/html", "")
            assert "Plotly.js v" not in html and len(html) < 300_000, "plotly outputs must not embed plotly.js"
        saved = str(cell.outputs)
        for machine in {sys.prefix, sys.executable[:12], home}:  # no path of the machine that executed them
            assert len(machine) < 6 or machine not in saved, f"a saved output holds {machine!r}"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name in SHOW_VIEWS], ids=lambda p: p.name)
def test_static_html_shows_the_step_tree(path):
    from nbconvert import HTMLExporter

    body, _ = HTMLExporter().from_notebook_node(nbformat.read(path, as_version=4))
    snapshots = body.split('class="noesis-nb-view noesis-nb-snapshot"')[1:]
    assert snapshots, "the episode views carry their text/html snapshot"
    steps = max(s.count('<details class="nnb-step') for s in snapshots)
    assert steps >= 3, "the snapshot tells the episode as steps (its start, its tool call, its end)"
    assert '<span class="nnb-k nnb-c-orange">tool</span>' in body  # a tool call is one step ...
    assert "<b>tool.execution.succeeded</b>" in body  # ... whose raw events are inside it
    assert "Error displaying widget" not in body


def test_saved_views_tell_the_story_at_their_cell():
    """Each saved output of a run shown from disk is its state when that cell ran; the last one how it ended."""
    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "governance-and-resume.ipynb", as_version=4)
    shown = [
        "".join(o["data"]["text/plain"])
        for c in nb.cells
        if c.cell_type == "code" and "noesis_nb.show(" in c.source
        for o in c.outputs
        if "text/plain" in o.get("data", {})
    ]
    assert [s.split(",")[0] for s in shown] == [
        "EpisodeRun(status='paused'",  # the veto pause, before the cell that resumes it
        "EpisodeRun(status='paused'",  # the draft paused on disk, before approve_draft and resume_run
        "EpisodeRun(status='ok'",  # the same run, shown again at the end
    ]


def test_the_integrations_tour_without_its_extras_skips_those_sections_and_runs_to_the_end(tmp_path):
    """The README's main install has no integration extras: the tour says so in one line per extra and goes on."""
    from nbclient import NotebookClient

    path = Path(__file__).resolve().parents[1] / "notebooks" / "integrations.ipynb"
    nb = nbformat.read(path, as_version=4)
    hide = (
        "import sys\nfor name in ('ag_ui', 'httpx', 'noeta', 'langgraph'):\n    sys.modules[name] = None  # as if not installed\n"
    )
    nb.cells.insert(0, nbformat.v4.new_code_cell(hide))
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source += f"\nRUNS_DIR = {str(tmp_path / 'runs')!r}\nAPPROVER = 'ask'"  # nobody is there to click
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    errors = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    printed = "".join(o.get("text", "") for c in nb.cells for o in c.get("outputs", []) if o.output_type == "stream")
    for extra in ("agui", "langgraph", "noeta"):
        assert f"skipping the {extra} section: pip install 'noesis_nb[{extra}]' to run it" in printed
    last = [c for c in nb.cells if c.cell_type == "code"][-1]
    assert last.execution_count is not None  # ran to the end


def test_the_real_models_tour_without_its_sdks_stops_at_once_naming_both(tmp_path):
    """The README's set-up installs neither SDK: the tour's set-up cell is one line giving the one install for both
    (it named only the first SDK missing, so a newcomer installed twice)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "real-models.ipynb", as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell("import sys\nsys.modules['openai'] = None  # as if not installed"))
    with pytest.raises(CellExecutionError):
        NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    (error,) = [o for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert error.ename == "MissingExtraError"
    assert "pip install 'noesis_nb[openai,anthropic]'" in error.evalue
    assert len(error.traceback) <= 2  # one line and the cell's line, no traceback


def _asks_a_person(path: Path) -> bool:
    """Whether the tour's papermill parameters choose who decides (``APPROVER``): a person runs it with "ask"."""
    cells = nbformat.read(path, as_version=4).cells
    return any("parameters" in c.metadata.get("tags", []) and "APPROVER =" in c.source for c in cells)


@pytest.mark.parametrize("name", [p.name for p in NOTEBOOKS if _asks_a_person(p)])
def test_run_all_with_nobody_to_click_never_stops_at_a_pause(name, tmp_path):
    """APPROVER = "ask" and no click: the cells that need a decision say they wait for it; nothing raises.

    Every tour a person runs with the default "ask" is checked (real-models' ``handle.result()`` raised
    ``EpisodeStateError`` at the pause, and Run All stopped there)."""
    from nbclient import NotebookClient

    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / name, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source += f"\nRUNS_DIR = {str(tmp_path / 'runs')!r}\nAPPROVER = 'ask'"
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    assert [o.ename for c in nb.cells for o in c.get("outputs", []) if o.output_type == "error"] == []
    shown = str([c.outputs for c in nb.cells if c.cell_type == "code"])
    assert "waiting for your click on Approve above" in shown


def test_the_batches_tour_saves_the_grid_and_the_inbox_as_static_html():
    """GitHub and nbviewer show the batch's grid and inbox from their text/html snapshots (no widgets there)."""
    nb = nbformat.read(Path(__file__).resolve().parents[1] / "notebooks" / "batches.ipynb", as_version=4)
    html = [
        "".join(o["data"]["text/html"])
        for c in nb.cells
        if c.cell_type == "code"
        for o in c.outputs
        if "text/html" in o.get("data", {})
    ]
    grids = [h for h in html if 'class="noesis-nb-view noesis-nb-batch"' in h]
    assert grids and all("ok 80</span>" in g for g in grids)  # saved as each batch ended (refresh_display)
    # a table, read as one where the stylesheet is dropped (an untrusted notebook), with one row per episode shown
    assert all('<table class="nnb-grid-table">' in g and g.count("<tr>") >= 11 and "more episodes not shown" in g for g in grids)
    inbox = next(h for h in html if h.startswith('<div class="noesis-nb-view noesis-nb-inbox">'))  # the `inbox` cell
    assert "nothing waits for a decision · 10 decided here" in inbox
    decided = inbox.count("approved</b> by human") + inbox.count("rejected</b> by human")
    assert decided == 5 and inbox.count("no production deploys this week") == 4  # the newest five, with their reasons
