"""A fresh Python process running a script against this checkout's package, its environment chosen by the test
(environment secrets are read as a process starts): what the script printed last, as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from noesis_nb.secrets.environ import names_secret

REPO = Path(__file__).resolve().parents[2]  # this checkout's package, whatever the environment installed


def clean_env(**values: str) -> dict[str, str]:
    """This process's environment without its secret-named variables, plus ``values`` and this checkout on the path."""
    env = {k: v for k, v in os.environ.items() if not names_secret(k)}
    env.update(values, PYTHONPATH=str(REPO))
    return env


def run_child(code: str, *args: str, env: dict[str, str], cwd: Path | None = None) -> Any:
    """Run ``code`` with ``args`` in a new process; its last line of output, read as JSON."""
    result = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])
