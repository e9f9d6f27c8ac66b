"""The integration examples decide their approval in code (as a notebook's Approve/Reject would): run as their
README says, they pause and are decided there even when the shell has a ``NOESIS_NB_APPROVER`` policy set (the
notebooks' tests set ``auto``; with it the examples found nothing pending and ended in a traceback)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "integrations"


@pytest.mark.parametrize(
    ("script", "module"),
    [("agui_inprocess.py", "ag_ui"), ("langgraph_interrupt.py", "langgraph"), ("noeta_fake_provider.py", "noeta")],
)
@pytest.mark.parametrize("policy", ["auto", "deny"])
def test_an_example_pauses_for_its_own_decision_whatever_the_approver_policy(
    tmp_path: Path, script: str, module: str, policy: str
) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (pip install 'noesis_nb[...]' as the examples' README says)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NOESIS_")}
    env["NOESIS_NB_APPROVER"] = policy
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(EXAMPLES.parents[1]), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    first = done.stdout.splitlines()[0]
    assert first.startswith("paused"), done.stdout[:2000]  # it stopped for the decision the script makes
    assert any((tmp_path / "runs").iterdir())
