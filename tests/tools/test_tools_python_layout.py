"""Python-protocol drafts live where Noēsis' reader never looks, and drafts of the older layout still work.

Noēsis lists ``tool_invocations/prepared/*.json`` and raises on protocol ``python``; noesis_nb keeps
those drafts in ``tool_invocations/x-python/prepared/`` and reads both folders everywhere.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tooltest_helpers import RUN_ID

import noesis_nb
from noesis_nb.tools import (
    EffectKind,
    ExecutionStatus,
    GovernanceContext,
    PreparedInvocationStatus,
    RiskTier,
    ToolIdentity,
    ToolInvocationInput,
    ToolProtocol,
    decide,
    resolve_draft_id,
)
from tests.compat.checker import check_run
from tests.compat.rules_tools import prepared_records

REPO = Path(__file__).resolve().parents[2]
DRAFT = f"draft:{RUN_ID}:req-1"


def add(a, b):
    return a + b


def _python_draft(harness, approval: bool = True):
    return harness.prepare(
        ToolInvocationInput(
            run_id=RUN_ID,
            request_id="req-1",
            protocol=ToolProtocol.PYTHON,
            tool=ToolIdentity(namespace="nb", name="add"),
            payload={"args": [2, 3]},
            func=add,
            governance=GovernanceContext(effect_kind=EffectKind.WRITE, risk_tier=RiskTier.HIGH, requires_approval=approval),
        )
    )


def _to_old_layout(run_dir: Path, draft_id: str) -> Path:
    """Put a python draft where noesis_nb wrote it before (prepared/), as an older run holds it."""
    old = run_dir / "tool_invocations" / "prepared" / f"{draft_id}.json"
    old.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(run_dir / "tool_invocations" / "x-python" / "prepared" / f"{draft_id}.json", old)
    return old


def test_python_draft_is_outside_the_folder_noesis_reads(harness):
    _python_draft(harness)
    assert prepared_records_of(harness.run_dir) == []
    assert (harness.run_dir / "tool_invocations" / "x-python" / "prepared" / f"{DRAFT}.json").is_file()
    assert harness.prepared.draft_ids() == [DRAFT]
    assert resolve_draft_id(harness.run_dir) == DRAFT  # the one pending draft, found in the extension folder
    decide(harness.run_dir, None, approve=True, approver_id="ana")
    result = harness.execute(DRAFT)
    assert result.status is ExecutionStatus.SUCCEEDED and result.output == {"result": 5}
    assert harness.prepared.get(RUN_ID, DRAFT).status is PreparedInvocationStatus.APPROVED
    assert prepared_records_of(harness.run_dir) == []


def prepared_records_of(run_dir: Path) -> list:
    class _Run:  # the part of tests.compat's Run that prepared_records reads
        path = run_dir

    return prepared_records(_Run())  # type: ignore[arg-type]


def test_old_layout_draft_loads_decides_executes_then_moves(harness):
    _python_draft(harness)
    old = _to_old_layout(harness.run_dir, DRAFT)
    assert harness.prepared.draft_ids() == [DRAFT] and harness.prepared.find_pending(RUN_ID).key == DRAFT
    assert resolve_draft_id(harness.run_dir, "req-1") == DRAFT
    decide(harness.run_dir, DRAFT, approve=True, approver_id="ana")
    assert harness.execute(DRAFT).output == {"result": 5}
    assert not old.exists(), "the re-saved draft moved to the extension folder"
    assert harness.prepared.get(RUN_ID, DRAFT).status is PreparedInvocationStatus.APPROVED
    assert harness.prepared.draft_ids() == [DRAFT]


def test_subprocess_drafts_stay_where_noesis_reads_them(harness):
    from tooltest_helpers import sub_input, touch_argv

    harness.prepare(sub_input({"argv": touch_argv(harness.run_dir / "t.txt")}, approval=True))
    names = [name for name, _ in prepared_records_of(harness.run_dir)]
    assert names == [f"tool_invocations/prepared/{DRAFT}.json"]
    assert not (harness.run_dir / "tool_invocations" / "x-python").exists()


@pytest.mark.timeout(120)
def test_old_layout_run_paused_on_disk_resumes_from_another_process(runs_dir, tmp_path):
    from tests.runtime.agents import append_line

    out = tmp_path / "py.txt"

    async def agent(task, ctx):
        return await ctx.tool_async(
            "notes.append", {"args": [str(out), task]}, protocol="python", fn=append_line, effect="write", risk="high"
        )

    ep = noesis_nb.solve("old layout", using=agent, runs_dir=runs_dir, approver="ask")
    run_dir = runs_dir / ep
    draft = resolve_draft_id(run_dir)
    _to_old_layout(run_dir, draft)
    noesis_nb.approve_draft(ep, approver_id="ops", runs_dir=runs_dir)
    code = (
        f"import sys; sys.path.insert(0, {str(REPO)!r}); import noesis_nb; "
        f"print(noesis_nb.resume_run({ep!r}, runs_dir={str(runs_dir)!r}))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == "old layout\n"
    assert (run_dir / "tool_invocations" / "x-python" / "prepared" / f"{draft}.json").is_file()
    assert prepared_records_of(run_dir) == []
    assert not [v for v in check_run(run_dir) if v.rule.startswith("records.")]
    tools = noesis_nb.tools_df(run_dir)
    assert tools["draft_id"].tolist() == [draft] and tools["status"].tolist() == ["succeeded"]
    runs = noesis_nb.runs_df(run_dir)
    assert runs["tool_calls"].tolist() == [1]
