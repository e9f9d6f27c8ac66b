"""A kernel where nest_asyncio was applied first; then runs paused on disk approved after a restart."""

from __future__ import annotations

from typing import Any

import pytest

from noesis_nb.store import is_sealed, verify_manifest

pytestmark = pytest.mark.kernel


def start(kernel: Any, task: str) -> str:
    out = kernel.run(f'h = %noesis run tool_agent "{task}" --runs-dir {kernel.runs}\nprint(h.episode_id)')
    return out["stdout"].strip().splitlines()[-1]


def test_under_nest_asyncio_then_after_a_restart(kernel: Any, disk: Any) -> None:
    pytest.importorskip("nest_asyncio")
    kernel.setup(prelude="import nest_asyncio, asyncio\nnest_asyncio.apply()\n")
    assert kernel.value("bool(getattr(asyncio, '_nest_patched', False))") is True

    # 1. another library patched the loop: clicks still work
    live = start(kernel, "nested n1")
    kernel.click(kernel.button("Approve", live))
    kernel.wait(lambda: is_sealed(kernel.runs / live), what="the nested-loop run to seal")
    assert (kernel.mark / "n1").read_text() == "x"

    # 2. two runs pause for approval, then the kernel dies
    by_magic, by_view = start(kernel, "magic m1"), start(kernel, "view v1")
    kernel.button("Approve", by_magic)
    kernel.button("Approve", by_view)  # both cards shown: both drafts are on disk
    kernel.restart()
    kernel.setup()
    assert kernel.value("bool(getattr(__import__('asyncio'), '_nest_patched', False))") is False

    # 3a. approve on disk with the magic, then resume
    out = kernel.run(
        f'%noesis approve {by_magic} --runs-dir {kernel.runs} --approver-id ana --reason "after restart"\n'
        f"%noesis resume {by_magic} --runs-dir {kernel.runs}"
    )
    assert "approved" in out["stdout"]
    run_dir = kernel.runs / by_magic
    [decision] = disk.decisions(run_dir)
    assert decision["approver_id"] == "ana" and decision["reason"] == "after restart"
    assert "tool.execution.succeeded" in disk.names(run_dir) and verify_manifest(run_dir).status == "ok"
    assert (kernel.mark / "m1").read_text() == "x"

    # 3b. approve in the view of the run from disk, then its Resume button
    kernel.run(f"noesis_nb.show({by_view!r}, runs_dir=RUNS)")
    kernel.click(kernel.button("Approve", by_view))
    run_dir = kernel.runs / by_view
    kernel.wait(lambda: disk.decisions(run_dir), what="the decision file")
    kernel.click(kernel.button("Resume"))
    kernel.wait(lambda: is_sealed(run_dir), what="the resumed run to seal")
    assert "tool.execution.succeeded" in disk.names(run_dir) and (kernel.mark / "v1").read_text() == "x"
    kernel.wait(
        lambda: any(">ok<" in str(s.get("value") or "") for s in kernel.widgets("HTMLModel").values()), what="the view to show ok"
    )
