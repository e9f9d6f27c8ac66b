"""Binder's JupyterLab saves widget state with a notebook ("Save Widget State Automatically" on).

Off (JupyterLab's default), a notebook saved with views and reopened once its kernel is gone drew "Error displaying
widget: model not found" in each view's place; on, each view comes back from the saved state and says it lost its
kernel. ``binder/postBuild`` copies ``binder/overrides.json`` to JupyterLab's settings of the image; a real JupyterLab
given those settings says the setting is on."""

from __future__ import annotations

import json
import shutil
import urllib.request
from pathlib import Path

from tests.browser.lab import jupyter_server

REPO = Path(__file__).resolve().parents[1]
PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"


def _get(url: str, token: str) -> dict:
    request = urllib.request.Request(url, headers={"Authorization": f"token {token}"})
    with urllib.request.urlopen(request, timeout=5) as answer:
        return dict(json.loads(answer.read()))


def test_postbuild_puts_the_overrides_where_jupyterlab_reads_its_settings() -> None:
    script = (REPO / "binder" / "postBuild").read_text()
    assert 'cp binder/overrides.json "$settings_dir/overrides.json"' in script
    assert 'settings_dir="$prefix/share/jupyter/lab/settings"' in script  # JupyterLab's app_settings_dir of a prefix


def test_jupyterlab_given_binders_settings_saves_widget_state(tmp_path: Path) -> None:
    settings = tmp_path / "prefix" / "share" / "jupyter" / "lab" / "settings"
    settings.mkdir(parents=True)
    shutil.copy(REPO / "binder" / "overrides.json", settings / "overrides.json")
    with jupyter_server("lab", tmp_path, tmp_path, f"--LabApp.app_settings_dir={settings}") as (base, token):
        found = _get(f"{base}/lab/api/settings/{PLUGIN}", token)
    # an override is the setting's default for everyone (a person's own settings still win)
    assert found["schema"]["properties"]["saveState"]["default"] is True, found["schema"]["properties"]["saveState"]
    assert "saveState" not in found["settings"]  # no one's own setting: the override alone turned it on
