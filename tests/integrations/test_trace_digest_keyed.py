"""The ``trace_digest`` tag of an imported run confirms no guess at a secret the run's rows had redacted.

The tag was a plain sha256 over the trace's rows as read, secrets and all, stored in the run beside the redacted
rows: anyone holding the run's files could import the same trace with a guess in the secret's place and compare
tags (or hash guesses offline). Keyed with the user's seal key, another user's import of the right guess gives
another tag. Two real processes with their own keys; the same user's second import still finds the first run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ..conftest import REPO

IMPORT = """
import json, sys, warnings
warnings.simplefilter("ignore")
from noesis_nb.integrations.noetic import import_noetic
episode = import_noetic(sys.argv[1], runs_dir=sys.argv[2], task="deploy")
print(json.load(open(f"{sys.argv[2]}/{episode}/state.json"))["episode"]["tags"]["trace_digest"])
"""


def _trace(path: Path, password: str) -> Path:
    rows = [
        {"source": "framework", "type": "helper:turn_started", "data": {"turnId": "t1", "messageIds": ["u1"]}},
        {"source": "sdk", "type": "response.output_text.delta", "data": {"delta": f"psql password={password}"}},
        {"source": "framework", "type": "helper:turn_completed", "data": {"turnId": "t1", "durationMs": 9}},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _import(trace: Path, root: Path, config: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO), "XDG_CONFIG_HOME": str(config)}
    done = subprocess.run(
        [sys.executable, "-c", IMPORT, str(trace), str(root)], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


def test_another_users_import_of_the_right_guess_gives_another_tag(tmp_path: Path) -> None:
    secret = "Summer2024!"
    victim = _import(_trace(tmp_path / "victim.jsonl", secret), tmp_path / "victim-runs", tmp_path / "victim-config")
    guessed = _import(_trace(tmp_path / "guess.jsonl", secret), tmp_path / "their-runs", tmp_path / "their-config")
    wrong = _import(_trace(tmp_path / "wrong.jsonl", "Winter2023!"), tmp_path / "their-runs", tmp_path / "their-config")
    assert guessed != wrong  # the tag tells traces apart for the one who imports them
    assert victim != guessed, "the run's tag confirms a guess at its redacted secret"


def test_the_same_user_importing_again_finds_the_first_run(tmp_path: Path) -> None:
    trace = _trace(tmp_path / "t.jsonl", "Summer2024!")
    first = _import(trace, tmp_path / "runs", tmp_path / "config")
    again = _import(trace, tmp_path / "runs", tmp_path / "config")
    assert first == again and len([p for p in (tmp_path / "runs").iterdir() if p.name.startswith("ep_")]) == 1
