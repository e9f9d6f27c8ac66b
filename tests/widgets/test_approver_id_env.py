"""Who a click records: ``$NOESIS_NB_APPROVER_ID`` names the person deciding in views and magics that are not told.

The view a handle shows by itself (``h`` at the end of a cell) takes no arguments, so without the variable
every click was recorded as ``human`` whoever clicked.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from IPython.core.error import UsageError

import noesis_nb
from noesis_nb import config
from noesis_nb.errors import InvalidOptionError
from noesis_nb.widgets import EpisodeView, InboxView


def paused_on_disk(runs_dir: Path, nnb: Any, marker: Path, task: str = "append") -> Path:
    """A run paused for approval whose process is gone."""
    return runs_dir / noesis_nb.solve(task, using=nnb.make_tool_adapter(nnb.side_effect_argv(marker)), runs_dir=runs_dir)


def decisions(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]


def test_a_click_in_a_view_records_the_variable_s_name(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "  ana  ")

    async def main() -> None:
        handle = noesis_nb.start(
            "append", using=nnb.make_tool_adapter(nnb.side_effect_argv(tmp_path / "x.txt")), runs_dir=runs_dir
        )
        view = EpisodeView(handle)  # as displaying ``h`` makes it: no approver named
        await handle
        view.flush()
        card = view.approvals.card()
        card.approve_button.click()
        await handle.wait()
        [decision] = decisions(handle.run_dir)
        assert decision["approver_id"] == "ana"
        assert "approved</b> by ana" in card.body.value

    asyncio.run(main())


def test_a_name_given_to_the_view_wins_over_the_variable(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "ana")
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    view = InboxView(runs_dir, approver_id="bo")
    view.refresh()
    [row] = view.rows.values()
    row.reject_button.click()
    [decision] = decisions(run_dir)
    assert decision["approver_id"] == "bo" and decision["status"] == "rejected"


@pytest.mark.parametrize("value", ["   ", "ana\nroot", "a" * 201, "ana\x1b[31m"])
def test_a_variable_that_names_nobody_is_refused_where_the_view_is_made(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", value)
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    with pytest.raises(InvalidOptionError, match=r"\$NOESIS_NB_APPROVER_ID=.*export NOESIS_NB_APPROVER_ID=ana"):
        InboxView(runs_dir)
    assert any("NOESIS_NB_APPROVER_ID" in line for line in config.problems())
    assert decisions(run_dir) == []  # nothing decided under a name nobody chose


def test_the_magics_decide_under_the_variable_s_name_and_an_option_wins(
    ip: Any, runs_dir: Path, tmp_path: Path, nnb: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "ana")
    first = paused_on_disk(runs_dir, nnb, tmp_path / "a.txt", task="first")
    second = paused_on_disk(runs_dir, nnb, tmp_path / "b.txt", task="second")
    ip.run_line_magic("noesis", f"approve {first.name} --runs-dir {runs_dir}")
    assert "approved by ana" in capsys.readouterr().out
    ip.run_line_magic("noesis", f"reject {second.name} --runs-dir {runs_dir} --approver-id bo")
    assert [d["approver_id"] for d in decisions(first)] == ["ana"]
    assert [d["approver_id"] for d in decisions(second)] == ["bo"]
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", "\t")
    with pytest.raises((UsageError, InvalidOptionError), match="NOESIS_NB_APPROVER_ID"):
        ip.run_line_magic("noesis", f"approve {second.name} --runs-dir {runs_dir}")


def test_unset_the_click_is_recorded_as_human(
    runs_dir: Path, tmp_path: Path, nnb: Any, comm_log: list, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOESIS_NB_APPROVER_ID", raising=False)
    run_dir = paused_on_disk(runs_dir, nnb, tmp_path / "x.txt")
    view = InboxView(runs_dir)
    view.refresh()
    [row] = view.rows.values()
    row.approve_button.click()
    assert [d["approver_id"] for d in decisions(run_dir)] == ["human"]
