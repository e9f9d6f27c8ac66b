"""A paused python draft whose stored function name was edited on disk runs nothing.

The prepared record names the function (``x-callable``) that a resume in another process imports. That name is
not part of the reviewed payload: anyone able to write the run folder could point it at ``os:system``-like code
before the approval, and ``resume_run`` imported and called it. The name is now stored with an HMAC under the
user's seal key, and a name that does not hold is refused with the fix (give the function).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.tools.errors import CallableResolutionError

from .test_resume_missing_tool import paused_in_another_process


def _paused_in_another_process(runs_dir: Path, tmp_path: Path) -> tuple[str, Path, Path]:
    """A run paused on ``py.shout`` (module ``shouty``), its prepared record, and a module ``evil`` beside it
    whose ``boom`` leaves a marker file when called."""
    episode_id, mods = paused_in_another_process(runs_dir, tmp_path)
    marker = tmp_path / "boom.txt"
    (mods / "evil.py").write_text(f"def boom(*args, **kwargs):\n    open({str(marker)!r}, 'w').write('ran')\n    return 'x'\n")
    (record,) = (runs_dir / episode_id / "tool_invocations").rglob("prepared/*.json")
    return episode_id, record, marker


@pytest.fixture(autouse=True)
def _fresh_modules(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    for name in ("shouty", "evil"):
        sys.modules.pop(name, None)
    monkeypatch.syspath_prepend(str(tmp_path / "mods"))
    yield
    for name in ("shouty", "evil"):
        sys.modules.pop(name, None)


def _edit(record: Path, **changes: Any) -> None:
    doc = json.loads(record.read_text())
    for key, value in changes.items():
        if value is None:
            doc["x-callable"].pop(key, None)
        else:
            doc["x-callable"][key] = value
    record.write_text(json.dumps(doc))


def test_a_function_name_pointed_elsewhere_before_the_approval_is_not_imported(runs_dir: Path, tmp_path: Path) -> None:
    episode_id, record, marker = _paused_in_another_process(runs_dir, tmp_path)
    _edit(record, ref="evil:boom")  # the seal is kept: whoever edits has no key to make a new one
    noesis_nb.approve_draft(episode_id, runs_dir=runs_dir, approver_id="ana")
    events = (runs_dir / episode_id / "events.jsonl").read_bytes()
    with pytest.raises(CallableResolutionError) as info:
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    said = str(info.value)
    assert "'evil:boom'" in said and "seal key" in said and "not imported" in said, said
    assert said.endswith(f"resume_run({episode_id!r}, tools={{'py.shout': <the function>}})"), said
    assert not marker.exists() and "evil" not in sys.modules
    assert (runs_dir / episode_id / "events.jsonl").read_bytes() == events
    assert noesis_nb.DiskRun(episode_id, runs_dir=runs_dir).status == "paused"


@pytest.mark.parametrize("edit", [{"seal": None}, {"seal": "0" * 64}, {"importable": False, "ref": "evil:boom"}])
def test_a_name_without_a_seal_that_holds_waits_for_its_function(runs_dir: Path, tmp_path: Path, edit: dict) -> None:
    """No seal (an older record), a forged one, or a name marked not importable: nothing is imported; giving the
    reviewed function runs the draft (when the name is the reviewed one)."""
    episode_id, record, marker = _paused_in_another_process(runs_dir, tmp_path)
    _edit(record, **edit)
    noesis_nb.approve_draft(episode_id, runs_dir=runs_dir, approver_id="ana")
    with pytest.raises(CallableResolutionError):
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    assert not marker.exists() and "evil" not in sys.modules
    if "ref" not in edit:
        import shouty

        noesis_nb.resume_run(episode_id, runs_dir=runs_dir, tools={"py.shout": shouty.shout})
        row = noesis_nb.runs_df(runs_dir, cache=False).set_index("episode_id").loc[episode_id]
        assert row["status"] == "ok" and row["sealed"]


def test_the_name_as_stored_is_imported_by_another_process(runs_dir: Path, tmp_path: Path) -> None:
    episode_id, _, marker = _paused_in_another_process(runs_dir, tmp_path)
    noesis_nb.approve_draft(episode_id, runs_dir=runs_dir, approver_id="ana")
    noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    row = noesis_nb.runs_df(runs_dir, cache=False).set_index("episode_id").loc[episode_id]
    assert row["status"] == "ok" and row["sealed"] and not marker.exists()
