"""Binder's JupyterLab saves widget state with a notebook ("Save Widget State Automatically" on).

Off (JupyterLab's default), a notebook saved with views and reopened once its kernel is gone drew "Error displaying
widget: model not found" in each view's place; on, each view comes back from the saved state and says it lost its
kernel. ``binder/postBuild`` copies ``binder/overrides.json`` to JupyterLab's settings of the image; a real JupyterLab
given those settings says the setting is on."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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
    token, port = secrets.token_hex(16), _port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOESIS_")}
    env.update(JUPYTER_CONFIG_DIR=str(tmp_path / "config"), JUPYTER_DATA_DIR=str(tmp_path / "data"),
               JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))  # fmt: skip
    cmd = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root", "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}", "--ServerApp.port_retries=0", f"--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={tmp_path}", f"--LabApp.app_settings_dir={settings}",
        f"--LabApp.user_settings_dir={tmp_path / 'user-settings'}", f"--LabApp.workspaces_dir={tmp_path / 'ws'}",
        "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
    ]  # fmt: skip
    log = open(tmp_path / "lab.log", "wb")  # closed below, after the server
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, (tmp_path / "lab.log").read_text(errors="replace")[-2000:]
            try:
                found = _get(f"{base}/lab/api/settings/{PLUGIN}", token)
                break
            except OSError:
                assert time.monotonic() < deadline, "JupyterLab did not answer in 60 s"
                time.sleep(0.3)
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
    # an override is the setting's default for everyone (a person's own settings still win)
    assert found["schema"]["properties"]["saveState"]["default"] is True, found["schema"]["properties"]["saveState"]
    assert "saveState" not in found["settings"]  # no one's own setting: the override alone turned it on
