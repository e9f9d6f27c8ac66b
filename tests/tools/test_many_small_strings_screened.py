"""A governed tool call whose arguments and result are many short strings (a table's rows) is screened in time
linear in their number, at about what ``ctx.emit`` of the same rows costs: each short text was read by the whole
detector suite (some milliseconds a text, most of it spent compiling the gates' literal searches again), seven times
over, and past the short texts' memo (8,192 texts) every time, so 5,000 rows held the notebook's loop 49 s where
emitting them took 1 s. Counted by the detectors' full reads of the rows' texts, and bounded by the loop's CPU for
the same rows emitted, measured in the same test (CPU time: it holds under load)."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import pytest

import noesis_nb
from noesis_nb.secrets import text as detectors
from tests.integrations.loop_cpu import loop_cpu

_TABLES = itertools.count(1)
GITHUB = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
PASSWORD = "Zq7xk7Wv-hunter-42"


def _rows(n: int, *, secrets: bool) -> dict[str, str]:
    """``n`` short distinct rows, unique to this call (no verdict on an equal text is kept from before), the first
    two holding a secret when ``secrets``."""
    table = next(_TABLES)
    rows = {f"user{i}t{table}": f"row number {i} of table {table}" for i in range(n)}
    if secrets:
        rows[f"user0t{table}"] = f"password={PASSWORD} for row 0"
        rows[f"user1t{table}"] = f"token {GITHUB}"
    return rows


def _echo(rows: dict[str, str]) -> dict[str, str]:
    return dict(rows)


def _run(runs_dir: Path, rows: dict[str, str], *, emit: bool) -> tuple[Any, float]:
    """A run whose agent passes ``rows`` to a python tool that returns them (or emits them, ``emit``); the run and
    the loop's CPU seconds."""

    async def agent(task: str, ctx: Any) -> Any:
        if emit:
            ctx.emit("note", {"rows": rows})
            return len(rows)
        out = await ctx.tool_async("table.echo", {"args": [rows]}, protocol="python", fn=_echo, effect="read", risk="low")
        return len(out)

    async def main() -> Any:
        handle = noesis_nb.start("rows", using=agent, approver="auto", runs_dir=runs_dir)
        await asyncio.wait_for(handle, 600)
        return handle

    with loop_cpu() as spent:
        handle = asyncio.run(main())
    assert handle.status == "ok", handle.error
    return handle, sum(spent)


def test_each_short_row_is_cleared_without_the_full_detector_read(runs_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Of 3,000 rows passed in and returned, the two holding a secret are read by the detectors (and redacted in
    every file); a plain row is cleared by the prefilter. Before, each of the 6,000 texts was read (at least once)."""
    rows = _rows(3000, secrets=True)
    texts = {*rows, *rows.values()}
    reads: list[str] = []
    find = detectors._find

    def counted(text: str, entropy: bool) -> set[str]:
        if text in texts:
            reads.append(text)
        return find(text, entropy)

    monkeypatch.setattr(detectors, "_find", counted)
    handle, _ = _run(runs_dir, rows, emit=False)
    files = b"".join(p.read_bytes() for p in handle.run_dir.rglob("*") if p.is_file())
    assert PASSWORD.encode() not in files and GITHUB[4:20].encode() not in files
    assert b"row number 2999 of table" in files  # the rows themselves are written (redacted), so they were screened
    read_rows = set(reads)
    assert {rows[k] for k in list(rows)[:2]} <= read_rows  # the secret rows are read by the detectors
    assert len(read_rows) <= 4, sorted(read_rows)[:10]  # and the other 5,998 texts are not


def test_the_gates_make_their_literal_searches_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Screening distinct short texts that the detectors read compiles no pattern per text (it compiled some 65 a
    text, re's own memo of 512 patterns overrun by them)."""
    texts = [f"password=Zq{i}xk7Wv-{i} and token={i}abcdef" for i in range(300)]
    detectors.find_in_text(texts[0])  # (the detectors load and compile their patterns once)
    compiled: list[str] = []
    compile_ = re.compile

    def counted(pattern: Any, flags: int = 0) -> Any:
        compiled.append(pattern)
        return compile_(pattern, flags)

    monkeypatch.setattr(re, "compile", counted)
    for i, text in enumerate(texts[1:], 1):
        assert f"Zq{i}xk7Wv-{i}" in detectors.find_in_text(text)  # (each is read: a secret in it is found)
    assert len(compiled) < len(texts), len(compiled)


def test_many_short_rows_cost_the_loop_about_what_emitting_them_costs(runs_dir: Path, tmp_path: Path) -> None:
    """The loop's CPU for 5,000 rows passed to a tool and returned is within 4x that for the same number emitted in
    one event (1.0 s emitted against 49 s through the tool before), and 5,000 rows cost within 12x of 500 (the
    cheapest of two runs each: load only adds)."""
    _run(tmp_path / "warm", _rows(50, secrets=True), emit=False)  # (the detectors load once per process)
    cost: dict[tuple[int, bool], float] = {}
    for n, emit, attempt in itertools.product((500, 5000), (False, True), range(2)):
        _, spent = _run(tmp_path / f"r{n}{emit}{attempt}", _rows(n, secrets=False), emit=emit)
        cost[n, emit] = min(cost.get((n, emit), spent), spent)
    assert cost[5000, False] <= 4 * cost[5000, True] + 0.2, cost
    assert cost[5000, False] <= 12 * cost[500, False], cost
