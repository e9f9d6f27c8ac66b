"""A tour whose view offers a decision (or a steer) still runs to its end when the reader takes it there.

The governance tour shows the veto and the paused deploy in views with Override / Uphold, Approve / Reject and
Resume, then decides them in code. A reader who clicks first must not meet a traceback or a warning box in the
cells that follow: they keep the reader's decision (a decision is final) and say what it led to.
The clicks are made here as the buttons make them, by the same decision on disk, in a real kernel.
"""

from pathlib import Path

import nbformat
import pytest

TOUR = Path(__file__).resolve().parents[1] / "notebooks" / "governance-and-resume.ipynb"

CLICKS = {
    "override-and-resume, reject": (
        "noesis_nb.approve_draft(paused, approver_id='human')\nnoesis_nb.resume_run(paused, using=janitor)",
        "noesis_nb.reject_draft(ep)",
    ),
    "uphold, approve-and-resume": (
        "noesis_nb.reject_draft(paused)",
        "noesis_nb.approve_draft(ep, approver_id='human')\nnoesis_nb.resume_run(ep)",
    ),
}


def _after(cells: list, starts: str, source: str) -> None:
    """Insert a cell doing ``source`` right after the code cell whose source starts with ``starts``."""
    (at,) = [i for i, c in enumerate(cells) if c.cell_type == "code" and c.source.startswith(starts)]
    cells.insert(at + 1, nbformat.v4.new_code_cell(source))


def _run(nb: nbformat.NotebookNode, tmp_path: Path, parameters: str = "") -> list:
    """Execute the tour in a real kernel, its runs under ``tmp_path`` (``parameters`` added to its parameters cell):
    the outputs of its code cells, once none of them raised."""
    from nbclient import NotebookClient

    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source += f"\nRUNS_DIR = {str(tmp_path / 'runs')!r}" + parameters
    where = {"metadata": {"path": str(tmp_path)}}
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True, resources=where).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert [f"{o.ename}: {o.evalue}" for o in outputs if o.output_type == "error"] == []
    return outputs


@pytest.mark.parametrize("clicks", CLICKS, ids=list(CLICKS))
def test_the_governance_tour_keeps_a_decision_clicked_in_its_views(clicks, tmp_path):
    nb = nbformat.read(TOUR, as_version=4)
    veto_click, draft_click = CLICKS[clicks]
    _after(nb.cells, "noesis_nb.show(paused", veto_click)
    _after(nb.cells, "OUT = RUNS_DIR.parent", draft_click)
    outputs = _run(nb, tmp_path)
    warned = "".join(o.get("text", "") for o in outputs if o.output_type == "stream" and o.name == "stderr")
    assert "NothingToResume" not in warned  # the tour resumed a run the reader had already resumed
    assert [c for c in nb.cells if c.cell_type == "code"][-1].execution_count is not None  # ran to the end


def test_the_steer_tour_goes_on_after_a_steer_sent_from_the_view(tmp_path):
    """The tour invites typing into the running episode's box and clicking Send; the agent then finishes, and the
    cell that steers from Python must not raise ``EpisodeStateError`` at an episode no longer running."""
    nb = nbformat.read(TOUR.parent / "steer-and-replay.ipynb", as_version=4)
    sent = "handle.steer('use the staging database', sender='human')  # what Send does\nawait handle  # the agent finishes"
    _after(nb.cells, "handle = noesis_nb.start(", sent)
    _run(nb, tmp_path)
    assert [c for c in nb.cells if c.cell_type == "code"][-1].execution_count is not None  # ran to the end


STOPPED = {  # tour: (the cell that shows the episode, what its result cell then says)
    "quickstart.ipynb": ("handle = noesis_nb.start(", "nothing written: the episode was stopped"),
    "steer-and-replay.ipynb": ("handle = noesis_nb.start(", "stopped from the view before it finished: no result"),
    "real-models.ipynb": ("def triage(", "nothing re-run: the episode was stopped"),
}


@pytest.mark.parametrize("tour", STOPPED)
@pytest.mark.parametrize("stop", ["handle.cancel()", "handle.cancel(drain_s=10)"], ids=["Stop", "Stop when calls finish"])
def test_a_tour_goes_on_after_its_stop_button(tour, stop, tmp_path):
    """A running or paused episode's view shows Stop and Stop when calls finish: after either, the cells that read
    the result say it was stopped instead of raising ``CancelledError``."""
    nb = nbformat.read(TOUR.parent / tour, as_version=4)
    shown, said = STOPPED[tour]
    _after(nb.cells, shown, f"{stop}  # what the button does")
    outputs = _run(nb, tmp_path, "\nAPPROVER = 'ask'")  # nobody clicks Approve
    assert said in str(outputs)
