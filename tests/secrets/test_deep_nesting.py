"""A value nested deeper than the scan reads is redacted whole, not a RecursionError that fails the frame.

A run another program wrote (or a crafted one) may hold JSON nested up to 1,024 deep (what ``orjson`` parses); the
recursive walk of the scan gave up past some 490 levels, and ``events_df`` of the whole root raised.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import noesis_nb
from noesis_nb.secrets import REDACTED_VALUE, redact
from noesis_nb.secrets.scan import MAX_DEPTH

FIXTURE = Path(__file__).parents[1] / "fixtures" / "noesis-smoke-run" / "ep_01K9RBBMXXRSFWR49SXFGF4SPR"
TOKEN = "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def _nested(depth: int) -> str:
    return "[" * depth + f'"{TOKEN}"' + "]" * depth


def test_a_run_holding_a_payload_nested_1000_deep_is_read(tmp_path: Path) -> None:
    run = tmp_path / FIXTURE.name
    shutil.copytree(FIXTURE, run)
    lines = (run / "events.jsonl").read_text().splitlines()
    first = lines[0].replace('"payload": {', '"payload": {"deep": ' + _nested(1000) + ", ", 1)
    first = first.replace('"payload":{', '"payload":{"deep":' + _nested(1000) + ",", 1)
    assert first != lines[0]
    (run / "events.jsonl").write_text("\n".join([first, *lines[1:]]) + "\n")
    for frame in (noesis_nb.events_df, noesis_nb.usage_df, noesis_nb.tools_df):
        frame(tmp_path)  # read, not raised
    events = noesis_nb.events_df(tmp_path)
    payload = next(p for p in events["payload"] if isinstance(p, dict) and "deep" in p)
    value, depth = payload["deep"], 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert value == REDACTED_VALUE and depth <= MAX_DEPTH


def test_redact_reads_to_the_depth_and_redacts_below_it() -> None:
    shallow = [[{"note": f"token {TOKEN}"}]]
    assert TOKEN not in str(redact(shallow)[0]) and "token" in str(redact(shallow)[0])
    deep: object = {"note": f"token {TOKEN}", "plain": "kept"}
    for _ in range(MAX_DEPTH + 300):
        deep = {"k": [deep]}
    out, hits = redact(deep)
    levels = 0
    while isinstance(out, dict):  # {"k": [ ... ]}: two levels each
        out, levels = out["k"], levels + 1
        out = out[0] if isinstance(out, list) else out
        levels += 1
    assert hits and out == REDACTED_VALUE and levels <= MAX_DEPTH
