"""``%noesis run --help`` says where the approver's default comes from: it said ``ask (default…)`` while a run
without ``--approver`` takes ``$NOESIS_NB_APPROVER`` (auto-approving under ``auto``), so the help misled."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output


def _approver_help(ip: Any, capsys: pytest.CaptureFixture[str]) -> str:
    ip.run_line_magic("noesis", "run --help")
    out = " ".join(capsys.readouterr().out.split())  # argparse wraps the help: one line to match against
    [said] = re.findall(r"--approver APPROVER (.*?)(?= --\w)", out)
    return said


def test_the_help_names_the_variable_a_run_without_approver_obeys(
    ip: Any,
    runs_dir: Path,
    tmp_path: Path,
    nnb: Any,
    comm_log: list,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said = _approver_help(ip, capsys)
    assert "(default" not in said.split(")")[0]  # 'ask' is not called the default before the variable is named
    assert "default: $NOESIS_NB_APPROVER, else ask" in said

    monkeypatch.setenv("NOESIS_NB_APPROVER", "auto")
    marker = tmp_path / "x.txt"
    ip.user_ns["tool_agent"] = nnb.make_tool_adapter(nnb.side_effect_argv(marker))

    async def main() -> Any:
        with capture_output():
            handle = ip.run_line_magic("noesis", f'run tool_agent "append" --runs-dir {runs_dir}')
        await handle.wait()
        return handle

    handle = asyncio.run(main())
    assert handle.status == "ok" and marker.exists()  # decided by the variable, as the help says, not asked
