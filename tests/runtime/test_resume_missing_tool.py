"""A run paused on a python tool, resumed in a process where its function cannot be had: one error naming the
tool, why, and the ``resume_run(…, tools=…)`` that gives it; nothing runs or is written, and a later resume works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.tools.errors import CallableResolutionError

_PAUSES = """
import sys
import noesis_nb
from shouty import shout

async def agent(task, ctx):
    return await ctx.tool_async("py.shout", {"args": ["hi"]}, fn=shout, effect="write", risk="high")

print(noesis_nb.solve("t", using=agent, runs_dir=sys.argv[1]))
"""


def paused_in_another_process(runs_dir: Path, tmp_path: Path) -> tuple[str, Path]:
    """A run paused on ``py.shout`` (module ``shouty``, importable only there, made in ``tmp_path/mods``); and that
    module's folder."""
    mods = tmp_path / "mods"
    mods.mkdir(exist_ok=True)
    (mods / "shouty.py").write_text("def shout(text):\n    return text.upper()\n")
    path = os.pathsep.join([str(Path(noesis_nb.__file__).parents[1]), str(mods)])
    got = subprocess.run(
        [sys.executable, "-c", _PAUSES, str(runs_dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=120,
    )
    assert got.returncode == 0, got.stderr
    return got.stdout.strip().splitlines()[-1], mods


def _approved_in_another_process(runs_dir: Path, tmp_path: Path) -> tuple[str, Path]:
    """``paused_in_another_process``, its draft approved."""
    episode_id, mods = paused_in_another_process(runs_dir, tmp_path)
    noesis_nb.approve_draft(episode_id, runs_dir=runs_dir, approver_id="ana")
    return episode_id, mods


@pytest.fixture(autouse=True)
def _shouty_not_imported() -> Any:
    """Each test starts in a process that has never imported ``shouty``, and leaves none behind."""
    sys.modules.pop("shouty", None)
    yield
    sys.modules.pop("shouty", None)


def _other(text: str) -> str:
    return text


@pytest.mark.parametrize("tools", [None, {"shout2": _other}, {"py.shout": _other}])
def test_a_tool_function_not_found_here_is_named_with_the_fix_and_the_draft_waits(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, tools: Any
) -> None:
    episode_id, mods = _approved_in_another_process(runs_dir, tmp_path)
    events = (runs_dir / episode_id / "events.jsonl").read_bytes()
    with pytest.raises(CallableResolutionError) as info:
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir, tools=tools)
    said = str(info.value)
    assert "callables=" not in said, said  # resume_run takes no callables=
    assert "tool py.shout did not run" in said and "approved draft" in said and "waits" in said, said
    assert said.endswith(f"resume_run({episode_id!r}, tools={{'py.shout': <the function>}})"), said
    if tools is None or "shout2" in tools:
        assert "module 'shouty' cannot be imported here" in said and "sys.path" in said, said
    if tools is not None and "shout2" in tools:
        assert "tools= names 'shout2', neither 'py.shout' nor 'shout'" in said, said
    if tools is not None and "py.shout" in tools:
        assert f"tools= gives {__name__}:_other" in said and "reviewed for shouty:shout" in said, said
    assert (runs_dir / episode_id / "events.jsonl").read_bytes() == events  # nothing written
    assert noesis_nb.DiskRun(episode_id, runs_dir=runs_dir).status == "paused"
    monkeypatch.syspath_prepend(str(mods))  # where the module imports, the same draft runs
    noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    row = noesis_nb.runs_df(runs_dir, cache=False).set_index("episode_id").loc[episode_id]
    assert row["status"] == "ok" and row["sealed"]


def test_a_tool_module_that_fails_as_it_imports_is_named_with_why_and_the_draft_waits(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module that raises as it runs (a setting missing here, not an ImportError) gets the same one error."""
    episode_id, mods = _approved_in_another_process(runs_dir, tmp_path)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "shouty.py").write_text("import os\nTOKEN = os.environ['SHOUTY_SERVICE_TOKEN']\n")
    monkeypatch.syspath_prepend(str(broken))
    monkeypatch.delenv("SHOUTY_SERVICE_TOKEN", raising=False)
    events = (runs_dir / episode_id / "events.jsonl").read_bytes()
    with pytest.raises(CallableResolutionError) as info:
        noesis_nb.resume_run(episode_id, runs_dir=runs_dir)
    said = str(info.value)
    assert "module 'shouty' cannot be imported here (KeyError: 'SHOUTY_SERVICE_TOKEN')" in said, said
    assert "tool py.shout did not run" in said and said.endswith("tools={'py.shout': <the function>})"), said
    assert (runs_dir / episode_id / "events.jsonl").read_bytes() == events
    assert noesis_nb.DiskRun(episode_id, runs_dir=runs_dir).status == "paused"
