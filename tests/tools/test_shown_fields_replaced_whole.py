"""A field policy may replace any field of a draft's payload whole (``redact_fields`` / ``hash_fields`` on ``env``,
``cwd``, ``argv``, ``timeout_ms``, a python tool's ``args`` / ``kwargs``): the shown payload then holds
``"[REDACTED]"`` or a ``sha256:`` digest where the protocol has a dict, a list or a number. The episode pauses on
such a draft, every view shows the field as ``env=[REDACTED]`` / ``env=sha256:…``, and once approved the real stored
command runs (its env and cwd reach it). A draft a peer crafted with a field of another type (a list where a dict
is expected, a number where a str is) is shown refused as unreadable, is not approved and never runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from IPython.utils.capture import capture_output

import noesis_nb
from noesis_nb import tools as tc
from noesis_nb.runtime.resume import paused_on
from noesis_nb.tools import PayloadIntegrityError
from noesis_nb.tools.fingerprints import default_impact_hash, request_fingerprint
from noesis_nb.tools.redaction import hash_value
from noesis_nb.tools.repositories import ApprovalDecisionRepository
from noesis_nb.tools.types import (
    ApprovalDecisionStatus,
    PayloadRedactionPolicy,
    ToolApprovalDecision,
    ToolIdentity,
    default_decision_id,
)
from noesis_nb.widgets import InboxView
from tests.compat.checker import check_run

MARK = "mark-value-7"
# run in ``cwd``: a relative file there, holding the env value: proves the real cwd and env reached the command
CODE = "import os; open('marker.txt', 'w').write(os.environ['NNB_MARK'])"


def _payload(where: Path) -> dict[str, Any]:
    return {"argv": [sys.executable, "-c", CODE], "cwd": str(where), "env": {"NNB_MARK": MARK}, "timeout_ms": 60_000}


def _paused(runs_dir: Path, where: Path, policy: PayloadRedactionPolicy | None, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real run paused on a subprocess draft prepared with ``policy`` (``ctx.tool_async`` takes no field policy: the
    one a Noēsis caller gives is added to the real invocation)."""
    prepare = tc.prepare_tool_invocation

    def with_policy(invocation: Any, **ports: Any) -> Any:
        return prepare(invocation.model_copy(update={"redaction_policy": policy}), **ports)

    if policy is not None:
        monkeypatch.setattr(tc, "prepare_tool_invocation", with_policy)

    async def runner(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("sh.mark", _payload(where), effect="write", risk="high")

    episode = noesis_nb.solve("mark", using=runner, runs_dir=runs_dir)
    monkeypatch.setattr(tc, "prepare_tool_invocation", prepare)
    run = runs_dir / episode
    assert paused_on(run) is not None, (run / "summary.json").read_text() if (run / "summary.json").exists() else run
    return run


def _draft(run: Path) -> Path:
    (draft,) = run.glob("tool_invocations/**/prepared/*.json")
    return draft


def _views(run: Path) -> tuple[str, str]:
    """What a person reads of the run: the card (show), and the inbox row and page; the tools table is read."""
    page = noesis_nb.show(run).mimebundle()["text/html"]
    inbox = InboxView(run.parent)
    try:
        [row] = inbox.rows.values()
        rows = row.body.value + inbox.snapshot_html()
    finally:
        inbox.close()
    table = noesis_nb.tools_df(run)
    assert len(table) == 1
    return page, rows


@pytest.mark.parametrize("kind", ["redact", "hash"])
@pytest.mark.parametrize("field", ["env", "cwd", "argv", "timeout_ms"])
def test_a_field_replaced_whole_is_shown_as_such_and_the_real_command_runs(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, field: str
) -> None:
    where = tmp_path / "work"
    where.mkdir()
    policy = PayloadRedactionPolicy(**{f"{kind}_fields": (field,)})
    run = _paused(runs_dir, where, policy, monkeypatch)  # ended 'error' before (env: AttributeError in the view)
    record = json.loads(_draft(run).read_text())
    stored = record["payload"]["normalized_payload"]
    shown = record["payload"]["redacted_payload"][field]
    expected = "[REDACTED]" if kind == "redact" else hash_value(stored[field])
    assert shown == expected and shown != _payload(where)[field]

    [pending] = noesis_nb.DiskRun(run).pending
    assert pending.refused is None
    assert f"{field}={expected}" in (pending.command_line or "")  # not 'cd sha256:…', nor the digest spelt out
    page, rows = _views(run)
    assert f"{field}={expected}" in rows
    assert f"{field}={expected}" in page or f"<dt>{field}</dt><dd>{expected}</dd>" in page  # the card's labelled form

    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert (where / "marker.txt").read_text() == MARK  # the stored argv ran, in the real cwd, with the real env
    assert json.loads((run / "summary.json").read_text())["status"] == "ok"
    assert check_run(run) == []


def _python(task: str, out: Path) -> Any:
    async def writer(_: str, ctx: Any) -> Any:
        payload = {"args": [str(out)], "kwargs": {"text": MARK}}
        return await ctx.tool_async("fs.note", payload, protocol="python", fn=_write, effect="write", risk="high")

    return writer


def _write(path: str, text: str) -> str:
    Path(path).write_text(text)
    return "written"


@pytest.mark.parametrize("kind", ["redact", "hash"])
@pytest.mark.parametrize("field", ["args", "kwargs"])
def test_a_python_drafts_field_replaced_whole_is_shown_and_runs(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, field: str
) -> None:
    out = tmp_path / "note.txt"
    prepare = tc.prepare_tool_invocation
    policy = PayloadRedactionPolicy(**{f"{kind}_fields": (field,)})

    def with_policy(invocation: Any, **ports: Any) -> Any:
        return prepare(invocation.model_copy(update={"redaction_policy": policy}), **ports)

    monkeypatch.setattr(tc, "prepare_tool_invocation", with_policy)
    episode = noesis_nb.solve("note", using=_python("note", out), runs_dir=runs_dir)
    monkeypatch.setattr(tc, "prepare_tool_invocation", prepare)
    run = runs_dir / episode
    assert paused_on(run) is not None
    [pending] = noesis_nb.DiskRun(run).pending
    assert pending.refused is None and pending.redacted_payload[field] != {"args": [str(out)], "kwargs": {"text": MARK}}[field]
    page, rows = _views(run)
    assert pending.redacted_payload[field] in page and pending.redacted_payload[field] in rows
    noesis_nb.approve_draft(run, approver_id="ana")
    noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert out.read_text() == MARK
    assert check_run(run) == []


# (field, a value of another type than the protocol's, stored and shown alike)
CRAFTED = {
    "env-list": ("env", ["NNB_MARK=x"]),
    "env-value-number": ("env", {"NNB_MARK": 7}),
    "cwd-number": ("cwd", 7),
    "argv-dict": ("argv", {"0": "python"}),
    "argv-text": ("argv", "python -c pass"),
    "argv-item-number": ("argv", [sys.executable, 7]),
    "timeout-text": ("timeout_ms", "soon"),
}


def _craft(run: Path, field: str, value: Any) -> None:
    """Edit the draft as a peer sharing the runs folder could: both payloads alike, fingerprint and impact hash
    recomputed, so only the field's type tells it from a draft this package wrote."""
    draft = _draft(run)
    record = json.loads(draft.read_text())
    payload = record["payload"]
    payload["normalized_payload"][field] = payload["redacted_payload"][field] = value
    payload["request_fingerprint"] = request_fingerprint(payload["normalized_payload"])
    record["preflight"]["impact_hash"] = default_impact_hash(ToolIdentity(**record["tool"]), payload["redacted_payload"])
    draft.write_text(json.dumps(record))


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_a_crafted_field_of_another_type_is_shown_unreadable_and_never_runs(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    field, value = CRAFTED[case]
    where = tmp_path / "work"
    where.mkdir()
    run = _paused(runs_dir, where, None, monkeypatch)
    _craft(run, field, value)

    [pending] = noesis_nb.DiskRun(run).pending  # raised AttributeError before (env-list), or showed it runnable
    assert pending.refused is not None and "unreadable" in pending.refused and repr(field) in pending.refused
    assert pending.command_line is None
    page, rows = _views(run)
    assert "unreadable" in page and "unreadable" in rows
    with pytest.raises(PayloadIntegrityError, match=f"unreadable: its shown '{field}' is a"):
        noesis_nb.approve_draft(run, approver_id="ana")
    assert not list(run.glob("tool_invocations/**/approvals/*.json"))
    noesis_nb.reject_draft(run, approver_id="ana", reason="crafted")  # it can still be turned down
    assert not (where / "marker.txt").exists()


@pytest.mark.parametrize("case", ["env-list", "cwd-number", "argv-item-number"])
def test_an_approval_on_disk_does_not_run_a_crafted_draft(
    runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    where = tmp_path / "work"
    where.mkdir()
    run = _paused(runs_dir, where, None, monkeypatch)
    _craft(run, *CRAFTED[case])
    _approved_on_disk(run, json.loads(_draft(run).read_text()))  # bound to it: crafted with it, or by an older copy
    with pytest.raises(PayloadIntegrityError, match="unreadable"):
        noesis_nb.resume_run(run.name, runs_dir=runs_dir)
    assert not (where / "marker.txt").exists()


def _approved_on_disk(run: Path, record: dict[str, Any]) -> None:
    key = record["draft_id"]
    decision = ToolApprovalDecision(
        decision_id=default_decision_id(key),
        run_id=record["run_id"],
        request_id=record["request_id"],
        candidate_id=record["governance"]["candidate_id"],
        draft_id=key,
        status=ApprovalDecisionStatus.APPROVED,
        reviewed_fingerprint=record["payload"]["request_fingerprint"],
        impact_hash=record["preflight"]["impact_hash"],
        approver_id="ana",
    )
    assert ApprovalDecisionRepository(run).create(decision)[1]


def test_the_magics_list_and_show_such_drafts(ip: Any, runs_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``%noesis list`` / ``show`` / ``inbox`` on a run paused on an env shown as a digest, and on one crafted."""
    where = tmp_path / "work"
    where.mkdir()
    hashed = _paused(runs_dir, where, PayloadRedactionPolicy(hash_fields=("env",)), monkeypatch)
    crafted = _paused(runs_dir, where, None, monkeypatch)
    _craft(crafted, "env", ["NNB_MARK=x"])
    table = ip.run_line_magic("noesis", f"list --runs-dir {runs_dir}")
    listed = table._repr_html_() + repr(table)
    assert hashed.name in listed and crafted.name in listed
    for run in (hashed, crafted):
        with capture_output() as shown:
            ip.run_line_magic("noesis", f"show {run.name} --runs-dir {runs_dir}")
        html = "".join(str(out.data.get("text/html", "")) for out in shown.outputs)
        assert ("env=sha256:" in html) if run is hashed else ("unreadable" in html and "env=" not in html)
    inbox = ip.run_line_magic("noesis", f"inbox --runs-dir {runs_dir} --approver-id ana")
    try:
        page = inbox.snapshot_html()
        assert "env=sha256:" in page and "unreadable" in page
    finally:
        inbox.close()
