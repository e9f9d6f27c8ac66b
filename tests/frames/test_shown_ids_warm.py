"""A root of more runs than the detectors' memo of short texts (8,192), named by old ids (``ep_20251104_…``, not
minted: ``ids.is_minted`` False), is screened once per id and path: a warm ``runs_df`` screens none of them again
(before, each reload read every id and path through the detectors, as slow as the first load), and what it shows is
still redacted as ``secrets.shown`` would (a folder named with a credential, a run added since)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

_REPO = Path(__file__).resolve().parents[2]
RUNS = 8_300  # more than the detectors' memo of 8,192 short texts
_GH = "ghp" + "_" + "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk0LmNb12"  # built from parts: no whole credential in the repository


def _run(root: Path, ep: str) -> None:
    """A run as an older Noēsis wrote it: its events and summary, no seal."""
    folder = root / ep
    folder.mkdir()
    event = {"episode_id": ep, "agent_id": "system", "evidence_ids": [], "timestamp": "2025-11-04T15:55:01+00:00"}
    lines = [
        {**event, "id": f"00000000-0000-4000-8000-{0:012d}", "phase": "start", "payload": {"task": "t", "seed": 0}},
        {**event, "id": f"00000000-0000-4000-8000-{1:012d}", "phase": "terminate", "payload": {"status": "ok"}},
    ]
    (folder / "events.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    summary = {"schema_version": "1.2.0", "episode_id": ep, "task": "t", "seed": 0, "metrics": {"success": True}}
    (folder / "summary.json").write_text(json.dumps(summary))


_BODY = """
root = tmp_path / "runs"
root.mkdir()
names = [f"ep_20251104_155501_{i:06d}" for i in range(RUNS)] + [f"ep_{_GH}"]
assert not any(is_minted(n) for n in names)
for name in names:
    _run(root, name)
screened: list[str] = []

def counted(text: str) -> str:
    screened.append(text)
    return shown(text)

shownnames.shown = counted
clear_cache()
cold = noesis_nb.runs_df(str(root), progress=False)
assert len(cold) == len(names)
# the cold load screens each id and each path once
assert len(screened) <= 2 * len(names) + 8, f"{len(screened)} screens for {len(names)} runs"
assert f"ep_{_GH}" not in set(cold.episode_id) and "[REDACTED]" in {unmarked(e) for e in cold.episode_id}
screened.clear()
warm = noesis_nb.runs_df(str(root), progress=False)
assert screened == [], f"a warm reload screened {len(screened)} ids and paths again"
assert list(warm.episode_id) == list(cold.episode_id) and list(warm.run_dir) == list(cold.run_dir)
# a run added since is screened, and what every row shows is what secrets.shown gives
_run(root, f"ep_{_GH}x")
again = noesis_nb.runs_df(str(root), progress=False)
assert 1 <= len(screened) <= 8
assert len(again) == len(names) + 1
# (each hidden part marked: ``[REDACTED:<mark>]``, ``secrets.namemarks``)
assert {unmarked(e) for e in again.episode_id} == {shown(n) for n in [*names, f"ep_{_GH}x"]}
assert {unmarked(d) for d in again.run_dir} == {shown(str(root / n)) for n in [*names, f"ep_{_GH}x"]}
"""


def test_a_warm_runs_df_screens_no_id_it_screened_before(tmp_path: Path) -> None:
    # in a process of its own: what earlier tests left in this one (runs registered, values learned) may reset the memo
    # between loads, which is what the test must see it keep
    script = tmp_path / "warm.py"
    script.write_text(_SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(_REPO)},
    )
    assert done.returncode == 0 and done.stdout.strip().endswith("held"), done.stdout[-3000:] + done.stderr[-3000:]


_SCRIPT = (
    """
import sys
from pathlib import Path

import noesis_nb
from noesis_nb.frames import clear_cache
from noesis_nb.ids import is_minted
from noesis_nb.secrets.display import shown
from noesis_nb.secrets.hiddenparts import unmarked
from noesis_nb.store import shownnames
from tests.frames.test_shown_ids_warm import RUNS, _GH, _run

tmp_path = Path(sys.argv[1])
"""
    + _BODY
    + """
print("held")
"""
)
