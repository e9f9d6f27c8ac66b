"""Every file of a run gets one mode: what the event log gets (0644 less the process's umask), documents too.

A shared runs folder is read by other accounts: a summary written 0600 (``mkstemp``'s mode) next to
an events.jsonl they can read made ``runs_df`` report unreadable documents for them.
"""

from __future__ import annotations

import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO

_EPISODE = textwrap.dedent(
    """
    import os, sys
    mask, when = sys.argv[2].split(":")
    if when == "before":
        os.umask(int(mask, 8))  # before the package is imported, as a shell's umask is
    import noesis_nb
    if when == "after":
        os.umask(int(mask, 8))  # changed in the notebook after the import: the next files follow it

    async def agent(task, ctx):
        ctx.model_call("scripted", input_tokens=12, output_tokens=3)
        return await ctx.tool_async("fs.write_note", {"argv": [sys.executable, "-c", "print(1)"]},
                                    effect="write", risk="high", idempotency_key="k1")

    noesis_nb.solve("note", using=agent, runs_dir=sys.argv[1], approver="auto")
    """
)


@pytest.mark.parametrize(
    ("umask", "mode"), [("022:before", 0o644), ("027:before", 0o640), ("077:before", 0o600), ("077:after", 0o600)]
)
def test_every_file_of_a_run_has_the_mode_the_umask_gives(tmp_path: Path, umask: str, mode: int) -> None:
    runs = tmp_path / "runs"
    subprocess.run([sys.executable, "-c", _EPISODE, str(runs), umask], check=True, cwd=REPO, timeout=120)
    files = {p.relative_to(runs): stat.S_IMODE(p.stat().st_mode) for p in runs.rglob("*") if p.is_file()}
    names = {p.name for p in files}
    assert {"events.jsonl", "summary.json", "state.json", "final.json", "manifest.json"} <= names, names
    assert any("approvals" in str(p) for p in files) and any("executions" in str(p) for p in files), sorted(files)
    odd = {str(p): oct(m) for p, m in files.items() if m != mode}
    assert odd == {}, f"umask {umask}: files not {oct(mode)}: {odd}"
