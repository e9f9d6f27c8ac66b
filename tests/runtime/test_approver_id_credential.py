"""Who decides may not be named with a credential: an approver id holding a token (``ghp_…``) or a secret-named
``name=value`` is refused, naming the variable but never quoting the secret, and nothing is written. The returned
Decision showed it redacted while the run's approval record, ``tools_df`` and the approval plot held it whole: the
same rule as ``$NOESIS_NB_PRINCIPAL``, for every way of naming who decides (the handle, ``approve_draft``, the
magic, ``$NOESIS_NB_APPROVER_ID``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.errors import InvalidOptionError

TOKEN = "ghp_R8x2kLmQ9vT4wZ7pN1sD5fG3hJ6kL0aB2cE4"
NAMED = "ana password=hunter2hunter2"


def _agent(task: str, ctx: Any) -> str:
    ctx.tool("fs.x", {"argv": ["echo", "hi"]}, effect="write", risk="high")
    return "ok"


def _files_holding(root: Path, secret: str) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and secret.encode() in p.read_bytes()]


def _refused(exc: BaseException, secret: str) -> None:
    text = str(exc)
    assert "approver" in text.lower() or "APPROVER_ID" in text, text
    assert "credential" in text, text
    assert secret not in text and "hunter2hunter2" not in text, text


def _approval_files(run_dir: Path) -> list[Path]:
    return sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))


@pytest.mark.parametrize("secret", [TOKEN, NAMED])
def test_the_handle_refuses_a_credential_as_approver_and_writes_nothing(runs_dir: Path, secret: str) -> None:
    async def main() -> None:
        handle = noesis_nb.start("task", using=_agent, runs_dir=runs_dir, approver="ask")
        await handle
        with pytest.raises(InvalidOptionError) as refused:
            handle.approve(approver_id=secret)
        _refused(refused.value, secret)
        assert handle.pending, "the draft still waits after a refused decision"
        handle.approve(approver_id="ana")
        await handle.wait()

    asyncio.run(main())
    assert _files_holding(runs_dir, "hunter2hunter2" if secret == NAMED else secret) == []
    assert noesis_nb.tools_df(runs_dir).approver_id.dropna().tolist() == ["ana"]


def test_approve_draft_and_the_variable_refuse_a_credential_on_disk(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ep = noesis_nb.solve("task", using=_agent, runs_dir=runs_dir, approver="ask")
    run_dir = runs_dir / ep
    with pytest.raises(InvalidOptionError) as given:
        noesis_nb.approve_draft(run_dir, approver_id=TOKEN)
    _refused(given.value, TOKEN)
    monkeypatch.setenv("NOESIS_NB_APPROVER_ID", TOKEN)
    with pytest.raises(InvalidOptionError) as from_env:
        noesis_nb.approve_draft(run_dir)
    _refused(from_env.value, TOKEN)
    assert "NOESIS_NB_APPROVER_ID" in str(from_env.value)
    assert _approval_files(run_dir) == [] or all(TOKEN.encode() not in p.read_bytes() for p in _approval_files(run_dir))
    monkeypatch.delenv("NOESIS_NB_APPROVER_ID")
    noesis_nb.approve_draft(run_dir, approver_id="ana")
    noesis_nb.resume_run(run_dir)
    assert _files_holding(runs_dir, TOKEN) == []
    assert noesis_nb.tools_df(runs_dir).approver_id.dropna().tolist() == ["ana"]


def test_the_magic_refuses_a_credential_as_approver(runs_dir: Path, ip: Any) -> None:
    ep = noesis_nb.solve("task", using=_agent, runs_dir=runs_dir, approver="ask")
    with pytest.raises(Exception) as refused:
        ip.run_line_magic("noesis", f"approve {runs_dir / ep} --approver-id {TOKEN}")
    _refused(refused.value, TOKEN)
    assert _files_holding(runs_dir, TOKEN) == []
