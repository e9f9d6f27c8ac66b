"""A value the run knows (an environment secret, a password its task gave) streamed one short piece per event, as a
model streams tokens: no piece holds it, the pieces joined do. None of the run's files, and neither ``events_df`` nor
``shown`` of the joined deltas, holds it again, whether more text follows it in the stream or it ends the stream (read
at the seal)."""

from __future__ import annotations

import json
from pathlib import Path

from .child import clean_env, run_child

_CHILD = r"""
import json, sys
import noesis_nb
from noesis_nb.secrets import shown

root, env_value, task_value = sys.argv[1:4]

def agent(task, ctx):
    for size, value in ((5, env_value), (3, task_value)):
        for i in range(0, len(value), size):
            ctx.emit("model", {"delta": value[i : i + size]})
        ctx.emit("model", {"delta": " next "})
    for i in range(0, len(env_value), 4):  # the stream ends with it: read at the seal
        ctx.emit("model", {"delta": env_value[i : i + 4]})
    return "ok"

episode = noesis_nb.solve("login with password=" + task_value + " now", using=agent, runs_dir=root)
deltas = [p.get("delta") for p in noesis_nb.events_df(root + "/" + episode, phases="model")["payload"]]
joined = "".join(d or "" for d in deltas)
print(json.dumps({"episode": episode, "joined": joined, "shown": shown(joined)}))
"""


def test_a_known_value_streamed_in_pieces_is_in_no_file_nor_view(tmp_path: Path) -> None:
    env_value, task_value = "Sunset!Harbor2024xyz", "Maple#Otter2025qrs"
    root = tmp_path / "runs"
    report = run_child(_CHILD, str(root), env_value, task_value, env=clean_env(DB_PASSWORD=env_value))
    lines = [json.loads(line) for line in (root / report["episode"] / "events.jsonl").read_text().splitlines()]
    written = "".join(e["payload"].get("delta") or "" for e in lines if e.get("phase") == "model")
    assert written.count(" next ") == 2  # the stream's other text is kept
    files = "\n".join(p.read_text("utf-8", "replace") for p in (root / report["episode"]).rglob("*") if p.is_file())
    for value in (env_value, task_value):
        for text in (written, report["joined"], report["shown"], files):
            assert value not in text and value[:-3] not in text, value
