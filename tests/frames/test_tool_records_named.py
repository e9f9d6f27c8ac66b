"""A tool record is its draft's by its file name: one that names another draft inside is reported, not read.

``tools_df`` keyed records by the ``draft_id`` written inside them: a record rewritten to claim another
draft replaced that draft's row with its own tool, with no error (``DiskRun`` and the approval path
already refuse such a file).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import noesis_nb


def _two_tools(task: str, ctx) -> int:
    ctx.tool("a", {"argv": ["true"]}, effect="read", risk="low")
    ctx.tool("b", {"argv": ["false"]}, effect="read", risk="low")
    return 0


@pytest.mark.parametrize("strict", [False, True])
def test_a_record_naming_another_draft_is_reported_and_replaces_nothing(tmp_path: Path, strict: bool) -> None:
    episode = noesis_nb.solve("t", using=_two_tools, runs_dir=tmp_path, approver="auto")
    before = noesis_nb.tools_df(tmp_path).set_index("draft_id")
    first, second = sorted((tmp_path / episode / "tool_invocations" / "prepared").glob("*.json"))
    claim = json.loads(second.read_text())
    claim["draft_id"] = json.loads(first.read_text())["draft_id"]
    second.write_text(json.dumps(claim))
    if strict:
        with pytest.raises(noesis_nb.errors.NoesisNbError, match="as its name says"):
            noesis_nb.tools_df(tmp_path, strict=True)
        return
    after = noesis_nb.tools_df(tmp_path).set_index("draft_id")
    reasons = [e["reason"] for e in after.attrs["errors"]]
    assert any("as its name says" in r for r in reasons) and all(e["path"].endswith(second.name) for e in after.attrs["errors"])
    claimed = claim["draft_id"]
    assert after.loc[claimed, "tool"] == before.loc[claimed, "tool"]  # the draft named keeps its own record
