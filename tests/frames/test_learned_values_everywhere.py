"""A value the kernel learns as a secret after a run's rows were made (a later episode names it as a password) is
hidden by every frame, warm or cold. Before, a cold ``runs_df`` hid it in a crafted run's task while a warm one
still showed it (its rows were cached), and ``events_df`` and ``usage_df`` showed it warm and cold alike. Each load
runs in a process of its own, as a kernel does: what a process learns stays with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .runkit import basic_events, event, model_call, write_run

VALUE = "plainword-Kestrel-44-orchid"  # no detector takes it for a key: only a learned value hides it

CHILD = """
import json, sys, warnings
warnings.simplefilter("ignore")
import pandas as pd
import noesis_nb
from noesis_nb.frames import clear_cache
root, own, value, steps = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
def texts():
    out = {}
    for name in ("runs_df", "events_df", "tools_df", "usage_df"):
        df = getattr(noesis_nb, name)(root)
        with pd.option_context("display.max_colwidth", None, "display.width", 100000):
            out[name] = value in df.to_string() + repr(df.to_dict("records")) + repr(df.attrs)
    return out
said = {}
for step in steps:
    if step == "learn":
        def agent(task, ctx):
            ctx.emit("model", {"password": value})
            return "ok"
        noesis_nb.solve("learn", using=agent, runs_dir=own)
    elif step == "clear":
        clear_cache()
    else:
        said[step] = texts()
print(json.dumps(said))
"""


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    events = basic_events("ep_lw")
    events.insert(1, event("ep_lw", 7, "model", {"text": "the value is " + VALUE}, ts="2025-03-01T10:00:05.000000+00:00"))
    events.insert(2, model_call("ep_lw", 8, "2025-03-01T10:00:06.000000+00:00", VALUE, "acme", input_tokens=1, output_tokens=1))
    write_run(root, "ep_lw", events, summary={"episode_id": "ep_lw", "status": "ok", "task": "deploy with " + VALUE})
    write_run(root, "ep_other", basic_events("ep_other"), summary={"episode_id": "ep_other", "status": "ok", "task": "t"})
    return root


def _run(root: Path, tmp_path: Path, env: dict[str, str], steps: str) -> dict[str, dict[str, bool]]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(root), str(tmp_path / "own"), VALUE, steps],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_frame_hides_a_value_learned_after_its_rows_were_made(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    said = _run(root, tmp_path, env, "before,learn,warm,clear,cold")
    assert said["before"] == {"runs_df": True, "events_df": True, "tools_df": False, "usage_df": True}  # not a secret yet
    assert said["warm"] == said["cold"] == dict.fromkeys(said["before"], False)


def test_a_kept_frame_served_in_a_new_process_hides_it(root: Path, tmp_path: Path, env: dict[str, str]) -> None:
    assert _run(root, tmp_path, env, "first")["first"]["runs_df"] is True  # the whole folder's frame kept
    said = _run(root, tmp_path, env, "learn,served")
    assert said["served"] == dict.fromkeys(said["served"], False)
