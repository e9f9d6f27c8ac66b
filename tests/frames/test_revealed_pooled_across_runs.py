"""What a run read from disk reveals as a secret is hidden wherever a frame of the same load shows it.

A run's tool record may name a secret (a draft's ``env: {"DB_PASSWORD": …}``) that a later event echoes bare; a run
may name a password (``PGPASSWORD=…``) that another run of the same root echoes in its events and its task. Each
value is hidden in every frame (``events_df``, ``runs_df``, ``tools_df``, ``usage_df``), in ``show`` and in
``list_runs``, also when the echoing run's rows were cached before the run revealing it appeared.
"""

from __future__ import annotations

import json
from pathlib import Path

import noesis_nb
from noesis_nb.store import list_runs

from .runkit import event, fresh_password, write_run

A = "ep_01M98FQE2ZPFVGQYX4KT3HAAAA"
B = "ep_01M98FQE2ZPFVGQYX4KT3HBBBB"
C = "ep_01M98FQE2ZPFVGQYX4KT3HCCCC"


def _ts(n: int) -> str:
    return f"2026-12-07T10:00:{n:02d}.000000+00:00"


def _run(root: Path, ep: str, payloads: list[tuple[str, dict]], task: str = "a task") -> Path:
    events = [event(ep, i + 1, phase, payload, ts=_ts(i + 1)) for i, (phase, payload) in enumerate(payloads)]
    return write_run(
        root,
        ep,
        events,
        summary={"episode_id": ep, "task": task, "outcome": "success", "duration_sec": 3.0},
        state={"episode_id": ep, "status": "ok", "task": task},
    )


def _html(run: Path) -> str:
    bundle = noesis_nb.show(run)._repr_mimebundle_()
    bundle = bundle[0] if isinstance(bundle, tuple) else bundle
    return bundle.get("text/html", "")


def _all_text(df) -> str:
    return df.astype(str).to_string() + repr(df.to_dict("records"))


def test_a_value_a_tool_record_names_is_hidden_where_an_event_echoes_it(tmp_path: Path) -> None:
    value = fresh_password()
    run = _run(tmp_path, A, [("start", {"task": "x"}), ("reason", {"text": f"retrying with {value}"})])
    for folder, record in (
        ("prepared", {"draft_id": "d1", "payload": {"normalized_payload": {"env": {"DB_PASSWORD": value}}}}),
        ("approvals", {"draft_id": "d2", "decision": "approve", "note": {"password": value}}),
    ):
        (run / "tool_invocations" / folder).mkdir(parents=True, exist_ok=True)
        (run / "tool_invocations" / folder / f"{record['draft_id']}.json").write_text(json.dumps(record))

    events = noesis_nb.events_df(tmp_path)
    assert len(events) == 2
    assert value not in _all_text(events)
    assert "retrying with" in repr(list(events.payload))  # the text around it is kept
    assert value not in _html(run)


def test_a_value_one_run_reveals_is_hidden_in_every_run_of_the_load(tmp_path: Path) -> None:
    value = fresh_password()
    _run(tmp_path, A, [("start", {"task": "x"}), ("reason", {"cmd": f"PGPASSWORD={value} psql -h db"})])
    _run(tmp_path, B, [("start", {"task": "x"}), ("reason", {"text": f"the value was {value}"})], task=f"check {value}")

    for frame in ("events_df", "runs_df", "tools_df", "usage_df"):
        df = getattr(noesis_nb, frame)(tmp_path)
        assert value not in _all_text(df), frame
        assert value not in json.dumps(df.attrs["errors"], default=str), frame
    runs = noesis_nb.runs_df(tmp_path)
    assert "check" in str(list(runs[runs.episode_id == B].task))
    listed = list_runs(None, runs_dir=tmp_path)
    assert len(listed) == 2 and value not in repr(list(listed)) and value not in repr(listed.problems)


def test_a_run_added_later_hides_its_value_in_rows_cached_before(tmp_path: Path) -> None:
    value = fresh_password()
    _run(tmp_path, B, [("start", {"task": "x"}), ("reason", {"text": f"the value was {value}"})], task=f"check {value}")
    _run(tmp_path, C, [("start", {"task": "x"}), ("reason", {"text": "nothing here"})])
    # B alone names no secret: its rows show the text as it is, and are cached so
    assert value in repr(list(noesis_nb.events_df(tmp_path).payload))
    assert value in str(list(noesis_nb.runs_df(tmp_path).task))

    _run(tmp_path, A, [("start", {"task": "x"}), ("reason", {"cmd": f"PGPASSWORD={value} psql -h db"})])
    events = noesis_nb.events_df(tmp_path)
    runs = noesis_nb.runs_df(tmp_path)
    assert sorted(set(events.episode_id)) == [A, B, C] and len(runs) == 3
    assert value not in _all_text(events)
    assert value not in _all_text(runs)
    assert "the value was" in repr(list(events[events.episode_id == B].payload))
