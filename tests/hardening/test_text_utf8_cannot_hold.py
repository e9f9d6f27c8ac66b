"""Text UTF-8 cannot hold — a lone surrogate, as a JSON ``"\\ud800"`` escape or a ``surrogateescape``
decode of a file name gives — in what a caller passes (task, tags, inputs) and what an adapter writes.

The run is made and sealed anyway: such a character is kept as its escape (``\\ud800``), the rest
of the text unchanged, and nothing is left behind when making a run fails (no ``.creating`` folder).
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import noesis_nb

from ..compat.checker import check_run

LONE = "\ud800"


def test_lone_surrogates_in_task_tags_inputs_and_payload_keys_are_kept_as_escapes(tmp_path: Path) -> None:
    def agent(task, ctx):
        ctx.emit("note", {f"key{LONE}": f"value{LONE}"})
        return f"answer{LONE}"

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        episode = noesis_nb.solve(
            f"task{LONE}",
            using=agent,
            runs_dir=tmp_path,
            tags={f"tag{LONE}": f"v{LONE}"},
            inputs={"nested": [f"in{LONE}", {f"k{LONE}": 1}]},
        )
    run = tmp_path / episode
    assert [p.name for p in tmp_path.iterdir()] == [episode], "a staging folder was left"
    state = json.loads((run / "state.json").read_text())
    assert state["goal"]["task"] == "task\\ud800"
    violations = check_run(run)
    assert not violations, [f"{v.rule}: {v.message}" for v in violations]
    assert noesis_nb.runs_df(tmp_path, strict=True)["task"].tolist() == ["task\\ud800"]
    notes = noesis_nb.events_df(tmp_path, strict=True).query("phase == 'note'")["payload"].tolist()
    assert notes == [{"key\\ud800": "value\\ud800"}], notes
