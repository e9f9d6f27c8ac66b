"""The side-by-side replay's table of aligned steps names each step as the views name a tool or a model:
one bounded line, every invisible character shown. A 300-character model name ran the table past the
view (its time columns out of sight), and ``gpt-4o`` + a word joiner read as ``gpt-4o``."""

from __future__ import annotations

import html
import re
from pathlib import Path

import noesis_nb
from tests.frames.runkit import event, model_call, write_run

LONG = "gpt-4o-" + "n" * 300


def _runs(root: Path) -> list[Path]:
    t = [f"2025-03-01T10:00:{s:02d}+00:00" for s in range(0, 60, 10)]
    dirs = []
    for ep, model in (("ep_cmp_a", LONG), ("ep_cmp_b", "gpt-4o\u2060")):
        dirs.append(
            write_run(
                root,
                ep,
                [
                    event(ep, 0, "start", {"task": "t"}, ts=t[0]),
                    model_call(ep, 1, t[1], model, "openai", input_tokens=10, output_tokens=1),
                    event(ep, 2, "terminate", {"status": "ok"}, ts=t[2]),
                ],
                summary={"episode_id": ep, "task": "t", "status": "ok", "started_at": t[0], "duration_sec": 20.0},
            )
        )
    return dirs


def test_step_names_in_the_aligned_table_are_bounded_and_read_apart(tmp_path: Path, comm_log: list) -> None:
    a, b = _runs(tmp_path / "runs")
    compare = noesis_nb.replay(a, compare=b)
    table = compare.steps.value
    names = [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<tr[^>]*><td>(.*?)</td>", table)]
    models = [n for n in names if n.startswith("model:")]
    assert len(models) == 2, names
    assert all(len(n) <= 100 for n in models), [len(n) for n in models]
    assert any(n.startswith("model:gpt-4o-nnn") and "…" in n for n in models), models
    assert any(n.startswith("model:gpt-4o\ufffd #1") for n in models), [ascii(n) for n in models]  # the joiner shown
    assert "overflow-wrap:anywhere" in compare._repr_mimebundle_()["text/html"]
