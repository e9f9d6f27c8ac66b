"""An approval card sends a bounded preview of a tool's arguments to the page, whatever their size: each part,
the number of parts and a payload are cut, with how many bytes more there are and where the whole value is; what
is sent is still escaped and redacted (a secret cut in two leaves no head), and the whole value stays in Python."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import noesis_nb
from noesis_nb.runtime.gate import PendingApproval
from noesis_nb.widgets import show
from noesis_nb.widgets.cards import pending_html

SECRET = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789abcd"
HUGE = 120_000  # one argument or variable: under the OS's 128 KiB per entry (the contract refuses more)


def _argv(marker: Path) -> list[str]:
    head = "<script>alert(1)</script> "
    big = head + "x" * (1990 - len(head)) + SECRET + " " + "y" * HUGE  # the secret straddles the cut at 2,000 characters
    bulky = [f"bulk{i}:" + "b" * 100_000 for i in range(12)]  # with ``big``, 1.3 MB of arguments (under ARG_MAX)
    return [sys.executable, "-c", f"open({str(marker)!r}, 'a').write('x')", big, *bulky, *[f"arg{i}" for i in range(500)]]


def _agent(argv: list[str]) -> Any:
    async def agent(task: str, ctx: Any) -> Any:
        return await ctx.tool_async("fs.append", {"argv": argv, "env": {"BIG": "z" * HUGE}}, effect="write", risk="high")

    return agent


def _sent_bytes(log: list[Any]) -> int:
    return sum(size for _, _, size, _ in log)


def test_a_multi_megabyte_argv_is_sent_as_a_preview(runs_dir: Path, tmp_path: Path, comm_log: list) -> None:
    argv = _argv(tmp_path / "effect.txt")
    ep = noesis_nb.solve("a task", using=_agent(argv), runs_dir=runs_dir, approver="ask")
    view = show(runs_dir / ep)
    [card] = view.approvals.cards.values()
    body = card.body.value
    assert len(body) < 30_000 and _sent_bytes(comm_log) < 400_000  # megabytes of arguments, kilobytes on the wire
    assert "<script>" not in body and "&lt;script&gt;" in body
    assert "sk-proj" not in body and "ABCDEFGHIJ" not in body  # cut inside the secret: redacted before the cut
    notes = re.findall(r"… ([\d,]+) bytes more", body)
    assert notes, body[-2000:]
    whole = card.pending.redacted_payload["argv"][3]
    assert len(whole) > HUGE  # the whole value stays reachable from Python
    assert f"{len(whole.encode()) - 2000:,}" in notes  # how much of that argument is left out, in bytes
    assert "redacted_payload[&#x27;argv&#x27;][3]" in body  # and where to read it whole
    assert "more items" in body and "arg499" not in body  # 500 arguments: the first ones, then a count
    assert f"{len('BIG=') + HUGE - 2000:,}" in notes  # the environment's value is cut too (BIG=zzz…)
    view.close()


def test_a_payload_is_cut_the_same_way() -> None:
    payload = {"path": "/tmp/x", "content": "<b>" + "c" * 1_000_000, "token": SECRET}
    p = PendingApproval(
        draft_id="d1",
        request_id="r1",
        tool="fs.write_file",
        protocol="python",
        effect_kind="write",
        risk_tier="high",
        redacted_payload=payload,
        command_line=None,
        fingerprint="f",
        impact_hash=None,
        requested_at="",
    )
    html = pending_html(p)
    assert len(html) < 10_000 and "bytes more" in html
    assert "<b>" not in html.replace("<b>fs.write_file</b>", "").replace("<b>wants approval</b>", "").replace(
        '<b class="nnb-c-red">high</b>', ""
    ).replace('<b class="nnb-c-orange">', "")
    assert SECRET not in html
