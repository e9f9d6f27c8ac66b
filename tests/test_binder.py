"""The Binder environment: binder/requirements.txt + postBuild in a fresh virtual environment runs every notebook."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

RUNNER = """
import os, sys
from pathlib import Path
import nbformat
from nbclient import NotebookClient
for name in sys.argv[1:]:
    path = Path(name)
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="binder-test", resources={"metadata": {"path": str(path.parent)}}).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    print(path.name, "ok" if not errors else errors)
    assert not errors
"""


@pytest.mark.binder
@pytest.mark.timeout(2400)  # a fresh environment: installing it alone can take minutes on a cold pip cache
def test_notebooks_run_in_a_fresh_binder_environment(tmp_path):
    if os.environ.get("NOESIS_NB_SKIP_BINDER"):
        pytest.skip("NOESIS_NB_SKIP_BINDER is set")
    repo = tmp_path / "repo"
    shutil.copytree(REPO, repo, ignore=shutil.ignore_patterns(".git", ".venv", "*.egg-info", "__pycache__", ".noesis", "build"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / "bin"
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "VIRTUAL_ENV": str(venv),
        "NOESIS_NB_APPROVER": "auto",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env.pop("PYTHONPATH", None)
    pip = [str(bindir / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "-r", "binder/requirements.txt"], cwd=repo, env=env, check=True, timeout=1200)
    subprocess.run(["bash", "binder/postBuild"], cwd=repo, env=env, check=True, timeout=600)
    subprocess.run(
        [str(bindir / "python"), "-m", "ipykernel", "install", "--prefix", str(venv), "--name", "binder-test"],
        env=env,
        check=True,
        capture_output=True,
    )
    # the views' key guard: the anywidget package for the kernel, its extension for JupyterLab and Notebook 7
    subprocess.run([str(bindir / "python"), "-c", "import anywidget"], env=env, check=True)
    assert (venv / "share" / "jupyter" / "labextensions" / "anywidget" / "package.json").is_file()
    config = venv / "etc" / "ipython" / "ipython_config.py"
    assert 'extensions = ["noesis_nb"]' in config.read_text()
    # JupyterLab saves widget state with a notebook: a view reopened without its kernel says so (test_binder_widget_state)
    overrides = json.loads((venv / "share" / "jupyter" / "lab" / "settings" / "overrides.json").read_text())
    assert overrides["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True
    notebooks = sorted(str(p) for p in (repo / "notebooks").glob("*.ipynb"))
    proc = subprocess.run(
        [str(bindir / "python"), "-c", RUNNER, *notebooks], cwd=repo, env=env, capture_output=True, text=True, timeout=1500
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert proc.stdout.count(" ok") == len(notebooks)
