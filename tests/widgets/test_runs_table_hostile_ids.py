"""``%noesis list`` (its text and its HTML table) shows a run whose files name it with a terminal escape, a bidi
override, a zero-width space or a pile of combining marks as such: nothing recolours the terminal, reorders the row,
hides a character or draws over the next row; the id still reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.ipshell import run_magic

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "noesis-adr008-allow-run" / "ep_adr008_allow"
HOSTILE = {
    "ep_one": "ep_\x1b[31mred\x1b[0m",
    "ep_two": "ep_\u202eevil",
    "ep_three": "ep_z" + "\u0301" * 60,
    "ep_four": "ep_\u200bhidden",
}


def _runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for folder, episode_id in HOSTILE.items():
        run = root / folder
        shutil.copytree(FIXTURE, run)
        for name in ("summary.json", "manifest.json", "state.json"):
            doc = json.loads((run / name).read_text())
            if "episode_id" in doc:
                doc["episode_id"] = episode_id
            (run / name).write_text(json.dumps(doc))
    return root


def _longest_pile(text: str) -> int:
    longest = run = 0
    for ch in text:
        run = run + 1 if 0x300 <= ord(ch) <= 0x36F else 0
        longest = max(longest, run)
    return longest


def test_list_shows_hostile_ids_as_text(tmp_path: Path) -> None:
    table, _printed = run_magic(f"list --runs-dir {_runs(tmp_path)}")
    assert len(table) == 4
    for shown in (repr(table), table._repr_html_()):
        assert "\x1b" not in shown and "\u202e" not in shown and "\u200b" not in shown, shown
        assert _longest_pile(shown) <= 4
        assert "[31mred" in shown and "evil" in shown and "hidden" in shown and "ep_z\u0301" in shown
