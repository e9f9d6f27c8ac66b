"""``%noesis list`` (its text and its HTML table) shows a run whose files name it with a terminal escape, a bidi
override, a zero-width space or a pile of combining marks as such: nothing recolours the terminal, reorders the row,
hides a character or draws over the next row; the id still reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import noesis_nb
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
    """Each row keeps its folder's name (as runs_df does); the id the files claim is said as a problem, its escape,
    override, zero-width space and pile of marks shown, not acted on."""
    root = _runs(tmp_path)
    table, _printed = run_magic(f"list --runs-dir {root}")
    assert len(table) == 4
    for shown in (repr(table), table._repr_html_()):
        assert "\x1b" not in shown and "\u202e" not in shown and "\u200b" not in shown, shown
        assert _longest_pile(shown) <= 4
        assert all(folder in shown for folder in HOSTILE) and "names episode" in shown
    said = "\n".join(str(problem) for problem in noesis_nb.list_runs(runs_dir=root).problems)
    assert "\x1b" not in said and "\u202e" not in said and "\u200b" not in said and _longest_pile(said) <= 4, said
    assert all(word in said for word in ("[31mred", "evil", "hidden", "ep_z\u0301")), said
