"""The tool records of a sealed run: read as written only when the seal lists each one, unchanged.

The seal (``store.seal``) binds the name, size and modification time of every file under
``tool_invocations/``; a record planted in a sealed run, or edited after the seal, is redacted by
``tools_df`` as a foreign run's is, while the records noesis_nb wrote are read as they are on disk.
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.frames import Column, tools
from tests.frames.runkit import writer_adapter
from tests.hardening.secret_corpus import corpus, leaks

SHAPES = corpus(random.SystemRandom().randrange(2**32))


@pytest.fixture()
def run(tmp_path: Path) -> Path:
    """A run noesis_nb wrote and sealed, with a draft approved and executed (its records on disk)."""
    runs = tmp_path / "runs"
    episode_id = noesis_nb.solve("write a file", using=writer_adapter, runs_dir=runs, approver="auto")
    assert (runs / episode_id / "manifest.json").exists()
    return runs / episode_id


def _records(run: Path) -> list[Path]:
    return sorted(p for p in (run / "tool_invocations").rglob("*.json") if p.is_file())


def _blob(df: Any) -> bytes:
    return (df.to_json(default_handler=str, date_format="iso") + json.dumps(df.attrs, default=str)).encode()


def _count_screening(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    shown = tools.shown_value
    monkeypatch.setattr(tools, "shown_value", lambda value: (calls.append(1), shown(value))[1])
    return calls


def test_a_tool_record_planted_in_a_sealed_run_is_redacted(run: Path) -> None:
    draft = f"draft:{run.name}:planted"
    docs = {
        "prepared": {"draft_id": draft, "request_id": "planted", "protocol": "python", "status": "approved"},
        "approvals": {"draft_id": draft, "status": "approved", "approver_id": "ana", "reason": SHAPES[0].text},
        "executions": {"status": "succeeded", "reason_code": SHAPES[1].text},
    }
    for folder, doc in docs.items():
        (run / "tool_invocations" / folder).mkdir(parents=True, exist_ok=True)
        (run / "tool_invocations" / folder / f"{draft}.json").write_text(json.dumps(doc))
    shown = noesis_nb.tools_df(run.parent, cache=False, progress=False)
    assert draft in shown["draft_id"].tolist()
    assert leaks(SHAPES[:2], [("tools_df", _blob(shown))]) == []


@pytest.mark.parametrize("keep_time", [False, True])
def test_a_tool_record_edited_after_the_seal_is_redacted(run: Path, keep_time: bool) -> None:
    """An edit changes the record's size; setting its old time back does not hide that."""
    [approval] = [p for p in _records(run) if p.parent.name == "approvals"]
    before = approval.stat()
    doc = json.loads(approval.read_text())
    doc["reason"] = SHAPES[0].text
    time.sleep(0.02)
    approval.write_text(json.dumps(doc))
    if keep_time:
        os.utime(approval, ns=(before.st_atime_ns, before.st_mtime_ns))
    shown = noesis_nb.tools_df(run.parent, cache=False, progress=False)
    assert leaks(SHAPES[:1], [("tools_df", _blob(shown))]) == []


def test_a_sealed_runs_own_tool_records_are_read_as_written(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count_screening(monkeypatch)
    on_disk = {p.parent.name: json.loads(p.read_text()) for p in _records(run)}
    assert {"approvals", "executions"} <= set(on_disk)
    columns = [Column("approval", "approval"), Column("execution", "execution")]
    shown = noesis_nb.tools_df(run.parent, columns=columns, cache=False, progress=False)
    assert calls == []
    assert shown["approval"].tolist() == [on_disk["approvals"]]
    assert shown["execution"].tolist() == [on_disk["executions"]]
