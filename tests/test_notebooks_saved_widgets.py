"""A tour executed headless (nbconvert --execute, papermill: nbclient) saves every widget model its saved views use.

A view's step grid listed rows the episode added while a later cell ran (``await handle``): nbclient saves only what
is sent under the cell it runs, so those rows were missing and JupyterLab drew "widget model not found" in the view.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def missing_models(nb: dict) -> list[tuple[str, str]]:
    """(who refers, model id) for each model a saved model or a widget output names that the saved state lacks."""
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    missing = []
    for model_id, model in state.items():
        for ref in re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(model["state"])):
            if ref not in state:
                missing.append((f"{model['model_name']} {model_id}", ref))
    for number, cell in enumerate(nb["cells"]):
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view and view["model_id"] not in state:
                missing.append((f"output of cell {number}", view["model_id"]))
    return missing


def test_the_check_finds_a_child_that_is_not_saved():
    box = {"model_name": "GridBoxModel", "state": {"children": ["IPY_MODEL_aa", "IPY_MODEL_bb"]}}
    nb = {"metadata": {"widgets": {WIDGET_STATE: {"state": {"cc": box, "aa": {"model_name": "HTMLModel", "state": {}}}}}}}
    nb["cells"] = [{"outputs": [{"data": {WIDGET_VIEW: {"model_id": "dd"}}}]}]
    assert missing_models(nb) == [("GridBoxModel cc", "bb"), ("output of cell 0", "dd")]


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name != "real-models.ipynb"], ids=lambda p: p.name)
def test_an_executed_tour_saves_every_model_its_views_use(path, tmp_path, monkeypatch):
    from nbclient import NotebookClient

    monkeypatch.setenv("NOESIS_NB_APPROVER", "auto")  # as nbval runs the tours: nobody clicks
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if "parameters" in cell.metadata.get("tags", []):
            cell.source += f"\nRUNS_DIR = {str(tmp_path / 'runs')!r}"
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    saved = tmp_path / path.name
    nbformat.write(nb, saved)
    document = json.loads(saved.read_text())
    assert missing_models(document) == []
