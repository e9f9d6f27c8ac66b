"""An approver policy's reason is kept to the rule a person's reason is (``check_free_text``): no control character
but TAB and line ends, no bidi control, at most ``MAX_TEXT`` characters. A policy is code, so its reason is made
safe instead of refused (refusing would fail the episode over a reason): the refused characters written as escapes,
a long reason cut with a ``[cut: N characters]`` marker. Everywhere the reason goes: the decision record, the
``tool.rejected.governance`` event, ``tools_df`` and the ``ToolRejected`` message."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.runtime.steer import MAX_TEXT, check_free_text

LONG = "r" * (MAX_TEXT + 10_000)
HIDDEN = "bad\x07reason\u202e\x1b[31m"


def _adapter(marker: Path) -> Any:
    async def adapter(task: str, ctx: Any) -> Any:
        argv = [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')"]
        try:
            return (await ctx.tool_async("fs.append", {"argv": argv}, effect="write", risk="high"))["returncode"]
        except Exception as exc:
            return f"{type(exc).__name__}: {exc}"

    return adapter


def _run(tmp_path: Path, verdict: Any) -> Any:
    async def main() -> Any:
        handle = noesis_nb.start("t", using=_adapter(tmp_path / "ran"), approver=lambda pending: verdict, runs_dir=tmp_path)
        await asyncio.wait_for(handle.wait(), 60)
        return handle

    return asyncio.run(main())


def _recorded_reasons(handle: Any, rejecting: bool = True) -> list[str]:
    """The reason as each place that shows it holds it."""
    run_dir = Path(handle.run_dir)
    approvals = [json.loads(p.read_text()) for p in sorted((run_dir / "tool_invocations" / "approvals").glob("*.json"))]
    reasons = [str(a["reason"]) for a in approvals]
    assert reasons, "no decision recorded"
    events = [json.loads(line) for line in (run_dir / "events.jsonl").read_text().splitlines()]
    rejected = [e for e in events if "tool.rejected.governance" in json.dumps(e)]
    assert bool(rejected) == rejecting, "a rejection's tool.rejected.governance event, none for an approval"
    reasons += [text for event in rejected for text in _texts(event) if "reason" in text]  # its reason, as read back
    frame = noesis_nb.tools_df(tmp_root(run_dir))
    reasons += [str(v) for v in frame["decision_reason"].dropna()]
    return reasons


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v)]
    return []


def tmp_root(run_dir: Path) -> Path:
    return run_dir.parent


@pytest.mark.parametrize("form", ["tuple", "dict"])
def test_a_reason_with_hidden_characters_is_kept_escaped(tmp_path: Path, form: str) -> None:
    verdict = (False, HIDDEN) if form == "tuple" else {"approve": False, "reason": HIDDEN}
    handle = _run(tmp_path, verdict)
    assert not (tmp_path / "ran").exists()
    result = handle.result()
    assert result.startswith("ToolRejected")
    for shown in [result, *_recorded_reasons(handle)]:
        check_free_text(shown, "the recorded reason")  # a person's rule holds
        assert "\u202e" not in shown and "\x07" not in shown and "\x1b" not in shown
        assert "bad" in shown and "reason" in shown  # the readable part stays


@pytest.mark.parametrize(
    ("reason", "head"),
    [(LONG, "r" * 1000), ("\u202e" * (MAX_TEXT - 1), "\\u202e" * 100)],
    ids=["over the limit", "over it once escaped"],
)
def test_a_long_reason_is_cut_to_a_persons_limit_with_a_marker(tmp_path: Path, reason: str, head: str) -> None:
    handle = _run(tmp_path, (False, reason))
    assert not (tmp_path / "ran").exists()
    approvals = list((Path(handle.run_dir) / "tool_invocations" / "approvals").glob("*.json"))
    stored = json.loads(approvals[0].read_text())["reason"]
    check_free_text(stored, "the recorded reason")
    assert stored.startswith(head) and stored.endswith(f"[cut: {len(reason):,} characters]")
    assert reason not in handle.result()
    for shown in _recorded_reasons(handle):
        check_free_text(shown, "the recorded reason")
        assert reason not in shown


def test_an_approving_policy_s_reason_is_made_safe_too(tmp_path: Path) -> None:
    handle = _run(tmp_path, (True, HIDDEN))
    assert (tmp_path / "ran").exists()
    for shown in _recorded_reasons(handle, rejecting=False):
        check_free_text(shown, "the recorded reason")
