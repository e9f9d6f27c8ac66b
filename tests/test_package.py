"""Package-level promises: a light import, an honest public surface, the demo command."""

import subprocess
import sys

import noesis_nb


def test_import_is_light():
    code = (
        "import sys, noesis_nb, noesis_nb.ns; "
        "print(sorted(m for m in ('pandas', 'numpy', 'plotly', 'ipywidgets', 'IPython', 'nest_asyncio', 'sqlite3') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


def test_public_names_resolve():
    for name in noesis_nb.__all__:
        assert getattr(noesis_nb, name) is not None, name


def test_demo_command_runs_an_approved_write_and_lists_the_run(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "noesis_nb.demo", "--runs-dir", str(tmp_path / "runs")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "is paused" in out and "approved by demo" in out and "episode finished: ok" in out
    assert "manifest: ok; note written: True" in out and "tool_invocations/approvals/" in out
    run_dirs = list((tmp_path / "runs").iterdir())
    assert len(run_dirs) == 1 and (run_dirs[0] / "final.json").exists()
